// Posts: the list, and an editor with one Save for everything (content, then the publishing
// options: status, schedule, SEO, series, settings, cross-publish flag), a preview rendered by
// the server's own renderer (POST /api/blog/preview, so it equals the published page), and the
// external platform's publish, unpublish and delete.
import { api, ApiError, query } from './shared/api.js';
import { htmlToNodes } from './safehtml.js';
import { h, field, formatDateTime, replace } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, badge, pager, busy, formError, markFields, setFlash, button, linkButton,
  confirmDialog, toast, emptyState, features, featureNote, icon,
} from './ui.js';
import { searchBox } from './search.js';

export async function render({ rest, navigate, announce }) {
  const feats = await features().catch(() => ({}));
  if (rest === 'new') return editor(null, navigate, announce, feats);
  if (rest) return editor(await api('GET', `/api/posts/${encodeURIComponent(rest)}`), navigate, announce, feats);
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
      const del = button('Delete', { iconName: 'trash-2', kind: 'quiet-danger', ariaLabel: `Delete ${p.title}` });
      del.addEventListener('click', async () => {
        // Ask first; the button shows it is working only once the answer is yes.
        if (!await confirmDialog({ title: 'Delete this post?', message: `“${p.title}” will be deleted. This cannot be undone.`, confirmLabel: 'Delete post' })) return;
        await busy(del, async () => {
          try {
            await api('DELETE', `/api/posts/${encodeURIComponent(p.id)}`);
            toast(`Deleted “${p.title}”.`);
            announce(`Deleted ${p.title}`);
            await load(page);
          } catch (e) { status.set(errorText(e), 'error'); }
        });
      });
      const state = p.archivedAt ? 'archived' : p.status;
      return h('tr', {},
        h('td', { 'data-label': 'Title' }, h('a', { href: `#/posts/${encodeURIComponent(p.id)}` }, p.title), h('div', { class: 'muted mono small' }, `/${p.slug}`)),
        h('td', { 'data-label': 'Status' }, badge(state), p.scheduledAt ? h('div', { class: 'muted small' }, `scheduled ${formatDateTime(p.scheduledAt)}`) : null),
        h('td', { 'data-label': 'External blog' }, p.extblogId ? h('span', { class: 'mono' }, p.extblogId) : h('span', { class: 'muted' }, '—')),
        h('td', { 'data-label': 'Updated' }, formatDateTime(p.updatedAt)),
        h('td', { class: 'actions' }, del));
    });
    const filtered = filter.value !== 'published,draft,archived';
    replace(body, rows.length === 0
      ? emptyState({
        id: 'posts-empty', iconName: 'file-text', title: filtered ? 'No posts with this status' : 'No posts yet',
        text: filtered ? 'Choose “All posts” to see the others.' : 'Write your first post: it starts as a draft, and you publish it when it is ready.',
        action: filtered ? null : linkButton('Write a post', '#/posts/new', { iconName: 'plus' }),
      })
      : h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'posts-table' },
        h('thead', {}, h('tr', {}, ['Title', 'Status', 'External blog', 'Updated', ''].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows))),
    pager(res.pagination, load));
  };
  filter.addEventListener('change', () => load(1).catch((e) => status.set(errorText(e), 'error')));
  await load();
  const add = linkButton('New post', '#/posts/new', { iconName: 'plus' });
  add.dataset.shortcut = 'new';
  return h('div', {}, pageHead('Posts', filter, add), status, 
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

/**
 * serverPreview renders Markdown through POST /api/blog/preview into el. The answer is the
 * server's sanitized HTML (the same bytes a published post's contentHtml carries); safehtml.js
 * turns it into nodes through its own allow-list.
 */
function serverPreview(el) {
  let seq = 0;
  return async (markdown) => {
    const mine = ++seq;
    el.setAttribute('aria-busy', 'true');
    try {
      const res = await api('POST', '/api/blog/preview', { content: markdown }, {}, { background: true });
      if (mine !== seq) return;
      el.replaceChildren(htmlToNodes(res.html));
      if (!markdown.trim()) el.replaceChildren(h('p', { class: 'muted' }, 'The preview of your post appears here.'));
    } catch (e) {
      if (mine !== seq) return;
      const why = e instanceof ApiError && e.status === 401 ? 'your session has ended; it comes back once you save and sign in again' : errorText(e);
      el.replaceChildren(h('p', { class: 'status error' }, `Preview unavailable: ${why}.`));
    } finally {
      if (mine === seq) el.removeAttribute('aria-busy');
    }
  };
}

function stateLine(a) {
  return ['Now: ', badge(a.archivedAt ? 'archived' : a.status),
    a.publishedAt ? ` · first published ${formatDateTime(a.publishedAt)}` : '',
    a.scheduledAt ? ` · scheduled for ${formatDateTime(a.scheduledAt)}` : ''];
}

function editor(post, navigate, announce, feats) {
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
  const render = serverPreview(preview);
  let timer = 0;
  content.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => render(content.value), 300); });
  render(content.value);
  const edit = h('div', { class: 'editor', 'data-show': 'write' },
    h('div', { class: 'write-pane' }, field('Content (Markdown)', content)),
    h('div', { class: 'preview-pane' }, h('div', { class: 'field' }, h('span', { class: 'label', id: 'preview-label' }, h('strong', {}, 'Preview'),
      h('span', { class: 'muted small' }, ' — exactly as published')), preview)));
  const tabWrite = h('button', { type: 'button', class: 'secondary', 'aria-pressed': 'true' }, icon('pencil'), 'Write');
  const tabPreview = h('button', { type: 'button', class: 'secondary', 'aria-pressed': 'false', id: 'tab-preview' }, icon('eye'), 'Preview');
  const show = (which) => {
    edit.dataset.show = which;
    tabWrite.setAttribute('aria-pressed', String(which === 'write'));
    tabPreview.setAttribute('aria-pressed', String(which === 'preview'));
    if (which === 'preview') render(content.value);
  };
  tabWrite.addEventListener('click', () => show('write'));
  tabPreview.addEventListener('click', () => show('preview'));

  // Publishing options, saved by the same button (POST /api/articles/publishing-options).
  const cur = post || { status: 'draft' };
  const st = h('select', { name: 'status', id: 'publish-status' }, ['draft', 'published'].map((s) => h('option', { value: s, selected: s === cur.status }, s === 'published' ? 'Published' : 'Draft')));
  const when = h('input', { type: 'datetime-local', name: 'scheduledAt', id: 'publish-at', value: toLocalInput(cur.scheduledAt) });
  const seo = cur.seo || {};
  const seoTitle = h('input', { type: 'text', name: 'seo', 'data-field': 'seo.title', value: seo.title || '', maxlength: 200 });
  const seoDesc = h('textarea', { name: 'seoDescription', 'data-field': 'seo.description', rows: 2, maxlength: 500 });
  seoDesc.value = seo.description || '';
  const seoImage = h('input', { type: 'url', name: 'seoImage', 'data-field': 'seo.image', value: seo.image || '' });
  const series = h('input', { type: 'text', name: 'series', value: cur.series || '' });
  const settings = cur.settings || {};
  const check = (name, label, on, extra = {}) => {
    const box = h('input', { type: 'checkbox', name, id: `opt-${name}`, checked: !!on, ...extra });
    return [box, h('div', { class: 'check' }, box, h('label', { for: box.id }, label))];
  };
  const [comments, commentsRow] = check('enableComments', 'Allow comments', settings.enableComments);
  const [reactions, reactionsRow] = check('enableReactions', 'Allow reactions', settings.enableReactions);
  const [newsletter, newsletterRow] = check('newsletter', 'Send to newsletter subscribers', settings.newsletter);
  const ext = feats.externalBlog;
  const extReady = !ext || ext.configured;
  const [cross, crossRow] = check('crossPlatform', 'Also publish on the external blog',
    extReady && cur.crossPlatformPublishing && cur.crossPlatformPublishing.extblog, { disabled: !extReady, 'aria-describedby': extReady ? null : 'cross-note' });
  const state = h('p', { id: 'publish-state', class: 'small' }, post ? stateLine(post) : 'Not saved yet.');

  const save = h('button', { type: 'submit', id: 'save-post' }, icon('save'), h('span', { class: 'label' }, post ? 'Save' : 'Save draft'));
  const syncLabel = () => {
    const publishing = st.value === 'published';
    save.querySelector('.label').textContent = publishing ? (post && post.status === 'published' ? 'Save' : 'Save and publish') : (post ? 'Save' : 'Save draft');
  };
  st.addEventListener('change', syncLabel);
  syncLabel();

  const side = h('aside', { class: 'side-panel' },
    h('section', { class: 'panel', id: 'publishing-panel' }, h('h2', {}, 'Publishing'), state,
      field('Status', st), field('Publish at', when, 'Optional; a future time publishes then (your time zone)'),
      crossRow, extReady ? null : featureNote(ext, 'cross-note', { compact: true }),
      h('details', { class: 'more' }, h('summary', {}, 'Details'),
        field('Slug', slug, 'Leave empty to make one from the title'), field('Category', category), field('Tags', tags, 'Comma-separated'),
        field('Excerpt', excerpt, 'Leave empty to use the start of the content'), field('Series', series)),
      h('details', { class: 'more' }, h('summary', {}, 'SEO and settings'),
        field('SEO title', seoTitle), field('SEO description', seoDesc), field('Social image URL', seoImage),
        h('fieldset', {}, h('legend', {}, 'Settings'), commentsRow, reactionsRow, newsletterRow))));

  const form = h('form', { id: 'post-form', novalidate: true, 'data-primary': '' },
    h('div', { class: 'editor-layout' },
      h('div', { class: 'panel' }, field('Title', title),
        h('div', { class: 'tabs', role: 'group', 'aria-label': 'Editor view' }, tabWrite, tabPreview), edit),
      side),
    h('div', { class: 'sticky-actions' }, save, h('a', { href: '#/posts' }, 'Back to posts'),
      h('span', { class: 'muted small kbd-hint' }, h('kbd', {}, 'Ctrl'), ' + ', h('kbd', {}, 'S'), ' saves')));

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!title.value.trim()) {
      markFields(form, { details: [{ field: 'title', message: 'is required' }] });
      status.set('Give the post a title.', 'error');
      return;
    }
    busy(save, async () => {
      const body = {
        title: title.value.trim(), content: content.value, excerpt: excerpt.value.trim(), category: category.value.trim(),
        tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean),
      };
      if (slug.value.trim()) body.slug = slug.value.trim();
      let saved;
      try {
        saved = post ? await api('PUT', `/api/posts/${encodeURIComponent(post.id)}`, body) : await api('POST', '/api/posts', body);
      } catch (e) {
        status.set(formError(form, e), 'error');
        return;
      }
      const options = {
        articleId: saved.id, status: st.value, series: series.value.trim(),
        seo: { title: seoTitle.value.trim(), description: seoDesc.value.trim(), image: seoImage.value.trim() },
        settings: { enableComments: comments.checked, enableReactions: reactions.checked, newsletter: newsletter.checked },
        crossPlatformPublishing: { extblog: cross.checked },
      };
      const at = fromLocalInput(when.value);
      if (at) options.scheduledAt = at;
      let res;
      try {
        res = await api('POST', '/api/articles/publishing-options', options);
      } catch (e) {
        // The content is saved; only the options failed. Stay on the saved post.
        status.set(`The post is saved, but its publishing options are not: ${formError(form, e)}`, 'error');
        if (!post) {
          setFlash('');
          navigate(`#/posts/${encodeURIComponent(saved.id)}`);
        }
        return;
      }
      const a = res.article || saved;
      markFields(form, null);
      const pf = res.platform || { status: 'skipped' };
      const what = a.scheduledAt && a.status !== 'published' ? 'scheduled' : a.status === 'published' ? 'published' : 'saved as a draft';
      const platformText = pf.status === 'failed' ? ` The external blog failed: ${pf.error || 'unknown error'}; the local save stands.`
        : pf.status === 'published' ? ` Also on the external blog (${pf.extblogId}).`
          : pf.status === 'scheduled' ? ' The external blog copy goes out at the scheduled time.' : '';
      const message = `“${a.title}” is ${what}.${platformText}`;
      announce(message);
      if (pf.status === 'failed') status.set(message, 'error');
      else { status.clear(); toast(message); }
      if (!post) {
        navigate(`#/posts/${encodeURIComponent(saved.id)}`);
        return;
      }
      Object.assign(post, a);
      render(content.value); // the preview may have failed while the session was gone
      slug.value = a.slug;
      replace(state, stateLine(a));
      syncLabel();
    });
  });
  const parts = [pageHead(post ? 'Edit post' : 'New post'), status, form];
  if (post) parts.push(platform(post, status, announce, ext));
  return h('div', {}, parts);
}

