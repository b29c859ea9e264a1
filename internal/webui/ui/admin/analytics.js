// Analytics: who came, from where, on what (docs/api.md, "Analytics"). Everything here comes from
// GET /api/analytics (unfiltered totals and chart), GET /api/analytics/breakdown (every ranked
// list, and the chart of a filtered view through its date dimension) and
// GET /api/analytics/realtime. The page's state lives in the URL hash
// (#/analytics/days=30&country=FR), so a filtered view can be bookmarked and the back button
// undoes a filter; clicking a row adds its value as a filter for the whole page.
import { api, query } from './shared/api.js';
import { h } from './shared/dom.js';
import { lineChart } from './chart.js';
import { pageHead } from './ui.js';

const RANGES = [7, 30, 90];

// The filterable dimensions and how the page names them.
const LABELS = {
  page: 'Page', entry_page: 'Entry page', exit_page: 'Exit page', source: 'Source', referrer: 'Referrer',
  utm_source: 'UTM source', utm_medium: 'UTM medium', utm_campaign: 'UTM campaign', country: 'Country',
  device: 'Device', browser: 'Browser', browser_version: 'Browser version', os: 'OS', os_version: 'OS version',
  event: 'Goal', date: 'Day',
};

/** addDays shifts a YYYY-MM-DD date by n days. */
function addDays(day, n) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** flag turns an ISO 3166-1 alpha-2 code into its flag emoji (regional indicators); ZZ has none. */
export function flag(code) {
  if (!/^[A-Z]{2}$/.test(code || '') || code === 'ZZ') return '🌐';
  return String.fromCodePoint(...[...code].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

/** countryName is the English name of a country code, or the code itself. */
function countryName(code) {
  if (code === 'ZZ') return 'Unknown';
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) || code;
  } catch {
    return code;
  }
}

/** parseState reads days and filters from the part of the hash after "analytics/". */
export function parseState(rest) {
  const params = new URLSearchParams(rest || '');
  const days = RANGES.includes(Number(params.get('days'))) ? Number(params.get('days')) : 30;
  const filters = {};
  for (const [k, v] of params) if (k in LABELS) filters[k] = v;
  return { days, filters, exact: params.get('exact') === '1' };
}

function stateHash({ days, filters, exact }) {
  const params = new URLSearchParams({ days: String(days) });
  for (const [k, v] of Object.entries(filters)) params.set(k, v);
  if (exact) params.set('exact', '1');
  return `#/analytics/${params.toString()}`;
}

function pct(x) {
  return `${Math.round((x || 0) * 1000) / 10}%`;
}

/** change renders the difference to the previous period ("+12%", "−3%", "new"). */
function change(now, before) {
  if (before === undefined || before === null) return null;
  let text;
  if (before === 0) text = now === 0 ? '±0' : 'new';
  else {
    const d = Math.round(((now - before) / before) * 100);
    text = `${d > 0 ? '+' : d < 0 ? '−' : '±'}${Math.abs(d)}%`;
  }
  return h('div', { class: 'muted delta', title: `previous period: ${before}` }, `${text} vs previous`);
}

function stat(label, value, id, before) {
  return h('div', { class: 'stat', id }, h('div', { class: 'value' }, String(value)), h('div', { class: 'label' }, label),
    before === undefined ? null : change(typeof value === 'number' ? value : Number.parseFloat(value), before));
}

/** bounceStat shows the bounce rate and the previous period's in percentage points. */
function bounceStat(now, before) {
  return h('div', { class: 'stat', id: 'stat-bounce' }, h('div', { class: 'value' }, pct(now)), h('div', { class: 'label' }, 'Bounce rate'),
    before === null ? null : h('div', { class: 'muted delta' }, `${pct(before)} in the previous period`));
}

