// The dashboard shell: sign-in, navigation by URL hash, and one view module per page. Every
// view talks to the public /api routes with the session cookie; there is no private back door.
import { api, ApiError } from './shared/api.js';
import { h, replace, field } from './shared/dom.js';
import * as overview from './overview.js';
import * as analytics from './analytics.js';
import * as projects from './projects.js';
import * as posts from './posts.js';
import * as media from './media.js';
import * as bookings from './bookings.js';
import * as meetingTypes from './meetingtypes.js';
import * as availability from './availability.js';
import * as bookingList from './bookinglist.js';
import * as inbox from './inbox.js';
import * as keys from './keys.js';
import * as webhooks from './webhooks.js';
import * as profile from './profile.js';
import * as security from './security.js';
import * as auditLog from './audit.js';
import { totpStep, signInErrorText } from './signin.js';

const app = document.getElementById('app');
const live = document.getElementById('live');

// Pages: hash prefix, title, module, and whether only owners (admin level) may open them.
const pages = [
  { path: 'overview', title: 'Overview', view: overview, owner: true },
  { path: 'analytics', title: 'Analytics', view: analytics, owner: true },
  { path: 'projects', title: 'Projects', view: projects },
  { path: 'posts', title: 'Posts', view: posts },
  { path: 'media', title: 'Media', view: media },
  { path: 'bookings', title: 'Bookings', view: bookings, owner: true },
  { path: 'schedule/bookings', title: 'All bookings', view: bookingList, owner: true, group: 'Schedule' },
  { path: 'schedule/types', title: 'Meeting types', view: meetingTypes, owner: true, group: 'Schedule' },
  { path: 'schedule/availability', title: 'Days off', view: availability, owner: true, group: 'Schedule' },
  { path: 'inbox', title: 'Inbox', view: inbox, owner: true },
  { path: 'settings/keys', title: 'API keys', view: keys, owner: true, group: 'Settings' },
  { path: 'settings/webhooks', title: 'Webhooks', view: webhooks, owner: true, group: 'Settings' },
  { path: 'profile', title: 'Profile', view: profile, group: 'Settings' },
  { path: 'settings/security', title: 'Security', view: security, group: 'Settings' },
  { path: 'settings/audit', title: 'Audit log', view: auditLog, owner: true, group: 'Settings' },
];

let session = null;
let main = null;

/** announce tells screen-reader users what happened (the visible status is per view). */
export function announce(text) {
  live.textContent = '';
  setTimeout(() => { live.textContent = text; }, 30);
}

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function visiblePages() {
  return pages.filter((p) => !p.owner || session.user.role === 'owner');
}

function renderLogin(message) {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const status = h('div', { class: 'status error', role: 'alert' }, message || '');
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h('form', { class: 'panel login', id: 'login-form', novalidate: true }, h('h1', {}, 'folio'),
    h('p', { class: 'muted' }, 'Sign in to the dashboard.'), status,
    field('Email', email), field('Password', password), h('div', { class: 'row' }, submit));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    status.textContent = '';
    if (!email.value.trim() || !password.value) {
      status.textContent = 'Enter your email and password.';
      return;
    }
    submit.disabled = true;
    try {
      const res = await api('POST', '/api/auth/login', { email: email.value.trim(), password: password.value });
      password.value = '';
      if (res && res.mfaRequired) {
        replace(app, h('main', { id: 'main' }, totpStep(res.ticket, { onDone: start, onCancel: () => renderLogin() })));
        return;
      }
      await start();
    } catch (e) {
      status.textContent = signInErrorText(e);
      submit.disabled = false;
      password.focus();
    }
  });
  app.dataset.state = 'login';
  replace(app, h('main', { id: 'main' }, form));
  email.focus();
}

function renderShell() {
  const nav = h('ul', {});
  let group = '';
  for (const p of visiblePages()) {
    if (p.group && p.group !== group) {
      group = p.group;
      nav.append(h('li', { class: 'group', 'aria-hidden': 'true' }, group));
    }
    nav.append(h('li', {}, h('a', { href: `#/${p.path}`, 'data-page': p.path },
      p.group ? h('span', { class: 'visually-hidden' }, `${p.group} → `) : null, p.title)));
  }
  const sidebar = h('header', { class: 'sidebar' });
  const toggle = h('button', { type: 'button', class: 'menu-toggle', 'aria-expanded': 'false', 'aria-controls': 'nav' }, 'Menu');
  toggle.addEventListener('click', () => {
    const open = sidebar.classList.toggle('open');
    toggle.setAttribute('aria-expanded', String(open));
  });
  const signOut = h('button', { type: 'button', class: 'secondary', id: 'sign-out' }, 'Sign out');
  signOut.addEventListener('click', async () => {
    try { await api('POST', '/api/auth/logout'); } catch { /* the cookie is gone either way on reload */ }
    session = null;
    renderLogin('You are signed out.');
  });
  replace(sidebar, h('span', { class: 'brand' }, 'folio'), toggle,
    h('nav', { id: 'nav', 'aria-label': 'Dashboard' }, nav),
    h('div', { class: 'who' }, h('div', {}, session.user.name || session.user.email),
      h('div', { class: 'muted' }, `${session.user.email} · ${session.user.role}`), signOut));
  main = h('main', { id: 'main', tabindex: '-1' });
  app.dataset.state = 'ready';
  replace(app, h('div', { class: 'shell' }, sidebar, main));
}

let renderSeq = 0;

async function route() {
  if (!session) return;
  const hash = location.hash.replace(/^#\/?/, '');
  const avail = visiblePages();
  const page = avail.find((p) => hash === p.path || hash.startsWith(`${p.path}/`)) || avail[0];
  const rest = hash === page.path ? '' : hash.slice(page.path.length + 1);
  for (const a of app.querySelectorAll('nav a')) {
    if (a.dataset.page === page.path) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  app.querySelector('.sidebar')?.classList.remove('open');
  document.title = `${page.title} · folio admin`;
  const seq = ++renderSeq;
  main.replaceChildren(h('p', { class: 'muted', role: 'status' }, 'Loading…'));
  main.dataset.page = page.path;
  try {
    const content = await page.view.render({ rest, session, navigate, announce });
    if (seq !== renderSeq) return; // a newer navigation won
    replace(main, content);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      session = null;
      renderLogin('Your session has ended; sign in again.');
      return;
    }
    if (seq !== renderSeq) return;
    replace(main, h('div', { class: 'status error', role: 'alert' }, e.describe ? e.describe() : String(e)));
  }
  main.focus({ preventScroll: true });
}

async function start() {
  let s = null;
  try {
    s = await api('GET', '/api/auth/session');
  } catch (e) {
    replace(app, h('div', { class: 'status error', role: 'alert' }, e.describe ? e.describe() : String(e)));
    return;
  }
  if (!s || !s.user) {
    renderLogin();
    return;
  }
  session = s;
  renderShell();
  await route();
}

window.addEventListener('hashchange', route);
start();
