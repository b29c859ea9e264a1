// Headline figures with their change from the previous period, and ranked rows as Plausible
// draws them: one line per value, the bar behind the label (its length
// the value's share of the largest), the figure at the right. Shared by Overview and Analytics,
// with the country flags (a bundled SVG sprite, flags.svg) and the words for event names.
import { h } from './shared/dom.js';
import { icon } from './ui.js';

const NS = 'http://www.w3.org/2000/svg';

/**
 * flag draws a country's flag from the sprite (decorative: the country's name is beside it);
 * the unknown country ZZ and anything unknown get a globe.
 */
export function flag(code) {
  if (!/^[A-Z]{2}$/.test(code || '') || code === 'ZZ') return icon('globe', 'flag-none');
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'flag');
  svg.setAttribute('viewBox', '0 0 513 342');
  svg.setAttribute('preserveAspectRatio', 'xMidYMid slice');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const use = document.createElementNS(NS, 'use');
  use.setAttribute('href', `/admin/flags.svg#${code}`);
  svg.append(use);
  return svg;
}

let regionNames = null;
/** countryName is the English name of a country code ("Unknown" for ZZ), or the code itself. */
export function countryName(code) {
  if (code === 'ZZ' || !code) return 'Unknown';
  try {
    regionNames = regionNames || new Intl.DisplayNames(['en'], { type: 'region' });
    return regionNames.of(code) || code;
  } catch {
    return code;
  }
}

/**
 * EVENT_NAMES say in words what the booking page and the site report. Custom goals (names a
 * site sends itself, such as "signup") are shown as they are.
 */
export const EVENT_NAMES = {
  modal_opened: 'Opened the booking page', contact_info_submitted: 'Entered name and email', date_selected: 'Chose a date',
  time_selected: 'Chose a time', booking_confirmed: 'Pressed “Confirm”', booking_completed: 'Booked a meeting',
  manage_opened: 'Opened their booking\'s manage link', booking_rescheduled: 'Moved their booking', booking_cancelled: 'Cancelled their booking',
  booking_error: 'Met an error while booking', booking_server_outcome: 'Booking answered by the server',
};

/** ERROR_NAMES say what went wrong in a booking, by error group. */
export const ERROR_NAMES = {
  conflict: 'The time was taken meanwhile', api_failure: 'The server or the calendar failed',
  validation: 'The details were not accepted', abandonment: 'Left before booking',
};

/** eventName is an event (goal) in words. */
export function eventName(name) {
  return EVENT_NAMES[name] || name;
}

/** pct shows a ratio (0..1) as a percentage with at most one decimal. */
export function pct(x) {
  return `${Math.round((x || 0) * 1000) / 10}%`;
}

/**
 * barList draws rows [{value, label (node or text), n, title, share}] with a header row
 * [left, right]. With onPick, each row is a button that calls onPick(value) (pressed: the value
 * now filtered by).
 */
export function barList(rows, { head = ['', ''], onPick, pressed, id } = {}) {
  const max = Math.max(1, ...rows.map((r) => r.n));
  return h('div', { id },
    h('div', { class: 'bars-head', 'aria-hidden': 'true' }, h('span', {}, head[0]), h('span', {}, head[1])),
    h('ol', { class: 'bars' }, rows.map((r) => {
      const fill = h('span', { class: 'fill', style: { width: `${Math.max(0.5, (100 * r.n) / max)}%` } });
      // A bare string is wrapped, so its overflow is cut with an ellipsis.
      const kids = [fill, h('span', { class: 'name', title: r.title || null }, typeof r.label === 'string' ? h('span', {}, r.label) : r.label),
        r.share !== undefined ? h('span', { class: 'share' }, r.share) : null, h('span', { class: 'num' }, String(r.n))];
      return h('li', {}, onPick
        ? h('button', {
          type: 'button', class: 'rowbtn', 'data-value': r.value, 'aria-pressed': String(pressed === r.value),
          onclick: () => onPick(r.value),
        }, kids)
        : h('div', { class: 'brow' }, kids));
    })));
}

/**
 * delta is the change from the previous period: an arrow and a percentage, or nothing when
 * there is no previous figure to compare with (none recorded, or zero).
 */
export function delta(now, before, { points = false, days } = {}) {
  if (before === undefined || before === null || (!points && !before)) return null;
  const d = points ? Math.round((now - before) * 1000) / 10 : Math.round(((now - before) / before) * 100);
  const dir = d > 0 ? 'up' : d < 0 ? 'down' : 'flat';
  const shown = points ? `${Math.abs(d)} pt` : `${Math.abs(d)}%`;
  const was = points ? pct(before) : String(before);
  return h('span', { class: `delta ${dir}`, title: `${was} in the previous ${days} days` },
    dir === 'flat' ? null : icon(dir === 'up' ? 'arrow-up' : 'arrow-down'), dir === 'flat' ? '±0%' : shown,
    h('span', { class: 'visually-hidden' }, ` ${dir === 'up' ? 'more' : dir === 'down' ? 'less' : 'the same'} than the previous ${days} days (${was})`));
}

/** stat is a headline figure with its change. */
export function stat(label, value, id, change) {
  return h('div', { class: 'stat', id }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, String(value)), change);
}