export async function render({ rest }) {
  const state = parseState(rest);
  const go = (next) => { location.hash = stateHash(next); };
  // The owner's "today" is the last day of the default report's range (its end is exclusive).
  const probe = await api('GET', '/api/analytics');
  const lastDay = addDays(probe.timeRange.end.slice(0, 10), -1);
  const firstDay = addDays(lastDay, -(state.days - 1));
  const range = { start: firstDay, end: lastDay };
  const filtered = Object.keys(state.filters).length > 0;
  // Filters keep empty values ("utm_source=" is the traffic without one), which query() drops.
  const breakdownURL = (params) => {
    const q = new URLSearchParams({ ...range, ...params });
    for (const [k, v] of Object.entries(state.filters)) q.set(k, v);
    if (state.exact) q.set('exact', 'true');
    return `/api/analytics/breakdown?${q.toString()}`;
  };
  const breakdown = (dimension, extra = {}) => api('GET', breakdownURL({ dimension, compare: 'previous', limit: '10', ...extra }));
  const csvURL = (dimension) => breakdownURL({ dimension, limit: '100', format: 'csv' });

  const panels = [
    ['source', 'Top sources'], ['page', 'Top pages'], ['entry_page', 'Entry pages'], ['exit_page', 'Exit pages'],
    ['country', 'Countries'], ['device', 'Devices'], ['browser', 'Browsers'], ['os', 'Operating systems'],
    ['utm_source', 'UTM sources'], ['utm_medium', 'UTM mediums'], ['utm_campaign', 'UTM campaigns'], ['event', 'Goals'],
  ];
  const [report, realtime, days, ...lists] = await Promise.all([
    filtered ? null : api('GET', `/api/analytics${query({ ...range, compare: 'previous' })}`),
    api('GET', '/api/analytics/realtime'),
    filtered ? breakdown('date', { limit: '100' }) : null,
    ...panels.map(([dim]) => breakdown(dim)),
  ]);

  // Headline figures and the chart: the report when unfiltered; the date breakdown (visits per
  // day of the filtered visits) when filtered.
  let stats;
  let chart;
  const dayList = (from, n) => Array.from({ length: n }, (_, i) => addDays(from, i));
  const current = dayList(firstDay, state.days);
  const previous = dayList(addDays(firstDay, -state.days), state.days);
  if (!filtered) {
    const prev = report.previous || {};
    const bounce = lists[panels.findIndex(([d]) => d === 'device')];
    const sum = (rows, f) => rows.reduce((a, r) => a + f(r), 0);
    const bounced = (rows) => sum(rows, (r) => (r.bounceRate || 0) * r.visits);
    const visits = sum(bounce.rows, (r) => r.visits);
    const prevVisits = sum(bounce.previous.rows, (r) => r.visits);
    stats = [
      stat('Unique visitors', report.visitors.unique, 'stat-unique', prev.visitors && prev.visitors.unique),
      stat('Visits', report.visitors.total, 'stat-visits', prev.visitors && prev.visitors.total),
      stat('Page views', report.pageViews.total, 'stat-views', prev.pageViews && prev.pageViews.total),
      bounceStat(visits ? bounced(bounce.rows) / visits : 0, prevVisits ? bounced(bounce.previous.rows) / prevVisits : null),
    ];
    const byDay = (daily) => Object.fromEntries((daily || []).map((d) => [d.date, d.visitors]));
    const cur = byDay(report.daily);
    const old = byDay(prev.daily);
    chart = lineChart({
      title: `Visitors per day, ${firstDay} to ${lastDay}, beside the previous ${state.days} days`,
      labels: current,
      series: [
        { name: 'Visitors', cls: 'visitors', color: '#2f5bd3', values: current.map((d) => cur[d] || 0) },
        { name: 'Previous period', cls: 'previous', color: '#98a2b3', values: previous.map((d) => old[d] || 0) },
      ],
    });
  } else {
    const by = (rows) => Object.fromEntries((rows || []).map((r) => [r.value, r]));
    const cur = by(days.rows);
    const old = by(days.previous && days.previous.rows);
    const tot = (rows, f) => (rows || []).reduce((a, r) => a + f(r), 0);
    const visits = tot(days.rows, (r) => r.visits);
    const prevVisits = tot(days.previous && days.previous.rows, (r) => r.visits);
    stats = [
      stat('Visits', visits, 'stat-visits', prevVisits),
      stat('Page views', tot(days.rows, (r) => r.pageViews), 'stat-views', tot(days.previous && days.previous.rows, (r) => r.pageViews)),
      bounceStat(visits ? tot(days.rows, (r) => (r.bounceRate || 0) * r.visits) / visits : 0,
        prevVisits ? tot(days.previous.rows, (r) => (r.bounceRate || 0) * r.visits) / prevVisits : null),
    ];
    chart = lineChart({
      title: `Visits per day of the filtered traffic, ${firstDay} to ${lastDay}, beside the previous ${state.days} days`,
      labels: current,
      series: [
        { name: 'Visits', cls: 'visitors', color: '#2f5bd3', values: current.map((d) => (cur[d] ? cur[d].visits : 0)) },
        { name: 'Previous period', cls: 'previous', color: '#98a2b3', values: previous.map((d) => (old[d] ? old[d].visits : 0)) },
      ],
    });
  }

  const select = h('select', { id: 'analytics-range', 'aria-label': 'Time range' },
    RANGES.map((n) => h('option', { value: String(n), selected: n === state.days }, `Last ${n} days`)));
  select.addEventListener('change', () => go({ ...state, days: Number(select.value) }));
  const live = h('span', { class: 'badge live', id: 'realtime', title: 'Visitors with a page view in the last 5 minutes' },
    `${realtime.visitors} ${realtime.visitors === 1 ? 'visitor' : 'visitors'} now`);

  const chips = Object.entries(state.filters).map(([k, v]) => {
    const rest2 = { ...state.filters };
    delete rest2[k];
    return h('button', {
      type: 'button', class: 'secondary chip', 'data-filter': k,
      'aria-label': `Remove the filter ${LABELS[k]} ${v}`, onclick: () => go({ ...state, filters: rest2 }),
    }, `${LABELS[k]}: ${k === 'country' ? `${flag(v)} ${countryName(v)}` : v || '(none)'} ×`);
  });
  const filterBar = h('div', { class: 'row filters', id: 'analytics-filters' },
    chips.length ? [h('span', { class: 'muted' }, 'Filtered by'), chips,
      h('button', { type: 'button', class: 'secondary', id: 'clear-filters', onclick: () => go({ ...state, filters: {} }) }, 'Clear all')]
      : h('span', { class: 'muted' }, 'Click a row to filter the whole page by it.'));

  // A breakdown read from a sample of the visitors (a page, entry/exit page or event involved in a
  // filtered view of a large range) says so, with a link that counts every visit.
  const sampleNote = (data) => (data && data.sampleRate ? h('p', { class: 'muted small sampled' },
    `Estimated from a sample of 1 in ${Math.round(1 / data.sampleRate)} visitors (large range). `,
    h('a', { href: stateHash({ ...state, exact: true }) }, 'Count every visit (slower)')) : null);

  const panel = ([dim, title], data) => {
    const rows = data.rows || [];
    const prevBy = Object.fromEntries(((data.previous && data.previous.rows) || []).map((r) => [r.value, r]));
    const max = Math.max(1, ...rows.map((r) => r.visitors));
    const label = (v) => {
      if (dim === 'country') return `${flag(v)} ${countryName(v)}`;
      if (v === '') return '(none)';
      return v;
    };
    const figure = (r) => {
      if (dim === 'event') return `${r.visitors} · ${pct(r.conversionRate)}`;
      return String(r.visitors);
    };
    return h('section', { class: 'panel breakdown', id: `panel-${dim}`, 'data-dimension': dim },
      h('div', { class: 'row' }, h('h2', {}, title), h('span', { class: 'spacer' }),
        h('a', { href: csvURL(dim), download: `${dim}.csv`, class: 'csv', 'aria-label': `Download ${title} as CSV` }, 'CSV')),
      rows.length === 0 ? h('p', { class: 'muted' }, 'Nothing in this range.')
        : h('ol', { class: 'bars' }, rows.map((r) => {
          const before = prevBy[r.value];
          const hint = [`${r.visits} visits`, `${r.pageViews} page views`];
          if (r.bounceRate !== undefined) hint.push(`bounce rate ${pct(r.bounceRate)}`);
          if (r.events !== undefined) hint.push(`${r.events} events`);
          hint.push(before ? `previous period: ${before.visitors} visitors` : 'none in the previous period');
          const active = state.filters[dim] === r.value;
          return h('li', {},
            h('button', {
              type: 'button', class: 'rowbtn', 'data-value': r.value, 'aria-pressed': active ? 'true' : 'false',
              title: hint.join(' · '),
              onclick: () => go({ ...state, filters: { ...state.filters, [dim]: r.value } }),
            }, h('span', { class: 'mono' }, label(r.value)), h('span', { class: 'spacer' }), h('strong', {}, figure(r))),
            h('div', { class: 'bar', style: { width: `${Math.round((100 * r.visitors) / max)}%` } }));
        })),
      sampleNote(data) || (data.visitorsExact === false ? h('p', { class: 'muted small' }, 'Visitors estimated from daily totals (large range).') : null));
  };

  return h('div', { class: 'analytics' },
    pageHead('Analytics', live, select),
    filterBar,
    h('div', { class: 'stats' }, stats),
    chart,
    filtered ? sampleNote(days) : null,
    h('div', { class: 'grid' }, panels.map((p, i) => panel(p, lists[i]))),
    realtime.pages.length ? h('section', { class: 'panel', id: 'realtime-pages' }, h('h2', {}, 'On the site now'),
      h('ol', { class: 'bars' }, realtime.pages.map((p) => h('li', {}, h('div', { class: 'row' }, h('span', { class: 'mono' }, p.path),
        h('span', { class: 'spacer' }), h('strong', {}, String(p.visitors))))))) : null);
}
