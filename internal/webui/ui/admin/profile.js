// Profile (a settings page): the signed-in user's name, bio, location and website. The password
// is changed on the Security page.
import { api } from './shared/api.js';
import { h, field, formatDateTime } from './shared/dom.js';
import { pageHead, statusBox, busy, markFields, formError, button, toast } from './ui.js';

export async function render({ announce }) {
  const p = await api('GET', '/api/user/profile');
  const status = statusBox();
  const name = h('input', { type: 'text', name: 'name', id: 'profile-name', value: p.name, maxlength: 200 });
  const bio = h('textarea', { name: 'bio', id: 'profile-bio', rows: 4 });
  bio.value = p.bio || '';
  const location = h('input', { type: 'text', name: 'location', value: p.location || '' });
  const website = h('input', { type: 'url', name: 'website', value: p.website || '', placeholder: 'https://…' });
  const save = button('Save profile', { type: 'submit', iconName: 'save' });
  const form = h('form', { class: 'panel', id: 'profile-form', novalidate: true, 'data-primary': '' },
    h('p', { class: 'muted' }, `${p.email} · ${p.role} · since ${formatDateTime(p.createdAt, { dateStyle: 'medium' })}`),
    field('Name', name), field('Bio', bio), h('div', { class: 'grid' }, field('Location', location), field('Website', website)), save);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(save, async () => {
      try {
        const res = await api('PUT', '/api/user/profile', { name: name.value.trim(), bio: bio.value, location: location.value.trim(), website: website.value.trim() });
        markFields(form, null);
        status.clear();
        toast(`Profile saved (${res.name}).`);
        announce('Profile saved');
      } catch (e) {
        status.set(formError(form, e), 'error');
      }
    });
  });
  return h('div', {}, pageHead('Profile'), status, form,
    h('p', { class: 'muted' }, 'Your password and two-factor sign-in are on the ', h('a', { href: '#/settings/security' }, 'Security'), ' page.'));
}
