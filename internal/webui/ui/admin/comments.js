// Comments: the moderation queue of replies from the fediverse and Webmentions. Pending ones
// first; approve or reject each. Content is the server's sanitised HTML, rebuilt through the
// dashboard's own allow-list (safehtml.js).
import { api, query } from './shared/api.js';
import { h, formatDateTime, replace } from './shared/dom.js';
import { pageHead, statusBox, errorText, badge, pager, button } from './ui.js';
import { htmlToNodes } from './safehtml.js';

export async function render() {
  const status = statusBox();
  const body = h('div', {});
  const filter = h('select', { id: 'comments-status', 'aria-label': 'Status' },
    ['pending', 'approved', 'rejected', ''].map((v) => h('option', { value: v }, v || 'all')));

  const load = async (page = 1) => {
    try {
      const res = await api('GET', `/api/comments${query({ status: filter.value, page, limit: 25 })}`);
      status.clear();
      const moderate = (c, verb) => async () => {
        try {
          await api('POST', `/api/comments/${encodeURIComponent(c.id)}/${verb}`);
          status.set(verb === 'approve' ? 'Comment approved.' : 'Comment rejected.', 'ok');
          await load(page);
        } catch (e) {
          status.set(errorText(e), 'error');
        }
      };
      const items = res.comments.map((c) => h('article', { class: 'panel', 'data-comment': c.id },
        h('p', {}, badge(c.status), ' ',
          c.authorUrl ? h('a', { href: c.authorUrl, rel: 'noopener noreferrer', target: '_blank' }, c.authorName || c.authorUrl) : (c.authorName || 'someone'),
          ` via ${c.source === 'webmention' ? 'Webmention' : 'the fediverse'}, ${formatDateTime(c.publishedAt, { dateStyle: 'medium', timeStyle: 'short' })}`),
        h('div', { class: 'comment-content' }, htmlToNodes(c.content)),
        h('p', {}, c.status !== 'approved' ? button('Approve', { iconName: 'circle-check', onClick: moderate(c, 'approve') }) : null, ' ',
          c.status !== 'rejected' ? button('Reject', { kind: 'quiet-danger', onClick: moderate(c, 'reject') }) : null)));
      replace(body, items.length === 0 ? h('p', { class: 'muted' }, 'No comments here. Replies from the fediverse and Webmentions arrive pending.')
        : h('div', {}, items, pager(res.pagination, load)));
    } catch (e) {
      status.set(errorText(e), 'error');
    }
  };
  filter.addEventListener('change', () => load(1));
  await load(1);
  return h('div', {}, pageHead('Comments'), status, h('p', {}, filter), body);
}
