// Posts: the list, a Markdown editor with a live preview, publishing options (status,
// schedule, SEO, series, settings, cross-publish flag) and the external platform's publish,
// unpublish and delete.
import { api, query } from './shared/api.js';
import { h, field, formatDateTime, replace } from './shared/dom.js';
import { pageHead, statusBox, errorText, badge, pager, busy, markFields, setFlash } from './ui.js';
import { render as renderMarkdown } from './markdown.js';
import { searchBox } from './search.js';

export async function render({ rest, navigate, announce }) {
  if (rest === 'new') return editor(null, navigate, announce);
  if (rest) return editor(await api('GET', `/api/posts/${encodeURIComponent(rest)}`), navigate, announce);
  return list(announce);
}

async function list(announce) {
  const status = statusBox();
  const body = h('div', {});
  const filter = h('select', { id: 'post-filter', 'aria-label': 'Show posts' },
    [['published,draft,archived', 'All posts'], ['published', 'Published'], ['draft', 'Drafts'], ['archived', 'Archived']]
      .map(([v, t]) => h('option', { value: v }, t)));
  const load = async (page = 1) => {
    const res = await api('GET', `/api/blog${query({ page, limit: 20, status: filter.value })}`);
    const rows = res.posts.map((p) => {
      const del = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${p.title}` }, 'Delete');
      del.addEventListener('click', () => busy(del, async () => {
        if (!window.confirm(`Delete the post “${p.title}”? This cannot be undone.`)) return;
        try {
          await api('DELETE', `/api/posts/${encodeURIComponent(p.id)}`);
          status.set(`Deleted “${p.title}”.`, 'ok');
          announce(`Deleted ${p.title}`);
          await load(page);
        } catch (e) { status.set(errorText(e), 'error'); }
      }));
      const state = p.archivedAt ? 'archived' : p.status;
      return h('tr', {},
        h('td', { 'data-label': 'Title' }, h('a', { href: `#/posts/${encodeURIComponent(p.id)}` }, p.title), h('div', { class: 'muted mono' }, `/${p.slug}`)),
        h('td', { 'data-label': 'Status' }, badge(state), p.scheduledAt ? h('div', { class: 'muted' }, `scheduled ${formatDateTime(p.scheduledAt)}`) : null),
        h('td', { 'data-label': 'External blog' }, p.extblogId ? h('span', { class: 'mono' }, p.extblogId) : h('span', { class: 'muted' }, '—')),
        h('td', { 'data-label': 'Updated' }, formatDateTime(p.updatedAt)),
        h('td', {}, del));
    });
    replace(body, rows.length === 0 ? h('p', { class: 'muted' }, 'No posts here yet.')
      : h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'posts-table' },
        h('thead', {}, h('tr', {}, ['Title', 'Status', 'External blog', 'Updated', ''].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows))),
    pager(res.pagination, load));
  };
  filter.addEventListener('change', () => load(1).catch((e) => status.set(errorText(e), 'error')));
  await load();
  return h('div', {}, pageHead('Posts', filter, h('a', { class: 'button', href: '#/posts/new' }, 'New post')), status,
    searchBox('post', (r) => `#/posts/${encodeURIComponent(r.id)}`), h('section', { class: 'panel' }, body));
}

/** toLocalInput turns an ISO time into a datetime-local value in the viewer's zone. */
function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** fromLocalInput turns a datetime-local value into RFC 3339 with the viewer's offset. */
function fromLocalInput(v) {
  if (!v) return '';
  const d = new Date(v);
  const off = -d.getTimezoneOffset();
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  const sign = off >= 0 ? '+' : '-';
  return `${v.length === 16 ? `${v}:00` : v}${sign}${pad(off / 60)}:${pad(off % 60)}`;
}

