// A small SVG line chart (no library): one line per series over the same day labels, with a
// data table beside it for screen readers and exact numbers.
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
 * lineChart draws series [{name, color, values}] over labels (strings, one per point) and
 * returns a figure with the chart, a legend and a collapsible table of the numbers.
 */
export function lineChart({ title, labels, series }) {
  const W = 720; const H = 240; const L = 40; const R = 12; const T = 12; const B = 28;
  const max = niceMax(Math.max(0, ...series.flatMap((x) => x.values)));
  const x = (i) => L + (labels.length <= 1 ? 0 : (i * (W - L - R)) / (labels.length - 1));
  const y = (v) => T + (H - T - B) * (1 - v / max);
  const summary = series.map((sr) => `${sr.name}: ${sr.values.reduce((a, b) => a + b, 0)} in all`).join(', ');
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}. ${summary}.` });
  for (let k = 0; k <= 4; k += 1) {
    const v = (max * k) / 4;
    svg.append(s('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#e4e7ec' }));
    svg.append(s('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#667085' }, Number.isInteger(v) ? v : v.toFixed(1)));
  }
  const every = Math.max(1, Math.ceil(labels.length / 8));
  labels.forEach((lab, i) => {
    if (i % every === 0 || i === labels.length - 1) {
      svg.append(s('text', { x: x(i), y: H - 8, 'text-anchor': 'middle', 'font-size': 11, fill: '#667085' }, lab.slice(5)));
    }
  });
  for (const sr of series) {
    const pts = sr.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    svg.append(s('polyline', { points: pts, fill: 'none', stroke: sr.color, 'stroke-width': 2.5, 'stroke-linejoin': 'round' }));
    sr.values.forEach((v, i) => {
      const dot = s('circle', { cx: x(i), cy: y(v), r: 3, fill: sr.color });
      dot.append(s('title', {}, `${labels[i]}: ${v} ${sr.name.toLowerCase()}`));
      svg.append(dot);
    });
  }
  const table = h('table', {}, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Day'), series.map((sr) => h('th', { scope: 'col' }, sr.name)))),
    h('tbody', {}, labels.map((lab, i) => h('tr', {}, h('th', { scope: 'row' }, lab), series.map((sr) => h('td', {}, String(sr.values[i])))))));
  return h('figure', { class: 'chart panel' }, h('h2', {}, title), svg,
    h('div', { class: 'legend' }, series.map((sr) => h('span', {}, h('span', { class: `swatch ${sr.cls}` }), sr.name))),
    h('details', {}, h('summary', {}, 'Show the numbers'), h('div', { class: 'table-wrap' }, table)));
}
