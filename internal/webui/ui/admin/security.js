// Security (a settings page): change the password (only here), two-factor sign-in (enrol with a
// QR code, recovery codes shown once, turn off) and "sign out everywhere".
import { api, ApiError } from './shared/api.js';
import { h, field, replace } from './shared/dom.js';
import { pageHead, statusBox, errorText, busy, markFields, confirmDialog } from './ui.js';
import { passkeysPanel, providerLinksPanel } from './passkeys.js';

/** passwordPanel is the "Change password" form: current and new password (12+ characters). */
function passwordPanel({ announce }) {
  const status = statusBox();
  const current = h('input', { type: 'password', name: 'currentPassword', id: 'password-current', autocomplete: 'current-password', required: true });
  const next = h('input', { type: 'password', name: 'newPassword', id: 'password-new', autocomplete: 'new-password', required: true, minlength: 12 });
  const again = h('input', { type: 'password', name: 'newPasswordAgain', id: 'password-again', autocomplete: 'new-password', required: true });
  const save = h('button', { type: 'submit' }, 'Change password');
  const form = h('form', { class: 'panel', id: 'password-form', novalidate: true }, h('h2', {}, 'Change password'),
    h('p', { class: 'muted' }, 'Every other browser and device signed in as you is signed out; this one stays signed in.'),
    status, field('Current password', current), h('div', { class: 'grid' },
      field('New password', next, 'At least 12 characters.'), field('New password again', again)), save);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    markFields(form, null);
    if (!current.value || !next.value) {
      status.set('Enter your current password and a new one.', 'error');
      return;
    }
    if ([...next.value].length < 12) {
      status.set('The new password must be at least 12 characters.', 'error');
      markFields(form, { details: [{ field: 'newPassword' }] });
      return;
    }
    if (next.value !== again.value) {
      status.set('The two new passwords differ.', 'error');
      markFields(form, { details: [{ field: 'newPasswordAgain' }] });
      return;
    }
    busy(save, async () => {
      try {
        await api('POST', '/api/auth/password', { currentPassword: current.value, newPassword: next.value });
        form.reset();
        status.set('Password changed. Your other sessions have been signed out.', 'ok');
        announce('Password changed');
      } catch (e) {
        if (e instanceof ApiError && e.status === 403) {
          status.set('The current password is incorrect.', 'error');
          markFields(form, { details: [{ field: 'currentPassword' }] });
        } else {
          status.set(errorText(e).replace('newPassword', 'New password'), 'error');
          markFields(form, e);
        }
      }
    });
  });
  return form;
}

