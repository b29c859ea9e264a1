// Sign-in pieces beyond email and password: the two-factor step and saying when a locked-out
// client may try again.
import { api, ApiError } from './shared/api.js';
import { h, field } from './shared/dom.js';
import { passkeySignIn, passkeysSupported, passkeyErrorText } from './passkeys.js';

/** signInErrorText explains a failed sign-in; a 429 says when to retry. */
export function signInErrorText(e) {
  if (e instanceof ApiError && e.status === 429) {
    const when = e.retryAfter ? new Date(Date.now() + e.retryAfter * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : '';
    return `${e.message}${when ? ` (at ${when})` : ''}`;
  }
  if (e instanceof ApiError && e.status === 401) return 'Wrong email or password.';
  return e && e.describe ? e.describe() : String(e);
}

/**
 * totpStep is the second sign-in step: a code from the authenticator app, or a recovery code.
 * It resolves when the session cookie is set; onCancel goes back to the password form.
 */
export function totpStep(ticket, { onDone, onCancel }) {
  const code = h('input', { type: 'text', name: 'code', id: 'login-totp-code', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 7 });
  const recovery = h('input', { type: 'text', name: 'recoveryCode', id: 'login-recovery-code', autocomplete: 'off', hidden: true, maxlength: 13 });
  const recoveryField = field('Recovery code', recovery);
  recoveryField.hidden = true;
  const codeField = field('Code from your authenticator app', code);
  const status = h('div', { class: 'status error', role: 'alert' });
  const submit = h('button', { type: 'submit' }, 'Verify');
  const useRecovery = h('button', { type: 'button', class: 'secondary', id: 'use-recovery-code' }, 'Use a recovery code');
  const back = h('button', { type: 'button', class: 'secondary' }, 'Back');
  const withPasskey = h('button', { type: 'button', class: 'secondary', id: 'totp-use-passkey', hidden: !passkeysSupported() }, 'Use a passkey');
  withPasskey.addEventListener('click', async () => {
    status.textContent = '';
    withPasskey.disabled = true;
    try {
      await passkeySignIn(ticket);
      await onDone();
    } catch (e) {
      status.textContent = passkeyErrorText(e);
      withPasskey.disabled = false;
    }
  });
  useRecovery.addEventListener('click', () => {
    codeField.hidden = true;
    recovery.hidden = false;
    recoveryField.hidden = false;
    useRecovery.hidden = true;
    recovery.focus();
  });
  back.addEventListener('click', () => onCancel());
  const form = h('form', { class: 'panel login', id: 'login-totp-form', novalidate: true }, h('h1', {}, 'folio'),
    h('p', { class: 'muted' }, 'Two-factor sign-in: enter the code your app shows.'), status,
    codeField, recoveryField, h('div', { class: 'row' }, submit, useRecovery, withPasskey, back));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    status.textContent = '';
    const body = recovery.hidden ? { ticket, code: code.value.trim() } : { ticket, recoveryCode: recovery.value.trim() };
    if (!body.code && !body.recoveryCode) {
      status.textContent = 'Enter the code.';
      return;
    }
    submit.disabled = true;
    try {
      await api('POST', '/api/auth/login/totp', body);
      await onDone();
    } catch (e) {
      status.textContent = e instanceof ApiError && e.status === 401
        ? 'That code is not right, was already used, or the sign-in took over 5 minutes (then go back and sign in again).'
        : signInErrorText(e);
      submit.disabled = false;
    }
  });
  setTimeout(() => code.focus(), 0);
  return form;
}
