// The page of a shared analytics link, /share/<token> (docs/api.md, "Shared dashboards"): the
// analytics page, read-only, over the link's own routes. A link with a password first asks for
// it (POST .../unlock sets a cookie that opens the link in this browser).
import { api, ApiError } from './shared/api.js';
import { h, replace } from './shared/dom.js';
import { setBase, base } from './analyticsbase.js';
import * as analytics from './analytics.js';

const token = location.pathname.split('/')[2] || '';
setBase(`/api/analytics/shared/${encodeURIComponent(token)}`);
const app = document.getElementById('app');

function passwordForm(message) {
  const input = h('input', { type: 'password', name: 'password', id: 'share-password', required: true, autocomplete: 'current-password' });
  const status = h('p', { class: message ? 'status error' : 'status', role: 'status', id: 'share-status' }, message || '');
  const form = h('form', { class: 'panel', id: 'share-form' },
    h('h1', {}, 'This page is protected'),
    h('label', { for: 'share-password' }, 'Password'), input,
    h('button', { type: 'submit' }, 'Open'), status);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    try {
      await api('POST', `${base}/unlock`, { password: input.value });
      show();
    } catch (e) {
      replace(status, e instanceof ApiError && e.status === 401 ? 'That password is not right.' : e.message);
      status.className = 'status error';
    }
  });
  return form;
}

async function show() {
  const rest = location.hash.startsWith('#/analytics/') ? location.hash.slice('#/analytics/'.length) : '';
  try {
    replace(app, await analytics.render({ rest }));
    app.dataset.state = 'ready';
  } catch (e) {
    app.dataset.state = 'error';
    if (e instanceof ApiError && e.status === 401) replace(app, passwordForm());
    else if (e instanceof ApiError && e.status === 404) replace(app, h('p', { class: 'panel' }, 'This link does not exist or was revoked.'));
    else replace(app, h('p', { class: 'status error' }, e instanceof ApiError ? e.describe() : String(e)));
  }
}

addEventListener('hashchange', show);
show();
