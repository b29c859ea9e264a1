// Import and export (a settings page): download the whole site as one zip (GET /api/export), and
// how to restore it or move it to another server (folio import, on the server).
import { h } from './shared/dom.js';
import { pageHead, linkButton } from './ui.js';

export async function render() {
  const download = linkButton('Download the archive', '/api/export', { iconName: 'download', id: 'export-link' });
  download.setAttribute('download', '');
  return h('div', {}, pageHead('Import and export'),
    h('section', { class: 'panel', id: 'export-panel' }, h('h2', {}, 'Export'),
      h('p', {}, 'One zip with every post (Markdown with its front matter), every project, your profile and the media files. '
        + 'Keep it as a backup, or move your site to another server.'),
      download),
    h('section', { class: 'panel', id: 'import-panel' }, h('h2', {}, 'Import'),
      h('p', {}, 'An archive is restored on the server, into any database; running it twice changes nothing (ids and slugs are kept):'),
      h('pre', { class: 'snippet' }, h('code', {}, 'folio import folio-export.zip')),
      h('p', { class: 'muted small' }, 'Posts from an external blog come in with folio extblog import, once its token is set (Features).')));
}
