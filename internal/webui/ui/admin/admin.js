// The dashboard shell: sign-in, navigation by URL hash, and one view module per page. Every
// view talks to the public /api routes with the session cookie; there is no private back door.
// When the session ends while a page is open, a sign-in dialog appears over it and the call that
// failed is retried, so nothing typed into a form is lost.
import { api, ApiError, setUnauthorizedHandler } from './shared/api.js';
import { h, replace, field } from './shared/dom.js';
import { icon, openDialog, toast, loadingBlock, errorText, forgetFeatures } from './ui.js';
import * as overview from './overview.js';
import * as analytics from './analytics.js';
import * as projects from './projects.js';
import * as posts from './posts.js';
import * as media from './media.js';
import * as bookings from './bookings.js';
import * as meetingTypes from './meetingtypes.js';
import * as availability from './availability.js';
import * as inbox from './inbox.js';
import * as comments from './comments.js';
import * as keys from './keys.js';
import * as featuresPage from './features.js';
import * as webhooks from './webhooks.js';
import * as profile from './profile.js';
import * as security from './security.js';
import * as auditLog from './audit.js';
import * as subscribers from './subscribers.js';
import * as exportPage from './export.js';
import * as settings from './settings.js';
import * as signinSettings from './signinsettings.js';
import { totpStep } from './signin.js';
import { otherSignIns, spendSignInLink } from './passkeys.js';

const app = document.getElementById('app');
const live = document.getElementById('live');

