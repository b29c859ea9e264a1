// Posts: the list, and the editor: one wide writing column (title, a Markdown toolbar, the
// text) with the preview rendered by the server's own renderer (POST /api/blog/preview, so it
// equals the published page) beside it or in its place, images inserted from the library or by
// pasting or dropping a file (uploaded, then written as Markdown), and the post's settings in a
// drawer. One Save sends the content, then the publishing options (status, schedule, SEO,
// series, reader options, cross-publishing).
import { api, ApiError, query } from './shared/api.js';
import { htmlToNodes } from './safehtml.js';
import { h, field, formatDateTime, replace } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, badge, pager, busy, formError, markFields, setFlash, button, linkButton,
  confirmDialog, toast, emptyState, features, icon, listTable, cellMain, cellDate, cellText, cellActions, rowMenu, segmented,
} from './ui.js';
import { searchBox } from './search.js';
import { pickMedia, uploadFile, markdownImage, filesOf, imageField } from './upload.js';

export async function render({ rest, navigate, announce }) {
  const feats = await features().catch(() => ({}));
  if (rest === 'new') return editor(null, navigate, announce, feats);
  if (rest) return editor(await api('GET', `/api/posts/${encodeURIComponent(rest)}`), navigate, announce, feats);
  return list(announce, feats);
}

/** postState is what a post's status badge says: archived, scheduled, published or draft. */
function postState(p) {
  if (p.archivedAt) return 'archived';
  if (p.status !== 'published' && p.scheduledAt) return 'scheduled';
  return p.status;
}

async function list(announce, feats) {
  const status = statusBox();
  const body = h('div', {});
  const extOn = !!(feats.externalBlog && feats.externalBlog.configured);
  const filter = h('select', { id: 'post-filter', name: 'post-filter', 'aria-label': 'Show posts' },
    [['published,draft,archived', 'All posts'], ['published', 'Published'], ['draft', 'Drafts'], ['archived', 'Archived']]
      .map(([v, t]) => h('option', { value: v }, t)));
  const load = async (page = 1) => {
    const res = await api('GET', `/api/blog${query({ page, limit: 20, status: filter.value })}`);
    const rows = res.posts.map((p) => {
      const remove = async () => {
        if (!await confirmDialog({ title: 'Delete this post?', message: `“${p.title}” will be deleted. This cannot be undone.`, confirmLabel: 'Delete post' })) return;
        try {
          await api('DELETE', `/api/posts/${encodeURIComponent(p.id)}`);
          toast(`Deleted “${p.title}”.`);
          announce(`Deleted ${p.title}`);
          await load(page);
        } catch (e) { status.set(errorText(e), 'error'); }
      };
      const state = postState(p);
      const href = `#/posts/${encodeURIComponent(p.id)}`;
      return h('tr', { 'data-id': p.id },
        cellMain(p.title, href, `/${p.slug}`, { subMono: true }),
        h('td', { 'data-label': 'Status' }, badge(state),
          state === 'scheduled' ? h('span', { class: 'row-sub truncate' }, formatDateTime(p.scheduledAt)) : null),
        extOn ? cellText('External blog', p.extblogId || '—', 'mono') : null,
        cellDate('Updated', p.updatedAt),
        cellActions(rowMenu(`Actions for ${p.title}`, [
          { label: 'Edit', iconName: 'pencil', href },
          { separator: true },
          { label: 'Delete', iconName: 'trash-2', danger: true, onSelect: remove, id: `delete-${p.id}` },
        ])));
    });
    const filtered = filter.value !== 'published,draft,archived';
    const cols = [{ label: 'Title' }, { label: 'Status', cls: 'col-status' }, extOn ? { label: 'External blog', cls: 'col-mid' } : null,
      { label: 'Updated', cls: 'col-date' }, { label: 'Actions', hidden: true, cls: 'col-actions' }].filter(Boolean);
    replace(body, rows.length === 0
      ? emptyState({
        id: 'posts-empty', iconName: 'file-text', title: filtered ? 'No posts with this status' : 'No posts yet',
        text: filtered ? 'Choose “All posts” to see the others.' : 'Write your first post: it starts as a draft, and you publish it when it is ready.',
        action: filtered ? null : linkButton('Write a post', '#/posts/new', { iconName: 'plus' }),
      })
      : listTable('posts-table', cols, rows),
    pager(res.pagination, load));
  };
  filter.addEventListener('change', () => load(1).catch((e) => status.set(errorText(e), 'error')));
  await load();
  const add = linkButton('New post', '#/posts/new', { iconName: 'plus' });
  add.dataset.shortcut = 'new';
  const search = searchBox('post', (r) => `#/posts/${encodeURIComponent(r.id)}`, (active) => { body.hidden = active; });
  return h('div', {}, pageHead('Posts', add), status,
    h('section', { class: 'panel flush' }, h('div', { class: 'toolbar' }, search.field, filter), search.results, body));
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
 * server's sanitized HTML (the same bytes a published post's contentHtml carries, srcset of
 * library images included); safehtml.js turns it into nodes through its own allow-list.
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
  const st = postState(a);
  return [badge(st), ' ',
    st === 'scheduled' ? `for ${formatDateTime(a.scheduledAt)}` : '',
    st === 'published' && a.publishedAt ? `since ${formatDateTime(a.publishedAt, { dateStyle: 'medium' })}` : ''];
}

