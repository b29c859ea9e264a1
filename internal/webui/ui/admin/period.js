// The period the Overview and Analytics pages report on, decided in one place so that "Last 30
// days" means the same days on both: the owner's today (from the server's default report, in
// the owner's time zone) back the chosen number of days. The choice is kept for the session,
// so moving between the two pages keeps it.
import { base } from './analyticsbase.js';
import { api } from './shared/api.js';
import { h } from './shared/dom.js';

export const PERIODS = [7, 30, 90];
const KEY = 'folio.period';

/** addDays shifts a YYYY-MM-DD date by n days. */
export function addDays(day, n) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** chosenDays is the period in the address (days=N), else the one chosen last, else 30. */
export function chosenDays(params) {
  const n = Number(params && params.get('days')) || Number(sessionStorage.getItem(KEY));
  return PERIODS.includes(n) ? n : 30;
}

/** rememberDays keeps the choice for the other page. */
export function rememberDays(n) {
  sessionStorage.setItem(KEY, String(n));
}

/** dayText shows a YYYY-MM-DD day as "12 May" (with the year when withYear). */
function dayText(day, withYear) {
  const [y, m, d] = day.split('-').map(Number);
  return new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: withYear ? 'numeric' : undefined, timeZone: 'UTC' })
    .format(new Date(Date.UTC(y, m - 1, d)));
}

/**
 * resolvePeriod returns {days, start, end, label, report}: the first and last day (inclusive,
 * owner's zone), a label such as "13 Apr – 12 May 2026", and the server's default report (the
 * last 30 days), which a 30-day page can use as it is.
 */
export async function resolvePeriod(days) {
  const report = await api('GET', base);
  // The report's end is midnight after the owner's today.
  const end = addDays(report.timeRange.end.slice(0, 10), -1);
  const start = addDays(end, -(days - 1));
  const label = `${dayText(start, start.slice(0, 4) !== end.slice(0, 4))} – ${dayText(end, true)}`;
  return { days, start, end, label, report: days === 30 ? report : null };
}

/** periodSelect is the period chooser; onChange(days) runs on a change. */
export function periodSelect(id, days, onChange) {
  const select = h('select', { id, name: id, 'aria-label': 'Period' },
    PERIODS.map((n) => h('option', { value: String(n), selected: n === days }, `Last ${n} days`)));
  select.addEventListener('change', () => {
    rememberDays(Number(select.value));
    onChange(Number(select.value));
  });
  return select;
}
