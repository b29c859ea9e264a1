// View building blocks shared by the dashboard pages.
import { h } from './shared/dom.js';

/** pageHead is a page's heading row with optional action elements. */
export function pageHead(title, ...actions) {
  return h('div', { class: 'page-head' }, h('h1', {}, title), h('span', { class: 'spacer' }), actions);
}

/** statusBox is a message area; set(text, kind) fills it ('ok', 'error', 'info') and it is a live region. */
export function statusBox() {
  const el = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  el.set = (text, kind = 'info') => {
    el.className = `status ${kind}`;
    el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    el.textContent = text;
  };
  el.clear = () => { el.textContent = ''; };
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

/** pager renders previous/next buttons for a {page, limit, total, hasMore?} pagination. */
export function pager(p, go) {
  if (!p) return null;
  const pages = Math.max(1, Math.ceil((p.total || 0) / (p.limit || 10)));
  if (pages <= 1 && p.page <= 1) return null;
  const prev = h('button', { type: 'button', class: 'secondary', disabled: p.page <= 1, onclick: () => go(p.page - 1) }, 'Previous');
  const next = h('button', { type: 'button', class: 'secondary', disabled: p.page >= pages, onclick: () => go(p.page + 1) }, 'Next');
  return h('div', { class: 'row' }, prev, h('span', { class: 'muted' }, `Page ${p.page} of ${pages} · ${p.total} in all`), next);
}

/** busy disables a button while fn runs. */
export async function busy(button, fn) {
  button.disabled = true;
  try {
    return await fn();
  } finally {
    button.disabled = false;
  }
}

/**
 * markFields flags the controls named in an error's details (by their name attribute) with
 * aria-invalid and clears the flags of the others.
 */
export function markFields(form, e) {
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  let first = null;
  for (const d of (e && e.details) || []) {
    const name = String(d.field || '').split(/[.[]/)[0];
    const el = name && form.querySelector(`[name="${CSS.escape(name)}"]`);
    if (el) {
      el.setAttribute('aria-invalid', 'true');
      first = first || el;
    }
  }
  if (first) first.focus();
}

let flash = '';
/** setFlash keeps a message for the next page's first status box (after a navigation). */
export function setFlash(text) { flash = text; }
/** takeFlash returns and forgets the kept message. */
export function takeFlash() { const t = flash; flash = ''; return t; }