// Pages: hash prefix (and older addresses that still lead there), title, module, icon, whether
// only owners (admin level) may open them, the "g <key>" keyboard shortcut, and the sidebar
// group. Settings pages (section set) share one sidebar entry and list themselves in the
// settings page's own navigation.
const pages = [
  { path: 'overview', title: 'Overview', view: overview, owner: true, icon: 'layout-dashboard', key: 'o' },
  { path: 'analytics', title: 'Analytics', view: analytics, owner: true, icon: 'chart-pie', key: 'l' },
  { path: 'posts', title: 'Posts', view: posts, icon: 'file-text', key: 'p', group: 'Content' },
  { path: 'projects', title: 'Projects', view: projects, icon: 'folder-kanban', key: 'r', group: 'Content' },
  { path: 'media', title: 'Media', view: media, icon: 'image', key: 'm', group: 'Content' },
  { path: 'inbox', title: 'Inbox', view: inbox, owner: true, icon: 'inbox', key: 'i', group: 'Content' },
  { path: 'comments', title: 'Comments', view: comments, owner: true, icon: 'message-square-text', group: 'Content' },
  { path: 'subscribers', title: 'Subscribers', view: subscribers, owner: true, icon: 'mail', group: 'Content' },
  { path: 'bookings', title: 'Bookings', view: bookings, owner: true, icon: 'calendar', key: 'b', group: 'Schedule', aliases: ['schedule/bookings'] },
  { path: 'schedule/types', title: 'Meeting types', view: meetingTypes, owner: true, group: 'Schedule', icon: 'clock', key: 't' },
  { path: 'schedule/availability', title: 'Days off', view: availability, owner: true, group: 'Schedule', icon: 'calendar-x', key: 'd' },
  { path: 'settings/site', title: 'Site', view: settings.site, owner: true, section: 'Site', key: 'e' },
  { path: 'settings/booking', title: 'Booking', view: settings.booking, owner: true, section: 'Site' },
  { path: 'settings/mail', title: 'Mail', view: settings.mail, owner: true, section: 'Site' },
  { path: 'settings/contact', title: 'Contact form', view: settings.contact, owner: true, section: 'Site' },
  { path: 'settings/newsletter', title: 'Newsletter', view: settings.newsletter, owner: true, section: 'Site' },
  { path: 'settings/analytics', title: 'Analytics', view: settings.analytics, owner: true, section: 'Site' },
  { path: 'settings/signin', title: 'Sign-in', view: signinSettings, owner: true, section: 'Site' },
  { path: 'settings/keys', title: 'API keys', view: keys, owner: true, section: 'Integrations', key: 'k' },
  { path: 'settings/webhooks', title: 'Webhooks', view: webhooks, owner: true, section: 'Integrations', key: 'w' },
  { path: 'settings/features', title: 'Features', view: featuresPage, owner: true, section: 'Integrations', key: 'f' },
  { path: 'settings/export', title: 'Import and export', view: exportPage, owner: true, section: 'Data', key: 'x' },
  { path: 'settings/audit', title: 'Audit log', view: auditLog, owner: true, section: 'Data', key: 'a' },
  { path: 'settings/profile', title: 'Profile', view: profile, section: 'Your account', icon: 'user', key: 'u', aliases: ['profile'] },
  { path: 'settings/security', title: 'Security', view: security, section: 'Your account', key: 's' },
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

/** retryText says when a rate-limited sign-in may be tried again, from the 429's retryAfter. */
function retryText(e) {
  const secs = Number(e.retryAfter) || 0;
  if (!secs) return 'Too many sign-in attempts. Wait a while and try again.';
  const at = new Date(Date.now() + secs * 1000);
  const when = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(at);
  // The server's message already says how long when it can (the sign-in limit does); else say it here.
  const said = e.message && /try again in/i.test(e.message) ? e.message.replace(/\.$/, '') : '';
  const wait = secs < 90 ? `${secs} seconds` : `${Math.ceil(secs / 60)} minutes`;
  return `${said || `Too many sign-in attempts. Try again in ${wait}`} (at ${when}).`;
}

/** signInError words a failed sign-in for the form. */
function signInError(e) {
  if (e instanceof ApiError && e.status === 401) return 'Wrong email or password.';
  if (e instanceof ApiError && e.status === 429) return retryText(e);
  return errorText(e);
}

/** setupNotice tells the first visitor of a new instance that no user exists and how to make one. */
function setupNotice(onRecheck) {
  const again = h('button', { type: 'button', class: 'secondary', id: 'setup-recheck' }, icon('refresh-cw'), 'I have created it');
  again.addEventListener('click', onRecheck);
  return h('div', { class: 'setup-notice', id: 'setup-notice', role: 'note' },
    h('h2', {}, icon('info'), 'No user exists yet'),
    h('p', {}, 'This folio has no owner, so nobody can sign in. On the server, create one (the password is asked for, never typed on the command line):'),
    h('pre', { class: 'snippet' }, h('code', {}, 'folio user create --email you@example.com --name "Your Name" --role owner')),
    h('p', { class: 'muted' }, 'Or set FOLIO_ADMIN_EMAIL and FOLIO_ADMIN_PASSWORD and restart folio; the owner is created at start.'),
    again);
}

async function renderLogin(message) {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const status = h('div', { class: 'status error', role: 'alert' }, message || '');
  const submit = h('button', { type: 'submit' }, icon('lock'), 'Sign in');
  const notice = h('div', {});
  // A provider that refused sends the browser back here with ?error=…; say it once.
  const params = new URLSearchParams(location.search);
  if (!message && params.get('error')) {
    status.textContent = params.get('error');
    history.replaceState(null, '', location.pathname + location.hash);
  }
  // Passkey, then the identity providers, then the password (docs/api.md, "Sign-in page").
  const others = await otherSignIns({ onDone: start, status, emailInput: email });
  const form = h('form', { class: 'panel login', id: 'login-form', novalidate: true },
    h('div', { class: 'brand-mark' }, h('img', { src: '/admin/favicon.svg', alt: '', width: 40, height: 40 }), h('span', {}, 'folio')),
    h('p', { class: 'muted center' }, 'Sign in to the dashboard.'), notice, status, others.top,
    field('Email', email), field('Password', password), h('div', { class: 'row' }, submit, others.linkButton));
  const checkSetup = async () => {
    try {
      const s = await api('GET', '/api/setup');
      replace(notice, s.needsOwner ? setupNotice(checkSetup) : null);
      if (!s.needsOwner && document.activeElement && document.activeElement.id === 'setup-recheck') email.focus();
    } catch { replace(notice); }
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    status.textContent = '';
    if (!email.value.trim() || !password.value) {
      status.textContent = 'Enter your email and password.';
      (email.value.trim() ? password : email).focus();
      return;
    }
    submit.disabled = true;
    submit.classList.add('is-busy');
    try {
      const res = await api('POST', '/api/auth/login', { email: email.value.trim(), password: password.value });
      password.value = '';
      if (res && res.mfaRequired) {
        replace(app, h('main', { id: 'main', class: 'login-page' }, totpStep(res.ticket, { onDone: start, onCancel: () => renderLogin() })));
        return;
      }
      await start();
    } catch (e) {
      status.textContent = signInError(e);
      submit.disabled = false;
      submit.classList.remove('is-busy');
      password.focus();
    }
  });
  app.dataset.state = 'login';
  replace(app, h('main', { id: 'main', class: 'login-page' }, form));
  email.focus();
  await checkSetup();
}

