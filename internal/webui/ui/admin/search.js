// Search box for the dashboard's lists: full-text search (GET /api/search) over posts or
// projects, drafts included (the dashboard acts at write level), with highlighted snippets.
import { api, query } from './shared/api.js';
import { h, replace } from './shared/dom.js';
import { errorText, searchField } from './ui.js';

const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#34;': '"', '&#39;': "'", '&quot;': '"' };

/**
 * snippetNodes turns a snippet (escaped text with <mark>…</mark>) into DOM nodes without ever
 * parsing it as HTML: text stays text even if the server were wrong.
 */
export function snippetNodes(snippet) {
  const out = [];
  (snippet || '').split(/(<mark>|<\/mark>)/).reduce((inMark, part) => {
    if (part === '<mark>') return true;
    if (part === '</mark>') return false;
    const text = part.replace(/&(amp|lt|gt|quot|#34|#39);/g, (m) => ENTITIES[m]);
    if (text) out.push(inMark ? h('mark', {}, text) : document.createTextNode(text));
    return inMark;
  }, false);
  return out;
}

/**
 * searchBox searches items of type (post or project) as one types and lists the hits. It
 * returns the search field (for the list's toolbar) and the results (placed above the list);
 * onActive(true) is called while there is a query, so the list can step aside.
 */
export function searchBox(type, hrefOf, onActive = () => {}) {
  const [input, field] = searchField(`${type}-search`, `Search ${type}s`, `Search ${type}s…`);
  const results = h('div', { class: 'search-results', id: `${type}-search-results`, 'aria-live': 'polite' });
  let timer = 0;
  let seq = 0;
  const run = async () => {
    const q = input.value.trim();
    const mine = ++seq;
    onActive(q !== '');
    if (!q) {
      replace(results);
      return;
    }
    try {
      const res = await api('GET', `/api/search${query({ q, type, limit: 10 })}`);
      if (mine !== seq) return; // a newer query is on its way
      replace(results, res.results.length === 0 ? h('p', { class: 'muted' }, `No ${type} matches “${q}”.`)
        : h('ol', { class: 'search-hits' }, res.results.map((r) => h('li', {},
          h('a', { href: hrefOf(r) }, r.title),
          h('div', { class: 'muted snippet' }, snippetNodes(r.snippet))))),
        res.total > res.results.length ? h('p', { class: 'muted' }, `${res.total} matches; showing the best ${res.results.length}.`) : null);
    } catch (e) {
      if (mine === seq) replace(results, h('p', { class: 'error' }, errorText(e)));
    }
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(run, 200);
  });
  return { field, results };
}
