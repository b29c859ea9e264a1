// Projects: list, create, edit and delete through /api/projects.
import { api, query } from './shared/api.js';
import { h, field, formatDateTime, replace } from './shared/dom.js';
import { pageHead, statusBox, errorText, badge, pager, busy, markFields, setFlash } from './ui.js';
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
      const del = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${p.title}` }, 'Delete');
      del.addEventListener('click', () => busy(del, async () => {
        if (!window.confirm(`Delete the project “${p.title}”?`)) return;
        try {
          await api('DELETE', `/api/projects/${encodeURIComponent(p.id)}`);
          status.set(`Deleted “${p.title}”.`, 'ok');
          announce(`Deleted ${p.title}`);
          await load(page);
        } catch (e) { status.set(errorText(e), 'error'); }
      }));
      return h('tr', {},
        h('td', { 'data-label': 'Title' }, h('a', { href: `#/projects/${encodeURIComponent(p.id)}` }, p.title)),
        h('td', { 'data-label': 'Status' }, badge(p.status)),
        h('td', { 'data-label': 'Technologies' }, (p.technologies || []).join(', ')),
        h('td', { 'data-label': 'Updated' }, formatDateTime(p.updatedAt)),
        h('td', {}, del));
    });
    replace(body, rows.length === 0 ? h('p', { class: 'muted' }, 'No projects yet.')
      : h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'projects-table' },
        h('thead', {}, h('tr', {}, ['Title', 'Status', 'Technologies', 'Updated', ''].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows))),
    pager({ page: res.page, limit: res.limit, total: res.total }, load));
  };
  await load();
  return h('div', {}, pageHead('Projects', h('a', { class: 'button', href: '#/projects/new' }, 'New project')), status,
    searchBox('project', (r) => `#/projects/${encodeURIComponent(r.id)}`), h('section', { class: 'panel' }, body));
}

function imageRow(img = {}) {
  const url = h('input', { type: 'url', value: img.url || '', 'aria-label': 'Image URL', placeholder: 'https://… or /media/…' });
  const alt = h('input', { type: 'text', value: img.alt || '', 'aria-label': 'Alt text', placeholder: 'Alt text' });
  const type = h('select', { 'aria-label': 'Image type' }, IMAGE_TYPES.map((t) => h('option', { value: t, selected: t === (img.type || 'screenshot') }, t)));
  const row = h('div', { class: 'row image-row' }, h('div', { class: 'spacer' }, url), h('div', { class: 'spacer' }, alt), type);
  const remove = h('button', { type: 'button', class: 'secondary', onclick: () => row.remove() }, 'Remove');
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
  const save = h('button', { type: 'submit' }, p ? 'Save project' : 'Create project');
  const form = h('form', { class: 'panel', id: 'project-form', novalidate: true },
    field('Title', title), field('Description', description), field('Long description (Markdown)', longDescription),
    h('div', { class: 'grid' }, field('Status', stat), field('Technologies', techs, 'Comma-separated, e.g. Go, PostgreSQL')),
    h('div', { class: 'grid' }, field('Demo URL', demo), field('Source URL', source)),
    h('fieldset', { name: 'images' }, h('legend', {}, 'Images'), images,
      h('button', { type: 'button', class: 'secondary', onclick: () => images.append(imageRow()) }, 'Add image')),
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
        if (!p) {
          setFlash(`Created “${saved.title}”.`);
          navigate(`#/projects/${encodeURIComponent(saved.id)}`);
        }
        else status.set(`Saved “${saved.title}”.`, 'ok');
        markFields(form, null);
      } catch (e) {
        status.set(errorText(e), 'error');
        markFields(form, e);
      }
    });
  });
  return h('div', {}, pageHead(p ? `Edit project` : 'New project'), status, form);
}