// ---- Sign-in again, in place ----

let reauth = null;

/**
 * signInAgain shows a sign-in dialog over the page when the session has ended; it resolves true
 * once the same person is signed in again. Concurrent failures share one dialog.
 */
function signInAgain() {
  if (!session) return Promise.resolve(false);
  if (reauth) return reauth;
  reauth = (async () => {
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', value: session.user.email, readonly: true });
    const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', autofocus: true });
    const status = h('div', { class: 'status error', role: 'alert' });
    for (;;) {
      const v = await openDialog({
        id: 'reauth-dialog', title: 'Your session has ended',
        body: [h('p', {}, 'Sign in again to continue. What you were editing stays on the page and is saved once you are back.'),
          status, field('Email', email), field('Password', password)],
        actions: [{ label: 'Sign out', value: 'leave', kind: 'secondary', id: 'reauth-leave' },
          { label: 'Sign in and continue', value: 'signin', id: 'reauth-submit', iconName: 'lock' }],
      });
      if (v !== 'signin') return false;
      try {
        const res = await api('POST', '/api/auth/login', { email: email.value, password: password.value });
        password.value = '';
        if (res && res.mfaRequired && !(await secondFactor(res.ticket))) continue;
        toast('Signed in again; carrying on.', 'ok');
        return true;
      } catch (e) {
        status.textContent = signInError(e);
      }
    }
  })();
  reauth.then((ok) => {
    reauth = null;
    if (!ok) {
      session = null;
      renderLogin('You are signed out.');
    }
  });
  return reauth;
}

/** secondFactor asks for the two-factor code of a sign-in ticket in a dialog; true once signed in. */
async function secondFactor(ticket) {
  const code = h('input', { type: 'text', name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 13, autofocus: true });
  const status = h('div', { class: 'status error', role: 'alert' });
  for (;;) {
    const v = await openDialog({
      id: 'reauth-totp-dialog', title: 'Two-factor sign-in',
      body: [h('p', {}, 'Enter the code your authenticator app shows, or a recovery code.'), status, field('Code', code)],
      actions: [{ label: 'Back', value: 'back', kind: 'secondary' }, { label: 'Verify', value: 'verify', id: 'reauth-totp-submit' }],
    });
    if (v !== 'verify') return false;
    const c = code.value.replace(/\s+/g, '');
    try {
      await api('POST', '/api/auth/login/totp', /^\d{6}$/.test(c) ? { ticket, code: c } : { ticket, recoveryCode: c });
      return true;
    } catch (e) {
      status.textContent = e instanceof ApiError && e.status === 401
        ? 'That code is not right, was already used, or took over 5 minutes (then go back and sign in again).' : signInError(e);
    }
  }
}

// ---- Keyboard shortcuts ----

const otherShortcuts = [
  ['n', 'New project or post (on those pages)'],
  ['/', 'Focus the page\'s search or first filter'],
  ['Ctrl + S  or  ⌘ + S', 'Save the form you are editing'],
  ['Esc', 'Close a dialog or the menu'],
  ['?', 'Show these shortcuts'],
];

function showShortcuts() {
  if (document.getElementById('shortcuts-dialog')) return;
  const goTo = visiblePages().filter((p) => p.key).flatMap((p) => [
    h('dt', {}, h('kbd', {}, 'g'), ' ', h('kbd', {}, p.key)),
    h('dd', {}, `Go to ${p.section ? `${p.title} (Settings)` : p.title}`)]);
  openDialog({
    id: 'shortcuts-dialog', title: 'Keyboard shortcuts', className: 'shortcuts-dialog',
    body: [h('dl', { class: 'shortcuts' }, h('div', { class: 'shortcuts-group' }, 'Pages: press g, then'), goTo,
      h('div', { class: 'shortcuts-group' }, 'Anywhere'), otherShortcuts.flatMap(([k, what]) => [h('dt', {}, h('kbd', {}, k)), h('dd', {}, what)]))],
    actions: [{ label: 'Close', value: 'close', kind: 'secondary', id: 'shortcuts-close' }],
  });
}

