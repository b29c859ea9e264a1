// View building blocks shared by the dashboard pages: headings, status lines, toasts, the
// dashboard's own dialogs (instead of window.confirm), empty and loading states, buttons with
// icons, the feature list of GET /api/features, and validation messages that name the form's
// labels. Everything builds DOM nodes; nothing here parses markup.
import { api } from './shared/api.js';
import { h } from './shared/dom.js';
import { icon } from './shared/icons.js';

export { icon };

/** pageHead is a page's heading row with optional action elements (and an optional subtitle). */
export function pageHead(title, ...actions) {
  return h('div', { class: 'page-head' }, h('h1', {}, title), h('span', { class: 'spacer' }), actions);
}

/** statusBox is a message area; set(text, kind) fills it ('ok', 'error', 'info') and it is a live region. */
export function statusBox() {
  const el = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  el.set = (text, kind = 'info') => {
    el.className = `status ${kind}`;
    el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    el.replaceChildren(icon(kind === 'error' ? 'circle-alert' : kind === 'ok' ? 'circle-check' : 'info'), h('span', {}, text));
  };
  el.clear = () => { el.replaceChildren(); };
  const kept = takeFlash();
  if (kept) el.set(kept, 'ok');
  return el;
}

/** errorText turns any thrown value into one line for a status message. */
export function errorText(e) {
  return e && typeof e.describe === 'function' ? e.describe() : String(e && e.message ? e.message : e);
}

/** badge shows a status word. */
export function badge(word) {
  return h('span', { class: `badge ${word}` }, word);
}

/** button builds a button with an optional leading icon. kind: '' (primary), 'secondary', 'ghost', 'quiet-danger'. */
export function button(label, { iconName, kind = '', type = 'button', id, title, onClick, ariaLabel } = {}) {
  const b = h('button', { type, class: kind || null, id, title, 'aria-label': ariaLabel }, iconName ? icon(iconName) : null, h('span', { class: 'label' }, label));
  if (onClick) b.addEventListener('click', onClick);
  return b;
}

/** linkButton is an <a> styled as a button, with an optional icon. */
export function linkButton(label, href, { iconName, kind = '', id } = {}) {
  return h('a', { class: `button ${kind}`.trim(), href, id }, iconName ? icon(iconName) : null, h('span', {}, label));
}

/** pager renders previous/next buttons for a {page, limit, total, hasMore?} pagination. */
export function pager(p, go) {
  if (!p) return null;
  const pages = Math.max(1, Math.ceil((p.total || 0) / (p.limit || 10)));
  if (pages <= 1 && p.page <= 1) return null;
  const prev = h('button', { type: 'button', class: 'secondary', disabled: p.page <= 1, onclick: () => go(p.page - 1) }, 'Previous');
  const next = h('button', { type: 'button', class: 'secondary', disabled: p.page >= pages, onclick: () => go(p.page + 1) }, 'Next');
  return h('div', { class: 'row pager' }, prev, h('span', { class: 'muted' }, `Page ${p.page} of ${pages} · ${p.total} in all`), next);
}

/** busy disables a button and shows it working (spinner, aria-busy) while fn runs. */
export async function busy(button, fn) {
  button.disabled = true;
  button.classList.add('is-busy');
  button.setAttribute('aria-busy', 'true');
  try {
    return await fn();
  } finally {
    button.disabled = false;
    button.classList.remove('is-busy');
    button.removeAttribute('aria-busy');
  }
}

/** labelOf returns the visible label text of a form control (its <label for>, aria-label or name). */
export function labelOf(control) {
  if (!control) return '';
  const byFor = control.id && control.ownerDocument.querySelector(`label[for="${CSS.escape(control.id)}"]`);
  const text = (byFor && byFor.textContent) || control.getAttribute('aria-label') || control.dataset.label || '';
  return text.trim();
}

