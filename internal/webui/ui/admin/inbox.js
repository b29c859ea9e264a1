// Contact inbox: messages sent through the contact form, with their delivery state.
import { api, query } from './shared/api.js';
import { h, formatDateTime, replace } from './shared/dom.js';
import { pageHead, badge, pager, emptyState } from './ui.js';

export async function render() {
  const body = h('div', {});
  const load = async (page = 1) => {
    const res = await api('GET', `/api/contact/messages${query({ page, limit: 20 })}`);
    replace(body, res.messages.length === 0 ? h('section', { class: 'panel' }, emptyState({
      id: 'inbox-empty', iconName: 'inbox', title: 'No messages yet',
      text: 'Messages sent through your site\'s contact form (POST /api/contact) arrive here, and by mail to CONTACT_RECIPIENT.',
    }))
      : h('ul', { class: 'messages', id: 'messages' }, res.messages.map((m) => h('li', { class: 'panel' },
        h('div', { class: 'row' }, h('strong', {}, m.subject || '(no subject)'), h('span', { class: 'spacer' }),
          m.delivery ? badge(m.delivery.status) : null, h('span', { class: 'muted' }, formatDateTime(m.createdAt))),
        h('div', { class: 'muted' }, `${m.name} <${m.email}>`),
        h('p', { class: 'message-text' }, m.message),
        h('a', { href: `mailto:${encodeURIComponent(m.email)}?subject=${encodeURIComponent(`Re: ${m.subject || 'your message'}`)}` }, 'Reply by email')))),
    pager(res.pagination, load));
  };
  await load();
  return h('div', {}, pageHead('Inbox'), body);
}
