// Comments: the moderation queue of replies from the fediverse and Webmentions. Pending ones
// first; approve, reject or mark spam (the author's later comments then land as spam), block
// the author or its domain, and answer a fediverse reply with a Note. Content is the server's
// sanitised HTML, rebuilt through the dashboard's own allow-list (safehtml.js).
import { api, query } from './shared/api.js';
import { h, formatDateTime, replace } from './shared/dom.js';
import { pageHead, statusBox, errorText, badge, pager, button } from './ui.js';
import { htmlToNodes } from './safehtml.js';

const replyMax = 5000; // fediverse.MaxReplyLen

/** hostOf is the host name of an http(s) URL, or ''. */
function hostOf(u) {
  try {
    const url = new URL(u);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.hostname : '';
  } catch {
    return '';
  }
}

export async function render() {
  const status = statusBox();
  const body = h('div', {});
  const filter = h('select', { id: 'comments-status', 'aria-label': 'Status' },
    ['pending', 'approved', 'rejected', 'spam', ''].map((v) => h('option', { value: v }, v || 'all')));

  const load = async (page = 1) => {
    try {
      const res = await api('GET', `/api/comments${query({ status: filter.value, page, limit: 25 })}`);
      status.clear();
      const act = (run, done) => async () => {
        try {
          await run();
          await load(page); // which clears the status line: say what was done after it
          status.set(done, 'ok');
        } catch (e) {
          status.set(errorText(e), 'error');
        }
      };
      const moderate = (c, verb, done) => act(() => api('POST', `/api/comments/${encodeURIComponent(c.id)}/${verb}`), done);
      const block = (target, done) => act(async () => { await api('POST', '/api/fediverse/blocks', target); await loadPeople(); }, done);

      // The reply form opens under its comment; sending posts the Note and reloads the queue.
      const replyForm = (c) => {
        const text = h('textarea', { id: `reply-text-${c.id}`, name: 'content', rows: 3, maxlength: replyMax, required: true,
          'aria-label': `Your reply to ${c.authorName || 'the author'}` });
        const form = h('form', { class: 'comment-reply', id: `reply-form-${c.id}` }, text,
          h('p', {}, button('Send reply', { iconName: 'send', type: 'submit', id: `reply-send-${c.id}` })));
        form.addEventListener('submit', (ev) => {
          ev.preventDefault();
          act(() => api('POST', `/api/comments/${encodeURIComponent(c.id)}/reply`, { content: text.value }),
            'Reply sent to the fediverse.')();
        });
        return form;
      };

      const items = res.comments.map((c) => {
        const own = Boolean(c.inReplyTo);
        const actor = c.source === 'activitypub' && !own ? c.authorId : '';
        const domain = hostOf(c.authorId || c.authorUrl || c.sourceId);
        const slot = h('div', {});
        const actions = own ? [] : [
          c.status !== 'approved' ? button('Approve', { iconName: 'circle-check', id: `approve-${c.id}`, onClick: moderate(c, 'approve', 'Comment approved.') }) : null,
          c.status !== 'rejected' ? button('Reject', { kind: 'quiet-danger', id: `reject-${c.id}`, onClick: moderate(c, 'reject', 'Comment rejected.') }) : null,
          c.status !== 'spam' ? button('Spam', { kind: 'quiet-danger', id: `spam-${c.id}`, onClick: moderate(c, 'spam', 'Marked as spam: this author\'s next comments land as spam.') }) : null,
          c.source === 'activitypub' ? button('Reply', { kind: 'secondary', iconName: 'send', id: `reply-${c.id}`,
            onClick: () => { if (!slot.firstChild) { slot.append(replyForm(c)); slot.querySelector('textarea').focus(); } } }) : null,
          actor ? button('Block author', { kind: 'ghost', id: `block-actor-${c.id}`, onClick: block({ actor }, `Blocked ${actor}.`) }) : null,
          domain ? button(`Block ${domain}`, { kind: 'ghost', id: `block-domain-${c.id}`, onClick: block({ domain }, `Blocked ${domain}.`) }) : null,
        ];
        return h('article', { class: 'panel', 'data-comment': c.id, 'data-status': c.status },
          h('p', {}, badge(c.status), ' ', own ? badge('own', 'Your reply') : null, ' ',
            c.authorUrl ? h('a', { href: c.authorUrl, rel: 'noopener noreferrer', target: '_blank' }, c.authorName || c.authorUrl) : (c.authorName || 'someone'),
            ` via ${c.source === 'webmention' ? 'Webmention' : 'the fediverse'}, ${formatDateTime(c.publishedAt, { dateStyle: 'medium', timeStyle: 'short' })}`),
          h('div', { class: 'comment-content' }, htmlToNodes(c.content)),
          h('p', { class: 'row' }, actions), slot);
      });
      replace(body, items.length === 0 ? h('p', { class: 'muted' }, 'No comments here. Replies from the fediverse and Webmentions arrive pending.')
        : h('div', {}, items, pager(res.pagination, load)));
    } catch (e) {
      status.set(errorText(e), 'error');
    }
  };
  const people = h('div', {});
  const loadPeople = async () => {
    try {
      const [followers, blocks] = await Promise.all([api('GET', '/ap/followers'), api('GET', '/api/fediverse/blocks')]);
      const row = (text, label, id, run, done) => h('li', { class: 'row' }, h('span', { class: 'mono' }, text),
        button(label, { kind: 'ghost', id, onClick: async () => {
          try {
            await run();
            await loadPeople();
            status.set(done, 'ok');
          } catch (e) {
            status.set(errorText(e), 'error');
          }
        } }));
      const list = (id, items, empty) => (items.length === 0 ? h('p', { class: 'muted', id }, empty) : h('ul', { id }, items));
      replace(people,
        h('h2', {}, `Followers (${followers.totalItems})`),
        list('fediverse-followers', (followers.orderedItems || []).map((a, i) => row(a, 'Remove', `unfollow-${i}`,
          () => api('DELETE', `/api/fediverse/followers${query({ actor: a })}`), `${a} no longer follows the site.`)),
        'Nobody follows the site from the fediverse yet.'),
        h('h2', {}, 'Blocked'),
        list('fediverse-blocks', blocks.blocks.map((b, i) => row(b.target, 'Unblock', `unblock-${i}`,
          () => api('DELETE', `/api/fediverse/blocks${query({ target: b.target })}`), `${b.target} is no longer blocked.`)),
        'No actor or domain is blocked.'));
    } catch (e) {
      replace(people, h('p', { class: 'muted' }, errorText(e)));
    }
  };
  filter.addEventListener('change', () => load(1));
  await Promise.all([load(1), loadPeople()]);
  return h('div', {}, pageHead('Comments'), status, h('p', {}, filter), body,
    h('section', { class: 'panel', id: 'fediverse-people', 'aria-label': 'Fediverse followers and blocks' }, people));
}
