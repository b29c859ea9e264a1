// Analytics: who came, from where, on what (docs/api.md, "Analytics"). Headline figures with
// the change from the previous period, the chart, then cards of ranked rows grouped in tabs
// (Sources, Pages, Locations, Devices, Goals with the booking funnel), each tab loaded when
// first shown. Everything comes from GET /api/analytics (unfiltered totals and chart),
// GET /api/analytics/breakdown (every list, and the chart of a filtered view through its date
// dimension), GET /api/analytics/funnel and GET /api/analytics/realtime. The page's state lives
// in the URL hash (#/analytics/days=30&country=FR), so a filtered view can be bookmarked and
// the back button undoes a filter; clicking a row adds its value as a filter for the whole page.
import { api, query } from './shared/api.js';
import { h, replace } from './shared/dom.js';
import { lineChart } from './chart.js';
import { pageHead, tabs, icon, errorText, segmented } from './ui.js';
import { chosenDays, resolvePeriod, periodSelect, addDays } from './period.js';
import { barList, flag, countryName, eventName, ERROR_NAMES, pct, stat, delta } from './bars.js';
import { trackingPanel } from './overview.js';
import { base, isShared } from './analyticsbase.js';

// The filterable dimensions and how the page names them.
const LABELS = {
  page: 'Page', entry_page: 'Entry page', exit_page: 'Exit page', source: 'Source', referrer: 'Referrer',
  utm_source: 'UTM source', utm_medium: 'UTM medium', utm_campaign: 'UTM campaign', country: 'Country',
  device: 'Device', browser: 'Browser', browser_version: 'Browser version', os: 'OS', os_version: 'OS version',
  event: 'Goal', date: 'Day',
};

// The cards and their tabs: [dimension, tab label, column heading]. The Campaigns tab (utm)
// holds the three UTM dimensions, chosen inside it.
const UTM = [['utm_source', 'Source', 'UTM source'], ['utm_medium', 'Medium', 'UTM medium'], ['utm_campaign', 'Campaign', 'Campaign']];
const CARDS = [
  { id: 'sources', title: 'Sources', tabs: [['source', 'Sources', 'Source'], ['referrer', 'Referrers', 'Referrer'], ['utm', 'Campaigns', '']] },
  { id: 'pages', title: 'Pages', tabs: [['page', 'Top pages', 'Page'], ['entry_page', 'Entry pages', 'Entry page'], ['exit_page', 'Exit pages', 'Exit page']] },
  { id: 'locations', title: 'Locations', tabs: [['country', 'Countries', 'Country']] },
  { id: 'devices', title: 'Devices', tabs: [['device', 'Devices', 'Device'], ['browser', 'Browsers', 'Browser'], ['os', 'Operating systems', 'Operating system']] },
  { id: 'goals', title: 'Goals', tabs: [['event', 'Goals', 'Goal'], ['funnel', 'Booking funnel', 'Step']] },
  // What led to bookings, contact messages and subscriptions (GET /api/analytics/conversions).
  { id: 'conversions', title: 'Conversions', tabs: [['conv-source', 'Sources', 'Source'], ['conv-entry_page', 'Entry pages', 'Entry page'],
    ['conv-post', 'Posts read', 'Post'], ['conv-utm_campaign', 'Campaigns', 'Campaign']] },
  // The tracker's opt-in measurements (GET /api/analytics/measurements).
  { id: 'measurements', title: 'Links and errors', tabs: [['measure-outbound_link', 'Outbound links', 'Link'],
    ['measure-file_download', 'Downloads', 'File'], ['measure-not_found', 'Not found', 'Page']] },
];

const DEVICES = { desktop: 'Desktop', mobile: 'Phone', tablet: 'Tablet', unknown: 'Unknown' }; // unknown: imported visits without a device

/** parseState reads the period and filters from the part of the hash after "analytics/". */
export function parseState(rest) {
  const params = new URLSearchParams(rest || '');
  const filters = {};
  for (const [k, v] of params) if (k in LABELS) filters[k] = v;
  return { days: chosenDays(params), filters, exact: params.get('exact') === '1' };
}

function stateHash({ days, filters, exact }) {
  const params = new URLSearchParams({ days: String(days) });
  for (const [k, v] of Object.entries(filters)) params.set(k, v);
  if (exact) params.set('exact', '1');
  return `#/analytics/${params.toString()}`;
}

