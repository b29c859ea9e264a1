// The places, questions and limits of a meeting type in the dashboard's type form (docs/api.md,
// "Meeting places"). Each editor returns its node, get() (the API's JSON) and set(type). The
// controls carry data-field names of the API's field paths at get(), so a 422 marks the right one.
import { h, replace, field } from './shared/dom.js';

const PLACES = [
  ['google_meet', 'Google Meet (Google calendar only)', ''],
  ['jitsi', 'Jitsi room (a new one per booking)', ''],
  ['link', 'Video link (Zoom, Teams…)', 'https://…'],
  ['phone', 'Phone call', 'your number; empty: the visitor gives theirs'],
  ['in_person', 'In person', 'the address'],
  ['custom', 'Something else', 'what to tell the visitor'],
];

/** placesEditor is a checkbox per kind of place, with its value where it has one. */
export function placesEditor() {
  const rows = PLACES.map(([kind, label, hint]) => {
    const box = h('input', { type: 'checkbox', name: `place-${kind}`, 'data-kind': kind });
    const value = hint ? h('input', { type: kind === 'link' ? 'url' : 'text', name: `place-${kind}-value`, placeholder: hint, 'aria-label': `${label}: ${hint}`, maxlength: 500 }) : null;
    return { kind, box, value, node: h('div', { class: 'place-row' }, h('label', { class: 'check' }, box, label), value) };
  });
  const node = h('fieldset', { class: 'places-editor' }, h('legend', {}, 'Where meetings happen (none ticked: the calendar\'s own video link)'), rows.map((r) => r.node));
  return {
    node,
    get() {
      const out = [];
      for (const r of rows) {
        if (!r.box.checked) continue;
        const i = out.length;
        r.box.dataset.field = `locations[${i}].kind`;
        if (r.value) r.value.dataset.field = `locations[${i}].value`;
        out.push(r.value && r.value.value.trim() ? { kind: r.kind, value: r.value.value.trim() } : { kind: r.kind });
      }
      return out;
    },
    set(t) {
      for (const r of rows) {
        const l = ((t && t.locations) || []).find((x) => x.kind === r.kind);
        r.box.checked = !!l;
        if (r.value) r.value.value = (l && l.value) || '';
      }
    },
  };
}

const KINDS = [['text', 'Short text'], ['textarea', 'Long text'], ['choice', 'Choice'], ['checkbox', 'Checkbox'], ['phone', 'Phone number']];

function slugID(label, taken) {
  const base = label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 30) || 'q';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** questionsEditor is a list of questions: label, kind, required, options of a choice. */
export function questionsEditor() {
  const list = h('div', { class: 'questions-editor' });
  let rows = [];
  const add = (q = { id: '', label: '', kind: 'text', required: false, options: [] }) => {
    const label = h('input', { type: 'text', maxlength: 200, value: q.label, 'aria-label': 'Question' });
    const kind = h('select', { 'aria-label': 'Kind of answer' }, KINDS.map(([v, t]) => h('option', { value: v, selected: v === q.kind }, t)));
    const required = h('input', { type: 'checkbox', checked: !!q.required });
    const options = h('input', { type: 'text', value: (q.options || []).join(', '), placeholder: 'options, separated by commas', 'aria-label': 'Options of the choice' });
    const sync = () => { options.hidden = kind.value !== 'choice'; };
    kind.addEventListener('change', sync);
    sync();
    const row = { id: q.id, label, kind, required, options };
    const remove = h('button', { type: 'button', class: 'secondary', onclick: () => { rows = rows.filter((r) => r !== row); row.node.remove(); } }, 'Remove');
    row.node = h('div', { class: 'question-row' }, label, kind, h('label', { class: 'check' }, required, 'Required'), options, remove);
    rows.push(row);
    list.append(row.node);
  };
  const node = h('fieldset', { class: 'questions-fieldset' }, h('legend', {}, 'Questions for the visitor'), list,
    h('button', { type: 'button', class: 'secondary', onclick: () => add() }, 'Add a question'));
  return {
    node,
    get() {
      const taken = new Set(rows.map((r) => r.id).filter(Boolean));
      return rows.filter((r) => r.label.value.trim()).map((r, i) => {
        r.label.dataset.field = `questions[${i}].label`;
        r.options.dataset.field = `questions[${i}].options`;
        r.kind.dataset.field = `questions[${i}].kind`;
        const q = { id: r.id || slugID(r.label.value.trim(), taken), label: r.label.value.trim(), kind: r.kind.value, required: r.required.checked };
        r.id = q.id;
        if (q.kind === 'choice') q.options = r.options.value.split(',').map((o) => o.trim()).filter(Boolean);
        return q;
      });
    },
    set(t) {
      rows = [];
      replace(list);
      for (const q of (t && t.questions) || []) add(q);
    },
  };
}

/** rulesEditor holds the week and month caps and the type's minimum notice. */
export function rulesEditor() {
  const num = (name, max) => h('input', { type: 'number', name, 'data-field': name, min: 0, max, value: '0' });
  const week = num('limits.week', 500);
  const month = num('limits.month', 2000);
  const notice = num('minNoticeMinutes', 525600);
  return {
    node: h('div', { class: 'grid' }, field('At most per week (0: no cap)', week), field('At most per month (0: no cap)', month),
      field('Minimum notice (minutes; 0: the general one)', notice)),
    get: () => ({ week: Number(week.value || 0), month: Number(month.value || 0), minNoticeMinutes: Number(notice.value || 0) }),
    set(t) {
      week.value = String((t && t.limits && t.limits.week) || 0);
      month.value = String((t && t.limits && t.limits.month) || 0);
      notice.value = String((t && t.minNoticeMinutes) || 0);
    },
  };
}
