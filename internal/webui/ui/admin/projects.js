// Projects: list (with each project's first image), create, edit and delete through
// /api/projects. Images come from the media library (or any URL), with their alt text.
import { api, query } from './shared/api.js';
import { h, field, replace } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, badge, pager, busy, markFields, formError, button, linkButton, confirmDialog, toast, emptyState,
  listTable, cellMain, cellText, cellDate, cellThumb, cellActions, rowMenu, icon,
} from './ui.js';
import { searchBox } from './search.js';
import { imageField } from './upload.js';

const STATUSES = [['draft', 'Draft'], ['published', 'Published'], ['archived', 'Archived']];
const IMAGE_TYPES = [['screenshot', 'Screenshot'], ['logo', 'Logo'], ['diagram', 'Diagram']];

export async function render({ rest, navigate, announce }) {
  if (rest === 'new') return editor(null, navigate, announce);
  if (rest) return editor(await api('GET', `/api/projects/${encodeURIComponent(rest)}`), navigate, announce);
  return list(announce);
}

async function list(announce) {
  const status = statusBox();
  const body = h('div', {});
  const load = async (page = 1) => {
    const res = await api('GET', `/api/projects${query({ page, limit: 20, status: 'published,draft,archived', include: 'images' })}`);
    const rows = res.projects.map((p) => {
      const remove = async () => {
        if (!await confirmDialog({ title: 'Delete this project?', message: `“${p.title}” will be deleted from your portfolio. This cannot be undone.`, confirmLabel: 'Delete project' })) return;
        try {
          await api('DELETE', `/api/projects/${encodeURIComponent(p.id)}`);
          toast(`Deleted “${p.title}”.`);
          announce(`Deleted ${p.title}`);
          await load(page);
        } catch (e) { status.set(errorText(e), 'error'); }
      };
      const href = `#/projects/${encodeURIComponent(p.id)}`;
      return h('tr', { 'data-id': p.id },
        cellThumb((p.images || [])[0] && p.images[0].url),
        cellMain(p.title, href, p.description),
        h('td', { 'data-label': 'Status' }, badge(p.status)),
        cellText('Technologies', (p.technologies || []).join(', ')),
        cellDate('Updated', p.updatedAt),
        cellActions(rowMenu(`Actions for ${p.title}`, [
          { label: 'Edit', iconName: 'pencil', href },
          { separator: true },
          { label: 'Delete', iconName: 'trash-2', danger: true, onSelect: remove, id: `delete-${p.id}` },
        ])));
    });
    replace(body, rows.length === 0 ? emptyState({
      id: 'projects-empty', iconName: 'folder-kanban', title: 'No projects yet',
      text: 'Projects are the work your portfolio shows. Add the first one: a title and a sentence are enough to start.',
      action: linkButton('Add a project', '#/projects/new', { iconName: 'plus' }),
    })
      : listTable('projects-table', [{ label: 'Image', hidden: true, cls: 'col-thumb' }, { label: 'Title' }, { label: 'Status', cls: 'col-status' },
        { label: 'Technologies', cls: 'col-mid' }, { label: 'Updated', cls: 'col-date' }, { label: 'Actions', hidden: true, cls: 'col-actions' }], rows),
    pager({ page: res.page, limit: res.limit, total: res.total }, load));
  };
  await load();
  const add = linkButton('New project', '#/projects/new', { iconName: 'plus' });
  add.dataset.shortcut = 'new';
  const search = searchBox('project', (r) => `#/projects/${encodeURIComponent(r.id)}`, (active) => { body.hidden = active; });
  return h('div', {}, pageHead('Projects', add), status,
    h('section', { class: 'panel flush' }, h('div', { class: 'toolbar' }, search.field), search.results, body));
}

let imageSeq = 0;

function imageRow(img = {}) {
  const n = ++imageSeq;
  const url = h('input', { type: 'url', name: 'images', id: `image-url-${n}`, value: img.url || '', placeholder: 'https://… or choose from the library' });
  const alt = h('input', { type: 'text', name: `image-alt-${n}`, value: img.alt || '', placeholder: 'Describe the image' });
  const type = h('select', { name: `image-type-${n}` }, IMAGE_TYPES.map(([t, label]) => h('option', { value: t, selected: t === (img.type || 'screenshot') }, label)));
  const row = h('div', { class: 'panel image-row' },
    h('div', { class: 'field' }, h('label', { for: url.id }, `Image ${n}`), imageField(url, 'Image', { clearable: false })),
    h('div', { class: 'grid' }, field('Alt text', alt), field('Kind', type)));
  const remove = button('Remove this image', { iconName: 'x', kind: 'quiet-danger', onClick: () => row.remove() });
  row.append(remove);
  row.value = () => ({ url: url.value.trim(), alt: alt.value.trim(), type: type.value });
  return row;
}

function editor(p, navigate, announce) {
  const status = statusBox();
  const title = h('input', { type: 'text', name: 'title', required: true, value: p ? p.title : '', maxlength: 200 });
  const description = h('textarea', { name: 'description', required: true, maxlength: 2000, rows: 3 });
  description.value = p ? p.description : '';
  const longDescription = h('textarea', { name: 'longDescription', rows: 10 });
  longDescription.value = p ? p.longDescription || '' : '';
  const stat = h('select', { name: 'status' }, STATUSES.map(([s, label]) => h('option', { value: s, selected: s === (p ? p.status : 'draft') }, label)));
  const techs = h('input', { type: 'text', name: 'technologies', value: p ? (p.technologies || []).join(', ') : '' });
  const demo = h('input', { type: 'url', name: 'demoUrl', value: p ? p.demoUrl || '' : '', placeholder: 'https://…' });
  const source = h('input', { type: 'url', name: 'sourceUrl', value: p ? p.sourceUrl || '' : '', placeholder: 'https://…' });
  const images = h('div', { class: 'images' }, ((p && p.images) || []).map(imageRow));
  const save = button(p ? 'Save project' : 'Create project', { type: 'submit', iconName: 'save' });
  const form = h('form', { id: 'project-form', novalidate: true, 'data-primary': '' },
    h('div', { class: 'grid-2' },
      h('section', { class: 'panel' }, h('h2', {}, 'About the project'),
        field('Title', title), field('Description', description, 'One or two sentences for the list of projects.'),
        field('Long description (Markdown)', longDescription)),
      h('div', {},
        h('section', { class: 'panel' }, h('h2', {}, 'Details'),
          field('Status', stat), field('Technologies', techs, 'Comma-separated, e.g. Go, PostgreSQL'),
          field('Demo URL', demo), field('Source URL', source)),
        h('fieldset', { class: 'panel', name: 'images' }, h('legend', { class: 'visually-hidden' }, 'Images'), h('h2', {}, 'Images'), images,
          button('Add an image', { iconName: 'plus', kind: 'secondary', onClick: () => images.append(imageRow()) })))),
    h('div', { class: 'form-actions' }, save, h('a', { href: '#/projects' }, 'Back to projects')));
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
  return h('div', {}, pageHead(p ? 'Edit project' : 'New project', h('a', { class: 'button secondary', href: '#/projects' }, icon('arrow-left'), 'Projects')), status, form);
}
