// Passkeys and the other ways to sign in beside a password: the WebAuthn ceremonies against
// /api/auth/passkeys/…, the sign-in page's passkey, provider and mail-link choices, and the
// Security page's list of passkeys (add, rename, remove).
import { api, ApiError } from './shared/api.js';
import { h, field, replace, formatDateTime } from './shared/dom.js';
import { statusBox, errorText, busy, confirmDialog } from './ui.js';

/** passkeysSupported says whether this browser can run the ceremonies with JSON options. */
export function passkeysSupported() {
  return !!(window.PublicKeyCredential && PublicKeyCredential.parseRequestOptionsFromJSON && PublicKeyCredential.parseCreationOptionsFromJSON);
}

/** assertPasskey runs a passkey sign-in ceremony and returns the credential as JSON. */
async function assertPasskey() {
  const opts = await api('POST', '/api/auth/passkeys/login/begin');
  const cred = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(opts.publicKey) });
  return cred.toJSON();
}

/** passkeySignIn signs in with a passkey alone, or as the second step of a ticket. */
export async function passkeySignIn(ticket) {
  const credential = await assertPasskey();
  if (ticket) return api('POST', '/api/auth/login/passkey', { ticket, credential });
  return api('POST', '/api/auth/passkeys/login/finish', { credential });
}

/** passkeyErrorText words a failed ceremony; a cancelled browser prompt is no error worth shouting. */
export function passkeyErrorText(e) {
  if (e && e.name === 'NotAllowedError') return 'The passkey prompt was closed or timed out.';
  if (e instanceof ApiError && e.status === 401) return 'That passkey was not accepted. Try again, or sign in another way.';
  return errorText(e);
}

/**
 * otherSignIns is the top of the sign-in page: a passkey button and one per identity provider,
 * in that order, plus "email me a link" when the owner turned links on. onDone runs once signed in.
 */
export async function otherSignIns({ onDone, status, emailInput }) {
  let conf = { providers: [], emailLinks: false };
  try { conf = await api('GET', '/api/auth/providers'); } catch { /* the password form still works */ }
  const out = h('div', { class: 'other-signins', id: 'other-signins' });
  if (passkeysSupported()) {
    const b = h('button', { type: 'button', id: 'passkey-signin', class: 'secondary wide' }, 'Sign in with a passkey');
    b.addEventListener('click', () => busy(b, async () => {
      status.textContent = '';
      try {
        await passkeySignIn();
        await onDone();
      } catch (e) { status.textContent = passkeyErrorText(e); }
    }));
    out.append(b);
  }
  for (const p of conf.providers) {
    out.append(h('a', { class: 'button secondary wide provider-signin', id: `provider-${p.id}`, href: `/api/auth/oidc/${encodeURIComponent(p.id)}/start` },
      `Sign in with ${p.name}`));
  }
  let linkButton = null;
  if (conf.emailLinks) {
    linkButton = h('button', { type: 'button', id: 'email-link', class: 'link-like' }, 'Email me a sign-in link instead');
    linkButton.addEventListener('click', () => busy(linkButton, async () => {
      status.textContent = '';
      const email = emailInput.value.trim();
      if (!email) { status.textContent = 'Enter your email first, then ask for a link.'; emailInput.focus(); return; }
      try {
        await api('POST', '/api/auth/link', { email });
        status.textContent = 'If that address may sign in by link, a link is on its way. It works once, within 15 minutes.';
      } catch (e) { status.textContent = errorText(e); }
    }));
  }
  if (out.childElementCount) out.append(h('p', { class: 'muted center or' }, 'or with your password'));
  return { top: out, linkButton };
}

/** spendSignInLink signs in with the #signin-link=… of a mailed link, once; true when it did. */
export async function spendSignInLink() {
  const m = /^#signin-link=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, '', `${location.pathname}#/`);
  try {
    await api('POST', '/api/auth/link/verify', { token: m[1] });
    return '';
  } catch (e) {
    return e instanceof ApiError && e.status === 401 ? e.message : errorText(e);
  }
}

