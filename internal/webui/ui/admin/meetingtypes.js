// Meeting types: the kinds of meeting offered on /book (GET/POST/PUT/DELETE /api/schedule/types).
// Without any defined, one type per BOOKING_DURATION_OPTIONS entry is offered (slug <n>min); the
// first one saved here replaces those defaults.
import { api } from './shared/api.js';
import { h, replace, field } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, markFields, toast, confirmDialog, listTable, cellMain, cellText, cellActions, rowMenu, icon,
} from './ui.js';
import { placesEditor, questionsEditor, rulesEditor } from './typeplaces.js';

export async function render() {
  const status = statusBox();
  const list = h('div', {});
  const form = h('form', { id: 'type-form', class: 'panel', novalidate: true });
  let editing = '';
  const input = (name, type = 'text', attrs = {}) => h('input', { name, type, ...attrs });
  const slug = input('slug', 'text', { pattern: '[a-z0-9]+(-[a-z0-9]+)*', maxlength: 64 });
  const title = input('title', 'text', { required: true, maxlength: 120 });
  const description = h('textarea', { name: 'description', rows: 3, maxlength: 5000 });
  const places = placesEditor();
  const questions = questionsEditor();
  const rules = rulesEditor();
  const duration = input('durationMinutes', 'number', { min: 5, max: 1440, required: true, value: '30' });
  const buffer = input('bufferMinutes', 'number', { min: 0, max: 240, value: '0' });
  const maxPerDay = input('maxPerDay', 'number', { min: 0, max: 100, value: '0' });
  const heading = h('h2', {}, 'New meeting type');
  const cancelEdit = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Stop editing');
  replace(form, heading,
    field('Title', title), field('Slug', slug, 'a-z, 0-9 and hyphens; leave empty to derive it from the title'),
    field('Description', description, 'Markdown'), h('div', { class: 'grid' }, field('Length (minutes)', duration), field('Buffer before and after (minutes)', buffer),
      field('At most per day (0: no cap)', maxPerDay)), rules.node, places.node, questions.node,
    h('div', { class: 'row' }, cancelEdit, h('button', { type: 'submit' }, 'Save')));

  const reset = () => {
    editing = '';
    form.reset();
    places.set(null);
    questions.set(null);
    rules.set(null);
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
    const rows = res.types.map((t) => {
      const edit = () => {
        editing = t.slug;
        slug.value = t.slug; slug.disabled = true; title.value = t.title; description.value = t.description || '';
        duration.value = String(t.durationMinutes); buffer.value = String(t.bufferMinutes); maxPerDay.value = String(t.maxPerDay);
        places.set(t); questions.set(t); rules.set(t); // PUT replaces them all: the form carries every field
        heading.textContent = `Edit ${t.title}`;
        cancelEdit.hidden = false;
        title.focus();
      };
      const remove = async () => {
        if (!await confirmDialog({ title: `Delete ${t.title}?`, message: 'Visitors can no longer book it. Meetings already booked stay.', confirmLabel: 'Delete type' })) return;
        try {
          await api('DELETE', `/api/schedule/types/${encodeURIComponent(t.slug)}`);
          toast(`Deleted ${t.title}.`);
          load();
        } catch (e) {
          status.set(e.status === 404 ? 'This is a default type (from BOOKING_DURATION_OPTIONS); define your own to replace the defaults.' : errorText(e), 'error');
        }
      };
      return h('tr', { 'data-slug': t.slug },
        cellMain(t.title, null, `/book/${t.slug}`, { subMono: true }),
        cellText('Length', `${t.durationMinutes} min`),
        cellText('Buffer', t.bufferMinutes ? `${t.bufferMinutes} min` : 'None'),
        cellText('Per day', t.maxPerDay ? String(t.maxPerDay) : 'No cap'),
        cellActions(rowMenu(`Actions for ${t.title}`, [
          { label: 'Edit', iconName: 'pencil', onSelect: edit, id: `edit-${t.slug}` },
          { label: 'Open its booking page', iconName: 'external-link', href: `/book/${encodeURIComponent(t.slug)}`, target: '_blank' },
          { separator: true },
          { label: 'Delete', iconName: 'trash-2', danger: true, onSelect: remove, id: `delete-${t.slug}` },
        ])));
    });
    replace(list, listTable('types-table', [{ label: 'Type' }, { label: 'Length', cls: 'col-narrow' }, { label: 'Buffer', cls: 'col-narrow' },
      { label: 'Per day', cls: 'col-narrow' }, { label: 'Actions', hidden: true, cls: 'col-actions' }], rows));
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = { title: title.value.trim(), description: description.value.trim(), durationMinutes: Number(duration.value),
      bufferMinutes: Number(buffer.value || 0), maxPerDay: Number(maxPerDay.value || 0), locations: places.get(), questions: questions.get() };
    const r = rules.get();
    body.limits = { day: body.maxPerDay, week: r.week, month: r.month };
    body.minNoticeMinutes = r.minNoticeMinutes;
    try {
      if (editing) await api('PUT', `/api/schedule/types/${encodeURIComponent(editing)}`, body);
      else await api('POST', '/api/schedule/types', slug.value.trim() ? { ...body, slug: slug.value.trim() } : body);
      toast(`Saved ${body.title}.`);
      markFields(form, null);
      status.clear();
      reset();
      load();
    } catch (e) {
      markFields(form, e);
      status.set(errorText(e), 'error');
    }
  });
  await load();
  return h('div', {}, pageHead('Meeting types', h('a', { class: 'button secondary', href: '/book', target: '_blank' }, icon('external-link'), 'Booking page')),
    status, h('section', { class: 'panel flush' }, list), form);
}
