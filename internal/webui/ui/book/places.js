// Meeting places and booking questions on /book (docs/api.md, "Meeting places"): the place
// facts of the host card, the chooser of kinds of meeting, the place choice and the questions in
// the details form, their checks and the server's field errors, and the place line of the done
// and manage views. Every value from the server goes in as text.
import { h, replace, safeURL } from './shared/dom.js';
import { icon } from './shared/icons.js';

const $ = (id) => document.getElementById(id);

const KIND_TEXT = {
  google_meet: ['video', 'Google Meet'],
  jitsi: ['video', 'Jitsi Meet'],
  link: ['video', 'Video call'],
  phone: ['phone', 'Phone call'],
  in_person: ['map-pin', 'In person'],
  custom: ['map-pin', 'Other'],
};

/** optionText is how a type's place reads as a choice: "Phone call: +1 555…", "In person: address". */
function optionText(l) {
  const [, name] = KIND_TEXT[l.kind] || ['map-pin', l.kind];
  if (l.kind === 'phone') return l.value ? `${name}: you call ${l.value}` : `${name}: the host calls you`;
  if (l.kind === 'in_person') return `${name}: ${l.value}`;
  if (l.kind === 'custom') return l.value;
  return name;
}

/** placeFact is the host card's place line of a type: its one place, or how many to choose from. */
export function placeFact(t) {
  const locs = (t && t.locations) || [];
  if (locs.length === 0) return [icon('video'), 'Video call']; // the provider's own video link
  if (locs.length === 1) return [icon((KIND_TEXT[locs[0].kind] || ['map-pin'])[0]), optionText(locs[0])];
  return [icon('map-pin'), `${locs.length} places to choose from`];
}

/** renderChooser lists the kinds of meeting as links to /book/{slug}, with length and place. */
export function renderChooser(types, lengthText) {
  replace($('chooser'), types.map((t) => h('li', {},
    h('a', { href: `/book/${encodeURIComponent(t.slug)}`, class: 'type-card' },
      h('strong', {}, t.title),
      h('span', { class: 'muted' }, icon('clock'), lengthText(t.durationMinutes)),
      h('span', { class: 'muted' }, placeFact(t)),
      t.description ? h('small', {}, describe(t)) : null))));
}

/** renderDetails puts the type's place choice and questions into the details form. */
export function renderDetails(t) {
  const locs = (t && t.locations) || [];
  const box = $('place-box');
  const phone = h('input', { id: 'place-phone', type: 'tel', autocomplete: 'tel', maxlength: '30', 'aria-describedby': 'place-phone-error' });
  const phoneField = h('div', { class: 'field', id: 'place-phone-field', hidden: true },
    h('label', { for: 'place-phone' }, 'Your phone number'), phone, h('p', { id: 'place-phone-error', class: 'field-error', 'aria-live': 'polite' }));
  const radios = locs.map((l, i) => h('label', {},
    h('input', { type: 'radio', name: 'place', value: l.kind, checked: locs.length === 1 || i === 0, onchange: () => syncPhone(locs) }),
    icon((KIND_TEXT[l.kind] || ['map-pin'])[0]), h('span', {}, optionText(l))));
  replace(box, locs.length > 1
    ? h('fieldset', { class: 'places', 'aria-describedby': 'place-error' }, h('legend', {}, 'Where should we meet?'), radios,
      h('p', { id: 'place-error', class: 'field-error', 'aria-live': 'polite' }))
    : h('p', { id: 'place-error', class: 'field-error', 'aria-live': 'polite' }), phoneField);
  box.hidden = locs.length === 0 || (locs.length === 1 && !(locs[0].kind === 'phone' && !locs[0].value)); // nothing to choose
  syncPhone(locs);
  replace($('questions-box'), ((t && t.questions) || []).map(question));
}

/** syncPhone asks for the visitor's number when the chosen place is a phone call the host makes. */
function syncPhone(locs) {
  const l = chosenLocation(locs);
  const ask = !!l && l.kind === 'phone' && !l.value;
  $('place-phone-field').hidden = !ask;
  $('place-phone').required = ask;
}

function chosenLocation(locs) {
  if (locs.length <= 1) return locs[0] || null;
  const r = document.querySelector('#place-box input[name=place]:checked');
  return r ? locs.find((l) => l.kind === r.value) : null;
}

function question(q) {
  const id = `q-${q.id}`;
  const err = h('p', { id: `${id}-error`, class: 'field-error', 'aria-live': 'polite' });
  const req = q.required ? null : h('span', { class: 'muted' }, ' (optional)');
  const common = { id, 'data-question': q.id, required: q.required, 'aria-describedby': `${id}-error` };
  if (q.kind === 'checkbox') {
    return h('div', { class: 'field check' }, h('label', { for: id }, h('input', { ...common, type: 'checkbox' }), ' ', q.label, req), err);
  }
  let control;
  if (q.kind === 'textarea') control = h('textarea', { ...common, rows: '3', maxlength: '5000' });
  else if (q.kind === 'choice') control = h('select', common, h('option', { value: '' }, 'Choose…'), (q.options || []).map((o) => h('option', { value: o }, o)));
  else control = h('input', { ...common, type: q.kind === 'phone' ? 'tel' : 'text', maxlength: q.kind === 'phone' ? '30' : '500', autocomplete: q.kind === 'phone' ? 'tel' : 'off' });
  return h('div', { class: 'field' }, h('label', { for: id }, q.label, req), control, err);
}

