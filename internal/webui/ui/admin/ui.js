// View building blocks shared by the dashboard pages: headings, status lines, toasts, the
// dashboard's own dialogs (instead of window.confirm), empty and loading states, buttons with
// icons, the feature list of GET /api/features, and validation messages that name the form's
// labels. Everything builds DOM nodes; nothing here parses markup.
import { api } from './shared/api.js';
import { h, formatDateTime, safeURL } from './shared/dom.js';
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

/** badge shows a status word (class word; text label, which defaults to the word capitalised). */
export function badge(word, label) {
  const text = label || String(word || '').replace(/^./, (c) => c.toUpperCase());
  return h('span', { class: `badge ${word}` }, text);
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
  const prev = h('button', { type: 'button', class: 'secondary small', disabled: p.page <= 1, onclick: () => go(p.page - 1) }, 'Previous');
  const next = h('button', { type: 'button', class: 'secondary small', disabled: p.page >= pages, onclick: () => go(p.page + 1) }, 'Next');
  return h('div', { class: 'row pager' }, prev, h('span', { class: 'muted small' }, `Page ${p.page} of ${pages} · ${p.total} in all`), next);
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

// ---- Lists ----

/**
 * listTable is a list as a table (cards on phones): columns [{label, cls}] give the header and
 * the column widths (col-* classes of admin.css); rows are <tr> nodes built with the cell
 * helpers below. A column with an empty label is announced by its name (visually hidden).
 */
export function listTable(id, columns, rows) {
  return h('table', { class: 'list-table', id },
    h('colgroup', {}, columns.map((c) => h('col', { class: c.cls || null }))),
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c.hidden ? h('span', { class: 'visually-hidden' }, c.label) : c.label)))),
    h('tbody', {}, rows));
}

/** cellMain is a row's title cell: a plain link (or text) cut to one line, and an optional second line. */
export function cellMain(title, href, sub, { subMono = false } = {}) {
  const t = title || '(untitled)';
  return h('td', { class: 'cell-main' },
    href ? h('a', { class: 'row-title truncate', href, title: t }, t) : h('span', { class: 'row-title truncate', title: t }, t),
    sub ? h('span', { class: `row-sub truncate${subMono ? ' mono' : ''}`, title: sub }, sub) : null);
}

/** cellText is a plain cell, cut to one line; label names it on phones. */
export function cellText(label, text, cls = '') {
  return h('td', { 'data-label': label, class: cls || null }, text ? h('span', { class: 'truncate', title: text }, text) : '');
}

