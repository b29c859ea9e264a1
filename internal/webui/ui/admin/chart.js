// A small SVG line chart (no library): one line per series over the same day labels, with a
// data table beside it for screen readers and exact numbers. The y axis has ticks at whole,
// round numbers; x labels are spaced so they never overlap at the drawn width; tapping or
// hovering anywhere on the chart reads out the nearest day (big enough to hit on a phone).
import { h } from './shared/dom.js';

const NS = 'http://www.w3.org/2000/svg';

function s(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const k of kids) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
}

/** niceMax rounds a maximum up to 1, 2 or 5 times a power of ten (at least 1). */
export function niceMax(v) {
  if (v <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/**
 * niceTicks returns the y-axis ticks for data up to max: whole numbers from 0 in steps of 1, 2
 * or 5 times a power of ten, at most maxTicks+1 of them, the last one at or above max.
 */
export function niceTicks(max, maxTicks = 4) {
  const top = Math.max(1, Math.ceil(max));
  let step = 1;
  for (let p = 1; ; p *= 10) {
    const found = [1, 2, 5].map((m) => m * p).find((st) => Math.ceil(top / st) <= maxTicks);
    if (found) { step = found; break; }
  }
  const ticks = [];
  for (let v = 0; v < top + step; v += step) {
    ticks.push(v);
    if (v >= top) break;
  }
  return ticks;
}

/** formatCount shows a tick value compactly (1200 → 1.2k) and always as a whole number below 1000. */
export function formatCount(v) {
  if (v >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (v >= 1e4) return `${Math.round(v / 1e3)}k`;
  if (v >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  return String(Math.round(v));
}

/**
 * labelIndexes picks which of n x labels to draw so that, at slot px apart and label px wide,
 * no two overlap; the first and last are preferred, at a steady stride.
 */
export function labelIndexes(n, slot, labelWidth) {
  if (n <= 0) return [];
  if (n === 1) return [0];
  const stride = Math.max(1, Math.ceil(labelWidth / Math.max(slot, 0.01)));
  const out = [];
  for (let i = 0; i < n; i += stride) out.push(i);
  const last = n - 1;
  if (out[out.length - 1] !== last) {
    // Show the last day too when it does not collide with the previous label; else replace it.
    if ((last - out[out.length - 1]) * slot >= labelWidth) out.push(last);
    else out[out.length - 1] = last;
  }
  if (out.length >= 2 && (out[out.length - 1] - out[out.length - 2]) * slot < labelWidth) out.splice(out.length - 2, 1);
  return out;
}

function dayLabel(iso, long) {
  const [y, m, d] = iso.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return new Intl.DateTimeFormat(undefined, long ? { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' }
    : { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(date);
}

/**
 * lineChart draws series [{name, cls, values}] over labels (YYYY-MM-DD strings, one per point)
 * and returns a figure with the chart, a legend, a readout of the chosen day and a collapsible
 * table of the numbers. compact draws for a narrow screen (fewer, larger labels).
 */
export function lineChart({ title, labels, series, compact = window.matchMedia('(max-width: 600px)').matches }) {
  const W = compact ? 360 : 760; const H = compact ? 220 : 260;
  const FONT = 12;
  // A label like "Nov 12" is about 3.6 font sizes wide; keep a gap of one more. The margins
  // leave room for half a label at each end, so every label can be centred on its day.
  const labelWidth = FONT * 4.6;
  const L = 40; const R = Math.ceil(labelWidth / 2); const T = 14; const B = 30;
  const ticks = niceTicks(Math.max(0, ...series.flatMap((x) => x.values)));
  const max = ticks[ticks.length - 1];
  const plotW = W - L - R;
  const slot = labels.length <= 1 ? plotW : plotW / (labels.length - 1);
  const x = (i) => L + (labels.length <= 1 ? plotW / 2 : i * slot);
  const y = (v) => T + (H - T - B) * (1 - v / max);
  const summary = series.map((sr) => `${sr.name}: ${sr.values.reduce((a, b) => a + b, 0)} in all`).join(', ');
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}. ${summary}.`, class: 'line-chart' });
  for (const v of ticks) {
    svg.append(s('line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    svg.append(s('text', { x: L - 8, y: y(v) + 4, 'text-anchor': 'end', 'font-size': FONT, class: 'y-tick' }, formatCount(v)));
  }
  for (const i of labelIndexes(labels.length, slot, labelWidth)) {
    svg.append(s('text', { x: x(i), y: H - 9, 'text-anchor': 'middle', 'font-size': FONT, class: 'x-tick' }, dayLabel(labels[i], false)));
  }
  const cursor = s('line', { class: 'cursor', x1: 0, x2: 0, y1: T, y2: H - B, visibility: 'hidden' });
  svg.append(cursor);
  const dots = [];
  for (const sr of series) {
    // Colours come from the stylesheet (light and dark themes), by the series' class.
    const pts = sr.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    svg.append(s('polyline', { class: `line ${sr.cls}`, points: pts, fill: 'none', 'stroke-width': 2.5, 'stroke-linejoin': 'round', 'stroke-linecap': 'round' }));
    const dot = s('circle', { class: `dot ${sr.cls}`, r: 4.5, 'stroke-width': 2, visibility: 'hidden' });
    dots.push([sr, dot]);
    svg.append(dot);
  }
  const readout = h('div', { class: 'readout muted', 'aria-live': 'polite' }, compact ? 'Tap the chart to read a day.' : 'Point at the chart to read a day.');
  const show = (i) => {
    cursor.setAttribute('x1', x(i)); cursor.setAttribute('x2', x(i)); cursor.setAttribute('visibility', 'visible');
    for (const [sr, dot] of dots) {
      dot.setAttribute('cx', x(i)); dot.setAttribute('cy', y(sr.values[i])); dot.setAttribute('visibility', 'visible');
    }
    readout.classList.remove('muted');
    readout.replaceChildren(h('strong', {}, dayLabel(labels[i], true)), ': ',
      series.map((sr, k) => `${k ? ', ' : ''}${sr.values[i]} ${sr.name.toLowerCase()}`).join(''));
  };
  const pick = (ev) => {
    if (!labels.length) return;
    const box = svg.getBoundingClientRect();
    const px = ((ev.clientX - box.left) / box.width) * W;
    show(Math.max(0, Math.min(labels.length - 1, Math.round((px - L) / slot))));
  };
  svg.addEventListener('pointerdown', pick);
  svg.addEventListener('pointermove', pick);
  const table = h('table', {}, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day'), series.map((sr) => h('th', { scope: 'col' }, sr.name)))),
    h('tbody', {}, labels.map((lab, i) => h('tr', {}, h('th', { scope: 'row' }, lab), series.map((sr) => h('td', {}, String(sr.values[i])))))));
  return h('figure', { class: 'chart panel' }, h('h2', {}, title), svg, readout,
    h('div', { class: 'legend' }, series.map((sr) => h('span', {}, h('span', { class: `swatch ${sr.cls}` }), sr.name))),
    h('details', {}, h('summary', {}, 'Show the numbers'), h('div', { class: 'table-wrap' }, table)));
}