/** passkeysPanel lists the user's passkeys on the Security page, with add, rename and remove. */
export function passkeysPanel({ announce }) {
  const status = statusBox();
  const list = h('ul', { class: 'passkey-list', id: 'passkey-list' });
  const name = h('input', { type: 'text', id: 'passkey-name', maxlength: 64, placeholder: 'e.g. Laptop' });
  const add = h('button', { type: 'button', id: 'passkey-add' }, 'Add a passkey');
  const panel = h('section', { class: 'panel', id: 'passkeys-panel' }, h('h2', {}, 'Passkeys'),
    h('p', { class: 'muted' }, 'Sign in with your fingerprint, face or device PIN instead of a password, or use a passkey as the second step. Adding, renaming or removing one signs out your other sessions.'),
    status, list, h('div', { class: 'row' }, field('Name of the new passkey', name), add));
  if (!passkeysSupported()) {
    add.disabled = true;
    status.set('This browser cannot create passkeys.', 'error');
  }
  const load = async () => {
    const res = await api('GET', '/api/auth/passkeys');
    replace(list, ...(res.passkeys.length ? res.passkeys.map(row) : [h('li', { class: 'muted' }, 'No passkeys yet.')]));
  };
  const row = (p) => {
    const rename = h('button', { type: 'button', class: 'secondary', 'aria-label': `Rename ${p.name}` }, 'Rename');
    const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${p.name}` }, 'Remove');
    rename.addEventListener('click', () => busy(rename, async () => {
      const next = window.prompt('New name of the passkey', p.name);
      if (!next || next === p.name) return;
      try { await api('PATCH', `/api/auth/passkeys/${p.id}`, { name: next }); await load(); announce('Passkey renamed'); } catch (e) { status.set(errorText(e), 'error'); }
    }));
    remove.addEventListener('click', () => busy(remove, async () => {
      const sure = await confirmDialog({ title: `Remove ${p.name}?`, message: 'You can no longer sign in with it.', confirmLabel: 'Remove', danger: true });
      if (!sure) return;
      try { await api('DELETE', `/api/auth/passkeys/${p.id}`); await load(); status.set('Passkey removed.', 'ok'); announce('Passkey removed'); } catch (e) { status.set(errorText(e), 'error'); }
    }));
    const used = p.lastUsedAt ? `last used ${formatDateTime(p.lastUsedAt)}` : 'never used';
    return h('li', { class: 'passkey', 'data-id': p.id }, h('strong', {}, p.name),
      h('span', { class: 'muted' }, ` added ${formatDateTime(p.createdAt)}, ${used}${p.backupState ? ', synced' : ''}`), rename, remove);
  };
  add.addEventListener('click', () => busy(add, async () => {
    try {
      const opts = await api('POST', '/api/auth/passkeys/register/begin');
      const cred = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(opts.publicKey) });
      await api('POST', '/api/auth/passkeys/register/finish', { name: name.value.trim() || 'Passkey', credential: cred.toJSON() });
      name.value = '';
      await load();
      status.set('Passkey added. Your other sessions have been signed out.', 'ok');
      announce('Passkey added');
    } catch (e) { status.set(passkeyErrorText(e), 'error'); }
  }));
  return { panel, load };
}

/** providerLinksPanel lets the user link an account at each identity provider (Security page). */
export async function providerLinksPanel() {
  let conf = { providers: [] };
  try { conf = await api('GET', '/api/auth/providers'); } catch { return null; }
  if (!conf.providers.length) return null;
  const status = statusBox();
  const buttons = conf.providers.map((p) => {
    const b = h('button', { type: 'button', class: 'secondary', id: `link-provider-${p.id}` }, `Link your ${p.name} account`);
    b.addEventListener('click', () => busy(b, async () => {
      try {
        const res = await api('POST', `/api/auth/oidc/${encodeURIComponent(p.id)}/link`);
        window.location.href = res.url;
      } catch (e) { status.set(errorText(e), 'error'); }
    }));
    return b;
  });
  return h('section', { class: 'panel', id: 'provider-links-panel' }, h('h2', {}, 'Identity providers'),
    h('p', { class: 'muted' }, 'Link an account at a provider to sign in with it, even when its email differs from yours here.'),
    status, h('div', { class: 'row' }, buttons));
}