function editor(post, navigate, announce) {
  const status = statusBox();
  const title = h('input', { type: 'text', name: 'title', required: true, maxlength: 200, value: post ? post.title : '' });
  const slug = h('input', { type: 'text', name: 'slug', maxlength: 100, value: post ? post.slug : '', pattern: '[a-z0-9]+(-[a-z0-9]+)*' });
  const excerpt = h('textarea', { name: 'excerpt', maxlength: 1000, rows: 2 });
  excerpt.value = post ? post.excerpt || '' : '';
  const category = h('input', { type: 'text', name: 'category', value: post ? post.category || '' : '' });
  const tags = h('input', { type: 'text', name: 'tags', value: post ? (post.tags || []).join(', ') : '' });
  const content = h('textarea', { name: 'content', class: 'code', id: 'post-content', spellcheck: 'true' });
  content.value = post ? post.content || '' : '';
  const preview = h('div', { class: 'preview', id: 'post-preview', 'aria-label': 'Preview', role: 'region' });
  const update = () => replace(preview, renderMarkdown(content.value));
  let timer = 0;
  content.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(update, 120); });
  update();
  const edit = h('div', { class: 'editor', 'data-show': 'write' },
    h('div', { class: 'write-pane' }, field('Content (Markdown)', content)),
    h('div', { class: 'preview-pane' }, h('div', { class: 'field' }, h('span', { class: 'label', id: 'preview-label' }, h('strong', {}, 'Preview')), preview)));
  const tabWrite = h('button', { type: 'button', class: 'secondary', 'aria-pressed': 'true' }, 'Write');
  const tabPreview = h('button', { type: 'button', class: 'secondary', 'aria-pressed': 'false' }, 'Preview');
  const show = (which) => {
    edit.dataset.show = which;
    tabWrite.setAttribute('aria-pressed', String(which === 'write'));
    tabPreview.setAttribute('aria-pressed', String(which === 'preview'));
  };
  tabWrite.addEventListener('click', () => show('write'));
  tabPreview.addEventListener('click', () => show('preview'));

  const save = h('button', { type: 'submit', id: 'save-post' }, post ? 'Save post' : 'Create draft');
  const form = h('form', { class: 'panel', id: 'post-form', novalidate: true },
    field('Title', title),
    h('div', { class: 'grid' }, field('Slug', slug, 'Leave empty to make one from the title'), field('Category', category), field('Tags', tags, 'Comma-separated')),
    field('Excerpt', excerpt, 'Leave empty to use the start of the content'),
    h('div', { class: 'tabs', role: 'group', 'aria-label': 'Editor view' }, tabWrite, tabPreview), edit,
    h('div', { class: 'row' }, save, h('a', { href: '#/posts' }, 'Back to posts')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(save, async () => {
      const body = {
        title: title.value.trim(), content: content.value, excerpt: excerpt.value.trim(), category: category.value.trim(),
        tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean),
      };
      if (slug.value.trim()) body.slug = slug.value.trim();
      try {
        const saved = post ? await api('PUT', `/api/posts/${encodeURIComponent(post.id)}`, body) : await api('POST', '/api/posts', body);
        markFields(form, null);
        announce(`Saved ${saved.title}`);
        if (!post) {
          setFlash(`Created the draft “${saved.title}”. Publish it below when it is ready.`);
          navigate(`#/posts/${encodeURIComponent(saved.id)}`);
        } else {
          status.set(`Saved “${saved.title}”.`, 'ok');
          slug.value = saved.slug;
        }
      } catch (e) {
        status.set(errorText(e), 'error');
        markFields(form, e);
      }
    });
  });
  const parts = [pageHead(post ? 'Edit post' : 'New post'), status, form];
  if (post) parts.push(publishing(post, status, announce), platform(post, status, announce));
  return h('div', {}, parts);
}

