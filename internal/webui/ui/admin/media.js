// Media library: upload files (a drop zone that also takes a chosen or pasted file; several at
// once, each with its progress, failures listed with their reason), generate an image from a
// prompt when that is configured, and browse, search, copy and delete what is stored.
import { api, query } from './shared/api.js';
import { h, field, formatBytes, formatDateTime, replace, safeURL } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, pager, busy, button, toast, emptyState, features, icon, rowMenu, searchField, openDialog, confirmDialog,
} from './ui.js';
import { ACCEPT, uploadFile, srcsetOf, isImage, thumbURL, markdownImage, filesOf } from './upload.js';


const SIZES = ['1024x1024', '1024x1536', '1536x1024'];

/** copy puts text on the clipboard and says so. */
async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    toast(`${what} copied.`);
  } catch {
    toast(`Copying is blocked here; the ${what.toLowerCase()} is: ${text}`, 'info');
  }
}

/**
 * deleteMedia deletes a file after asking. While posts or projects show it the server answers
 * 409 with them in the details: they are listed, and the file goes only if asked again (force).
 * It resolves true once deleted.
 */
async function deleteMedia(m) {
  if (!await confirmDialog({ title: 'Delete this file?', message: `“${m.filename}” and its smaller copies will be deleted. This cannot be undone.`, confirmLabel: 'Delete file' })) return false;
  const path = `/api/media/${encodeURIComponent(m.key)}`;
  try {
    await api('DELETE', path);
    return true;
  } catch (e) {
    if (e.status !== 409) throw e;
    const uses = (e.details || []).map((d) => h('li', { 'data-use': d.id || '' }, `${d.field === 'project' ? 'Project' : 'Post'} “${d.title || d.id}”`));
    const v = await openDialog({
      title: 'This file is in use', id: 'media-in-use',
      body: [h('p', {}, `“${m.filename}” is shown by:`), h('ul', { id: 'media-uses' }, uses),
        h('p', {}, 'Deleting it anyway leaves a broken image there until you change them.')],
      focusId: 'media-keep',
      actions: [{ label: 'Keep it', value: 'keep', kind: 'secondary', id: 'media-keep' },
        { label: 'Delete anyway', value: 'force', kind: 'danger', id: 'media-force', iconName: 'trash-2' }],
    });
    if (v !== 'force') return false;
    await api('DELETE', `${path}?force=true`);
    return true;
  }
}

function tile(m, onDeleted, status) {
  const url = safeURL(m.url);
  const img = isImage(m) && url ? h('img', { src: thumbURL(m, 320), alt: m.prompt || m.filename, loading: 'lazy', width: 320, height: 240 }) : null;
  const variants = m.variants || [];
  if (img && variants.length) {
    img.setAttribute('srcset', srcsetOf(m));
    img.setAttribute('sizes', '(max-width: 600px) 50vw, 14rem');
  }
  const meta = [formatBytes(m.size), m.width ? `${m.width}×${m.height}` : '', m.source === 'ai' || m.prompt ? 'AI' : ''].filter(Boolean).join(' · ');
  const remove = async () => {
    try {
      if (await deleteMedia(m)) {
        toast(`Deleted “${m.filename}”.`);
        onDeleted();
      }
    } catch (e) { status.set(`${m.filename} was not deleted: ${errorText(e)}`, 'error'); }
  };
  const imgTag = `<img src="${m.url}" srcset="${srcsetOf(m)}" sizes="100vw" width="${m.width}" height="${m.height}" alt="">`;
  return h('figure', { 'data-key': m.url, title: m.createdAt ? `${m.filename}, ${formatDateTime(m.createdAt)}` : m.filename },
    h('div', { class: 'thumb' }, img || h('span', { class: 'mono' }, m.contentType === 'application/pdf' ? 'PDF' : m.contentType)),
    h('figcaption', {},
      // A generated image is named by its prompt (its file name is made up).
      h('div', {}, h('div', { class: 'name truncate' }, m.prompt ? `“${m.prompt}”` : m.filename), h('div', { class: 'muted small truncate' }, meta)),
      rowMenu(`Actions for ${m.filename}`, [
        { label: 'Copy URL', iconName: 'copy', onSelect: () => copy(m.url, 'URL'), id: `copy-url-${m.key}` },
        isImage(m) ? { label: 'Copy Markdown', iconName: 'file-text', onSelect: () => copy(markdownImage(m), 'Markdown') } : null,
        variants.length ? { label: 'Copy srcset', iconName: 'code', onSelect: () => copy(srcsetOf(m), 'srcset'), id: `copy-srcset-${m.key}` } : null,
        variants.length ? { label: 'Copy <img> tag', iconName: 'code', onSelect: () => copy(imgTag, 'Image tag') } : null,
        url ? { label: 'Open', iconName: 'external-link', href: url, target: '_blank' } : null,
        { separator: true },
        { label: 'Delete', iconName: 'trash-2', danger: true, onSelect: remove, id: `delete-${m.key}` },
      ])));
}