/** shortDate shows an ISO time as a date ("12 May 2026"), or with the time when withTime. */
export function shortDate(iso, withTime = false) {
  return formatDateTime(iso, withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' });
}

/** cellDate is a date cell that never wraps; the full date and time are in its title. */
export function cellDate(label, iso, empty = '—') {
  if (!iso) return h('td', { class: 'cell-date', 'data-label': label }, empty);
  return h('td', { class: 'cell-date', 'data-label': label },
    h('time', { datetime: iso, title: formatDateTime(iso, { dateStyle: 'full', timeStyle: 'short' }) }, shortDate(iso)));
}

/** cellWhen is a date and a time on two unbroken lines (bookings); zone formats it in another zone. */
export function cellWhen(label, iso, sub) {
  return h('td', { class: 'cell-when', 'data-label': label },
    h('time', { datetime: iso, title: formatDateTime(iso, { dateStyle: 'full', timeStyle: 'long' }) },
      h('span', { class: 'date' }, formatDateTime(iso, { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric' })),
      h('span', {}, formatDateTime(iso, { timeStyle: 'short' }))),
    sub ? h('span', { class: 'row-sub truncate', title: sub }, sub) : null);
}

/** cellThumb is a small decorative image (the title beside it names the row). */
export function cellThumb(url) {
  const src = safeURL(url);
  return h('td', { class: 'cell-thumb' }, src ? h('img', { class: 'thumb', src, alt: '', loading: 'lazy', width: 56, height: 42 })
    : h('span', { class: 'thumb-empty', 'aria-hidden': 'true' }, icon('image')));
}

/** cellActions holds a row's menu. */
export function cellActions(menu) {
  return h('td', { class: 'cell-actions' }, menu);
}

let menuSeq = 0;

/**
 * rowMenu is a "more actions" button with a popup menu of items [{label, iconName, onSelect,
 * href, danger, id}] (null items are skipped; {separator: true} draws a line). It follows the
 * ARIA menu button pattern: arrow keys move, Escape closes and returns focus to the button.
 */
export function rowMenu(label, items) {
  const id = `menu-${++menuSeq}`;
  // popovertarget: the browser opens and closes the menu, and a press on the button while it
  // is open closes it (instead of light-dismissing it and opening it again).
  const btn = h('button', { type: 'button', class: 'ghost icon-only menu-button', 'aria-haspopup': 'menu', popovertarget: id, 'aria-label': label, title: label }, icon('ellipsis'));
  const menu = h('div', { class: 'menu', id, role: 'menu', popover: 'auto', 'aria-label': label });
  for (const it of items.filter(Boolean)) {
    if (it.separator) { menu.append(h('hr', { role: 'separator' })); continue; }
    const attrs = { class: `menu-item${it.danger ? ' danger' : ''}`, role: 'menuitem', tabindex: '-1', id: it.id };
    const el = it.href ? h('a', { ...attrs, href: it.href, target: it.target, rel: it.target ? 'noopener' : null, download: it.download })
      : h('button', { ...attrs, type: 'button' });
    el.append(it.iconName ? icon(it.iconName) : '', h('span', {}, it.label));
    el.addEventListener('click', () => {
      menu.hidePopover();
      if (it.onSelect) it.onSelect(btn);
    });
    menu.append(el);
  }
  const entries = () => [...menu.querySelectorAll('.menu-item')];
  // Below the button, or above it when there is no room, and always inside the window; it
  // follows its button when the page scrolls.
  const place = () => {
    const r = btn.getBoundingClientRect();
    const w = menu.offsetWidth;
    const hgt = menu.offsetHeight;
    let top = r.bottom + 4;
    if (top + hgt > window.innerHeight - 8) top = r.top - hgt - 4;
    top = Math.max(8, Math.min(top, window.innerHeight - hgt - 8));
    menu.style.left = `${Math.max(8, Math.min(r.right - w, window.innerWidth - w - 8))}px`;
    menu.style.top = `${top}px`;
  };
  menu.addEventListener('toggle', (ev) => {
    if (ev.newState === 'open') {
      place();
      window.addEventListener('scroll', place, { capture: true, passive: true });
      entries()[0]?.focus();
    } else {
      window.removeEventListener('scroll', place, { capture: true });
      if (menu.contains(document.activeElement) || document.activeElement === document.body) btn.focus();
    }
  });
  const close = () => { if (menu.matches(':popover-open')) menu.hidePopover(); };
  menu.addEventListener('keydown', (ev) => {
    const list = entries();
    const i = list.indexOf(document.activeElement);
    if (ev.key === 'ArrowDown') { ev.preventDefault(); list[(i + 1) % list.length].focus(); }
    else if (ev.key === 'ArrowUp') { ev.preventDefault(); list[(i - 1 + list.length) % list.length].focus(); }
    else if (ev.key === 'Home') { ev.preventDefault(); list[0].focus(); }
    else if (ev.key === 'End') { ev.preventDefault(); list[list.length - 1].focus(); }
    else if (ev.key === 'Tab') close();
  });
  // A popover is drawn in the top layer, so the table or card around it clips nothing; it
  // stays beside its button in the DOM and leaves with its row.
  return h('span', { class: 'row-menu' }, btn, menu);
}

/** searchField is a search input with a leading icon (label: its accessible name). */
export function searchField(id, label, placeholder) {
  const input = h('input', { type: 'search', id, name: id, 'aria-label': label, placeholder: placeholder || label, autocomplete: 'off' });
  return [input, h('div', { class: 'search-wrap' }, icon('search'), input)];
}

/**
 * segmented is a row of toggle buttons of which one is pressed: options [[value, label, iconName]];
 * onChange(value) runs on a press. It returns the group with a .set(value) method.
 */
export function segmented(label, options, value, onChange, id) {
  const group = h('div', { class: 'segmented', role: 'group', 'aria-label': label, id });
  const btns = options.map(([v, text, iconName]) => {
    const b = h('button', { type: 'button', 'data-value': v, 'aria-pressed': String(v === value) }, iconName ? icon(iconName) : null, h('span', {}, text));
    b.addEventListener('click', () => { group.set(v); onChange(v); });
    return b;
  });
  group.set = (v) => { for (const b of btns) b.setAttribute('aria-pressed', String(b.dataset.value === v)); };
  group.append(...btns);
  return group;
}

/**
 * tabs builds an ARIA tab list over panels [{id, label}] and calls onSelect(id, panelEl) when a
 * tab is chosen (and once for the first). Arrow keys move between tabs. It returns {bar, panels}.
 */
export function tabs(label, items, selected, onSelect) {
  const bar = h('div', { class: 'tabs-bar', role: 'tablist', 'aria-label': label });
  const panels = [];
  const buttons = items.map((it) => {
    const panel = h('div', { role: 'tabpanel', id: `panel-${it.id}`, 'aria-labelledby': `tab-${it.id}`, tabindex: '0', 'data-dimension': it.id, hidden: it.id !== selected });
    panels.push(panel);
    const b = h('button', { type: 'button', class: 'tab', role: 'tab', id: `tab-${it.id}`, 'aria-controls': panel.id, 'aria-selected': String(it.id === selected), tabindex: it.id === selected ? '0' : '-1' }, it.label);
    b.addEventListener('click', () => choose(it.id));
    return b;
  });
  const choose = (id, focus = false) => {
    items.forEach((it, i) => {
      const on = it.id === id;
      buttons[i].setAttribute('aria-selected', String(on));
      buttons[i].tabIndex = on ? 0 : -1;
      panels[i].hidden = !on;
      if (on && focus) buttons[i].focus();
    });
    onSelect(id, panels[items.findIndex((it) => it.id === id)]);
  };
  bar.addEventListener('keydown', (ev) => {
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    const n = ev.key === 'ArrowRight' ? i + 1 : ev.key === 'ArrowLeft' ? i - 1 : ev.key === 'Home' ? 0 : ev.key === 'End' ? items.length - 1 : null;
    if (n === null) return;
    ev.preventDefault();
    choose(items[(n + items.length) % items.length].id, true);
  });
  bar.append(...buttons);
  choose(selected);
  return { bar, panels, choose };
}

/**
 * lockedNote says that a setting comes from the server's environment: it cannot be changed
 * here, and names the variable.
 */
export function lockedNote(variable, id) {
  return h('small', { class: 'lock-note', id }, icon('lock'), 'Set by ', h('code', {}, variable), ' on the server; change it there.');
}
