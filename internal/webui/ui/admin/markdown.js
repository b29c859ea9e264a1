// A tiny Markdown renderer for the editor's preview. It builds DOM nodes (text always as text
// nodes, links only http(s) or relative), so the preview cannot run anything the author typed.
// It covers the common subset: headings, paragraphs, emphasis, code, links, images, lists,
// quotes and rules. The published page is rendered by the server (goldmark + bluemonday).
import { h, safeURL } from './shared/dom.js';

const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|!\[([^\]]*)\]\(([^)\s]+)\)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_|(https?:\/\/[^\s<]+[^\s<.,;:!?)'"])/g;

/** inline renders one line of inline Markdown into nodes. */
export function inline(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1]) out.push(h('code', {}, m[2]));
    else if (m[4] !== undefined) {
      const src = safeURL(m[4]);
      out.push(src ? h('img', { src, alt: m[3] }) : m[0]);
    } else if (m[6] !== undefined) {
      const href = safeURL(m[6]);
      out.push(href ? h('a', { href, rel: 'noopener noreferrer nofollow' }, inline(m[5])) : inline(m[5]));
    } else if (m[7] !== undefined || m[8] !== undefined) out.push(h('strong', {}, inline(m[7] ?? m[8])));
    else if (m[9] !== undefined || m[10] !== undefined) out.push(h('em', {}, inline(m[9] ?? m[10])));
    else if (m[11]) out.push(h('a', { href: m[11], rel: 'noopener noreferrer nofollow' }, m[11]));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** render turns Markdown source into a DocumentFragment. */
export function render(src) {
  const frag = document.createDocumentFragment();
  const lines = String(src || '').replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  const isBlank = (l) => /^\s*$/.test(l);
  const startsBlock = (l) => /^(#{1,6}\s|```|~~~|>\s?|\s*([-*+]|\d+[.)])\s|\s*([-*_])(\s*\3){2,}\s*$)/.test(l);
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (isBlank(line)) { i += 1; continue; }
    if ((m = line.match(/^(```|~~~)\s*([\w+-]*)/))) {
      const fence = m[1];
      const code = [];
      i += 1;
      while (i < lines.length && !lines[i].startsWith(fence)) code.push(lines[i++]);
      i += 1;
      frag.append(h('pre', {}, h('code', m[2] ? { class: `language-${m[2]}` } : {}, code.join('\n'))));
      continue;
    }
    if ((m = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/))) {
      frag.append(h(`h${m[1].length}`, {}, inline(m[2])));
      i += 1;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      frag.append(h('hr'));
      i += 1;
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) quoted.push(lines[i++].replace(/^>\s?/, ''));
      frag.append(h('blockquote', {}, render(quoted.join('\n'))));
      continue;
    }
    if ((m = line.match(/^\s*([-*+]|\d+[.)])\s+/))) {
      const ordered = /\d/.test(m[1]);
      const list = h(ordered ? 'ol' : 'ul');
      const item = ordered ? /^\s*\d+[.)]\s+(.*)$/ : /^\s*[-*+]\s+(.*)$/;
      while (i < lines.length && item.test(lines[i])) {
        list.append(h('li', {}, inline(lines[i].match(item)[1])));
        i += 1;
      }
      frag.append(list);
      continue;
    }
    const para = [];
    while (i < lines.length && !isBlank(lines[i]) && !(para.length && startsBlock(lines[i]))) para.push(lines[i++].trim());
    const p = h('p');
    para.forEach((l, k) => {
      if (k > 0) p.append(' ');
      p.append(...inline(l));
    });
    frag.append(p);
  }
  return frag;
}