function platform(post, status, announce, ext) {
  const ready = !ext || ext.configured;
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
      toast((res && res.message) || `${verb} done.`);
      announce(`${verb} done`);
    } catch (e) {
      status.set(`${verb} failed: ${errorText(e)}`, 'error');
      status.scrollIntoView({ block: 'nearest' });
    }
  };
  const pub = button('Publish or update', { iconName: 'send', id: 'extblog-publish' });
  const unpub = button('Unpublish', { kind: 'secondary', id: 'extblog-unpublish' });
  const del = button('Remove from platform', { iconName: 'trash-2', kind: 'quiet-danger', id: 'extblog-delete' });
  for (const b of [pub, unpub, del]) b.disabled = !ready;
  pub.addEventListener('click', () => busy(pub, call('POST', '/api/extblog/publish', 'Publish on the external blog')));
  unpub.addEventListener('click', () => busy(unpub, call('POST', '/api/extblog/unpublish', 'Unpublish on the external blog')));
  del.addEventListener('click', () => busy(del, async () => {
    const ok = await confirmDialog({ title: 'Remove from the external blog?', message: 'The post is removed from the platform. The post here stays.', confirmLabel: 'Remove' });
    if (ok) await call('DELETE', '/api/extblog/delete', 'Delete on the external blog')();
  }));
  return h('section', { class: 'panel', id: 'extblog-panel' }, h('h2', {}, 'External blog'),
    ready ? null : featureNote(ext, 'extblog-note'),
    h('p', {}, 'Platform post id: ', idText), h('div', { class: 'row' }, pub, unpub, del));
}
