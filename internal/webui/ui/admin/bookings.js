// Bookings: the meetings booked through /book, the booking funnel (docs/api.md, "Analytics")
// and the mail the bookings sent. The list uses GET /api/schedule/bookings when the server offers it.
import { api, ApiError, query } from './shared/api.js';
import { h, formatDateTime, safeURL, replace } from './shared/dom.js';
import { pageHead, badge, pager, errorText, emptyState, linkButton, features, featureNote } from './ui.js';

const STEP_NAMES = {
  modal_opened: 'Opened the booking page', contact_info_submitted: 'Entered name and email', date_selected: 'Chose a date',
  time_selected: 'Chose a time', booking_confirmed: 'Confirmed', booking_completed: 'Booked',
};

async function bookingList() {
  const box = h('section', { class: 'panel', id: 'bookings-list' }, h('h2', {}, 'Upcoming meetings'));
  const body = h('div', {});
  box.append(body);
  const load = async (page = 1) => {
    let res;
    try {
      res = await api('GET', `/api/schedule/bookings${query({ page, limit: 20, status: 'confirmed', from: new Date().toISOString().replace(/\.\d+Z$/, 'Z') })}`);
    } catch (e) {
      if (e instanceof ApiError && (e.status === 404 || e.status === 405)) {
        replace(body, h('p', { class: 'muted' }, 'This server does not list bookings (no GET /api/schedule/bookings). Each booking still sends its confirmation mail, listed below.'));
        return;
      }
      replace(body, h('p', { class: 'status error' }, errorText(e)));
      return;
    }
    const items = res.bookings || [];
    replace(body, items.length === 0 ? emptyState({
      id: 'bookings-empty', iconName: 'calendar', title: 'No meetings booked yet',
      text: 'Share your booking page: visitors pick a free time and you both get an invitation by mail.',
      action: linkButton('Open the booking page', '/book', { iconName: 'external-link', kind: 'secondary' }),
    })
      : h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'bookings-table' },
        h('thead', {}, h('tr', {}, ['When', 'Who', 'Meeting', 'Links'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, items.map((b) => {
          const meet = safeURL(b.meetLink || '');
          const ev = safeURL(b.eventLink || '');
          let theirs = '';
          try {
            theirs = b.timeZone ? `${formatDateTime(b.start, { timeZone: b.timeZone, dateStyle: 'medium', timeStyle: 'short' })} for them (${b.timeZone})` : '';
          } catch { theirs = b.timeZone; }
          return h('tr', {},
            h('td', { 'data-label': 'When' }, formatDateTime(b.start), h('div', { class: 'muted' }, theirs)),
            h('td', { 'data-label': 'Who' }, b.attendeeName || '', h('div', {}, h('a', { href: `mailto:${encodeURIComponent(b.attendeeEmail || '')}` }, b.attendeeEmail || ''))),
            h('td', { 'data-label': 'Meeting' }, b.summary || '', h('div', { class: 'muted' }, `${b.durationMinutes} min${b.provider ? ` · ${b.provider} calendar` : ''}`),
              b.description ? h('div', { class: 'message-text' }, b.description) : null),
            h('td', { 'data-label': 'Links' }, meet ? h('a', { href: meet, rel: 'noopener', target: '_blank' }, 'Meeting') : null, ' ',
              ev ? h('a', { href: ev, rel: 'noopener', target: '_blank' }, 'Event') : null));
        })))), pager(res.pagination, load));
  };
  await load();
  return box;
}

async function funnel() {
  const res = await api('GET', '/api/analytics/funnel');
  const max = Math.max(1, ...res.steps.map((s) => s.visitors));
  return h('section', { class: 'panel', id: 'funnel' }, h('h2', {}, 'Booking funnel, last 30 days'),
    h('ol', { class: 'bars funnel' }, res.steps.map((s) => h('li', {},
      h('div', { class: 'row' }, h('span', {}, STEP_NAMES[s.step] || s.step), h('span', { class: 'spacer' }),
        h('strong', {}, String(s.visitors)), h('span', { class: 'muted' }, `${Math.round(s.conversionFromStart * 100)}% of starts`)),
      h('div', { class: 'bar', style: { width: `${Math.round((100 * s.visitors) / max)}%` } })))),
    h('h3', {}, 'Errors'),
    h('ul', {}, res.errors.map((e) => h('li', {}, `${e.group}: ${e.count} (${e.visitors} visitors)`))),
    res.abandonment.length ? h('p', { class: 'muted' }, `Abandoned at: ${res.abandonment.map((a) => `${STEP_NAMES[a.step] || a.step || 'unknown'} (${a.count})`).join(', ')}`) : null);
}

async function mails() {
  const body = h('div', {});
  const load = async (page = 1) => {
    const res = await api('GET', `/api/mail/outbox${query({ page, limit: 10 })}`);
    replace(body, res.items.length === 0 ? h('p', { class: 'muted' }, 'No mail sent yet. Confirmations and contact messages appear here once they go out.')
      : h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'outbox-table' },
        h('thead', {}, h('tr', {}, ['Subject', 'To', 'Status', 'Created'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, res.items.map((m) => h('tr', {},
          h('td', { 'data-label': 'Subject' }, m.subject),
          h('td', { 'data-label': 'To' }, m.recipients),
          h('td', { 'data-label': 'Status' }, badge(m.status), m.lastError ? h('div', { class: 'muted' }, m.lastError) : null),
          h('td', { 'data-label': 'Created' }, formatDateTime(m.createdAt))))))), pager(res.pagination, load));
  };
  await load();
  return h('section', { class: 'panel' }, h('h2', {}, 'Outgoing mail'), body);
}

export async function render() {
  const [list, fun, mail, feats] = await Promise.all([bookingList(), funnel(), mails(), features().catch(() => ({}))]);
  const open = linkButton('Open the booking page', '/book', { iconName: 'external-link', kind: 'secondary' });
  open.target = '_blank';
  const notes = [feats.calendar && !feats.calendar.configured ? featureNote(feats.calendar, 'calendar-note') : null,
    feats.smtp && !feats.smtp.configured ? featureNote(feats.smtp, 'smtp-note') : null];
  return h('div', {}, pageHead('Bookings', open), notes, list, fun, mail);
}
