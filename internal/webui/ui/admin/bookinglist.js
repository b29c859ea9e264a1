// All bookings, confirmed and cancelled, with the owner's cancel
// (GET /api/schedule/bookings, POST /api/schedule/bookings/id/{id}/cancel). Cancelling mails the
// visitor a cancellation with a METHOD:CANCEL invite and removes the calendar event.
import { api } from './shared/api.js';
import { h, replace, formatDateTime } from './shared/dom.js';
import { pageHead, statusBox, errorText, badge, pager } from './ui.js';

export async function render() {
  const status = statusBox();
  const body = h('div', {});
  const filter = h('select', { id: 'booking-status', 'aria-label': 'Show' },
    h('option', { value: 'confirmed' }, 'Upcoming'), h('option', { value: 'cancelled' }, 'Cancelled'), h('option', { value: '' }, 'All'));
  const load = async (page = 1) => {
    const q = new URLSearchParams({ page: String(page), limit: '20' });
    if (filter.value) q.set('status', filter.value);
    if (filter.value === 'confirmed') q.set('from', new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    let res;
    try {
      res = await api('GET', `/api/schedule/bookings?${q}`);
    } catch (e) {
      return status.set(errorText(e), 'error');
    }
    replace(body, res.bookings.length === 0 ? h('p', { class: 'muted' }, 'No bookings.')
      : h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'booking-list' },
        h('thead', {}, h('tr', {}, ['When', 'Who', 'Type', 'Status', ''].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, res.bookings.map((b) => h('tr', { 'data-id': b.id },
          h('td', { 'data-label': 'When' }, formatDateTime(b.start)),
          h('td', { 'data-label': 'Who' }, b.attendeeName, h('div', { class: 'muted' }, b.attendeeEmail)),
          h('td', { 'data-label': 'Type' }, b.type || `${b.durationMinutes} min`),
          h('td', { 'data-label': 'Status' }, badge(b.status), b.cancelReason ? h('div', { class: 'muted' }, `“${b.cancelReason}” (${b.cancelledBy})`) : null),
          h('td', {}, b.status === 'confirmed' && new Date(b.start) > new Date()
            ? h('button', { type: 'button', class: 'link', onclick: async () => {
              const reason = prompt(`Cancel the meeting with ${b.attendeeName}? A reason, sent to them (optional):`, '');
              if (reason === null) return;
              try {
                await api('POST', `/api/schedule/bookings/id/${encodeURIComponent(b.id)}/cancel`, reason.trim() ? { reason: reason.trim() } : {});
                status.set(`Cancelled the meeting with ${b.attendeeName}; they have been told.`, 'ok');
                load(page);
              } catch (e) {
                status.set(errorText(e), 'error');
              }
            } }, 'Cancel') : null)))))), pager(res.pagination, load));
  };
  filter.addEventListener('change', () => load());
  await load();
  return h('div', {}, pageHead('All bookings', filter), status, h('section', { class: 'panel' }, body));
}
