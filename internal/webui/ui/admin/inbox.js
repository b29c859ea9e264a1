// Inbox: messages sent through the contact form, newest first. Each was also forwarded to the
// owner by mail; only a forwarding that failed is mentioned (the message itself is kept here).
import { api, query } from './shared/api.js';
import { h, formatDateTime, replace } from './shared/dom.js';
import { pageHead, pager, emptyState, icon } from './ui.js';

export async function render() {
  const body = h('div', {});
  const load = async (page = 1) => {
    const res = await api('GET', `/api/contact/messages${query({ page, limit: 20 })}`);
    replace(body, res.messages.length === 0 ? emptyState({
      id: 'inbox-empty', iconName: 'inbox', title: 'No messages yet',
      text: 'Messages sent through your site\'s contact form (POST /api/contact) arrive here, and by mail to the contact address (Settings → Contact form).',
    })
      : h('ul', { class: 'messages', id: 'messages' }, res.messages.map((m) => {
        const failed = m.delivery && (m.delivery.status === 'failed' || m.delivery.status === 'dead');
        return h('li', { class: 'message', 'data-id': m.id },
          h('div', { class: 'message-head' }, h('strong', {}, m.subject || '(no subject)'),
            h('time', { datetime: m.createdAt, title: formatDateTime(m.createdAt, { dateStyle: 'full', timeStyle: 'short' }) }, formatDateTime(m.createdAt))),
          h('div', { class: 'muted small' }, `${m.name} <${m.email}>`),
          h('p', { class: 'message-text' }, m.message),
          failed ? h('p', { class: 'status error small' }, icon('circle-alert'),
            h('span', {}, `${m.delivery.status === 'dead' ? 'Not forwarded by mail' : 'Forwarding by mail failed; it is retried'}${m.delivery.lastError ? ` (${m.delivery.lastError})` : ''}. The message is kept here.`)) : null,
          h('a', { class: 'button secondary small', href: `mailto:${encodeURIComponent(m.email)}?subject=${encodeURIComponent(`Re: ${m.subject || 'your message'}`)}` },
            icon('mail'), 'Reply by email'));
      })),
    pager(res.pagination, load));
  };
  await load();
  return h('div', {}, pageHead('Inbox'), h('section', { class: 'panel flush' }, body));
}
