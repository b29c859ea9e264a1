// Sign-in settings (a settings page; docs/api.md "Passkeys, identity providers, sign-in links"):
// sign-in links by mail on or off, and the identity providers — any OpenID Connect issuer, or
// GitHub's OAuth app. Client secrets are write-only: a stored one shows as "set", and an empty
// field keeps it. The list is saved whole.
import { api } from './shared/api.js';
import { h, field, replace } from './shared/dom.js';
import { pageHead, statusBox, busy, formError, toast } from './ui.js';

/** providerRow is one provider's fields; read() returns it as the API takes it. */
function providerRow(p, i, onRemove) {
  const path = (f) => `auth.providers[${i}].${f}`;
  const input = (f, attrs) => h('input', { type: 'text', 'data-field': path(f), id: `provider-${i}-${f}`, ...attrs });
  const id = input('id', { value: p.id || '', placeholder: 'google', maxlength: 32 });
  const name = input('name', { value: p.name || '', placeholder: 'Google' });
  const type = h('select', { 'data-field': path('type'), id: `provider-${i}-type` },
    [['oidc', 'OpenID Connect'], ['github', 'GitHub (OAuth app)']].map(([v, t]) => h('option', { value: v, selected: v === (p.type || 'oidc') }, t)));
  const issuer = input('issuer', { value: p.type === 'github' ? '' : (p.issuer || ''), placeholder: 'https://accounts.google.com' });
  const clientId = input('clientId', { value: p.clientId || '' });
  const secret = h('input', { type: 'password', 'data-field': path('clientSecret'), id: `provider-${i}-clientSecret`, autocomplete: 'off',
    placeholder: p.clientSecret === 'set' ? 'set (leave empty to keep)' : '' });
  const callback = h('code', {});
  const showCallback = () => { callback.textContent = `${location.origin}/api/auth/oidc/${id.value.trim() || '<id>'}/callback`; };
  id.addEventListener('input', showCallback);
  showCallback();
  const issuerField = field('Issuer URL', issuer);
  const syncType = () => { issuerField.hidden = type.value === 'github'; };
  type.addEventListener('change', syncType);
  syncType();
  const remove = h('button', { type: 'button', class: 'secondary', 'aria-label': `Remove provider ${i + 1}` }, 'Remove');
  remove.addEventListener('click', onRemove);
  const el = h('fieldset', { class: 'panel provider', id: `provider-${i}` }, h('legend', {}, `Provider ${i + 1}`),
    h('div', { class: 'grid' }, field('Id', id), field('Button label', name), field('Kind', type)), issuerField,
    h('div', { class: 'grid' }, field('Client id', clientId), field('Client secret', secret)),
    h('p', { class: 'muted' }, 'Redirect URL to register at the provider: ', callback), remove);
  const read = () => ({ id: id.value.trim(), name: name.value.trim(), type: type.value, issuer: type.value === 'github' ? '' : issuer.value.trim(),
    clientId: clientId.value.trim(), clientSecret: secret.value || (p.clientSecret === 'set' ? 'set' : '') });
  return { el, read };
}

export async function render() {
  const status = statusBox();
  const all = await api('GET', '/api/settings');
  const auth = all.auth || { providers: [], emailLinks: false };
  const links = h('input', { type: 'checkbox', id: 'set-auth-emailLinks', 'data-field': 'auth.emailLinks', checked: !!auth.emailLinks });
  const list = h('div', { id: 'provider-list' });
  let providers = [...(auth.providers || [])];
  let rows = [];
  const draw = () => {
    rows = providers.map((p, i) => providerRow(p, i, () => { providers = rows.map((r) => r.read()).filter((_, j) => j !== i); draw(); }));
    replace(list, ...(rows.length ? rows.map((r) => r.el) : [h('p', { class: 'muted' }, 'No identity provider yet.')]));
  };
  draw();
  const add = h('button', { type: 'button', class: 'secondary', id: 'provider-add' }, 'Add a provider');
  add.addEventListener('click', () => { providers = [...rows.map((r) => r.read()), { type: 'oidc' }]; draw(); });
  const save = h('button', { type: 'submit', id: 'signin-settings-save' }, 'Save');
  const form = h('form', { id: 'signin-settings-form', novalidate: true }, status,
    h('section', { class: 'panel' }, h('h2', {}, 'Sign-in links by mail'),
      h('label', { class: 'check' }, links, ' Users may ask for a sign-in link by mail (it works once, within 15 minutes)')),
    h('section', { class: 'panel' }, h('h2', {}, 'Identity providers'),
      h('p', { class: 'muted' }, 'People sign in with a provider when their account there has the same verified email as their folio user, or after linking it under Security. Nobody gets an account by signing in.'),
      list, add),
    save);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(save, async () => {
      try {
        const res = await api('PUT', '/api/settings', { auth: { emailLinks: links.checked, providers: rows.map((r) => r.read()) } });
        providers = res.auth.providers;
        draw();
        status.set('Saved.', 'ok');
        toast('Sign-in settings saved');
      } catch (e) { status.set(formError(form, e), 'error'); }
    });
  });
  return h('div', {}, pageHead('Sign-in'), form);
}
