// Server-rendered HTML (a post's preview from POST /api/blog/preview) into DOM nodes. The server
// already sanitizes it with the same allow-list as published posts; this parses it in an inert
// document (DOMParser runs no script and loads nothing) and copies over only allow-listed
// elements and attributes, so even a broken server could not put script into the dashboard.

const TAGS = new Set(['a', 'abbr', 'b', 'blockquote', 'br', 'code', 'del', 'dd', 'div', 'dl', 'dt', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'hr', 'i', 'img', 'input', 'ins', 'kbd', 'li', 'ol', 'p', 'pre', 's', 'span', 'strike', 'strong', 'sub', 'sup', 'table', 'tbody', 'td',
  'tfoot', 'th', 'thead', 'tr', 'u', 'ul', 'mark', 'small', 'figure', 'figcaption']);
const ATTRS = new Set(['href', 'src', 'alt', 'title', 'id', 'class', 'type', 'checked', 'disabled', 'colspan', 'rowspan', 'align', 'start', 'rel', 'width', 'height',
  'srcset', 'sizes', 'loading', 'decoding']);

// The responsive-image attributes the server adds to library images: every srcset candidate is
// a safe URL with a width, and sizes and loading are the server's own fixed words.
const IMAGE_ATTRS = {
  srcset: (v) => v.split(',').every((c) => { const [u, w, extra] = c.trim().split(/\s+/); return !extra && /^\d+w$/.test(w || '') && safeLink(u, true); }),
  sizes: (v) => /^[\w\s(),.:-]{1,200}$/.test(v),
  loading: (v) => v === 'lazy' || v === 'eager',
  decoding: (v) => v === 'async' || v === 'sync' || v === 'auto',
};

function safeLink(v, isImage) {
  const t = v.trim();
  if (isImage && /^data:image\/(png|jpe?g|gif|webp|avif);base64,/i.test(t)) return true;
  try {
    const u = new URL(t, location.origin);
    return u.protocol === 'http:' || u.protocol === 'https:' || (!isImage && u.protocol === 'mailto:');
  } catch {
    return false;
  }
}

function copy(node, into) {
  for (const n of node.childNodes) {
    if (n.nodeType === Node.TEXT_NODE) {
      into.append(document.createTextNode(n.textContent));
      continue;
    }
    if (n.nodeType !== Node.ELEMENT_NODE) continue;
    const tag = n.tagName.toLowerCase();
    if (!TAGS.has(tag)) {
      copy(n, into); // keep the text of an unknown wrapper, drop the wrapper
      continue;
    }
    if (tag === 'input' && n.getAttribute('type') !== 'checkbox') continue;
    const el = document.createElement(tag);
    for (const a of n.attributes) {
      const name = a.name.toLowerCase();
      if (!ATTRS.has(name)) continue;
      if ((name === 'href' || name === 'src') && !safeLink(a.value, name === 'src')) continue;
      if (name === 'class' && !/^language-[\w+#-]{1,32}$/.test(a.value)) continue;
      if (IMAGE_ATTRS[name] && (tag !== 'img' || !IMAGE_ATTRS[name](a.value))) continue;
      el.setAttribute(name, a.value);
    }
    if (tag === 'input') el.disabled = true;
    if (tag === 'a' && /^https?:/i.test(el.getAttribute('href') || '')) el.setAttribute('rel', 'nofollow noopener');
    copy(n, el);
    into.append(el);
  }
}

/** htmlToNodes returns a DocumentFragment holding the allow-listed content of html. */
export function htmlToNodes(html) {
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${html}`, 'text/html');
  const frag = document.createDocumentFragment();
  copy(doc.body, frag);
  return frag;
}
