// Media library: upload files (picker, drag and drop, paste; several at once, with progress),
// generate an image from a prompt, browse what is stored with its responsive variants, and
// delete a file (the server refuses while posts or projects show it, and lists them).
import { api, query, ApiError } from './shared/api.js';
import { h, field, formatBytes, formatDateTime, replace, safeURL } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, pager, busy, button, toast, emptyState, features, featureNote, confirmDialog, openDialog,
} from './ui.js';

const SIZES = ['1024x1024', '1024x1536', '1536x1024'];

const ACCEPT = 'image/png,image/jpeg,image/gif,image/webp,image/avif,application/pdf';

/** srcsetOf is the srcset of an image: its variants and the original at their widths. */
export function srcsetOf(m) {
  const list = (m.variants || []).map((v) => `${v.url} ${v.width}w`);
  if (m.width) list.push(`${m.url} ${m.width}w`);
  return list.join(', ');
}

function copyButton(label, text, id) {
  const b = h('button', { type: 'button', class: 'link', 'data-copy': id }, label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      b.textContent = text;
    }
  });
  return b;
}

/**
 * deleteMedia asks, then deletes m. While posts or projects show the file the server answers 409
 * with them in the details: they are listed, and the file goes only if asked again (force).
 */
async function deleteMedia(m) {
  if (!await confirmDialog({ title: 'Delete this file?', message: `“${m.filename}” and its variants will be deleted. This cannot be undone.`, confirmLabel: 'Delete file' })) return false;
  const path = `/api/media/${encodeURIComponent(m.key)}`;
  try {
    await api('DELETE', path);
    return true;
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 409) throw e;
    const uses = (e.details || []).map((d) => h('li', { 'data-use': d.id || '' }, `${d.field === 'project' ? 'Project' : 'Post'} “${d.title || d.id}”`));
    const v = await openDialog({
      title: 'This file is in use', id: 'media-in-use',
      body: [h('p', {}, `“${m.filename}” is shown by:`), h('ul', { id: 'media-uses' }, uses),
        h('p', {}, 'Deleting it anyway leaves a broken image there.')],
      focusId: 'media-keep',
      actions: [{ label: 'Keep it', value: 'keep', kind: 'secondary', id: 'media-keep' },
        { label: 'Delete anyway', value: 'force', kind: 'danger', id: 'media-force', iconName: 'trash-2' }],
    });
    if (v !== 'force') return false;
    await api('DELETE', `${path}?force=true`);
    return true;
  }
}

function tile(m, onDelete) {
  const url = safeURL(m.url);
  const isImage = /^image\//.test(m.contentType || '');
  const variants = m.variants || [];
  const srcset = srcsetOf(m);
  const img = isImage && url ? h('img', { src: url, alt: m.prompt || m.filename, loading: 'lazy' }) : null;
  if (img && variants.length) {
    img.setAttribute('srcset', srcset);
    img.setAttribute('sizes', '12rem');
  }
  return h('figure', { 'data-key': m.url },
    h('div', { class: 'thumb' }, img || h('span', { class: 'mono' }, m.contentType)),
    h('figcaption', {}, h('div', {}, url ? h('a', { href: url, target: '_blank', rel: 'noopener' }, m.filename) : m.filename),
      h('div', { class: 'muted' }, [formatBytes(m.size), m.width ? `${m.width}×${m.height}` : '', m.source === 'ai' || m.prompt ? 'AI' : ''].filter(Boolean).join(' · ')),
      variants.length ? h('div', { class: 'muted variants' }, 'Variants: ', variants.map((v, i) => [i ? ', ' : '',
        h('a', { href: safeURL(v.url) || '#', target: '_blank', rel: 'noopener' }, `${v.width}w`)])) : null,
      m.prompt ? h('div', { class: 'muted' }, `“${m.prompt}”`) : null,
      m.createdAt ? h('div', { class: 'muted' }, formatDateTime(m.createdAt)) : null,
      copyButton('Copy URL', m.url, 'url'),
      m.key ? [' ', button('Delete', { kind: 'quiet-danger', iconName: 'trash-2', onClick: (ev) => onDelete(m, ev.currentTarget) })] : null,
      variants.length ? [' ', copyButton('Copy srcset', srcset, 'srcset'),
        ' ', copyButton('Copy <img>', `<img src="${m.url}" srcset="${srcset}" sizes="100vw" width="${m.width}" height="${m.height}" alt="">`, 'img')] : null));
}

/**
 * uploadFile posts one file with XMLHttpRequest (fetch cannot report upload progress) and
 * calls onProgress with 0–1. It resolves with the media object or rejects with an ApiError.
 */
function uploadFile(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/media/upload');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.addEventListener('progress', (ev) => { if (ev.lengthComputable) onProgress(ev.loaded / ev.total); });
    xhr.addEventListener('load', () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch { data = null; }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(data);
        return;
      }
      const err = data && data.error;
      reject(err && typeof err === 'object'
        ? new ApiError(xhr.status, err.code || '', err.message || xhr.statusText, err.details || [], err.retryAfter || 0)
        : new ApiError(xhr.status, '', `Upload failed (${xhr.status})`));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached. Check your connection and try again.')));
    const fd = new FormData();
    fd.append('file', file, file.name || 'pasted-image');
    xhr.send(fd);
  });
}