/** valueLabel shows a dimension's value: a flag and the country's name, a device in words, a goal in words. */
function valueLabel(dim, v) {
  if (dim === 'country') return [flag(v), h('span', {}, countryName(v))];
  if (v === '') return '(none)';
  if (dim === 'device') return DEVICES[v] || v;
  if (dim === 'event') return eventName(v);
  return v;
}

function plainLabel(dim, v) {
  if (dim === 'country') return countryName(v);
  if (v === '') return '(none)';
  return dim === 'device' ? DEVICES[v] || v : dim === 'event' ? eventName(v) : v;
}

export async function render({ rest }) {
  const state = parseState(rest);
  const go = (next) => { location.hash = stateHash(next); };
  const period = await resolvePeriod(state.days);
  const range = { start: period.start, end: period.end };
  const filtered = Object.keys(state.filters).length > 0;
  // Filters keep empty values ("utm_source=" is the traffic without one), which query() drops.
  const breakdownURL = (params) => {
    const q = new URLSearchParams({ ...range, ...params });
    for (const [k, v] of Object.entries(state.filters)) q.set(k, v);
    if (state.exact) q.set('exact', 'true');
    return `${base}/breakdown?${q.toString()}`;
  };
  const breakdown = (dimension, extra = {}) => api('GET', breakdownURL({ dimension, limit: '10', ...extra }));
  const csvURL = (dimension) => breakdownURL({ dimension, limit: '100', format: 'csv' });

  const [report, realtime, days, devices] = await Promise.all([
    filtered ? null : api('GET', `${base}${query({ ...range, compare: 'previous' })}`),
    api('GET', `${base}/realtime`),
    filtered ? breakdown('date', { limit: '100', compare: 'previous' }) : null,
    // Bounce rate per visit comes from the breakdowns; the device one is small.
    filtered ? null : breakdown('device', { compare: 'previous' }),
  ]);

  const select = periodSelect('analytics-range', state.days, (n) => go({ ...state, days: n }));
  const live = h('span', { class: 'badge live', id: 'realtime', title: 'Visitors with a page view in the last 5 minutes' },
    `${realtime.visitors} ${realtime.visitors === 1 ? 'visitor' : 'visitors'} now`);
  const head = pageHead('Analytics', live, h('span', { class: 'muted small nowrap', id: 'period-label' }, period.label), select);

  if (!filtered && !report.pageViews.total && !(report.previous && report.previous.pageViews && report.previous.pageViews.total)) {
    return h('div', { class: 'analytics' }, head, isShared() ? h('p', { class: 'panel muted', id: 'analytics-empty' }, `No visits from ${period.label}.`)
      : trackingPanel('analytics-empty', `No visits from ${period.label}`));
  }

  // Headline figures and the chart: the report when unfiltered; the date breakdown (visits per
  // day of the filtered visits) when filtered.
  const dayList = (from, n) => Array.from({ length: n }, (_, i) => addDays(from, i));
  const current = dayList(period.start, state.days);
  const previous = dayList(addDays(period.start, -state.days), state.days);
  const sum = (rows, f) => (rows || []).reduce((a, r) => a + f(r), 0);
  const bounce = (rows) => {
    const visits = sum(rows, (r) => r.visits);
    return visits ? sum(rows, (r) => (r.bounceRate || 0) * r.visits) / visits : null;
  };
  const opts = { days: state.days };
  let stats;
  let chart;
  if (!filtered) {
    const prev = report.previous || {};
    const prevRows = devices.previous && devices.previous.rows;
    stats = [
      stat('Unique visitors', report.visitors.unique, 'stat-unique', delta(report.visitors.unique, prev.visitors && prev.visitors.unique, opts)),
      stat('Visits', report.visitors.total, 'stat-visits', delta(report.visitors.total, prev.visitors && prev.visitors.total, opts)),
      stat('Page views', report.pageViews.total, 'stat-views', delta(report.pageViews.total, prev.pageViews && prev.pageViews.total, opts)),
      stat('Bounce rate', pct(bounce(devices.rows) || 0), 'stat-bounce', delta(bounce(devices.rows) || 0, prevRows && prevRows.length ? bounce(prevRows) : null, { ...opts, points: true })),
    ];
    const byDay = (daily) => Object.fromEntries((daily || []).map((d) => [d.date, d.visitors]));
    const cur = byDay(report.daily);
    const old = byDay(prev.daily);
    chart = lineChart({
      title: `Visitors per day, ${period.label}, beside the previous ${state.days} days`,
      labels: current,
      series: [
        { name: 'Visitors', cls: 'visitors', values: current.map((d) => cur[d] || 0) },
        { name: 'Previous period', cls: 'previous', values: previous.map((d) => old[d] || 0) },
      ],
    });
  } else {
    const by = (rows) => Object.fromEntries((rows || []).map((r) => [r.value, r]));
    const cur = by(days.rows);
    const oldRows = days.previous && days.previous.rows;
    const old = by(oldRows);
    const visits = sum(days.rows, (r) => r.visits);
    stats = [
      stat('Visits', visits, 'stat-visits', delta(visits, oldRows ? sum(oldRows, (r) => r.visits) : null, opts)),
      stat('Page views', sum(days.rows, (r) => r.pageViews), 'stat-views', delta(sum(days.rows, (r) => r.pageViews), oldRows ? sum(oldRows, (r) => r.pageViews) : null, opts)),
      stat('Bounce rate', pct(bounce(days.rows) || 0), 'stat-bounce', delta(bounce(days.rows) || 0, oldRows && oldRows.length ? bounce(oldRows) : null, { ...opts, points: true })),
    ];
    chart = lineChart({
      title: `Visits per day of the filtered traffic, ${period.label}, beside the previous ${state.days} days`,
      labels: current,
      series: [
        { name: 'Visits', cls: 'visitors', values: current.map((d) => (cur[d] ? cur[d].visits : 0)) },
        { name: 'Previous period', cls: 'previous', values: previous.map((d) => (old[d] ? old[d].visits : 0)) },
      ],
    });
  }

  const chips = Object.entries(state.filters).map(([k, v]) => {
    const rest2 = { ...state.filters };
    delete rest2[k];
    return h('button', {
      type: 'button', class: 'secondary chip', 'data-filter': k,
      'aria-label': `Remove the filter ${LABELS[k]} ${plainLabel(k, v)}`, onclick: () => go({ ...state, filters: rest2 }),
    }, `${LABELS[k]}: ${plainLabel(k, v)}`, icon('x'));
  });
  const importedDays = (d) => `${d.length} ${d.length === 1 ? 'day' : 'days'} of this period (${d[0]}${d.length > 1 ? ` – ${d[d.length - 1]}` : ''})`;
  const filterBar = h('div', { class: 'row filters', id: 'analytics-filters' },
    chips.length ? [h('span', { class: 'muted' }, 'Filtered by'), chips,
      h('button', { type: 'button', class: 'ghost small', id: 'clear-filters', onclick: () => go({ ...state, filters: {} }) }, 'Clear all')]
      : h('span', { class: 'muted small' }, 'Click a row to filter the whole page by it.'));

  // A breakdown read from a sample of the visitors (a page, entry/exit page or event involved in a
  // filtered view of a large range) says so, with a link that counts every visit.
  const sampleNote = (data) => (data && data.sampleRate ? h('p', { class: 'muted small sampled' },
    `Estimated from a sample of 1 in ${Math.round(1 / data.sampleRate)} visitors (large range). `,
    h('a', { href: stateHash({ ...state, exact: true }) }, 'Count every visit (slower)')) : null);

  const fillBreakdown = async (dim, heading, panel) => {
    const data = await breakdown(dim);
    const rows = data.rows || [];
    const total = dim === 'event' ? 0 : sum(rows, (r) => r.visitors);
    const list = rows.length === 0 ? h('p', { class: 'muted' }, 'Nothing in this period.')
      : barList(rows.map((r) => {
        const hint = [`${r.visitors} visitors`, `${r.visits} visits`, `${r.pageViews} page views`];
        if (r.bounceRate !== undefined) hint.push(`bounce rate ${pct(r.bounceRate)}`);
        return {
          value: r.value, label: valueLabel(dim, r.value), n: r.visitors, title: `${plainLabel(dim, r.value)}: ${hint.join(', ')}`,
          share: dim === 'event' ? pct(r.conversionRate) : total ? `${Math.round((100 * r.visitors) / total)}%` : undefined,
        };
      }), {
        head: [heading, dim === 'event' ? 'Conversion · Visitors' : 'Visitors'], pressed: state.filters[dim],
        onPick: (v) => go({ ...state, filters: { ...state.filters, [dim]: v } }),
      });
    replace(panel, list,
      h('div', { class: 'card-foot' }, sampleNote(data) || (data.visitorsExact === false ? h('span', { class: 'muted' }, 'Visitors estimated from daily totals (large period).') : null),
        h('span', { class: 'spacer' }),
        rows.length ? h('a', { href: csvURL(dim), download: `${dim}.csv`, class: 'csv' }, icon('download'), h('span', { class: 'visually-hidden' }, `${heading}s as `), 'CSV') : null));
  };

  const fillFunnel = async (panel) => {
    const res = await api('GET', `/api/analytics/funnel${query(range)}`);
    const errors = (res.errors || []).filter((e) => e.count > 0);
    const abandoned = (res.abandonment || []).filter((a) => a.count > 0);
    replace(panel, h('div', { id: 'funnel' },
      res.steps.some((s) => s.visitors) ? barList(res.steps.map((s) => ({
        value: s.step, label: eventName(s.step), n: s.visitors, share: pct(s.conversionFromStart),
        title: `${eventName(s.step)}: ${s.visitors} visitors, ${pct(s.conversionFromStart)} of those who opened the page, ${pct(s.conversionFromPrevious)} of the step before`,
      })), { head: ['Step', 'Of starts · Visitors'] }) : h('p', { class: 'muted' }, 'Nobody used the booking page in this period.'),
      h('h3', { class: 'small' }, 'Problems'),
      errors.length ? h('ul', { class: 'small', id: 'funnel-errors' }, errors.map((e) => h('li', {},
        `${ERROR_NAMES[e.group] || e.group}: ${e.count} ${e.count === 1 ? 'time' : 'times'} (${e.visitors} ${e.visitors === 1 ? 'visitor' : 'visitors'})`)))
        : h('p', { class: 'muted small', id: 'funnel-errors' }, 'None: nobody met an error.'),
      abandoned.length ? h('p', { class: 'muted small' }, 'Left the booking page after: ',
        abandoned.map((a) => `${a.step ? eventName(a.step).toLowerCase() : 'an unknown step'} (${a.count})`).join(', '), '.') : null));
  };

  // A Conversions tab: per value, its visits, the bookings, contact messages and subscriptions
  // they led to and the share of visits that converted (unfiltered: conversions are kept apart
  // from the visit filters).
  const fillConversions = async (by, heading, panel) => {
    const q = new URLSearchParams({ ...range, by });
    const data = await api('GET', `/api/analytics/conversions?${q.toString()}`);
    const rows = data.rows || [];
    const num = (n) => h('td', { class: 'num' }, String(n));
    const table = rows.length === 0 ? h('p', { class: 'muted' }, 'No bookings, contact messages or subscriptions from tracked visits in this period.')
      : h('table', { class: 'conversions' },
        h('thead', {}, h('tr', {}, h('th', {}, heading), ['Visits', 'Bookings', 'Messages', 'Subscriptions', 'Rate'].map((c) => h('th', { class: 'num' }, c)))),
        h('tbody', {}, rows.map((r) => h('tr', {}, h('td', {}, r.value === '' ? '(none)' : r.value), num(r.visits), num(r.bookings),
          num(r.contacts), num(r.subscriptions), h('td', { class: 'num' }, pct(r.conversionRate))))));
    const u = data.unattributed || {};
    const lost = (u.bookings || 0) + (u.contacts || 0) + (u.subscriptions || 0);
    q.set('format', 'csv');
    replace(panel, table, h('div', { class: 'card-foot' },
      lost ? h('span', { class: 'muted' }, `${lost} without a tracked visit.`) : null,
      h('span', { class: 'spacer' }),
      rows.length ? h('a', { href: `/api/analytics/conversions?${q.toString()}`, download: `conversions-${by}.csv`, class: 'csv' }, icon('download'), 'CSV') : null));
  };

  // A measurement tab: links clicked, files downloaded or missing pages, by visitors.
  const fillMeasurement = async (kind, heading, panel) => {
    const data = await api('GET', `${base}/measurements${query({ ...range, kind, limit: '10' })}`);
    const rows = data.rows || [];
    replace(panel, rows.length === 0
      ? h('p', { class: 'muted small' }, 'Nothing in this period. Turn it on with the tracker attributes data-outbound, data-downloads and data-404.')
      : barList(rows.map((r) => ({ value: r.value, label: r.value, n: r.visitors, title: `${r.value}: ${r.visitors} visitors, ${r.events} times` })),
        { head: [heading, 'Visitors'] }));
  };

  // The Campaigns tab: a choice of UTM tag, each list loaded when first chosen.
  const fillUTM = async (panel) => {
    const key = 'folio.analytics.utm';
    const first = UTM.some(([d]) => d === localStorage.getItem(key)) ? localStorage.getItem(key) : 'utm_campaign';
    const subs = Object.fromEntries(UTM.map(([d]) => [d, h('div', { id: `panel-${d}`, 'data-dimension': d, hidden: d !== first })]));
    const done = new Set();
    const show = (d) => {
      localStorage.setItem(key, d);
      for (const [k, el] of Object.entries(subs)) el.hidden = k !== d;
      if (!done.has(d)) {
        done.add(d);
        fillBreakdown(d, UTM.find(([x]) => x === d)[2], subs[d]).catch((e) => replace(subs[d], h('p', { class: 'status error' }, errorText(e))));
      }
    };
    replace(panel, h('div', { class: 'sub-tabs' }, segmented('UTM tag', UTM.map(([d, label]) => [d, label]), first, show, 'utm-choice')), Object.values(subs));
    show(first);
  };

  // A shared link shows what its routes answer: no booking funnel, no conversions.
  const visible = CARDS.filter((c) => !isShared() || (c.id !== 'conversions' && c.id !== 'measurements'))
    .map((c) => (isShared() ? { ...c, tabs: c.tabs.filter(([d]) => d !== 'funnel') } : c));
  const cards = visible.map((card) => {
    const key = `folio.analytics.${card.id}`;
    const ids = card.tabs.map(([d]) => d);
    const first = ids.includes(localStorage.getItem(key)) ? localStorage.getItem(key) : ids[0];
    const heading = Object.fromEntries(card.tabs.map(([d, , col]) => [d, col]));
    const loaded = new Set();
    const load = (dim, panel) => {
      if (loaded.has(dim)) return;
      loaded.add(dim);
      panel.setAttribute('aria-busy', 'true');
      (dim === 'funnel' ? fillFunnel(panel) : dim === 'utm' ? fillUTM(panel)
        : dim.startsWith('conv-') ? fillConversions(dim.slice(5), heading[dim], panel)
          : dim.startsWith('measure-') ? fillMeasurement(dim.slice(8), heading[dim], panel) : fillBreakdown(dim, heading[dim], panel))
        .catch((e) => replace(panel, h('p', { class: 'status error' }, errorText(e))))
        .finally(() => panel.removeAttribute('aria-busy'));
    };
    const top = h('div', { class: 'panel-head' }, h('h2', {}, card.title));
    if (card.tabs.length === 1) {
      const panel = h('div', { id: `panel-${first}`, 'data-dimension': first });
      load(first, panel);
      return h('section', { class: 'panel breakdown', id: `card-${card.id}` }, top, panel);
    }
    const t = tabs(`${card.title}: show`, card.tabs.map(([id, label]) => ({ id, label })), first, (dim, panel) => {
      localStorage.setItem(key, dim);
      load(dim, panel);
    });
    return h('section', { class: 'panel breakdown', id: `card-${card.id}` }, top, t.bar, t.panels);
  });

  return h('div', { class: 'analytics' },
    head,
    filterBar,
    h('div', { class: 'stats' }, stats),
    report && report.importedDays && report.importedDays.length ? h('p', { class: 'muted small', id: 'imported-note' },
      `${importedDays(report.importedDays)} come from an import: daily totals of each list, which a filter cannot split.`) : null,
    // A filtered view counts tracked visits only: the date breakdown names the imported days it leaves out.
    days && days.importedDaysLeftOut && days.importedDaysLeftOut.length ? h('p', { class: 'muted small', id: 'imported-left-out' },
      `${importedDays(days.importedDaysLeftOut)} come from an import and are left out: imported figures cannot be filtered.`) : null,
    chart,
    filtered ? sampleNote(days) : null,
    h('div', { class: 'grid-2' }, cards),
    realtime.pages.length ? h('section', { class: 'panel', id: 'realtime-pages' }, h('h2', {}, 'On the site now'),
      barList(realtime.pages.map((p) => ({ value: p.path, label: p.path, n: p.visitors })), { head: ['Page', 'Visitors'] })) : null);
}

