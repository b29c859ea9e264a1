// Audit log (a settings page): who changed what, every sign-in, TOTP and key changes, session
// revocations; filter by action, person and time, newest first. People are shown by name (the
// API adds actor.name and actor.email); keys by their name when they still exist.
import { api, query } from './shared/api.js';
import { h, field, formatDateTime, replace } from './shared/dom.js';
import { pageHead, statusBox, errorText, badge, pager, listTable, button } from './ui.js';

/** ACTIONS says what an action did, in words; others are shown as they are recorded. */
const ACTIONS = {
  'auth.login': 'Signed in', 'auth.login.totp': 'Signed in (second step)', 'auth.logout': 'Signed out',
  'auth.password.change': 'Changed the password', 'auth.sessions.revoke': 'Signed out everywhere',
  'auth.totp.setup': 'Started two-factor setup', 'auth.totp.enable': 'Turned on two-factor sign-in', 'auth.totp.disable': 'Turned off two-factor sign-in',
  'auth.passkey.register': 'Added a passkey', 'auth.passkey.rename': 'Renamed a passkey', 'auth.passkey.delete': 'Removed a passkey',
  'auth.login.passkey': 'Signed in with a passkey', 'auth.login.passkey2fa': 'Signed in (passkey second step)',
  'auth.link.request': 'Asked for a sign-in link', 'auth.login.link': 'Signed in with a mailed link',
  'auth.login.provider': 'Signed in with an identity provider', 'auth.login.provider.refused': 'Identity provider sign-in refused',
  'auth.provider.link': 'Linked an identity provider account',
  'apikey.create': 'Created an API key', 'apikey.revoke': 'Revoked an API key',
  'posts.create': 'Created a post', 'posts.update': 'Edited a post', 'posts.delete': 'Deleted a post',
  'blog.create': 'Created a post', 'blog.update': 'Edited a post', 'blog.delete': 'Deleted a post', 'blog.preview': 'Previewed a post',
  'projects.create': 'Created a project', 'projects.update': 'Edited a project', 'projects.delete': 'Deleted a project',
  'articles.publishing-options': 'Changed publishing options', 'media.upload': 'Uploaded a file', 'media.delete': 'Deleted a file',
  'ai.generate-image': 'Generated an image', 'extblog.publish': 'Published on the external blog',
  'extblog.unpublish': 'Unpublished on the external blog', 'extblog.delete': 'Removed from the external blog',
  'user.profile': 'Edited the profile', 'settings.update': 'Changed settings', 'settings.mail_test': 'Sent a test mail',
  'webhooks.create': 'Created a webhook', 'webhooks.delete': 'Deleted a webhook', 'webhooks.test': 'Sent a test webhook',
  'schedule.types.create': 'Created a meeting type', 'schedule.types.update': 'Edited a meeting type', 'schedule.types.delete': 'Deleted a meeting type',
  'schedule.overrides.update': 'Changed a day\'s hours', 'schedule.overrides.delete': 'Restored a day\'s usual hours',
  'schedule.bookings.id.cancel': 'Cancelled a booking', 'schedule.book': 'Booked a meeting', 'contact.create': 'Sent a contact message',
};

/** actorText names who acted: the person's name (or email), the key, or nobody. */
function actorText(a, keys) {
  const who = a.name || a.email || (a.userId ? 'A removed user' : '');
  if (a.keyId) {
    const key = keys[a.keyId] ? `key “${keys[a.keyId]}”` : 'an API key';
    return who ? `${who}, with ${key}` : key;
  }
  return who || 'Nobody signed in';
}

export async function render() {
  const status = statusBox();
  const body = h('div', {});
  const action = h('input', { type: 'text', name: 'action', id: 'audit-action', placeholder: 'auth.* or projects.create' });
  const actor = h('input', { type: 'text', name: 'actor', id: 'audit-actor', placeholder: 'an email, a user id or a key id' });
  const from = h('input', { type: 'date', name: 'from', id: 'audit-from' });
  const to = h('input', { type: 'date', name: 'to', id: 'audit-to' });
  const apply = button('Filter', { type: 'submit', kind: 'secondary', iconName: 'search' });
  const form = h('form', { class: 'panel', id: 'audit-filter', novalidate: true },
    h('div', { class: 'grid' }, field('Action', action), field('Person or key', actor), field('From', from), field('Until', to)), apply);
  const keys = await api('GET', '/api/keys').then((r) => Object.fromEntries((r.keys || []).map((k) => [k.id, k.name]))).catch(() => ({}));

  const load = async (page = 1) => {
    const params = { page, limit: 25, action: action.value.trim(), actor: actor.value.trim(), from: from.value, to: to.value };
    try {
      const res = await api('GET', `/api/audit${query(params)}`);
      status.clear();
      const rows = res.entries.map((e) => h('tr', { 'data-action': e.action },
        h('td', { class: 'cell-date', 'data-label': 'When' }, h('time', { datetime: e.at, title: formatDateTime(e.at, { dateStyle: 'full', timeStyle: 'long' }) },
          formatDateTime(e.at, { dateStyle: 'medium', timeStyle: 'short' }))),
        h('td', { class: 'cell-main' }, h('span', { class: 'row-title truncate', title: e.action }, ACTIONS[e.action] || e.action),
          h('span', { class: 'row-sub truncate mono', title: `${e.action} ${e.resource} ${e.resourceId || ''}` }, e.resourceId ? `${e.action} · ${e.resourceId}` : e.action)),
        h('td', { 'data-label': 'By' }, h('span', { class: 'truncate', title: actorText(e.actor || {}, keys) }, actorText(e.actor || {}, keys)),
          h('span', { class: 'row-sub mono', title: 'The network the request came from' }, e.ip || '—')),
        h('td', { 'data-label': 'Result' }, badge(e.status < 400 ? 'ok' : 'failed', e.status < 400 ? 'Done' : 'Refused'),
          h('span', { class: 'row-sub truncate', title: e.detail || null }, `HTTP ${e.status}${e.detail ? ` · ${e.detail}` : ''}`))));
      replace(body, rows.length === 0 ? h('p', { class: 'muted empty' }, 'Nothing recorded matches. Sign-ins and every change made with a key or a session appear here.')
        : h('div', {}, listTable('audit-table', [{ label: 'When', cls: 'col-when' }, { label: 'What' }, { label: 'By', cls: 'col-mid' },
          { label: 'Result', cls: 'col-narrow' }], rows),
        pager({ page: res.page, limit: res.limit, total: res.total }, load)));
    } catch (e) {
      status.set(errorText(e), 'error');
    }
  };
  form.addEventListener('submit', (ev) => { ev.preventDefault(); load(1); });
  await load(1);
  return h('div', {}, pageHead('Audit log'), status, form, h('section', { class: 'panel flush' }, body));
}
