// Small DOM helpers. Every value from the server goes in as text (text nodes, textContent or
// attributes), never as HTML, so nothing the API returns can inject markup.

/**
 * h builds an element. attrs: "class", "for", "text", on<Event> listeners, boolean properties
 * (checked, disabled, hidden, selected, required) and plain attributes; children are nodes or
 * strings (added as text), null/false skipped, arrays flattened.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'for') el.htmlFor = v;
    else if (k === 'text') el.textContent = String(v);
    // CSSOM, not the style attribute: the page's CSP forbids inline style attributes.
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (['checked', 'disabled', 'hidden', 'selected', 'required', 'multiple', 'value'].includes(k)) el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/** append adds children (nodes, strings as text, nested arrays) to el. */
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** clear removes every child of el and appends the given ones. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

let seq = 0;
/** uid returns a page-unique id for label/control pairs. */
export function uid(prefix = 'f') {
  seq += 1;
  return `${prefix}-${seq}`;
}

/** field builds a labelled control: a wrapper with a <label for> and the control. */
export function field(label, control, hint) {
  if (!control.id) control.id = uid();
  const kids = [h('label', { for: control.id }, label), control];
  if (hint) {
    const hid = uid('hint');
    control.setAttribute('aria-describedby', hid);
    kids.push(h('small', { id: hid, class: 'hint' }, hint));
  }
  return h('div', { class: 'field' }, kids);
}

/** formatDateTime shows an ISO time in the viewer's locale and zone ("" for empty). */
export function formatDateTime(iso, opts = { dateStyle: 'medium', timeStyle: 'short' }) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : new Intl.DateTimeFormat(undefined, opts).format(d);
}

/** formatBytes shows a byte count as B, KB or MB. */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** safeURL returns url when it is http(s) or same-origin relative, else "" (no javascript: links). */
export function safeURL(url) {
  if (typeof url !== 'string' || url === '') return '';
  try {
    const u = new URL(url, location.origin);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '';
  } catch {
    return '';
  }
}