export async function render({ announce }) {
  const status = statusBox();
  const feats = await features().catch(() => ({}));
  const ai = feats.imageGeneration;
  const aiReady = !ai || ai.configured;
  const library = h('div', {});
  const load = async (page = 1) => {
    const res = await api('GET', `/api/media${query({ page, limit: 24 })}`);
    replace(library, res.media.length === 0 ? emptyState({
      id: 'media-empty', iconName: 'image', title: 'Nothing uploaded yet',
      text: 'Upload an image or a PDF above; its URL is ready to use in posts and projects.',
    })
      : h('div', { class: 'media-grid', id: 'media-grid' }, res.media.map((m) => tile(m, remove))), pager(res.pagination, load));
  };
  const remove = (m, btn) => busy(btn, async () => {
    try {
      if (!await deleteMedia(m)) return;
      toast(`Deleted “${m.filename}”.`);
      announce(`Deleted ${m.filename}`);
      await load();
    } catch (e) { status.set(`Delete failed: ${errorText(e)}`, 'error'); }
  });

  const file = h('input', { type: 'file', name: 'file', id: 'upload-file', accept: ACCEPT, multiple: true });
  const queue = h('ul', { class: 'upload-queue', id: 'upload-queue', 'aria-live': 'polite' });
  const drop = h('div', { class: 'dropzone', id: 'dropzone', tabindex: 0 },
    h('p', {}, 'Drop files here, paste an image, or choose files.'),
    field('Files', file, 'PNG, JPEG, GIF, WebP, AVIF or PDF; several at once'));
  const upload = button('Upload', { type: 'submit', iconName: 'upload' });
  const upForm = h('form', { class: 'panel', id: 'upload-form' }, h('h2', {}, 'Upload'), drop, upload, queue);

  // Each file gets a row with a progress bar; files upload one after another so a large one
  // does not starve the others of bandwidth, and a failure does not stop the rest.
  const uploadAll = async (files) => {
    const list = [...files].filter((f) => f && f.size >= 0);
    if (!list.length) return;
    const rows = list.map((f) => {
      const bar = h('progress', { max: 1, value: 0, 'aria-label': `Uploading ${f.name || 'pasted image'}` });
      const note = h('span', { class: 'muted' }, formatBytes(f.size));
      const row = h('li', {}, h('span', {}, f.name || 'pasted image'), ' ', bar, ' ', note);
      queue.append(row);
      return { f, bar, note, row };
    });
    let ok = 0;
    for (const r of rows) {
      try {
        const res = await uploadFile(r.f, (p) => { r.bar.value = p; });
        r.bar.value = 1;
        r.note.textContent = `done${res.variants && res.variants.length ? ` · ${res.variants.length} variants` : ''}`;
        r.row.classList.add('ok');
        ok++;
      } catch (e) {
        r.note.textContent = `failed: ${errorText(e)}`;
        r.row.classList.add('error');
      }
    }
    if (ok === rows.length) {
      status.clear();
      toast(`Uploaded ${ok} file${ok > 1 ? 's' : ''}.`);
    } else status.set(`Uploaded ${ok} of ${rows.length} files; see the failures above.`, 'error');
    announce('Upload finished');
    upForm.reset();
    await load();
  };
  upForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!file.files.length) {
      status.set('Choose files to upload, drop them here, or paste an image.', 'error');
      file.focus();
      return;
    }
    busy(upload, () => uploadAll(file.files));
  });
  for (const type of ['dragenter', 'dragover']) {
    drop.addEventListener(type, (ev) => { ev.preventDefault(); drop.classList.add('dragging'); });
  }
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('dragging');
    uploadAll(ev.dataTransfer ? ev.dataTransfer.files : []);
  });
  // Paste anywhere on the media page uploads the pasted files (screenshots, copied images).
  const onPaste = (ev) => {
    if (!document.body.contains(drop)) {
      document.removeEventListener('paste', onPaste);
      return;
    }
    const files = ev.clipboardData ? [...ev.clipboardData.files] : [];
    if (files.length && !(ev.target instanceof HTMLTextAreaElement)) {
      ev.preventDefault();
      uploadAll(files);
    }
  };
  document.addEventListener('paste', onPaste);

  const prompt = h('textarea', { name: 'prompt', id: 'ai-prompt', rows: 3, maxlength: 4000, required: true });
  const size = h('select', { name: 'size', id: 'ai-size' }, SIZES.map((s) => h('option', { value: s }, s)));
  const gen = button('Generate', { type: 'submit', iconName: 'sparkles' });
  const result = h('div', { id: 'ai-result' });
  const aiFields = h('fieldset', { class: 'plain', disabled: !aiReady }, field('Prompt', prompt), field('Size', size), gen);
  const aiForm = h('form', { class: 'panel', id: 'ai-form', novalidate: true }, h('h2', {}, 'Generate an image'),
    aiReady ? null : featureNote(ai, 'ai-note'), aiFields, result);
  aiForm.addEventListener('submit', (ev) => {
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
        await load();
      } catch (e) { status.set(`Generation failed: ${errorText(e)}`, 'error'); }
    });
  });

  await load();
  return h('div', {}, pageHead('Media'), status, h('div', { class: 'grid' }, upForm, aiForm), h('section', { class: 'panel' }, h('h2', {}, 'Library'), library));
}
