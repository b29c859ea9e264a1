// Features (a settings page): which optional parts of folio are configured on this server, and for
// the others which variables to set (GET /api/features; values never leave the server).
import { h } from './shared/dom.js';
import { pageHead, features, icon } from './ui.js';

export async function render() {
  const fs = Object.values(await features());
  const ready = fs.filter((f) => f.configured).length;
  return h('div', {}, pageHead('Features'),
    h('section', { class: 'panel' },
      h('p', { class: 'muted' }, `${ready} of ${fs.length} optional features are configured. folio works without any of them; `
        + 'set the variables named below in the server\'s environment (or .env) and restart to turn one on. folio serve --help describes every variable.'),
      h('ul', { class: 'features-list', id: 'features-list' }, fs.map((f) => h('li', { 'data-feature': f.id },
        h('span', { class: `state badge ${f.configured ? 'confirmed' : 'pending'}` }, icon(f.configured ? 'circle-check' : 'plug'), f.configured ? 'On' : 'Off'),
        h('div', {}, h('strong', {}, f.label), h('div', { class: 'muted small' }, f.note),
          f.configured ? null : h('div', { class: 'small' }, 'Set: ', f.missing.flatMap((v, i) => [i ? ', ' : '', h('code', {}, v)]))))))));
}
