// Settings → API keys: create (the secret is shown once), list with level, last use and
// expiry, and revoke.
import { api } from './shared/api.js';
import { h, field, replace } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, badge, busy, markFields, formError, button, confirmDialog, toast, emptyState, listTable, cellMain, cellDate,
  cellActions, rowMenu, shortDate,
} from './ui.js';

export async function render({ announce }) {
  const status = statusBox();
  const secretBox = h('div', { id: 'new-key', 'aria-live': 'polite' });
  const body = h('div', {});

  const load = async () => {
    const res = await api('GET', '/api/keys');
    const rows = res.keys.map((k) => {
      const revoke = async () => {
        if (!await confirmDialog({ title: 'Revoke this key?', message: `Anything using “${k.name}” stops working at once.`, confirmLabel: 'Revoke key' })) return;
        try {
          await api('DELETE', `/api/keys/${encodeURIComponent(k.id)}`);
          toast(`Revoked “${k.name}”.`);
          announce(`Revoked ${k.name}`);
          await load();
        } catch (e) { status.set(errorText(e), 'error'); }
      };
      const expired = k.expiresAt && new Date(k.expiresAt) < new Date();
      return h('tr', { 'data-key-name': k.name, 'data-key-id': k.id },
        cellMain(k.name, null, `${k.prefix}…`, { subMono: true }),
        h('td', { 'data-label': 'Level' }, badge(k.level)),
        cellDate('Created', k.createdAt),
        cellDate('Last used', k.lastUsedAt, 'Never'),
        h('td', { 'data-label': 'Expires', class: 'cell-date' }, k.expiresAt ? [shortDate(k.expiresAt), expired ? ' ' : '', expired ? badge('expired') : ''] : 'Never'),
        cellActions(rowMenu(`Actions for the key ${k.name}`, [
          { label: 'Revoke', iconName: 'trash-2', danger: true, onSelect: revoke, id: `revoke-${k.id}` },
        ])));
    });
    replace(body, rows.length === 0 ? emptyState({
      id: 'keys-empty', iconName: 'key-round', title: 'No API keys yet',
      text: 'A key lets a program use the API: your site\'s build reads posts with a read key, a deploy script writes with a write key. Create one above.',
    })
      : listTable('keys-table', [{ label: 'Name' }, { label: 'Level', cls: 'col-narrow' }, { label: 'Created', cls: 'col-date' },
        { label: 'Last used', cls: 'col-date' }, { label: 'Expires', cls: 'col-date' }, { label: 'Actions', hidden: true, cls: 'col-actions' }], rows));
  };

  const name = h('input', { type: 'text', name: 'name', id: 'key-name', required: true, maxlength: 100 });
  const level = h('select', { name: 'level', id: 'key-level' },
    [['read', 'Read — public data'], ['write', 'Write — create and update content'], ['admin', 'Admin — full access']]
      .map(([v, t]) => h('option', { value: v }, t)));
  const expires = h('select', { name: 'expiresAt', id: 'key-expires' },
    [['', 'Never'], ['30', 'In 30 days'], ['90', 'In 90 days'], ['365', 'In a year']].map(([v, t]) => h('option', { value: v }, t)));
  const create = button('Create key', { type: 'submit', iconName: 'plus' });
  const form = h('form', { class: 'panel', id: 'key-form', novalidate: true, 'data-primary': '' }, h('h2', {}, 'New key'),
    h('div', { class: 'grid' }, field('Name', name, 'What uses this key, e.g. "CI deploy"'), field('Level', level), field('Expires', expires)), create);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!name.value.trim()) {
      status.set(formError(form, { message: 'Give the key a name', details: [{ field: 'name', message: 'is required' }] }), 'error');
      return;
    }
    busy(create, async () => {
      const body = { name: name.value.trim(), level: level.value };
      if (expires.value) body.expiresAt = new Date(Date.now() + Number(expires.value) * 86400000).toISOString();
      try {
        const res = await api('POST', '/api/keys', body);
        markFields(form, null);
        const secret = h('code', { class: 'secret', id: 'new-key-secret' }, res.key);
        const copy = button('Copy', { iconName: 'copy', kind: 'secondary' });
        copy.addEventListener('click', async () => {
          try { await navigator.clipboard.writeText(res.key); toast('Key copied.'); } catch { getSelection().selectAllChildren(secret); toast('Press Ctrl+C (⌘C) to copy the selected key.', 'info'); }
        });
        const done = h('button', { type: 'button', class: 'secondary', id: 'new-key-done' }, 'I have stored it');
        done.addEventListener('click', () => { secretBox.replaceChildren(); name.focus(); });
        replace(secretBox, h('section', { class: 'panel' }, h('h2', {}, `Key “${res.apiKey.name}” created`),
          h('p', {}, 'Copy this key now. It is shown this once and cannot be shown again.'), secret,
          h('div', { class: 'row' }, copy, done)));
        form.reset();
        announce('Key created; copy it now, it is shown once');
        status.clear();
        await load();
        copy.focus();
      } catch (e) {
        status.set(formError(form, e), 'error');
      }
    });
  });

  await load();
  return h('div', {}, pageHead('API keys'), status, secretBox, form, h('section', { class: 'panel flush' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Keys')), body));
}