/** twoFactorPanel shows TOTP's state and walks through enrolment or turning it off. */
function twoFactorPanel({ announce }) {
  const status = statusBox();
  const body = h('div', {});
  const panel = h('section', { class: 'panel', id: 'totp-panel' }, h('h2', {}, 'Two-factor sign-in'), status, body);

  const showOff = () => {
    const start = h('button', { type: 'button', id: 'totp-start' }, 'Set up two-factor sign-in');
    start.addEventListener('click', () => busy(start, async () => {
      try { showEnrol(await api('POST', '/api/auth/totp/setup')); } catch (e) { status.set(errorText(e), 'error'); }
    }));
    replace(body, h('p', {}, 'Off. With it on, signing in also asks for a code from an authenticator app on your phone.'), start);
  };

  const showEnrol = (setup) => {
    const code = h('input', { type: 'text', name: 'code', id: 'totp-code', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 7, required: true });
    const enable = h('button', { type: 'submit' }, 'Turn on');
    const form = h('form', { id: 'totp-enable-form', novalidate: true },
      h('ol', {},
        h('li', {}, 'Scan this QR code with an authenticator app (or type the key below).'),
        h('li', {}, 'Enter the 6-digit code the app shows.')),
      h('img', { src: setup.qrCode, alt: 'QR code for your authenticator app', width: 240, height: 240, id: 'totp-qr', class: 'qr' }),
      h('p', {}, 'Key: ', h('code', { id: 'totp-secret', class: 'mono' }, setup.secret)),
      field('Code from the app', code), enable);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      busy(enable, async () => {
        try {
          const res = await api('POST', '/api/auth/totp/enable', { code: code.value.trim() });
          status.set('Two-factor sign-in is on.', 'ok');
          announce('Two-factor sign-in is on');
          showCodes(res.recoveryCodes);
        } catch (e) {
          status.set(e instanceof ApiError && e.status === 422 ? 'That code is not right. Check the phone\'s clock and try the next code.' : errorText(e), 'error');
          markFields(form, e);
        }
      });
    });
    replace(body, form);
    code.focus();
  };

  const showCodes = (codes) => {
    const done = h('button', { type: 'button', id: 'totp-codes-done' }, 'I have saved these codes');
    done.addEventListener('click', () => load());
    replace(body,
      h('p', {}, h('strong', {}, 'Recovery codes — shown this once. '), 'Each one signs you in once if you lose your phone. Keep them somewhere safe.'),
      h('ul', { class: 'recovery-codes mono', id: 'totp-recovery-codes' }, codes.map((c) => h('li', {}, c))), done);
    done.focus();
  };

  const showOn = (st) => {
    const code = h('input', { type: 'text', name: 'code', id: 'totp-disable-code', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 7 });
    const password = h('input', { type: 'password', name: 'password', id: 'totp-disable-password', autocomplete: 'current-password' });
    const off = h('button', { type: 'submit', class: 'danger' }, 'Turn off two-factor sign-in');
    const form = h('form', { id: 'totp-disable-form', novalidate: true },
      h('p', {}, `On. ${st.recoveryCodesLeft} recovery code${st.recoveryCodesLeft === 1 ? '' : 's'} left.`),
      h('p', { class: 'muted' }, 'To turn it off, enter a current code or your password.'),
      h('div', { class: 'grid' }, field('Code from the app', code), field('or password', password)), off);
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (!code.value.trim() && !password.value) {
        status.set('Enter a current code or your password.', 'error');
        return;
      }
      busy(off, async () => {
        try {
          await api('POST', '/api/auth/totp/disable', code.value.trim() ? { code: code.value.trim() } : { password: password.value });
          status.set('Two-factor sign-in is off.', 'ok');
          announce('Two-factor sign-in is off');
          await load();
        } catch (e) {
          status.set(e instanceof ApiError && e.status === 422 ? 'That code or password is not right.' : errorText(e), 'error');
          markFields(form, e);
        }
      });
    });
    replace(body, form);
  };

  const load = async () => {
    const st = await api('GET', '/api/auth/totp');
    if (st.enabled) showOn(st); else showOff();
  };
  return { panel, load };
}

/** signOutEverywherePanel ends every session of the user, this one included. */
function signOutEverywherePanel({ onSignedOut }) {
  const status = statusBox();
  const button = h('button', { type: 'button', class: 'secondary', id: 'sign-out-everywhere' }, 'Sign out everywhere');
  button.addEventListener('click', () => busy(button, async () => {
    const sure = await confirmDialog({ title: 'Sign out everywhere?',
      message: 'Every browser and device signed in to this account, this one included, will need to sign in again.',
      confirmLabel: 'Sign out everywhere', danger: false });
    if (!sure) return;
    try {
      await api('POST', '/api/auth/sessions/revoke');
      onSignedOut();
    } catch (e) { status.set(errorText(e), 'error'); }
  }));
  return h('section', { class: 'panel', id: 'sessions-panel' }, h('h2', {}, 'Sessions'),
    h('p', {}, 'Signs you out on every browser and device, this one included — use it if a device was lost or a session may be stolen. API keys keep working.'),
    status, button);
}

export async function render(ctx) {
  const tfa = twoFactorPanel(ctx);
  const keys = passkeysPanel(ctx);
  const [providers] = await Promise.all([providerLinksPanel(), tfa.load(), keys.load()]);
  return h('div', {}, pageHead('Security'), passwordPanel(ctx), keys.panel, providers, tfa.panel,
    signOutEverywherePanel({ onSignedOut: () => { window.location.hash = '#/'; window.location.reload(); } }));
}