/** humanField turns a JSON field path ("seo.description", "images[0].url") into words. */
function humanField(path) {
  return String(path || '').replace(/\[(\d+)\]/g, (_, n) => ` ${Number(n) + 1}`).split('.')
    .map((p) => p.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()).join(' ').replace(/^./, (c) => c.toUpperCase());
}

/** controlFor finds the control a field error is about: data-field, then name, then the path's first part. */
function controlFor(form, field) {
  if (!form || !field) return null;
  const f = CSS.escape(field);
  return form.querySelector(`[data-field="${f}"]`) || form.querySelector(`[name="${f}"]`)
    || form.querySelector(`[name="${CSS.escape(String(field).split(/[.[]/)[0])}"]`);
}

/**
 * markFields flags the controls named in an error's details with aria-invalid and a message
 * under each (naming nothing technical), clears the flags of the others, focuses the first, and
 * returns a one-line summary that uses the form's labels: "Website: must be an http(s) URL".
 */
export function markFields(form, e) {
  if (!form) return '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  for (const el of form.querySelectorAll('.field-error')) el.remove();
  let first = null;
  const parts = [];
  for (const d of (e && e.details) || []) {
    const el = controlFor(form, d.field);
    const label = el ? labelOf(el) : '';
    const name = label || (d.field ? humanField(d.field) : '');
    parts.push(name ? `${name}: ${d.message}` : d.message);
    if (el) {
      el.closest('details')?.setAttribute('open', '');
      el.setAttribute('aria-invalid', 'true');
      const msgId = `${el.id || d.field}-error`;
      const msg = h('small', { class: 'field-error', id: msgId }, d.message);
      el.insertAdjacentElement('afterend', msg);
      const described = (el.getAttribute('aria-describedby') || '').split(' ').filter((x) => x && !x.endsWith('-error'));
      el.setAttribute('aria-describedby', [...described, msgId].join(' '));
      first = first || el;
    }
  }
  if (first) first.focus();
  return parts.join('; ');
}

/**
 * formError reports an API error on a form: field messages under the controls, and one line
 * naming the labels (not the JSON fields) for the status box.
 */
export function formError(form, e) {
  const fields = markFields(form, e);
  if (fields && e && e.message) return `${e.message.replace(/\.$/, '')}: ${fields}.`;
  return errorText(e);
}

let flash = '';
/** setFlash keeps a message for the next page's first status box (after a navigation). */
export function setFlash(text) { flash = text; }
/** takeFlash returns and forgets the kept message. */
export function takeFlash() { const t = flash; flash = ''; return t; }

// ---- Toasts ----