export async function render({ announce }) {
  const status = statusBox();
  const feats = await features().catch(() => ({}));
  const ai = feats.imageGeneration;
  const aiReady = !ai || ai.configured;
  const library = h('div', {});
  const count = h('span', { class: 'muted small', id: 'media-count', 'aria-live': 'polite' });
  const [search, searchBox] = searchField('media-search', 'Search the library', 'Search by file name or prompt…');
  let page = 1;
  const load = async (p = page) => {
    page = p;
    const q = search.value.trim();
    const res = await api('GET', `/api/media${query({ page, limit: 24, q })}`);
    count.textContent = `${res.pagination.total} ${res.pagination.total === 1 ? 'file' : 'files'}`;
    replace(library, res.media.length === 0 ? emptyState({
      id: 'media-empty', iconName: 'image', title: q ? 'Nothing matches' : 'Nothing uploaded yet',
      text: q ? `No file name or prompt contains “${q}”.` : 'Upload an image or a PDF above; it is ready to use in posts and projects.',
    })
      : h('div', { class: 'media-grid', id: 'media-grid' }, res.media.map((m) => tile(m, () => load(), status))),
    pager(res.pagination, load));
  };
  let timer = 0;
  search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => load(1).catch((e) => status.set(errorText(e), 'error')), 200); });

  // The drop zone: the file input is the zone's button (a styled label), and a drop or a paste
  // anywhere on the page uploads too.
  const file = h('input', { type: 'file', name: 'file', id: 'upload-file', accept: ACCEPT, multiple: true, class: 'visually-hidden' });
  const queue = h('ul', { class: 'upload-queue', id: 'upload-queue' });
  const summary = h('div', { class: 'status', id: 'upload-summary', role: 'status', 'aria-live': 'polite' });
  const drop = h('div', { class: 'dropzone', id: 'dropzone' },
    icon('upload-cloud'),
    h('p', {}, h('strong', {}, 'Drop files here'), ', paste an image, or'),
    file, h('label', { for: file.id, class: 'button secondary file-label' }, icon('upload'), 'Choose files'),
    h('small', {}, 'PNG, JPEG, GIF, WebP, AVIF or PDF; several at once. Images get smaller copies for fast pages.'));
  const upForm = h('section', { class: 'panel', id: 'upload-form', 'aria-labelledby': 'upload-title' },
    h('h2', { id: 'upload-title' }, 'Upload'), drop, queue, summary);

  // Each file gets a row with a progress bar; files upload one after another so a large one
  // does not starve the others of bandwidth, and a failure does not stop the rest. The summary
  // sits under the list it talks about.
  const uploadAll = async (files) => {
    const list = [...files].filter((f) => f && f.size >= 0);
    if (!list.length) return;
    summary.className = 'status';
    summary.replaceChildren();
    const rows = list.map((f) => {
      const bar = h('progress', { max: 1, value: 0, 'aria-label': `Uploading ${f.name || 'pasted image'}` });
      const note = h('span', { class: 'note' }, `${formatBytes(f.size)}, waiting`);
      const row = h('li', {}, h('span', { class: 'truncate', title: f.name || 'pasted image' }, f.name || 'pasted image'), bar, note);
      queue.append(row);
      return { f, bar, note, row };
    });
    let ok = 0;
    for (const r of rows) {
      r.note.textContent = `${formatBytes(r.f.size)}, uploading`;
      try {
        const res = await uploadFile(r.f, (p) => { r.bar.value = p; });
        r.bar.value = 1;
        const n = (res.variants || []).length;
        r.note.textContent = `Uploaded${n ? `, with ${n} smaller ${n === 1 ? 'copy' : 'copies'}` : ''}.`;
        r.row.classList.add('ok');
        ok++;
      } catch (e) {
        // A failed file's bar goes: it did not get there. The reason takes its place.
        r.bar.remove();
        r.note.replaceChildren(icon('circle-alert'), ` Not uploaded: ${errorText(e)}`);
        r.row.classList.add('error');
      }
    }
    if (ok === rows.length) {
      toast(`Uploaded ${ok} file${ok > 1 ? 's' : ''}.`);
      summary.replaceChildren();
    } else {
      summary.className = 'status error';
      summary.replaceChildren(icon('circle-alert'), h('span', {}, `Uploaded ${ok} of ${rows.length} files. The ones that failed are marked in the list above, with the reason.`));
    }
    announce(ok === rows.length ? 'Upload finished' : `Upload finished; ${rows.length - ok} failed`);
    file.value = '';
    await load(1);
  };
  file.addEventListener('change', () => uploadAll(file.files));
  for (const type of ['dragenter', 'dragover']) {
    drop.addEventListener(type, (ev) => { ev.preventDefault(); drop.classList.add('dragging'); });
  }
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('dragging');
    uploadAll(filesOf(ev));
  });
  // Paste anywhere on the media page (but in a text field) uploads the pasted files.
  const onPaste = (ev) => {
    if (!document.body.contains(drop)) {
      document.removeEventListener('paste', onPaste);
      return;
    }
    const files = filesOf(ev);
    if (files.length && !(ev.target instanceof HTMLTextAreaElement) && !(ev.target instanceof HTMLInputElement)) {
      ev.preventDefault();
      uploadAll(files);
    }
  };
  document.addEventListener('paste', onPaste);

  // Image generation: a form when it is configured, one line saying how to turn it on otherwise.
  let aiPanel;
  if (aiReady) {
    const prompt = h('textarea', { name: 'prompt', id: 'ai-prompt', rows: 3, maxlength: 4000, required: true });
    const size = h('select', { name: 'size', id: 'ai-size' }, SIZES.map((s) => h('option', { value: s }, s.replace('x', ' × '))));
    const gen = button('Generate', { type: 'submit', iconName: 'sparkles' });
    const result = h('div', { id: 'ai-result' });
    aiPanel = h('form', { class: 'panel', id: 'ai-form', novalidate: true }, h('h2', {}, 'Generate an image'),
      field('Describe the image', prompt), field('Size', size), gen, result);
    aiPanel.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (!prompt.value.trim()) {
        status.set('Describe the image you want.', 'error');
        prompt.focus();
        return;
      }
      busy(gen, async () => {
        status.set('Generating… this can take a while.', 'info');
        try {
          const res = await api('POST', '/api/ai/generate-image', { prompt: prompt.value.trim(), size: size.value });
          const url = safeURL(res.imageUrl);
          replace(result, url ? h('img', { src: url, alt: res.prompt, class: 'generated' }) : null);
          status.clear();
          toast('Image generated and saved to the library.');
          announce('Image generated');
          await load(1);
        } catch (e) { status.set(`Generation failed: ${errorText(e)}`, 'error'); }
      });
    });
  } else {
    aiPanel = h('p', { class: 'off-note', id: 'ai-note' }, icon('sparkles'), ' Image generation is off. To turn it on, set ',
      (ai.missing || []).flatMap((v, i) => [i ? ' and ' : '', h('code', {}, v)]), ' on the server (Settings → Features).');
  }

  await load(1);
  return h('div', {}, pageHead('Media'), status,
    aiReady ? h('div', { class: 'grid-2' }, upForm, aiPanel) : [upForm, aiPanel],
    h('section', { class: 'panel', id: 'library', 'aria-labelledby': 'library-title' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'library-title' }, 'Library'), count, h('span', { class: 'spacer' })),
      h('div', { class: 'picker-tools' }, searchBox), library));
}
