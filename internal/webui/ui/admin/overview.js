// Overview: visitors and page views over time, top pages and referrers, from GET /api/analytics
// (its daily series feeds the chart). Before the site has sent anything, it shows the tracking
// snippet to paste into the site instead of a page of zeros.
import { api, query } from './shared/api.js';
import { h } from './shared/dom.js';
import { lineChart } from './chart.js';
import { pageHead, emptyState, button, toast } from './ui.js';

/** trackingSnippet is the <script> tag a site adds to report page views to this folio. */
export function trackingSnippet() {
  return `<script defer src="${location.origin}/api/analytics/script.js"></script>`;
}

function noData(days, probeEmpty) {
  const code = h('code', { id: 'tracking-snippet' }, trackingSnippet());
  const copy = button('Copy snippet', { iconName: 'copy', kind: 'secondary', id: 'copy-snippet' });
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(trackingSnippet());
      toast('Snippet copied.');
    } catch {
      getSelection().selectAllChildren(code);
      toast('Press Ctrl+C (⌘C) to copy the selected snippet.', 'info');
    }
  });
  return h('section', { class: 'panel' }, emptyState({
    id: 'overview-empty', iconName: 'chart-line',
    title: probeEmpty ? 'No visits recorded yet' : `No visits in the last ${days} days`,
    text: 'Add this tag to every page of your site (before </body>); page views appear here within seconds. '
      + 'It sets no cookies. By default it keeps one random id in the visitor\'s localStorage (folio_vid) so returning visitors are counted; '
      + 'with analytics storage set to none it stores nothing on the device. Want sample data to look around? Run folio seed --demo on an empty database.',
    action: h('div', {}, h('pre', { class: 'snippet' }, code), copy),
  }));
}

/** addDays shifts a YYYY-MM-DD date by n days. */
export function addDays(day, n) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

function stat(label, value, id) {
  return h('div', { class: 'stat', id }, h('div', { class: 'value' }, String(value)), h('div', { class: 'label' }, label));
}

function barList(title, rows, empty) {
  const max = Math.max(1, ...rows.map((r) => r.n));
  return h('section', { class: 'panel' }, h('h2', {}, title),
    rows.length === 0 ? h('p', { class: 'muted' }, empty)
      : h('ol', { class: 'bars' }, rows.map((r) => h('li', {},
        h('div', { class: 'bar-row' }, h('span', { class: 'bar-label' }, r.label, r.sub ? h('span', { class: 'muted mono small' }, r.sub) : null), h('strong', {}, String(r.n))),
        h('div', { class: 'bar', style: { width: `${Math.round((100 * r.n) / max)}%` } })))));
}

export async function render({ rest }) {
  const days = [7, 14, 30].includes(Number(rest)) ? Number(rest) : 30;
  // The owner's "today" is the last day of the default report's range (its end is exclusive).
  const probe = await api('GET', '/api/analytics');
  const lastDay = addDays(probe.timeRange.end.slice(0, 10), -1);
  const firstDay = addDays(lastDay, -(days - 1));
  const report = await api('GET', `/api/analytics${query({ start: firstDay, end: lastDay })}`);
  const daily = report.daily || [];
  const labels = daily.map((d) => d.date);
  const select = h('select', { id: 'range', 'aria-label': 'Time range' },
    [7, 14, 30].map((n) => h('option', { value: String(n), selected: n === days }, `Last ${n} days`)));
  select.addEventListener('change', () => { location.hash = `#/overview/${select.value}`; });

  if (!report.pageViews.total) {
    return h('div', {}, pageHead('Overview', select), noData(days, !probe.pageViews.total));
  }
  return h('div', {},
    pageHead('Overview', select),
    h('div', { class: 'stats' },
      stat('Visits', report.visitors.total, 'stat-visits'),
      stat('Unique visitors', report.visitors.unique, 'stat-unique'),
      stat('Returning visitors', report.visitors.returning, 'stat-returning'),
      stat('Page views', report.pageViews.total, 'stat-views'),
      stat('Views per visit', Number(report.pageViews.average || 0).toFixed(2), 'stat-average')),
    lineChart({
      title: `Visitors and page views, ${firstDay} to ${lastDay}`,
      labels,
      series: [
        { name: 'Visitors', cls: 'visitors', values: daily.map((d) => d.visitors) },
        { name: 'Page views', cls: 'views', values: daily.map((d) => d.pageViews) },
      ],
    }),
    h('div', { class: 'grid' },
      barList('Top pages', report.topPages.map((p) => ({ label: p.title || p.path, sub: p.title ? p.path : '', n: p.views })), 'No page views in this range.'),
      barList('Referrers', report.referrers.map((r) => ({ label: r.domain, n: r.visits })), 'No referrers in this range: visitors came directly or from links that send none.')));
}
