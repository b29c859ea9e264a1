// Media library: upload a file, generate an image from a prompt, and browse what is stored.
import { api, query } from './shared/api.js';
import { h, field, formatBytes, formatDateTime, replace, safeURL } from './shared/dom.js';
import { pageHead, statusBox, errorText, pager, busy, button, toast, emptyState, features, featureNote } from './ui.js';

const SIZES = ['1024x1024', '1024x1536', '1536x1024'];

function tile(m) {
  const url = safeURL(m.url);
  const isImage = /^image\//.test(m.contentType || '');
  const copy = h('button', { type: 'button', class: 'link' }, 'Copy URL');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(m.url);
      copy.textContent = 'Copied';
    } catch {
      copy.textContent = m.url;
    }
  });
  return h('figure', {},
    h('div', { class: 'thumb' }, isImage && url ? h('img', { src: url, alt: m.prompt || m.filename, loading: 'lazy' }) : h('span', { class: 'mono' }, m.contentType)),
    h('figcaption', {}, h('div', {}, url ? h('a', { href: url, target: '_blank', rel: 'noopener' }, m.filename) : m.filename),
      h('div', { class: 'muted' }, [formatBytes(m.size), m.width ? `${m.width}×${m.height}` : '', m.source === 'ai' || m.prompt ? 'AI' : ''].filter(Boolean).join(' · ')),
      m.prompt ? h('div', { class: 'muted' }, `“${m.prompt}”`) : null,
      m.createdAt ? h('div', { class: 'muted' }, formatDateTime(m.createdAt)) : null, copy));
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
      : h('div', { class: 'media-grid', id: 'media-grid' }, res.media.map(tile)), pager(res.pagination, load));
  };

  const file = h('input', { type: 'file', name: 'file', id: 'upload-file', accept: 'image/png,image/jpeg,image/gif,image/webp,image/avif,application/pdf' });
  const upload = button('Upload', { type: 'submit', iconName: 'upload' });
  const upForm = h('form', { class: 'panel', id: 'upload-form' }, h('h2', {}, 'Upload'), field('File', file, 'PNG, JPEG, GIF, WebP, AVIF or PDF'), upload);
  upForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!file.files.length) {
      status.set('Choose a file to upload.', 'error');
      file.focus();
      return;
    }
    busy(upload, async () => {
      const fd = new FormData();
      fd.append('file', file.files[0]);
      try {
        const res = await api('POST', '/api/media/upload', fd);
        status.clear();
        toast(`Uploaded ${res.filename} (${formatBytes(res.size)}).`);
        announce('Upload finished');
        upForm.reset();
        await load();
      } catch (e) { status.set(`Upload failed: ${errorText(e)}`, 'error'); }
    });
  });

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
