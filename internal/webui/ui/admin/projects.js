// Projects: list, create, edit and delete through /api/projects.
import { api, query } from './shared/api.js';
import { h, field, formatDateTime, replace } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, badge, pager, busy, markFields, formError, button, linkButton, confirmDialog, toast, emptyState,
} from './ui.js';
import { searchBox } from './search.js';

const STATUSES = ['draft', 'published', 'archived'];
const IMAGE_TYPES = ['screenshot', 'logo', 'diagram'];

export async function render({ rest, navigate, announce }) {
  if (rest === 'new') return editor(null, navigate, announce);
  if (rest) return editor(await api('GET', `/api/projects/${encodeURIComponent(rest)}`), navigate, announce);
  return list(navigate, announce);
}

async function list(navigate, announce) {
  const status = statusBox();
  const body = h('div', {});
  const load = async (page = 1) => {
    const res = await api('GET', `/api/projects${query({ page, limit: 20, status: 'published,draft,archived' })}`);
    const rows = res.projects.map((p) => {
      const del = button('Delete', { iconName: 'trash-2', kind: 'quiet-danger', ariaLabel: `Delete ${p.title}` });
      del.addEventListener('click', async () => {
        // Ask first; the button shows it is working only once the answer is yes.
        if (!await confirmDialog({ title: 'Delete this project?', message: `“${p.title}” will be deleted from your portfolio. This cannot be undone.`, confirmLabel: 'Delete project' })) return;
        await busy(del, async () => {
          try {
            await api('DELETE', `/api/projects/${encodeURIComponent(p.id)}`);
            toast(`Deleted “${p.title}”.`);
            announce(`Deleted ${p.title}`);
            await load(page);
          } catch (e) { status.set(errorText(e), 'error'); }
        });
      });
      return h('tr', {},
        h('td', { 'data-label': 'Title' }, h('a', { href: `#/projects/${encodeURIComponent(p.id)}` }, p.title)),
        h('td', { 'data-label': 'Status' }, badge(p.status)),
        h('td', { 'data-label': 'Technologies' }, (p.technologies || []).join(', ')),
        h('td', { 'data-label': 'Updated' }, formatDateTime(p.updatedAt)),
        h('td', { class: 'actions' }, del));
    });
    replace(body, rows.length === 0 ? emptyState({
      id: 'projects-empty', iconName: 'folder-kanban', title: 'No projects yet',
      text: 'Projects are the work your portfolio shows. Add the first one: a title and a sentence are enough to start.',
      action: linkButton('Add a project', '#/projects/new', { iconName: 'plus' }),
    })
      : h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'projects-table' },
        h('thead', {}, h('tr', {}, ['Title', 'Status', 'Technologies', 'Updated', ''].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows))),
    pager({ page: res.page, limit: res.limit, total: res.total }, load));
  };
  await load();
  const add = linkButton('New project', '#/projects/new', { iconName: 'plus' });
  add.dataset.shortcut = 'new';
  return h('div', {}, pageHead('Projects', add), status, 
    searchBox('project', (r) => `#/projects/${encodeURIComponent(r.id)}`), h('section', { class: 'panel' }, body));
}

function imageRow(img = {}) {
  const url = h('input', { type: 'url', name: 'images', value: img.url || '', 'aria-label': 'Image URL', placeholder: 'https://… or /media/…' });
  const alt = h('input', { type: 'text', value: img.alt || '', 'aria-label': 'Alt text', placeholder: 'Alt text' });
  const type = h('select', { 'aria-label': 'Image type' }, IMAGE_TYPES.map((t) => h('option', { value: t, selected: t === (img.type || 'screenshot') }, t)));
  const row = h('div', { class: 'row image-row' }, h('div', { class: 'spacer' }, url), h('div', { class: 'spacer' }, alt), type);
  const remove = button('Remove', { iconName: 'x', kind: 'quiet-danger', onClick: () => row.remove() });
  row.append(remove);
  row.value = () => ({ url: url.value.trim(), alt: alt.value.trim(), type: type.value });
  return row;
}

function editor(p, navigate, announce) {
  const status = statusBox();
  const title = h('input', { type: 'text', name: 'title', required: true, value: p ? p.title : '', maxlength: 200 });
  const description = h('textarea', { name: 'description', required: true, maxlength: 2000 });
  description.value = p ? p.description : '';
  const longDescription = h('textarea', { name: 'longDescription' });
  longDescription.value = p ? p.longDescription || '' : '';
  const stat = h('select', { name: 'status' }, STATUSES.map((s) => h('option', { value: s, selected: s === (p ? p.status : 'draft') }, s)));
  const techs = h('input', { type: 'text', name: 'technologies', value: p ? (p.technologies || []).join(', ') : '' });
  const demo = h('input', { type: 'url', name: 'demoUrl', value: p ? p.demoUrl || '' : '' });
  const source = h('input', { type: 'url', name: 'sourceUrl', value: p ? p.sourceUrl || '' : '' });
  const images = h('div', { class: 'images' }, ((p && p.images) || []).map(imageRow));
  const save = button(p ? 'Save project' : 'Create project', { type: 'submit', iconName: 'save' });
  const form = h('form', { class: 'panel', id: 'project-form', novalidate: true, 'data-primary': '' },
    field('Title', title), field('Description', description), field('Long description (Markdown)', longDescription),
    h('div', { class: 'grid' }, field('Status', stat), field('Technologies', techs, 'Comma-separated, e.g. Go, PostgreSQL')),
    h('div', { class: 'grid' }, field('Demo URL', demo), field('Source URL', source)),
    h('fieldset', { name: 'images' }, h('legend', {}, 'Images'), images,
      button('Add image', { iconName: 'plus', kind: 'secondary', onClick: () => images.append(imageRow()) })),
    h('div', { class: 'row' }, save, h('a', { href: '#/projects' }, 'Back to projects')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(save, async () => {
      const body = {
        title: title.value.trim(), description: description.value.trim(), longDescription: longDescription.value,
        status: stat.value, technologies: techs.value.split(',').map((t) => t.trim()).filter(Boolean),
        demoUrl: demo.value.trim(), sourceUrl: source.value.trim(),
        images: [...images.querySelectorAll('.image-row')].map((r) => r.value()).filter((i) => i.url),
      };
      try {
        const saved = p ? await api('PUT', `/api/projects/${encodeURIComponent(p.id)}`, body) : await api('POST', '/api/projects', body);
        announce(`Saved ${saved.title}`);
        markFields(form, null);
        status.clear();
        if (!p) {
          toast(`Created “${saved.title}”.`);
          navigate(`#/projects/${encodeURIComponent(saved.id)}`);
        } else toast(`Saved “${saved.title}”.`);
      } catch (e) {
        status.set(formError(form, e), 'error');
      }
    });
  });
  return h('div', {}, pageHead(p ? `Edit project` : 'New project'), status, form);
}