/**
 * markdownEditor wires the toolbar's formatting buttons and image uploads (button, paste,
 * drop) to the textarea. Every change fires an input event, so the preview follows.
 */
function markdownEditor(area, status) {
  const changed = () => area.dispatchEvent(new Event('input', { bubbles: true }));
  const insert = (text, selectFrom, selectTo) => {
    const start = area.selectionStart;
    area.setRangeText(text, start, area.selectionEnd, 'end');
    if (selectFrom !== undefined) area.setSelectionRange(start + selectFrom, start + selectTo);
    area.focus();
    changed();
  };
  const wrap = (before, after, placeholder) => {
    const sel = area.value.slice(area.selectionStart, area.selectionEnd) || placeholder;
    insert(`${before}${sel}${after}`, before.length, before.length + sel.length);
  };
  const prefixLines = (prefix) => {
    const v = area.value;
    const from = v.lastIndexOf('\n', area.selectionStart - 1) + 1;
    let to = v.indexOf('\n', area.selectionEnd);
    if (to < 0) to = v.length;
    const lines = v.slice(from, to).split('\n').map((l) => (l.startsWith(prefix) ? l.slice(prefix.length) : prefix + l)).join('\n');
    area.setRangeText(lines, from, to, 'select');
    area.focus();
    changed();
  };
  const uploadInto = async (files) => {
    for (const f of files) {
      if (!/^image\//.test(f.type)) {
        status.set(`${f.name || 'The file'} is not an image; add other files from the Media page.`, 'error');
        continue;
      }
      const marker = `![Uploading ${(f.name || 'image').replace(/[[\]]/g, '')}…]()`;
      insert(`${area.selectionStart > 0 && area.value[area.selectionStart - 1] !== '\n' ? '\n\n' : ''}${marker}\n`);
      try {
        const m = await uploadFile(f);
        area.value = area.value.replace(marker, markdownImage(m));
        toast(`Uploaded ${m.filename} and added it to the post.`);
      } catch (e) {
        area.value = area.value.replace(`${marker}\n`, '');
        status.set(`${f.name || 'The image'} was not uploaded: ${errorText(e)}`, 'error');
      }
      changed();
    }
  };
  const chooseImage = async () => {
    const m = await pickMedia({ title: 'Insert an image' });
    area.focus();
    if (!m) return;
    const alt = m.filename.replace(/\.[a-z0-9]+$/i, '').replace(/[-_]+/g, ' ');
    const md = markdownImage(m, alt);
    const lead = area.selectionStart > 0 && area.value[area.selectionStart - 1] !== '\n' ? '\n\n' : '';
    // The alt text is selected, so typing a description replaces it.
    insert(`${lead}${md}\n`, lead.length + 2, lead.length + 2 + alt.length);
  };
  area.addEventListener('paste', (ev) => {
    const files = filesOf(ev).filter((f) => /^image\//.test(f.type));
    if (files.length) {
      ev.preventDefault();
      uploadInto(files);
    }
  });
  const pane = area.parentElement;
  const hasFiles = (ev) => ev.dataTransfer && [...ev.dataTransfer.types].includes('Files');
  area.addEventListener('dragover', (ev) => { if (hasFiles(ev)) { ev.preventDefault(); pane.classList.add('dragging'); } });
  area.addEventListener('dragleave', () => pane.classList.remove('dragging'));
  area.addEventListener('drop', (ev) => {
    pane.classList.remove('dragging');
    const files = filesOf(ev);
    if (files.length) {
      ev.preventDefault();
      uploadInto(files);
    }
  });
  const tool = (label, iconName, fn, id) => {
    const b = h('button', { type: 'button', class: 'ghost icon-only', 'aria-label': label, title: label, id }, icon(iconName));
    b.addEventListener('click', fn);
    return b;
  };
  return h('div', { class: 'md-toolbar', role: 'toolbar', 'aria-label': 'Formatting', 'aria-controls': area.id },
    tool('Heading', 'heading', () => prefixLines('## ')),
    tool('Bold', 'bold', () => wrap('**', '**', 'bold text')),
    tool('Italic', 'italic', () => wrap('_', '_', 'italic text')),
    tool('Link', 'link', () => wrap('[', '](https://)', 'link text')),
    h('span', { class: 'sep', 'aria-hidden': 'true' }),
    tool('Quote', 'text-quote', () => prefixLines('> ')),
    tool('List', 'list', () => prefixLines('- ')),
    tool('Code', 'square-code', () => wrap('`', '`', 'code')),
    h('span', { class: 'sep', 'aria-hidden': 'true' }),
    button('Image', { iconName: 'image-plus', kind: 'ghost', id: 'insert-image', title: 'Insert an image (or paste or drop one into the text)', onClick: chooseImage }));
}

function editor(post, navigate, announce, feats) {
  const status = statusBox();
  const title = h('input', { type: 'text', name: 'title', id: 'post-title', required: true, maxlength: 200, value: post ? post.title : '', class: 'editor-title', placeholder: 'Post title', 'aria-label': 'Title' });
  const slug = h('input', { type: 'text', name: 'slug', maxlength: 100, value: post ? post.slug : '', pattern: '[a-z0-9]+(-[a-z0-9]+)*' });
  const excerpt = h('textarea', { name: 'excerpt', maxlength: 1000, rows: 3 });
  excerpt.value = post ? post.excerpt || '' : '';
  const category = h('input', { type: 'text', name: 'category', value: post ? post.category || '' : '' });
  const tags = h('input', { type: 'text', name: 'tags', value: post ? (post.tags || []).join(', ') : '' });
  const content = h('textarea', { name: 'content', class: 'md-area', id: 'post-content', spellcheck: 'true', 'aria-label': 'Content (Markdown)', placeholder: 'Write in Markdown. Paste or drop an image to upload it.' });
  content.value = post ? post.content || '' : '';
  const preview = h('div', { class: 'preview', id: 'post-preview', 'aria-label': 'Preview, exactly as published', role: 'region', tabindex: '0' });
  const render = serverPreview(preview);
  let timer = 0;
  let dirty = false;
  const saveState = h('span', { class: 'muted small', id: 'save-state', 'aria-live': 'polite' }, post ? '' : 'Not saved yet');
  const touch = () => { if (!dirty) { dirty = true; saveState.textContent = 'Unsaved changes'; } };
  content.addEventListener('input', () => {
    touch();
    clearTimeout(timer);
    timer = setTimeout(() => { if (panes.dataset.view !== 'write') render(content.value); }, 300);
  });

  const stored = localStorage.getItem('folio.editor.view');
  const panes = h('div', { class: 'editor-panes', 'data-view': ['write', 'split', 'preview'].includes(stored) ? stored : 'write' },
    h('div', { class: 'write-pane' }, content),
    h('div', { class: 'preview-pane' }, preview));
  if (panes.dataset.view !== 'write') render(content.value);
  const view = segmented('Editor view', [['write', 'Write', 'pencil'], ['split', 'Side by side', 'columns-2'], ['preview', 'Preview', 'eye']], panes.dataset.view, (v) => {
    panes.dataset.view = v;
    localStorage.setItem('folio.editor.view', v);
    if (v !== 'write') render(content.value);
  }, 'editor-view');
  const toolbar = markdownEditor(content, status);

  // Publishing options, saved by the same button (POST /api/articles/publishing-options).
  const cur = post || { status: 'draft' };
  const st = h('select', { name: 'status', id: 'publish-status' }, ['draft', 'published'].map((s) => h('option', { value: s, selected: s === cur.status }, s === 'published' ? 'Published' : 'Draft')));
  const when = h('input', { type: 'datetime-local', name: 'scheduledAt', id: 'publish-at', value: toLocalInput(cur.scheduledAt) });
  const seo = cur.seo || {};
  const seoTitle = h('input', { type: 'text', name: 'seo', 'data-field': 'seo.title', value: seo.title || '', maxlength: 200 });
  const seoDesc = h('textarea', { name: 'seoDescription', 'data-field': 'seo.description', rows: 3, maxlength: 500 });
  seoDesc.value = seo.description || '';
  const seoImage = h('input', { type: 'url', name: 'seoImage', id: 'seo-image', 'data-field': 'seo.image', value: seo.image || '', placeholder: 'https://…' });
  const series = h('input', { type: 'text', name: 'series', value: cur.series || '' });
  const settings = cur.settings || {};
  const check = (name, label, on) => {
    const box = h('input', { type: 'checkbox', name, id: `opt-${name}`, checked: !!on });
    return [box, h('div', { class: 'check' }, box, h('label', { for: box.id }, label))];
  };
  const [comments, commentsRow] = check('enableComments', 'Allow comments', settings.enableComments);
  const [reactions, reactionsRow] = check('enableReactions', 'Allow reactions', settings.enableReactions);
  const [newsletter, newsletterRow] = check('newsletter', 'Send to newsletter subscribers', settings.newsletter);
  // The newsletter option (publishing-options' newsletter.send) and the mailing's progress
  // (GET /api/posts/{id}/newsletter), refreshed while the mailing goes out.
  const newsletterState = h('p', { id: 'newsletter-state', class: 'small', 'aria-live': 'polite' }, '');
  const showNewsletter = (p) => {
    const failed = p.failed ? `, ${p.failed} failed` : '';
    newsletterState.textContent = p.status === 'sent' ? `Newsletter sent to ${p.sent} of ${p.total} subscribers${failed}.`
      : p.status === 'sending' ? `Newsletter going out: ${p.sent} of ${p.total} sent${failed}.`
        : p.status === 'queued' ? 'Newsletter queued: it goes out in a moment.'
          : p.send ? 'Mailed to the subscribers when the post is published.' : '';
  };
  const loadNewsletter = async (id, first) => {
    let p;
    try {
      p = await api('GET', `/api/posts/${encodeURIComponent(id)}/newsletter`);
    } catch {
      newsletterState.textContent = '';
      return;
    }
    if (first) newsletter.checked = !!p.send;
    showNewsletter(p);
    if ((p.status === 'queued' || p.status === 'sending') && newsletterState.isConnected) {
      setTimeout(() => { if (newsletterState.isConnected) loadNewsletter(id, false); }, 5000);
    }
  };
  if (post) loadNewsletter(post.id, true);
  const ext = feats.externalBlog;
  const extOn = !ext || ext.configured;
  const [cross, crossRow] = check('crossPlatform', 'Also publish on the external blog', extOn && cur.crossPlatformPublishing && cur.crossPlatformPublishing.extblog);
  const state = h('p', { id: 'publish-state', class: 'small' }, post ? stateLine(post) : 'Not saved yet.');

  const save = h('button', { type: 'submit', id: 'save-post' }, icon('save'), h('span', { class: 'label' }, post ? 'Save' : 'Save draft'));
  const syncLabel = () => {
    const publishing = st.value === 'published';
    save.querySelector('.label').textContent = publishing ? (post && post.status === 'published' ? 'Update' : 'Publish') : (post ? 'Save' : 'Save draft');
  };
  st.addEventListener('change', syncLabel);
  syncLabel();

  const section = (heading, ...kids) => h('section', { class: 'drawer-section' }, h('h3', {}, heading), kids);
  const drawer = h('aside', { class: 'editor-drawer', id: 'post-drawer', 'aria-label': 'Post settings' },
    h('div', { class: 'panel', id: 'publishing-panel' },
      h('h2', {}, 'Post settings'), state,
      field('Status', st), field('Publish at', when, 'Optional; a future time publishes then (your time zone).'),
      section('URL and summary', field('Slug', slug, 'Leave empty to make one from the title.'),
        field('Excerpt', excerpt, 'Leave empty to use the start of the post.')),
      section('Organise', field('Tags', tags, 'Comma-separated.'), field('Category', category), field('Series', series)),
      section('Search and social', field('SEO title', seoTitle), field('SEO description', seoDesc),
        h('div', { class: 'field' }, h('label', { for: seoImage.id }, 'Social image'), imageField(seoImage, 'Social image'))),
      section('Readers', commentsRow, reactionsRow, newsletterRow, newsletterState),
      extOn ? section('External blog', crossRow, post ? platform(post, status, announce) : null)
        : h('p', { class: 'off-note', id: 'extblog-note' }, 'Cross-posting to an external blog is off. To turn it on, set ',
          (ext.missing || []).flatMap((v, i) => [i ? ' and ' : '', h('code', {}, v)]), ' on the server (Settings → Features).')));
  const drawerPref = localStorage.getItem('folio.editor.drawer');
  let drawerOpen = drawerPref ? drawerPref === 'open' : window.innerWidth >= 1200;
  const drawerToggle = h('button', { type: 'button', class: 'secondary', id: 'post-settings-toggle', 'aria-controls': drawer.id }, icon('panel-right'), h('span', {}, 'Settings'));
  const layout = h('div', { class: 'editor-layout' });
  const showDrawer = (open) => {
    drawerOpen = open;
    drawer.hidden = !open;
    layout.classList.toggle('drawer-open', open);
    drawerToggle.setAttribute('aria-expanded', String(open));
  };
  drawerToggle.addEventListener('click', () => {
    showDrawer(!drawerOpen);
    localStorage.setItem('folio.editor.drawer', drawerOpen ? 'open' : 'closed');
    if (drawerOpen) st.focus();
  });
  for (const el of [title, slug, excerpt, category, tags, st, when, seoTitle, seoDesc, seoImage, series, comments, reactions, newsletter, cross]) {
    el.addEventListener('input', touch);
  }

  replace(layout, h('div', { class: 'editor-main' }, title, toolbar, panes,
    h('div', { class: 'editor-foot' }, h('span', { class: 'kbd-hint' }, h('kbd', {}, 'Ctrl'), ' + ', h('kbd', {}, 'S'), ' saves'),
      h('span', {}, 'Markdown: **bold**, _italic_, ## heading, [link](https://…).'))), drawer);
  showDrawer(drawerOpen);

  const form = h('form', { id: 'post-form', novalidate: true, 'data-primary': '' },
    h('div', { class: 'editor-top' },
      h('a', { class: 'back', href: '#/posts' }, icon('arrow-left'), 'Posts'),
      h('span', { class: 'spacer' }), saveState, view, drawerToggle, save),
    status, layout);

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
        newsletter: { send: newsletter.checked },
      };
      const at = fromLocalInput(when.value);
      if (at) options.scheduledAt = at;
      let res;
      try {
        res = await api('POST', '/api/articles/publishing-options', options);
      } catch (e) {
        // The content is saved; only the options failed. Stay on the saved post.
        if (!drawerOpen) showDrawer(true);
        status.set(`The post is saved, but its publishing options are not: ${formError(form, e)}`, 'error');
        if (!post) {
          setFlash('');
          navigate(`#/posts/${encodeURIComponent(saved.id)}`);
        }
        return;
      }
      const a = res.article || saved;
      markFields(form, null);
      dirty = false;
      saveState.textContent = 'Saved';
      const pf = res.platform || { status: 'skipped' };
      const what = postState(a) === 'scheduled' ? 'scheduled' : a.status === 'published' ? 'published' : 'saved as a draft';
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
      if (panes.dataset.view !== 'write') render(content.value); // the preview may have failed while the session was gone
      slug.value = a.slug;
      replace(state, stateLine(a));
      loadNewsletter(a.id, false);
      syncLabel();
    });
  });
  return h('div', { class: 'post-editor' }, h('h1', { class: 'visually-hidden' }, post ? 'Edit post' : 'New post'), form);
}