function toastRegion() {
  let r = document.getElementById('toasts');
  if (!r) {
    r = h('div', { id: 'toasts', class: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(r);
  }
  return r;
}

/** toast shows a short message at the corner ('ok', 'error', 'info'); it leaves by itself or on its close button. */
export function toast(text, kind = 'ok') {
  const close = h('button', { type: 'button', class: 'ghost icon-only', 'aria-label': 'Dismiss' }, icon('x'));
  const t = h('div', { class: `toast ${kind}` }, icon(kind === 'error' ? 'circle-alert' : kind === 'info' ? 'info' : 'circle-check'),
    h('span', { class: 'toast-text' }, text), close);
  const remove = () => t.remove();
  close.addEventListener('click', remove);
  const region = toastRegion();
  while (region.children.length >= 3) region.firstElementChild.remove(); // the newest three are enough
  region.append(t);
  setTimeout(remove, kind === 'error' ? 9000 : 5000);
  return t;
}

// ---- Dialogs ----

/**
 * openDialog shows a modal <dialog> with a title, body nodes and action buttons; it resolves with
 * the value of the button pressed (or '' on Escape). Focus goes to a body control marked
 * autofocus, else to the action whose id is focusId, else to the primary (last) action.
 */
export function openDialog({ title, body = [], actions = [], id, className = '', focusId }) {
  return new Promise((resolve) => {
    const foot = h('div', { class: 'dialog-actions' });
    const dlg = h('dialog', { class: `dialog ${className}`.trim(), id, 'aria-labelledby': `${id || 'dlg'}-title` },
      h('form', { method: 'dialog' }, h('h2', { id: `${id || 'dlg'}-title` }, title), h('div', { class: 'dialog-body' }, body), foot));
    // The last action is the primary one. It comes first in the DOM (the row is reversed in CSS)
    // because pressing Enter in a field submits with the first submit button.
    for (const a of [...actions].reverse()) {
      const b = h('button', { type: 'submit', value: a.value, class: a.kind || null, id: a.id }, a.iconName ? icon(a.iconName) : null, a.label);
      foot.append(b);
    }
    dlg.addEventListener('close', () => {
      const v = dlg.returnValue;
      dlg.remove();
      resolve(v);
    });
    document.body.append(dlg);
    dlg.showModal();
    const auto = dlg.querySelector('[autofocus]') || (focusId && dlg.querySelector(`#${CSS.escape(focusId)}`));
    if (auto) auto.focus();
  });
}

/**
 * confirmDialog asks a yes/no question in the dashboard's own dialog (window.confirm cannot be
 * styled, named or tested). It resolves true when the confirming button is pressed.
 */
export async function confirmDialog({ title, message, confirmLabel = 'Delete', danger = true }) {
  const v = await openDialog({
    title, id: 'confirm-dialog', body: [h('p', {}, message)], focusId: 'confirm-cancel',
    actions: [{ label: 'Cancel', value: 'cancel', kind: 'secondary', id: 'confirm-cancel' },
      { label: confirmLabel, value: 'ok', kind: danger ? 'danger' : '', id: 'confirm-ok', iconName: danger ? 'trash-2' : null }],
  });
  return v === 'ok';
}

// ---- Empty and loading states ----

/** emptyState says that a list is empty and what to do next (action: a node, e.g. a link button). */
export function emptyState({ iconName = 'info', title, text, action, id }) {
  return h('div', { class: 'empty', id }, h('div', { class: 'empty-icon' }, icon(iconName)), h('h3', {}, title),
    text ? h('p', { class: 'muted' }, text) : null, action || null);
}

/** loadingBlock is a placeholder while a page or a section loads (role=status for screen readers). */
export function loadingBlock(text = 'Loading…') {
  return h('div', { class: 'loading', role: 'status', 'aria-live': 'polite' },
    h('div', { class: 'skeleton wide' }), h('div', { class: 'skeleton' }), h('div', { class: 'skeleton short' }),
    h('span', { class: 'visually-hidden' }, text));
}

// ---- Features (GET /api/features) ----

let featuresPromise = null;

/** features returns {id: feature} from GET /api/features (fetched once per sign-in). */
export function features() {
  if (!featuresPromise) {
    featuresPromise = api('GET', '/api/features').then((r) => Object.fromEntries((r.features || []).map((f) => [f.id, f])))
      .catch((e) => { featuresPromise = null; throw e; });
  }
  return featuresPromise;
}

/** forgetFeatures drops the cached list (after sign-out). */
export function forgetFeatures() { featuresPromise = null; }

/**
 * featureNote explains a feature that is not configured: what it does and which variables to
 * set. compact keeps it to one line (beside a single disabled control).
 */
export function featureNote(f, id, { compact = false } = {}) {
  if (!f || f.configured) return null;
  if (compact) {
    return h('small', { class: 'hint feature-hint', id }, 'Not configured: set ',
      (f.missing || []).flatMap((v, i) => [i ? ', ' : '', h('code', {}, v)]), ' on the server.');
  }
  return h('div', { class: 'feature-note', id, role: 'note' }, icon('plug'),
    h('div', {}, h('strong', {}, `${f.label} is not configured.`), ' Set ',
      (f.missing || []).flatMap((v, i) => [i ? (i === f.missing.length - 1 ? ' and ' : ', ') : '', h('code', {}, v)]),
      ' in the server\'s environment (or .env) and restart folio.', f.note ? h('div', { class: 'muted' }, f.note) : null));
}
