// Subscribers: the readers who follow the site by e-mail (docs/api.md, "Subscribers"). Filter by
// status and by address or name, export and import CSV, erase one.
import { api, ApiError, query } from './shared/api.js';
import { h, field, formatDateTime, replace } from './shared/dom.js';
import { pageHead, statusBox, errorText, badge, pager, confirmDialog, toast, linkButton } from './ui.js';

const STATUSES = ['pending', 'active', 'unsubscribed', 'bounced', 'complained'];
const LIMIT = 25;

export async function render() {
  const status = statusBox();
  const body = h('div', {});
  const which = h('select', { name: 'status', id: 'subscribers-status' }, h('option', { value: '' }, 'Any status'),
    STATUSES.map((s) => h('option', { value: s }, s)));
  const q = h('input', { type: 'search', name: 'q', id: 'subscribers-q', placeholder: 'address or name' });
  const form = h('form', { class: 'panel', id: 'subscribers-filter', novalidate: true },
    h('div', { class: 'grid' }, field('Status', which), field('Search', q)), h('button', { type: 'submit' }, 'Filter'));
  const file = h('input', { type: 'file', accept: '.csv,text/csv', id: 'subscribers-import' });
  const importBox = h('div', { class: 'panel' }, field('Import CSV (columns email, name, source, consent; only rows with consent yes are mailed)', file));

  const load = async (page = 1) => {
    try {
      const res = await api('GET', `/api/subscribers${query({ page, limit: LIMIT, status: which.value, q: q.value.trim() })}`);
      status.clear();
      const rows = res.subscribers.map((s) => h('tr', { 'data-email': s.email },
        h('td', { 'data-label': 'Address' }, s.email),
        h('td', { 'data-label': 'Name' }, s.name || '—'),
        h('td', { 'data-label': 'Status' }, badge(s.status)),
        h('td', { 'data-label': 'Since' }, formatDateTime(s.confirmedAt || s.createdAt)),
        h('td', {}, h('button', { type: 'button', class: 'quiet-danger', onclick: () => erase(s, page) }, 'Erase'))));
      replace(body, rows.length === 0 ? h('p', { class: 'muted' }, 'No subscribers match. Readers subscribe on /subscribe or through its embedded form.')
        : h('div', {}, h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'subscribers-table' },
          h('thead', {}, h('tr', {}, ['Address', 'Name', 'Status', 'Since', ''].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, rows))), pager({ page, limit: LIMIT, total: res.total }, load)));
    } catch (e) {
      status.set(errorText(e), 'error');
    }
  };
  const erase = async (s, page) => {
    if (!await confirmDialog({ title: 'Erase subscriber', message: `Erase ${s.email}? The address is deleted from the list.`, confirmLabel: 'Erase' })) return;
    try {
      await api('DELETE', `/api/subscribers/${encodeURIComponent(s.id)}`);
      toast(`${s.email} erased.`);
      await load(page);
    } catch (e) {
      status.set(errorText(e), 'error');
    }
  };
  file.addEventListener('change', async () => {
    const f = file.files[0];
    if (!f) return;
    try {
      const res = await fetch('/api/subscribers/import', { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'text/csv', Accept: 'application/json' }, body: f });
      const data = await res.json().catch(() => null);
      if (!res.ok) throw new ApiError(res.status, data?.error?.code || '', data?.error?.message || `Import failed (${res.status})`);
      const refused = data.invalid.map((i) => `line ${i.line}: ${i.message}`).join('; ');
      status.set(`Imported ${data.imported}, skipped ${data.skipped} already listed${refused ? `; refused ${refused}` : ''}.`, refused ? 'info' : 'ok');
      await load(1);
    } catch (e) {
      status.set(errorText(e), 'error');
    } finally {
      file.value = '';
    }
  });
  form.addEventListener('submit', (ev) => { ev.preventDefault(); load(1); });
  await load(1);
  return h('div', {}, pageHead('Subscribers', linkButton('Export CSV', '/api/subscribers/export', { kind: 'secondary', id: 'subscribers-export' })),
    status, form, importBox, body);
}
