// Settings → Audit log: who changed what, every sign-in, TOTP and key changes, session
// revocations; filter by action, actor and time, newest first.
import { api, query } from './shared/api.js';
import { h, field, formatDateTime, replace } from './shared/dom.js';
import { pageHead, statusBox, errorText, badge, pager } from './ui.js';

export async function render() {
  const status = statusBox();
  const body = h('div', {});
  const action = h('input', { type: 'text', name: 'action', id: 'audit-action', placeholder: 'auth.* or projects.create' });
  const actor = h('input', { type: 'text', name: 'actor', id: 'audit-actor', placeholder: 'user or key id' });
  const from = h('input', { type: 'date', name: 'from', id: 'audit-from' });
  const to = h('input', { type: 'date', name: 'to', id: 'audit-to' });
  const apply = h('button', { type: 'submit' }, 'Filter');
  const form = h('form', { class: 'panel', id: 'audit-filter', novalidate: true },
    h('div', { class: 'grid' }, field('Action', action), field('Actor', actor), field('From', from), field('To (exclusive)', to)), apply);

  const load = async (page = 1) => {
    const params = { page, limit: 25, action: action.value.trim(), actor: actor.value.trim() };
    if (from.value) params.from = new Date(`${from.value}T00:00:00`).toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (to.value) params.to = new Date(`${to.value}T00:00:00`).toISOString().replace(/\.\d{3}Z$/, 'Z');
    try {
      const res = await api('GET', `/api/audit${query(params)}`);
      status.clear();
      const rows = res.entries.map((e) => h('tr', { 'data-action': e.action },
        h('td', { 'data-label': 'When' }, formatDateTime(e.at, { dateStyle: 'medium', timeStyle: 'medium' })),
        h('td', { 'data-label': 'Action' }, h('span', { class: 'mono' }, e.action)),
        h('td', { 'data-label': 'Resource' }, e.resourceId ? `${e.resource} ${e.resourceId}` : e.resource),
        h('td', { 'data-label': 'Actor' }, h('span', { class: 'mono' }, e.actor.keyId ? `key ${e.actor.keyId}` : (e.actor.userId ? `user ${e.actor.userId}` : '—'))),
        h('td', { 'data-label': 'Network' }, e.ip || '—'),
        h('td', { 'data-label': 'Status' }, badge(e.status < 400 ? 'ok' : 'failed'), ` ${e.status}`, e.detail ? ` (${e.detail})` : null)));
      replace(body, rows.length === 0 ? h('p', { class: 'muted' }, 'Nothing recorded matches. Sign-ins and every change made with a key or a session appear here.')
        : h('div', {}, h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'audit-table' },
          h('thead', {}, h('tr', {}, ['When', 'Action', 'Resource', 'Actor', 'Network', 'Status'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, rows))), pager({ page: res.page, limit: res.limit, total: res.total }, load)));
    } catch (e) {
      status.set(errorText(e), 'error');
    }
  };
  form.addEventListener('submit', (ev) => { ev.preventDefault(); load(1); });
  await load(1);
  return h('div', {}, pageHead('Settings → Audit log'), status, form, body);
}