/** platform holds the external blog's own actions for a saved post (the feature is on). */
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
      toast((res && res.message) || `${verb} done.`);
      announce(`${verb} done`);
    } catch (e) {
      status.set(`${verb} failed: ${errorText(e)}`, 'error');
      status.scrollIntoView({ block: 'nearest' });
    }
  };
  const pub = button('Publish or update', { iconName: 'send', id: 'extblog-publish', kind: 'secondary' });
  const unpub = button('Unpublish', { kind: 'secondary', id: 'extblog-unpublish' });
  const del = button('Remove', { iconName: 'trash-2', kind: 'quiet-danger', id: 'extblog-delete' });
  pub.addEventListener('click', () => busy(pub, call('POST', '/api/extblog/publish', 'Publish on the external blog')));
  unpub.addEventListener('click', () => busy(unpub, call('POST', '/api/extblog/unpublish', 'Unpublish on the external blog')));
  del.addEventListener('click', () => busy(del, async () => {
    const ok = await confirmDialog({ title: 'Remove from the external blog?', message: 'The post is removed from the platform. The post here stays.', confirmLabel: 'Remove' });
    if (ok) await call('DELETE', '/api/extblog/delete', 'Delete on the external blog')();
  }));
  return h('div', { id: 'extblog-panel' }, h('p', { class: 'small' }, 'Platform post: ', idText), h('div', { class: 'row' }, pub, unpub, del));
}