const PHONE = /^\+?[0-9 ().\-/]{4,30}$/;
function phoneOK(s) {
  const digits = s.replace(/\D/g, '').length;
  return PHONE.test(s) && digits >= 6 && digits <= 15;
}

/**
 * collect returns the body parts for the type (location, answers) and marks every missing or
 * malformed answer with mark(input, text); ok is false when one was marked.
 */
export function collect(t, mark) {
  const out = {};
  let ok = true;
  const locs = (t && t.locations) || [];
  const l = chosenLocation(locs);
  if (l) {
    out.location = { kind: l.kind };
    if (l.kind === 'phone' && !l.value) {
      const num = $('place-phone').value.trim();
      const text = !num ? 'Please enter the number the host should call.' : phoneOK(num) ? '' : 'Please enter a phone number, like +44 20 7946 0958.';
      mark($('place-phone'), text);
      ok = ok && !text;
      out.location.value = num;
    }
  }
  const answers = {};
  for (const q of (t && t.questions) || []) {
    const input = $(`q-${q.id}`);
    if (q.kind === 'checkbox') {
      answers[q.id] = input.checked;
      const text = q.required && !input.checked ? 'Please tick this box to continue.' : '';
      mark(input, text);
      ok = ok && !text;
      continue;
    }
    const v = input.value.trim();
    let text = '';
    if (!v && q.required) text = 'Please answer this question.';
    else if (v && q.kind === 'phone' && !phoneOK(v)) text = 'Please enter a phone number, like +44 20 7946 0958.';
    mark(input, text);
    ok = ok && !text;
    if (v) answers[q.id] = v;
  }
  if (Object.keys(answers).length) out.answers = answers;
  return { body: out, ok };
}

/** serverErrors marks the fields of a 422's details about places and answers; it returns how many it placed. */
export function serverErrors(details, mark) {
  let n = 0;
  for (const d of details || []) {
    let input = null;
    if (d.field === 'location') input = $('place-phone-field').hidden ? null : $('place-phone');
    else if (d.field.startsWith('answers.')) input = $(`q-${d.field.slice('answers.'.length)}`);
    if (d.field === 'location' && !input) {
      $('place-error').textContent = `The place ${d.message.replace(/\.$/, '')}.`;
      n++;
    } else if (input) {
      mark(input, `This ${d.message.replace(/\.$/, '')}.`);
      n++;
    }
  }
  return n;
}

/** placeRow is the summary row of a booked place ("Where": label, map link), or null. */
export function placeRow(loc) {
  if (!loc || !loc.label) return null;
  const map = safeURL(loc.mapUrl);
  return ['Where', h('span', {}, loc.label, map ? [' · ', h('a', { href: map, target: '_blank', rel: 'noopener' }, 'Map')] : null)];
}

/** joinLink is the URL of the Join button: the place's video link, else the provider's. */
export function joinLink(res) {
  const loc = res && res.location;
  if (loc && loc.kind && !loc.joinUrl) return '';
  return safeURL((loc && loc.joinUrl) || (res && res.providerMeetLink));
}

// The elements a type's rendered description keeps; any other element gives its text only.
const KEEP = new Set(['P', 'BR', 'STRONG', 'EM', 'B', 'I', 'UL', 'OL', 'LI', 'CODE', 'A']);

/**
 * describe is a type's description as nodes: its Markdown as the server rendered and sanitised
 * it (descriptionHtml), rebuilt element by element from an inert parse — only KEEP's elements,
 * links through safeURL, no attributes else — or the plain text when there is no HTML.
 */
export function describe(t) {
  if (!t || !t.description) return [];
  if (!t.descriptionHtml) return [t.description];
  const doc = new DOMParser().parseFromString(t.descriptionHtml, 'text/html'); // inert: nothing runs or loads
  const copy = (n) => {
    if (n.nodeType === Node.TEXT_NODE) return n.textContent;
    if (n.nodeType !== Node.ELEMENT_NODE) return null;
    const kids = [...n.childNodes].map(copy);
    if (!KEEP.has(n.tagName)) return kids;
    if (n.tagName === 'A') {
      const href = safeURL(n.getAttribute('href') || '');
      return href ? h('a', { href, target: '_blank', rel: 'noopener' }, kids) : kids;
    }
    return h(n.tagName.toLowerCase(), {}, kids);
  };
  return [...doc.body.childNodes].map(copy);
}
