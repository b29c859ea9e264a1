// Subscribers: the readers who follow the site by e-mail (docs/api.md, "Subscribers"). The list
// in the dashboard's list design (search and status in the toolbar, one menu a row), export and
// import of CSV in the page's head, erase from a row's menu.
import { api, ApiError, query } from './shared/api.js';
import { h, replace } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, badge, pager, confirmDialog, toast, linkButton, icon, emptyState,
  listTable, cellMain, cellDate, cellText, cellActions, rowMenu, searchField,
} from './ui.js';

const STATUSES = [['', 'Any status'], ['pending', 'Pending'], ['active', 'Active'], ['unsubscribed', 'Unsubscribed'],
  ['bounced', 'Bounced'], ['complained', 'Complained']];
const LIMIT = 25;

export async function render() {
  const status = statusBox();
  const body = h('div', {});
  const which = h('select', { name: 'status', id: 'subscribers-status', 'aria-label': 'Show subscribers' },
    STATUSES.map(([v, t]) => h('option', { value: v }, t)));
  const [q, searchWrap] = searchField('subscribers-q', 'Search subscribers', 'Search by address or name…');

  const load = async (page = 1) => {
    try {
      const res = await api('GET', `/api/subscribers${query({ page, limit: LIMIT, status: which.value, q: q.value.trim() })}`);
      status.clear();
      const rows = res.subscribers.map((s) => h('tr', { 'data-email': s.email },
        cellMain(s.email, null, s.name || ''),
        h('td', { 'data-label': 'Status' }, badge(s.status)),
        cellText('Source', s.source || ''),
        cellDate('Since', s.confirmedAt || s.createdAt),
        cellActions(rowMenu(`Actions for ${s.email}`, [
          { label: 'Erase', iconName: 'trash-2', danger: true, id: `erase-${s.id}`, onSelect: () => erase(s, page) },
        ]))));
      const filtered = which.value !== '' || q.value.trim() !== '';
      const cols = [{ label: 'Subscriber' }, { label: 'Status', cls: 'col-status' }, { label: 'Source', cls: 'col-mid' },
        { label: 'Since', cls: 'col-date' }, { label: 'Actions', hidden: true, cls: 'col-actions' }];
      replace(body, rows.length === 0
        ? emptyState({
          id: 'subscribers-empty', iconName: 'mail', title: filtered ? 'No subscribers match' : 'No subscribers yet',
          text: filtered ? 'Clear the search or choose “Any status” to see the others.'
            : 'Readers subscribe on /subscribe or through its embedded form, and confirm by mail.',
        })
        : listTable('subscribers-table', cols, rows),
      pager({ page, limit: LIMIT, total: res.total }, load));
    } catch (e) {
      status.set(errorText(e), 'error');
    }
  };
  const erase = async (s, page) => {
    if (!await confirmDialog({ title: 'Erase this subscriber?', message: `${s.email} is deleted from the list; only a keyed hash stays, so an import cannot add the address again.`, confirmLabel: 'Erase' })) return;
    try {
      await api('DELETE', `/api/subscribers/${encodeURIComponent(s.id)}`);
      toast(`${s.email} erased.`);
      await load(page);
    } catch (e) {
      status.set(errorText(e), 'error');
    }
  };

  // Import: the file input is the head's button (a styled label), as on the media page.
  const file = h('input', { type: 'file', accept: '.csv,text/csv', id: 'subscribers-import', class: 'visually-hidden' });
  const importButton = h('span', {}, file, h('label', { for: file.id, class: 'button secondary file-label' },
    icon('upload'), 'Import CSV'));
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

  let timer;
  q.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => load(1), 250); });
  which.addEventListener('change', () => load(1));
  await load(1);
  return h('div', {}, pageHead('Subscribers', importButton,
    linkButton('Export CSV', '/api/subscribers/export', { kind: 'secondary', iconName: 'download', id: 'subscribers-export' })),
  status,
  h('p', { class: 'muted', id: 'subscribers-import-note' }, 'Import takes a CSV with the columns email, name, source and consent; only rows with consent “yes” are mailed.'),
  h('section', { class: 'panel flush' }, h('div', { class: 'toolbar' }, searchWrap, which), body));
}
