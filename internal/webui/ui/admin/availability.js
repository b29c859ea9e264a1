// Days off and special hours: a month calendar of availability overrides
// (GET/PUT/DELETE /api/schedule/overrides). Pick a day, then close it, give it its own hours,
// or return it to the usual business hours.
import { api } from './shared/api.js';
import { h, replace, field } from './shared/dom.js';
import { pageHead, statusBox, errorText, icon } from './ui.js';

function iso(d) { return d.toISOString().slice(0, 10); }

export async function render() {
  const status = statusBox();
  const grid = h('div', { class: 'cal-grid', id: 'overrides-calendar', role: 'group', 'aria-label': 'Days of the month' });
  const label = h('h2', { 'aria-live': 'polite' });
  const editor = h('form', { class: 'panel', id: 'override-form', hidden: true, novalidate: true });
  const today = new Date();
  let month = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1));
  let overrides = {};
  let chosen = '';

  const hours = h('input', { name: 'hours', type: 'text', placeholder: '10:00-12:00, 14:00-16:00' });
  const dayLabel = h('h3', {});
  const setClosed = h('button', { type: 'button', class: 'danger', id: 'override-closed' }, 'Day off');
  const setHours = h('button', { type: 'submit', id: 'override-hours' }, 'Use these hours');
  const clear = h('button', { type: 'button', class: 'secondary', id: 'override-clear' }, 'Usual hours');
  replace(editor, dayLabel, field('Special hours (owner\'s time zone)', hours, 'comma-separated ranges HH:MM-HH:MM'),
    h('div', { class: 'row' }, clear, setClosed, setHours));

  const save = async (body) => {
    try {
      if (body) await api('PUT', `/api/schedule/overrides/${chosen}`, body);
      else await api('DELETE', `/api/schedule/overrides/${chosen}`);
      status.set(body ? (body.closed ? `${chosen} is a day off.` : `${chosen} has special hours.`) : `${chosen} has the usual hours again.`, 'ok');
      await load();
    } catch (e) {
      status.set(e.status === 404 ? `${chosen} already has the usual hours.` : errorText(e), 'error');
    }
  };
  setClosed.addEventListener('click', () => save({ closed: true }));
  clear.addEventListener('click', () => save(null));
  editor.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const ranges = hours.value.split(',').map((r) => r.trim()).filter(Boolean).map((r) => {
      const [start, end] = r.split('-').map((x) => x.trim());
      return { start, end };
    });
    if (!ranges.length) return status.set('Enter at least one range such as 10:00-12:00.', 'error');
    save({ hours: ranges });
  });

  const pick = (date) => {
    chosen = date;
    const o = overrides[date];
    dayLabel.textContent = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${date}T12:00:00Z`));
    hours.value = o && !o.closed ? o.hours.map((r) => `${r.start}-${r.end}`).join(', ') : '';
    editor.hidden = false;
    hours.focus();
  };

  const draw = () => {
    label.textContent = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(month);
    const cells = [];
    for (let i = 0; i < 7; i++) {
      cells.push(h('span', { class: 'cal-weekday', 'aria-hidden': 'true' },
        new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, 1 + i)))));
    }
    const offset = (month.getUTCDay() + 6) % 7;
    for (let i = 0; i < offset; i++) cells.push(h('span', {}));
    const days = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 0)).getUTCDate();
    for (let d = 1; d <= days; d++) {
      const date = iso(new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), d)));
      const o = overrides[date];
      const note = o ? (o.closed ? 'day off' : o.hours.map((r) => `${r.start}–${r.end}`).join(' ')) : '';
      const full = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date(`${date}T12:00:00Z`));
      cells.push(h('button', { type: 'button', class: `cal-day${o ? (o.closed ? ' closed' : ' special') : ''}`, 'data-date': date, onclick: () => pick(date) },
        h('span', { 'aria-hidden': 'true' }, String(d)), h('span', { class: 'visually-hidden' }, `${full}${note ? ':' : ''}`), note ? h('small', {}, note) : null));
    }
    replace(grid, cells);
  };

  const load = async () => {
    const from = iso(month);
    const to = iso(new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 0)));
    try {
      const res = await api('GET', `/api/schedule/overrides?from=${from}&to=${to}`);
      overrides = Object.fromEntries(res.overrides.map((o) => [o.date, o]));
    } catch (e) {
      status.set(errorText(e), 'error');
    }
    draw();
  };
  const step = (n) => { month = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + n, 1)); editor.hidden = true; load(); };
  await load();
  return h('div', {}, pageHead('Days off and special hours'), status,
    h('section', { class: 'panel' },
      h('div', { class: 'row' }, h('button', { type: 'button', class: 'secondary icon-only', onclick: () => step(-1), 'aria-label': 'Previous month' }, icon('arrow-left')), label,
        h('button', { type: 'button', class: 'secondary icon-only', onclick: () => step(1), 'aria-label': 'Next month' }, icon('arrow-left', 'flip'))),
      h('p', { class: 'muted' }, 'Pick a day to close it or give it its own hours; the booking page offers no times on a day off. ',
        'The usual weekly hours are in ', h('a', { href: '#/settings/booking' }, 'Settings → Booking'), '.'),
      grid),
    editor);
}
