// Meeting types: the kinds of meeting offered on /book (GET/POST/PUT/DELETE /api/schedule/types).
// Without any defined, one type per BOOKING_DURATION_OPTIONS entry is offered (slug <n>min); the
// first one saved here replaces those defaults.
import { api } from './shared/api.js';
import { h, replace, field } from './shared/dom.js';
import { pageHead, statusBox, errorText, markFields } from './ui.js';

export async function render() {
  const status = statusBox();
  const list = h('div', {});
  const form = h('form', { id: 'type-form', class: 'panel', novalidate: true });
  let editing = '';
  const input = (name, type = 'text', attrs = {}) => h('input', { name, type, ...attrs });
  const slug = input('slug', 'text', { pattern: '[a-z0-9]+(-[a-z0-9]+)*', maxlength: 64 });
  const title = input('title', 'text', { required: true, maxlength: 120 });
  const description = h('textarea', { name: 'description', rows: 2, maxlength: 2000 });
  const duration = input('durationMinutes', 'number', { min: 5, max: 1440, required: true, value: '30' });
  const buffer = input('bufferMinutes', 'number', { min: 0, max: 240, value: '0' });
  const maxPerDay = input('maxPerDay', 'number', { min: 0, max: 100, value: '0' });
  const heading = h('h2', {}, 'New meeting type');
  const cancelEdit = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Stop editing');
  replace(form, heading,
    field('Title', title), field('Slug', slug, 'a-z, 0-9 and hyphens; leave empty to derive it from the title'),
    field('Description', description), field('Length (minutes)', duration), field('Buffer before and after (minutes)', buffer),
    field('At most per day (0 = no cap)', maxPerDay),
    h('div', { class: 'row' }, cancelEdit, h('button', { type: 'submit' }, 'Save')));

  const reset = () => {
    editing = '';
    form.reset();
    slug.disabled = false;
    heading.textContent = 'New meeting type';
    cancelEdit.hidden = true;
  };
  cancelEdit.addEventListener('click', reset);

  const load = async () => {
    let res;
    try {
      res = await api('GET', '/api/schedule/types');
    } catch (e) {
      return status.set(errorText(e), 'error');
    }
    replace(list, h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'types-table' },
      h('thead', {}, h('tr', {}, ['Type', 'Length', 'Buffer', 'Per day', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, res.types.map((t) => h('tr', {},
        h('td', { 'data-label': 'Type' }, h('strong', {}, t.title), h('div', { class: 'muted' }, t.slug), t.description ? h('div', {}, t.description) : null),
        h('td', { 'data-label': 'Length' }, `${t.durationMinutes} min`),
        h('td', { 'data-label': 'Buffer' }, `${t.bufferMinutes} min`),
        h('td', { 'data-label': 'Per day' }, t.maxPerDay ? String(t.maxPerDay) : 'no cap'),
        h('td', {},
          h('button', { type: 'button', class: 'link', onclick: () => {
            editing = t.slug;
            slug.value = t.slug; slug.disabled = true; title.value = t.title; description.value = t.description || '';
            duration.value = String(t.durationMinutes); buffer.value = String(t.bufferMinutes); maxPerDay.value = String(t.maxPerDay);
            heading.textContent = `Edit ${t.title}`;
            cancelEdit.hidden = false;
            title.focus();
          } }, 'Edit'),
          h('button', { type: 'button', class: 'link', onclick: async () => {
            if (!confirm(`Delete the meeting type ${t.title}? Its bookings stay.`)) return;
            try {
              await api('DELETE', `/api/schedule/types/${encodeURIComponent(t.slug)}`);
              status.set(`Deleted ${t.title}.`, 'ok');
              load();
            } catch (e) {
              status.set(e.status === 404 ? 'This is a default type (from BOOKING_DURATION_OPTIONS); define your own to replace the defaults.' : errorText(e), 'error');
            }
          } }, 'Delete'))))))));
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = { title: title.value.trim(), description: description.value.trim(), durationMinutes: Number(duration.value),
      bufferMinutes: Number(buffer.value || 0), maxPerDay: Number(maxPerDay.value || 0) };
    try {
      if (editing) await api('PUT', `/api/schedule/types/${encodeURIComponent(editing)}`, body);
      else await api('POST', '/api/schedule/types', slug.value.trim() ? { ...body, slug: slug.value.trim() } : body);
      status.set(`Saved ${body.title}.`, 'ok');
      reset();
      load();
    } catch (e) {
      markFields(form, e);
      status.set(errorText(e), 'error');
    }
  });
  await load();
  return h('div', {}, pageHead('Meeting types', h('a', { class: 'button secondary', href: '/book', target: '_blank' }, 'Open the booking page')),
    status, h('section', { class: 'panel' }, list), form);
}
