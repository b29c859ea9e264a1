// Uploading to the media library and choosing from it, shared by the Media page, the post
// editor (image button, paste, drop), the project images and the social image: one upload
// function with progress, and one picker dialog that searches the library and uploads.
import { api, ApiError, query } from './shared/api.js';
import { h, formatBytes, safeURL } from './shared/dom.js';
import { openDialog, emptyState, errorText, searchField, icon } from './ui.js';

/** ACCEPT is what POST /api/media/upload takes (the server checks the bytes again). */
export const ACCEPT = 'image/png,image/jpeg,image/gif,image/webp,image/avif,application/pdf';

/** srcsetOf is the srcset of an image: its variants and the original at their widths. */
export function srcsetOf(m) {
  const list = (m.variants || []).map((v) => `${v.url} ${v.width}w`);
  if (m.width) list.push(`${m.url} ${m.width}w`);
  return list.join(', ');
}

/** isImage tells a raster image from other files (PDFs). */
export function isImage(m) {
  return /^image\//.test(m.contentType || '');
}

/** thumbURL is the smallest copy of an image that still fills a tile of about width px. */
export function thumbURL(m, width = 320) {
  const v = (m.variants || []).find((x) => x.width >= width);
  return safeURL((v || m).url);
}

/** altFromName makes a first alt text from a file name ("team-photo_2.jpg" → "team photo 2"). */
export function altFromName(name) {
  return String(name || '').replace(/\.[a-z0-9]+$/i, '').replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/** markdownImage is the Markdown of an image; the rendered post gets its srcset from the library. */
export function markdownImage(m, alt) {
  const text = String(alt ?? altFromName(m.filename)).replace(/[[\]\\]/g, '');
  return `![${text}](${m.url})`;
}

/**
 * uploadFile posts one file with XMLHttpRequest (fetch cannot report upload progress) and
 * calls onProgress with 0–1. It resolves with the media object or rejects with an ApiError.
 */
export function uploadFile(file, onProgress = () => {}) {
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
    fd.append('file', file, file.name || 'pasted-image.png');
    xhr.send(fd);
  });
}

/** filesOf returns the files of a drop or paste event (none for text). */
export function filesOf(ev) {
  const dt = ev.dataTransfer || ev.clipboardData;
  return dt ? [...dt.files] : [];
}

/**
 * pickMedia opens the media library in a dialog: search it, upload into it, and choose one
 * item. It resolves with the chosen media object, or null when the dialog is closed.
 * imagesOnly leaves PDFs out.
 */
export function pickMedia({ title = 'Choose an image', imagesOnly = true } = {}) {
  return new Promise((resolve) => {
    let chosen = null;
    const [search, searchBox] = searchField('picker-search', 'Search the library', 'Search by file name…');
    const grid = h('div', { class: 'picker-grid', id: 'picker-grid', role: 'list' });
    const status = h('p', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
    const file = h('input', { type: 'file', id: 'picker-file', name: 'picker-file', accept: imagesOnly ? ACCEPT.replace(',application/pdf', '') : ACCEPT, class: 'visually-hidden' });
    const upload = h('label', { for: 'picker-file', class: 'button secondary' }, icon('upload'), 'Upload new');
    let seq = 0;
    const load = async () => {
      const mine = ++seq;
      try {
        const res = await api('GET', `/api/media${query({ page: 1, limit: 48, q: search.value.trim() })}`);
        if (mine !== seq) return;
        const items = res.media.filter((m) => !imagesOnly || isImage(m));
        grid.replaceChildren(...(items.length ? items.map((m) => {
          const b = h('button', { type: 'button', role: 'listitem', 'data-url': m.url, title: m.filename },
            isImage(m) ? h('img', { src: thumbURL(m, 320), alt: '', loading: 'lazy', width: 160, height: 120 }) : h('span', { class: 'mono' }, m.contentType),
            h('span', { class: 'truncate' }, m.filename));
          b.setAttribute('aria-label', `Choose ${m.filename}`);
          b.addEventListener('click', () => { chosen = m; dlg.close('picked'); });
          return b;
        }) : [emptyState({ iconName: 'image', title: search.value.trim() ? 'Nothing matches' : 'The library is empty', text: 'Upload an image to use it here.' })]));
      } catch (e) {
        if (mine === seq) status.textContent = errorText(e);
      }
    };
    let timer = 0;
    search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(load, 200); });
    // Enter would submit the dialog's form (and close it); here it searches at once.
    search.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { ev.preventDefault(); clearTimeout(timer); load(); } });
    file.addEventListener('change', async () => {
      const f = file.files[0];
      if (!f) return;
      status.textContent = `Uploading ${f.name} (${formatBytes(f.size)})…`;
      try {
        chosen = await uploadFile(f, (p) => { status.textContent = `Uploading ${f.name}… ${Math.round(p * 100)}%`; });
        dlg.close('picked');
      } catch (e) {
        status.textContent = `${f.name} was not uploaded: ${errorText(e)}`;
      }
    });
    const dlgPromise = openDialog({
      id: 'media-picker', title, className: 'picker-dialog',
      body: [h('div', { class: 'picker-tools' }, searchBox, file, upload), status, grid],
      actions: [{ label: 'Cancel', value: 'cancel', kind: 'secondary', id: 'picker-cancel' }],
    });
    const dlg = document.getElementById('media-picker');
    search.focus();
    load();
    dlgPromise.then(() => resolve(chosen));
  });
}

/**
 * imageField is a URL field with a thumbnail and "Choose…" (the media picker) and "Remove"
 * buttons (unless not clearable); the URL stays editable for images hosted elsewhere. It returns the input (its
 * value is the URL) and the field's node.
 */
export function imageField(input, label, { clearable = true } = {}) {
  const thumb = h('div', { class: 'preview-thumb', 'aria-hidden': 'true' });
  const show = () => {
    const url = safeURL(input.value.trim());
    thumb.replaceChildren(url ? h('img', { src: url, alt: '', class: 'preview-thumb' }) : icon('image'));
  };
  const choose = h('button', { type: 'button', class: 'secondary small' }, icon('image'), 'Choose…');
  choose.setAttribute('aria-label', `Choose the ${label.toLowerCase()} from the media library`);
  const clear = h('button', { type: 'button', class: 'ghost small' }, 'Remove');
  clear.setAttribute('aria-label', `Remove the ${label.toLowerCase()}`);
  choose.addEventListener('click', async () => {
    const m = await pickMedia({ title: `Choose the ${label.toLowerCase()}` });
    if (m) { input.value = m.url; show(); input.dispatchEvent(new Event('input', { bubbles: true })); }
    choose.focus();
  });
  clear.addEventListener('click', () => { input.value = ''; show(); input.dispatchEvent(new Event('input', { bubbles: true })); input.focus(); });
  input.addEventListener('change', show);
  show();
  return h('div', { class: 'image-field' }, thumb, h('div', {}, input, h('div', { class: 'row' }, choose, clearable ? clear : null)));
}
