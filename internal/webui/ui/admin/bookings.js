// Bookings: every meeting booked through /book — upcoming, past, cancelled or all — with the
// meeting type by its title, the visitor's own time, the links, and the owner's cancel
// (GET /api/schedule/bookings, POST /api/schedule/bookings/id/{id}/cancel: the visitor gets a
// cancellation mail with a METHOD:CANCEL invite and the calendar event goes).
import { api } from './shared/api.js';
import { h, field, formatDateTime, safeURL, replace } from './shared/dom.js';
import {
  pageHead, statusBox, badge, pager, errorText, emptyState, linkButton, listTable, cellMain, cellWhen, cellActions, rowMenu, openDialog,
  segmented, toast,
} from './ui.js';

const VIEWS = [['upcoming', 'Upcoming'], ['past', 'Past'], ['cancelled', 'Cancelled'], ['all', 'All']];

/** typeTitles maps meeting type slugs to their titles (the defaults are "30min" and so on). */
async function typeTitles() {
  try {
    const res = await api('GET', '/api/schedule/types');
    return Object.fromEntries((res.types || []).map((t) => [t.slug, t.title]));
  } catch {
    return {};
  }
}

/** theirTime is the start in the visitor's zone, when it differs from the viewer's. */
function theirTime(b) {
  if (!b.timeZone || b.timeZone === Intl.DateTimeFormat().resolvedOptions().timeZone) return '';
  try {
    return `${formatDateTime(b.start, { timeZone: b.timeZone, timeStyle: 'short' })} their time (${b.timeZone.replace(/_/g, ' ')})`;
  } catch {
    return b.timeZone;
  }
}

/** cancelBooking asks for an optional reason in the dashboard's dialog, then cancels. */
async function cancelBooking(b) {
  const reason = h('textarea', { id: 'cancel-reason', name: 'reason', rows: 3, maxlength: 500 });
  const v = await openDialog({
    id: 'cancel-booking-dialog', title: `Cancel the meeting with ${b.attendeeName}?`,
    body: [h('p', {}, `${formatDateTime(b.start)}. They get a cancellation mail, and the time is free again.`),
      field('Reason, sent to them (optional)', reason)],
    focusId: 'cancel-keep',
    actions: [{ label: 'Keep it', value: 'keep', kind: 'secondary', id: 'cancel-keep' },
      { label: 'Cancel the meeting', value: 'cancel', kind: 'danger', id: 'cancel-confirm' }],
  });
  if (v !== 'cancel') return false;
  const r = reason.value.trim();
  await api('POST', `/api/schedule/bookings/id/${encodeURIComponent(b.id)}/cancel`, r ? { reason: r } : {});
  return true;
}

export async function render({ rest, announce }) {
  const status = statusBox();
  const body = h('div', {});
  const titles = await typeTitles();
  let view = VIEWS.some(([v]) => v === rest) ? rest : 'upcoming';
  const load = async (page = 1) => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const params = new URLSearchParams({ page: String(page), limit: '20' });
    if (view === 'upcoming') { params.set('status', 'confirmed'); params.set('from', now); }
    if (view === 'past') { params.set('status', 'confirmed'); params.set('to', now); }
    if (view === 'cancelled') params.set('status', 'cancelled');
    let res;
    try {
      res = await api('GET', `/api/schedule/bookings?${params}`);
    } catch (e) {
      status.set(errorText(e), 'error');
      return;
    }
    const rows = res.bookings.map((b) => {
      const meet = safeURL(b.meetLink || '');
      const ev = safeURL(b.eventLink || '');
      const typeName = (b.type && titles[b.type]) || (b.type ? b.type : `${b.durationMinutes}-minute meeting`);
      const cancellable = b.status === 'confirmed' && new Date(b.start) > new Date();
      const cancel = async () => {
        try {
          if (!await cancelBooking(b)) return;
          toast(`Cancelled the meeting with ${b.attendeeName}; they have been told.`);
          announce(`Cancelled the meeting with ${b.attendeeName}`);
          await load(page);
        } catch (e) { status.set(errorText(e), 'error'); }
      };
      return h('tr', { 'data-id': b.id },
        cellWhen('When', b.start, theirTime(b)),
        cellMain(b.attendeeName, `mailto:${encodeURIComponent(b.attendeeEmail || '')}`, b.attendeeEmail),
        h('td', { 'data-label': 'Meeting' }, h('span', { class: 'truncate', title: typeName }, typeName), h('span', { class: 'row-sub' }, `${b.durationMinutes} min`),
          b.location && b.location.label ? h('span', { class: 'row-sub truncate place', title: b.location.label }, b.location.label) : null,
          (b.answers || []).map((a) => {
            const text = `${a.label}: ${typeof a.value === 'boolean' ? (a.value ? 'yes' : 'no') : a.value}`;
            return h('span', { class: 'row-sub truncate answer', title: text }, text);
          })),
        h('td', { 'data-label': 'Status' }, badge(b.status),
          b.cancelReason ? h('span', { class: 'row-sub truncate', title: b.cancelReason }, `“${b.cancelReason}” (by the ${b.cancelledBy})`) : null),
        cellActions(rowMenu(`Actions for the meeting with ${b.attendeeName}`, [
          meet ? { label: 'Join the meeting', iconName: 'external-link', href: meet, target: '_blank' } : null,
          ev ? { label: 'Calendar event', iconName: 'calendar', href: ev, target: '_blank' } : null,
          { label: 'Write to them', iconName: 'mail', href: `mailto:${encodeURIComponent(b.attendeeEmail || '')}` },
          cancellable ? { separator: true } : null,
          cancellable ? { label: 'Cancel the meeting', iconName: 'calendar-x', danger: true, onSelect: cancel, id: `cancel-${b.id}` } : null,
        ])));
    });
    replace(body, rows.length === 0 ? emptyState({
      id: 'bookings-empty', iconName: 'calendar', title: view === 'upcoming' ? 'No meetings coming up' : 'No bookings here',
      text: view === 'upcoming' ? 'Share your booking page: visitors pick a free time and you both get an invitation by mail.' : 'Choose another view above.',
      action: view === 'upcoming' ? linkButton('Open the booking page', '/book', { iconName: 'external-link', kind: 'secondary' }) : null,
    })
      : listTable('bookings-table', [{ label: 'When', cls: 'col-when' }, { label: 'Who' }, { label: 'Meeting', cls: 'col-wide' },
        { label: 'Status', cls: 'col-status' }, { label: 'Actions', hidden: true, cls: 'col-actions' }], rows),
    pager(res.pagination, load));
  };
  const tabsRow = segmented('Show', VIEWS, view, (v) => {
    view = v;
    history.replaceState(null, '', `#/bookings/${v}`);
    load(1);
  }, 'bookings-view');
  await load();
  const open = linkButton('Booking page', '/book', { iconName: 'external-link', kind: 'secondary' });
  open.target = '_blank';
  return h('div', {}, pageHead('Bookings', open), status,
    h('section', { class: 'panel flush' }, h('div', { class: 'toolbar' }, tabsRow), body));
}