function publishing(post, status, announce) {
  const st = h('select', { name: 'status', id: 'publish-status' }, ['draft', 'published'].map((s) => h('option', { value: s, selected: s === post.status }, s === 'published' ? 'Published' : 'Draft')));
  const when = h('input', { type: 'datetime-local', name: 'scheduledAt', id: 'publish-at', value: toLocalInput(post.scheduledAt) });
  const seo = post.seo || {};
  const seoTitle = h('input', { type: 'text', name: 'seo', value: seo.title || '', maxlength: 200 });
  const seoDesc = h('textarea', { name: 'seoDescription', rows: 2, maxlength: 500 });
  seoDesc.value = seo.description || '';
  const seoImage = h('input', { type: 'url', name: 'seoImage', value: seo.image || '' });
  const series = h('input', { type: 'text', name: 'series', value: post.series || '' });
  const settings = post.settings || {};
  const check = (name, label, on) => {
    const box = h('input', { type: 'checkbox', name, id: `opt-${name}`, checked: !!on });
    return [box, h('div', { class: 'check' }, box, h('label', { for: box.id }, label))];
  };
  const [comments, commentsRow] = check('enableComments', 'Allow comments', settings.enableComments);
  const [reactions, reactionsRow] = check('enableReactions', 'Allow reactions', settings.enableReactions);
  const [newsletter, newsletterRow] = check('newsletter', 'Send to newsletter subscribers', settings.newsletter);
  const [cross, crossRow] = check('crossPlatform', 'Also publish on the external blog', post.crossPlatformPublishing && post.crossPlatformPublishing.extblog);
  const state = h('p', { id: 'publish-state' }, 'Now: ', badge(post.archivedAt ? 'archived' : post.status),
    post.publishedAt ? ` · first published ${formatDateTime(post.publishedAt)}` : '',
    post.scheduledAt ? ` · scheduled for ${formatDateTime(post.scheduledAt)}` : '');
  const apply = h('button', { type: 'submit', id: 'apply-publishing' }, 'Save publishing options');
  const form = h('form', { class: 'panel', id: 'publishing-form', novalidate: true }, h('h2', {}, 'Publishing'), state,
    h('div', { class: 'grid' }, field('Status', st), field('Publish at', when, 'Optional; a future time publishes then (your time zone)')),
    h('fieldset', {}, h('legend', {}, 'SEO'), field('SEO title', seoTitle), field('SEO description', seoDesc), field('Social image URL', seoImage)),
    h('div', { class: 'grid' }, field('Series', series), h('fieldset', {}, h('legend', {}, 'Settings'), commentsRow, reactionsRow, newsletterRow)),
    crossRow, h('div', { class: 'row' }, apply));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(apply, async () => {
      const body = {
        articleId: post.id, status: st.value, series: series.value.trim(),
        seo: { title: seoTitle.value.trim(), description: seoDesc.value.trim(), image: seoImage.value.trim() },
        settings: { enableComments: comments.checked, enableReactions: reactions.checked, newsletter: newsletter.checked },
        crossPlatformPublishing: { extblog: cross.checked },
      };
      const at = fromLocalInput(when.value);
      if (at) body.scheduledAt = at;
      try {
        const res = await api('POST', '/api/articles/publishing-options', body);
        const a = res.article || post;
        Object.assign(post, a);
        replace(state, 'Now: ', badge(a.archivedAt ? 'archived' : a.status),
          a.publishedAt ? ` · first published ${formatDateTime(a.publishedAt)}` : '',
          a.scheduledAt ? ` · scheduled for ${formatDateTime(a.scheduledAt)}` : '');
        const pf = res.platform || { status: 'skipped' };
        const platformText = pf.status === 'failed' ? ` The external blog failed: ${pf.error || 'unknown error'}; the local save stands.`
          : pf.status === 'published' ? ` Published on the external blog (${pf.extblogId}).`
            : pf.status === 'scheduled' ? ' The external blog copy goes out at the scheduled time.' : '';
        status.set(`Publishing options saved: the post is ${a.status}${a.scheduledAt ? ', scheduled' : ''}.${platformText}`, pf.status === 'failed' ? 'error' : 'ok');
        announce('Publishing options saved');
        status.scrollIntoView({ block: 'nearest' });
      } catch (e) {
        status.set(errorText(e), 'error');
        markFields(form, e);
        status.scrollIntoView({ block: 'nearest' });
      }
    });
  });
  return form;
}

function platform(post, status, announce) {
  const idText = h('span', { class: 'mono', id: 'extblog-id' }, post.extblogId || 'not on the external blog');
  const call = (method, path, verb) => async () => {
    try {
      const res = await api(method, path, { articleId: post.id });
      if (res && res.extblogId) {
        post.extblogId = res.extblogId;
        idText.textContent = res.extblogId;
      }
      if (path.endsWith('/delete')) {
        post.extblogId = '';
        idText.textContent = 'not on the external blog';
      }
      status.set((res && res.message) || `${verb} done.`, 'ok');
      announce(`${verb} done`);
    } catch (e) {
      status.set(`${verb} failed: ${errorText(e)}`, 'error');
    }
    status.scrollIntoView({ block: 'nearest' });
  };
  const pub = h('button', { type: 'button', id: 'extblog-publish' }, 'Publish or update');
  const unpub = h('button', { type: 'button', class: 'secondary', id: 'extblog-unpublish' }, 'Unpublish');
  const del = h('button', { type: 'button', class: 'danger', id: 'extblog-delete' }, 'Delete from platform');
  pub.addEventListener('click', () => busy(pub, call('POST', '/api/extblog/publish', 'Publish on the external blog')));
  unpub.addEventListener('click', () => busy(unpub, call('POST', '/api/extblog/unpublish', 'Unpublish on the external blog')));
  del.addEventListener('click', () => busy(del, async () => {
    if (window.confirm('Delete this post from the external blog? The local post stays.')) await call('DELETE', '/api/extblog/delete', 'Delete on the external blog')();
  }));
  return h('section', { class: 'panel', id: 'extblog-panel' }, h('h2', {}, 'External blog'),
    h('p', {}, 'Platform post id: ', idText), h('div', { class: 'row' }, pub, unpub, del));
}
