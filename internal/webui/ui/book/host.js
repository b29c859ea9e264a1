// The host card of /book: who the meetings are with, their photo (else initials) and name.
import { h, replace, safeURL } from './shared/dom.js';

const $ = (id) => document.getElementById(id);

function initials(name) {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return '';
  const first = (w) => [...w][0].toUpperCase();
  return words.length === 1 ? first(words[0]) : first(words[0]) + first(words[words.length - 1]);
}

/**
 * renderHostCard shows who the meetings are with: the photo (else initials) and the name; with
 * title, the page's title names them too.
 */
export function renderHostCard({ name, photoUrl }, title) {
  if (title) document.title = name ? `Book a meeting with ${name}` : 'Book a meeting';
  const avatar = $('host-avatar');
  const photo = safeURL(photoUrl);
  $('host-name').hidden = !name;
  $('host-name').textContent = name;
  const showInitials = () => {
    replace(avatar, initials(name));
    avatar.hidden = !name;
  };
  if (photo) {
    // A photo that does not load (gone, or refused by the page's CSP) leaves the initials.
    replace(avatar, h('img', { src: photo, alt: '', onerror: showInitials }));
    avatar.hidden = false;
  } else showInitials();
}