let pendingG = 0;

function typing(target) {
  return target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

function onKey(ev) {
  if (!session || document.querySelector('dialog[open]')) return;
  if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 's') {
    const form = main && (main.querySelector('form[data-primary]') || main.querySelector('form'));
    if (form) {
      ev.preventDefault();
      form.requestSubmit();
    }
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
  if (ev.key === 'Escape') {
    app.querySelector('.sidebar.open')?.classList.remove('open');
    return;
  }
  if (pendingG && Date.now() - pendingG < 1500) {
    pendingG = 0;
    const page = visiblePages().find((p) => p.key === ev.key);
    if (page) {
      ev.preventDefault();
      navigate(`#/${page.path}`);
    }
    return;
  }
  if (ev.key === 'g') { pendingG = Date.now(); return; }
  if (ev.key === '?') { ev.preventDefault(); showShortcuts(); return; }
  if (ev.key === '/') {
    const f = main && main.querySelector('input[type=search], .page-head select, .page-head input');
    if (f) { ev.preventDefault(); f.focus(); }
    return;
  }
  if (ev.key === 'n') {
    const add = main && main.querySelector('[data-shortcut=new]');
    if (add) { ev.preventDefault(); add.click(); }
  }
}

// ---- Shell ----

/** settingsHome is the first settings page the signed-in person may open. */
function settingsHome() {
  return visiblePages().find((p) => p.section);
}

function renderShell() {
  const nav = h('ul', {});
  let group = '';
  const link = (path, title, iconName, pageKey) => h('li', {}, h('a', { href: `#/${path}`, 'data-page': pageKey || path },
    icon(iconName || 'layout-dashboard'), h('span', {}, title)));
  for (const p of visiblePages().filter((pg) => !pg.section)) {
    if (p.group && p.group !== group) {
      group = p.group;
      nav.append(h('li', { class: 'group', 'aria-hidden': 'true' }, group));
    }
    nav.append(link(p.path, p.title, p.icon));
  }
  nav.append(h('li', { class: 'group', 'aria-hidden': 'true' }, 'Manage'), link(settingsHome().path, 'Settings', 'settings', 'settings'));
  const sidebar = h('header', { class: 'sidebar' });
  const toggle = h('button', { type: 'button', class: 'menu-toggle ghost', 'aria-expanded': 'false', 'aria-controls': 'nav' }, icon('menu'), h('span', {}, 'Menu'));
  toggle.addEventListener('click', () => {
    const open = sidebar.classList.toggle('open');
    toggle.setAttribute('aria-expanded', String(open));
  });
  const signOut = h('button', { type: 'button', class: 'ghost icon-only', id: 'sign-out', 'aria-label': 'Sign out', title: 'Sign out' }, icon('log-out'));
  signOut.addEventListener('click', async () => {
    try { await api('POST', '/api/auth/logout'); } catch { /* the cookie is gone either way on reload */ }
    session = null;
    forgetFeatures();
    renderLogin('You are signed out.');
  });
  const help = h('button', { type: 'button', class: 'ghost icon-only', id: 'shortcuts-button', 'aria-label': 'Keyboard shortcuts', title: 'Keyboard shortcuts (?)' }, icon('keyboard'));
  help.addEventListener('click', showShortcuts);
  const who = session.user.name || session.user.email;
  const initials = who.split(/\s+/).map((w) => w[0]).join('').slice(0, 2).toUpperCase();
  replace(sidebar,
    h('div', { class: 'sidebar-top' }, h('a', { class: 'brand', href: '#/' }, h('img', { src: '/admin/favicon.svg', alt: '', width: 28, height: 28 }), 'folio'), toggle),
    h('nav', { id: 'nav', 'aria-label': 'Dashboard' }, nav),
    h('div', { class: 'who' },
      h('a', { class: 'user', href: '#/settings/profile', title: `${session.user.email} · ${session.user.role}` }, h('span', { class: 'avatar', 'aria-hidden': 'true' }, initials),
        h('div', {}, h('div', { class: 'user-name truncate' }, who), h('div', { class: 'muted small truncate' }, session.user.role === 'owner' ? 'Owner' : 'Editor'))),
      h('div', { class: 'who-actions' }, help, signOut)));
  main = h('main', { id: 'main', tabindex: '-1' });
  app.dataset.state = 'ready';
  replace(app, h('div', { class: 'shell' }, sidebar, main));
}

/** settingsLayout puts a settings page beside the list of settings sections (a select on phones). */
function settingsLayout(current, content) {
  const avail = visiblePages().filter((p) => p.section);
  const sections = [...new Set(avail.map((p) => p.section))];
  const jump = h('select', { id: 'settings-jump', 'aria-label': 'Settings section' },
    sections.map((sec) => h('optgroup', { label: sec }, avail.filter((p) => p.section === sec)
      .map((p) => h('option', { value: p.path, selected: p === current }, p.title)))));
  jump.addEventListener('change', () => navigate(`#/${jump.value}`));
  return h('div', { class: 'settings-layout' },
    h('aside', { class: 'settings-nav' }, h('p', { class: 'settings-title' }, 'Settings'), h('div', { class: 'settings-jump' }, jump),
      h('nav', { 'aria-label': 'Settings' }, sections.map((sec) => [h('div', { class: 'group', 'aria-hidden': 'true' }, sec),
        h('ul', {}, avail.filter((p) => p.section === sec).map((p) => h('li', {}, h('a', { href: `#/${p.path}`, 'aria-current': p === current ? 'page' : null }, p.title))))]))),
    h('div', { class: 'settings-page' }, content));
}

let renderSeq = 0;

async function route() {
  if (!session) return;
  const hash = location.hash.replace(/^#\/?/, '');
  const avail = visiblePages();
  let base = '';
  const page = avail.find((p) => [p.path, ...(p.aliases || [])].some((a) => {
    if (hash === a || hash.startsWith(`${a}/`)) { base = a; return true; }
    return false;
  })) || avail[0];
  const rest = hash === base || !base ? '' : hash.slice(base.length + 1);
  const navKey = page.section ? 'settings' : page.path;
  for (const a of app.querySelectorAll('.sidebar nav a')) {
    if (a.dataset.page === navKey) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  app.querySelector('.sidebar')?.classList.remove('open');
  app.querySelector('.menu-toggle')?.setAttribute('aria-expanded', 'false');
  document.title = `${page.section ? `${page.title} · Settings` : page.title} · folio admin`;
  const seq = ++renderSeq;
  main.replaceChildren(loadingBlock(`Loading ${page.title}…`));
  main.dataset.page = page.path;
  main.setAttribute('aria-busy', 'true');
  try {
    const content = await page.view.render({ rest, session, navigate, announce });
    if (seq !== renderSeq) return; // a newer navigation won
    replace(main, page.section ? settingsLayout(page, content) : content);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      // The sign-in dialog was declined (or could not help): back to the sign-in page.
      session = null;
      renderLogin('Your session has ended; sign in again.');
      return;
    }
    if (seq !== renderSeq) return;
    replace(main, h('div', { class: 'status error', role: 'alert' }, icon('circle-alert'), h('span', {}, errorText(e))));
  } finally {
    if (seq === renderSeq) main.removeAttribute('aria-busy');
  }
  main.focus({ preventScroll: true });
}

async function start() {
  // A mailed sign-in link (#signin-link=…) signs in first, once.
  const linkError = await spendSignInLink();
  if (linkError) {
    renderLogin(linkError);
    return;
  }
  let s = null;
  try {
    s = await api('GET', '/api/auth/session');
  } catch (e) {
    replace(app, h('div', { class: 'status error', role: 'alert' }, errorText(e)));
    return;
  }
  if (!s || !s.user) {
    renderLogin();
    return;
  }
  session = s;
  forgetFeatures();
  renderShell();
  await route();
}

setUnauthorizedHandler(signInAgain);
window.addEventListener('hashchange', route);
document.addEventListener('keydown', onKey);
start();
