// Overview: the site at a glance for the chosen period (the same days as on Analytics):
// headline figures with their change, visitors and page views per day, the top pages and
// sources, the next meetings and the latest messages. Before the site has sent anything, it
// shows the tracking tag to paste into the site instead of a page of zeros.
import { api, query } from './shared/api.js';
import { h, formatDateTime } from './shared/dom.js';
import { lineChart } from './chart.js';
import { pageHead, emptyState, button, toast } from './ui.js';
import { chosenDays, resolvePeriod, periodSelect } from './period.js';
import { barList, stat, delta } from './bars.js';

/** trackingSnippet is the <script> tag a site adds to report page views to this folio. */
export function trackingSnippet() {
  return `<script defer src="${location.origin}/api/analytics/script.js"></script>`;
}

/** copySnippet is a button that copies the tracking tag. */
export function copySnippet() {
  const copy = button('Copy the tag', { iconName: 'copy', kind: 'secondary', id: 'copy-snippet' });
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(trackingSnippet());
      toast('Tag copied.');
    } catch {
      const code = document.getElementById('tracking-snippet');
      if (code) getSelection().selectAllChildren(code);
      toast('Press Ctrl+C (⌘C) to copy the selected tag.', 'info');
    }
  });
  return copy;
}

/** trackingPanel is the empty state of a site that has sent no page view: the tag to add. */
export function trackingPanel(id, title) {
  return h('section', { class: 'panel' }, emptyState({
    id, iconName: 'chart-line', title,
    text: 'Add this tag to every page of your site (before </body>); page views appear here within seconds. '
      + 'It sets no cookies. By default it keeps one random id in the visitor\'s localStorage (folio_vid) so returning visitors are counted; '
      + 'with analytics storage set to none it stores nothing on the device. Want sample data to look around? Run folio seed --demo on an empty database.',
    action: h('div', { class: 'tracking' }, h('pre', { class: 'snippet' }, h('code', { id: 'tracking-snippet' }, trackingSnippet())), copySnippet()),
  }));
}

/** upcoming lists the next few meetings (nothing when booking is off). */
async function upcoming() {
  const res = await api('GET', `/api/schedule/bookings${query({ status: 'confirmed', from: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), limit: 4 })}`).catch(() => null);
  if (!res) return null;
  return h('section', { class: 'panel', id: 'overview-bookings' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Coming up'), h('span', { class: 'spacer' }),
    h('a', { href: '#/bookings', class: 'small' }, 'All bookings')),
  res.bookings.length === 0 ? h('p', { class: 'muted' }, 'No meetings booked.')
    : h('ul', { class: 'bars' }, res.bookings.map((b) => h('li', { class: 'brow' },
      h('span', { class: 'name' }, h('span', {}, b.attendeeName)),
      h('time', { class: 'muted small nowrap', datetime: b.start }, formatDateTime(b.start, { weekday: 'short', day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit' }))))));
}

/** messages lists the latest contact messages. */
async function messages() {
  const res = await api('GET', `/api/contact/messages${query({ limit: 3 })}`).catch(() => null);
  if (!res) return null;
  return h('section', { class: 'panel', id: 'overview-inbox' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Latest messages'), h('span', { class: 'spacer' }),
    h('a', { href: '#/inbox', class: 'small' }, 'Inbox')),
  res.messages.length === 0 ? h('p', { class: 'muted' }, 'No messages yet.')
    : h('ul', { class: 'bars' }, res.messages.map((m) => h('li', { class: 'brow' },
      h('span', { class: 'name' }, h('span', {}, `${m.name}: ${m.subject || m.message}`)),
      h('time', { class: 'muted small nowrap', datetime: m.createdAt }, formatDateTime(m.createdAt, { day: 'numeric', month: 'short' }))))));
}

export async function render({ rest }) {
  // Older addresses say #/overview/30.
  const params = new URLSearchParams(/^\d+$/.test(rest || '') ? `days=${rest}` : rest || '');
  const days = chosenDays(params);
  const period = await resolvePeriod(days);
  const range = { start: period.start, end: period.end };
  const [report, sources, next, inbox] = await Promise.all([
    api('GET', `/api/analytics${query({ ...range, compare: 'previous' })}`),
    api('GET', `/api/analytics/breakdown${query({ ...range, dimension: 'source', limit: 6 })}`).catch(() => ({ rows: [] })),
    upcoming(), messages(),
  ]);
  const select = periodSelect('range', days, (n) => { location.hash = `#/overview/days=${n}`; });
  const head = pageHead('Overview', h('span', { class: 'muted small nowrap', id: 'period-label' }, period.label), select);
  const side = h('div', { class: 'grid-2' }, next, inbox);

  if (!report.pageViews.total) {
    const ever = (report.previous && report.previous.pageViews && report.previous.pageViews.total) || 0;
    return h('div', {}, head, trackingPanel('overview-empty', ever ? `No visits from ${period.label}` : 'No visits recorded yet'), side);
  }
  const prev = report.previous || {};
  const daily = report.daily || [];
  const opts = { days };
  const more = (hash) => h('div', { class: 'card-foot' }, h('span', { class: 'spacer' }), h('a', { href: hash }, 'More on Analytics'));
  return h('div', {},
    head,
    h('div', { class: 'stats' },
      stat('Unique visitors', report.visitors.unique, 'stat-unique', delta(report.visitors.unique, prev.visitors && prev.visitors.unique, opts)),
      stat('Visits', report.visitors.total, 'stat-visits', delta(report.visitors.total, prev.visitors && prev.visitors.total, opts)),
      stat('Page views', report.pageViews.total, 'stat-views', delta(report.pageViews.total, prev.pageViews && prev.pageViews.total, opts)),
      stat('Views per visit', Number(report.pageViews.average || 0).toFixed(2), 'stat-average')),
    lineChart({
      title: `Visitors and page views, ${period.label}`,
      labels: daily.map((d) => d.date),
      series: [
        { name: 'Visitors', cls: 'visitors', values: daily.map((d) => d.visitors) },
        { name: 'Page views', cls: 'views', values: daily.map((d) => d.pageViews) },
      ],
    }),
    h('div', { class: 'grid-2' },
      h('section', { class: 'panel', id: 'overview-pages' }, h('h2', {}, 'Top pages'),
        report.topPages.length === 0 ? h('p', { class: 'muted' }, 'No page views in this period.')
          : barList(report.topPages.map((p) => ({ value: p.path, label: p.path, n: p.views, title: p.title ? `${p.title} (${p.path})` : p.path })), { head: ['Page', 'Views'] }),
        more(`#/analytics/days=${days}`)),
      h('section', { class: 'panel', id: 'overview-sources' }, h('h2', {}, 'Top sources'),
        sources.rows.length === 0 ? h('p', { class: 'muted' }, 'No visits in this period.')
          : barList(sources.rows.map((r) => ({ value: r.value, label: r.value || '(none)', n: r.visitors })), { head: ['Source', 'Visitors'] }),
        more(`#/analytics/days=${days}`))),
    side);
}
