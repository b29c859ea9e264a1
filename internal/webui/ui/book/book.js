// The public booking page, in the order a visitor expects: who the meeting is with and what it
// is (the host card), then the kind of meeting and the time (a month view that marks the days
// with free times, the times beside it; a chosen time waits for Confirm), the details last
// (with the place and the type's questions, places.js). /book with several kinds of meeting
// starts with a chooser; /book/<type> books one. /book/manage/<token> is the manage view of one
// booking: see it, add it to a calendar, cancel it with a reason, or move it with the same
// picker. Messages appear where the visitor is looking, in live regions. The funnel goes to
// analytics (track.js); in a frame the page sizes itself (frame.js).
import { api, ApiError, query } from './shared/api.js';
import { h, replace, safeURL } from './shared/dom.js';
import { icon } from './shared/icons.js';
import { visitorHeaders } from './shared/visitor.js';
import { funnel, track, trackError } from './track.js';
import { renderHostCard } from './host.js';
import './frame.js';
import { collect, describe, joinLink, placeFact, placeRow, renderChooser, renderDetails, serverErrors } from './places.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const whenStatus = $('when-status');
const detailsStatus = $('details-status');
const STEPS = ['choose', 'manage', 'when', 'details', 'done'];

const state = {
  step: '', config: null,
  types: [], type: null, host: { name: '', photoUrl: '' },
  month: '', day: '', days: {}, slot: null,
  manage: null, token: '', rescheduling: false, single: false, extra: { body: {}, ok: true },
};

// ---- helpers -------------------------------------------------------------------------------

/**
 * say shows a message in a live region: box is the one where the visitor is looking (the
 * page's top, under the times, above the book button). Errors are alerts; an error or a result
 * scrolls its box into view.
 */
function say(text, kind = 'info', box = status) {
  box.className = `status ${kind}`;
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  box.textContent = text;
  if (text && kind !== 'info' && box.getClientRects().length) box.scrollIntoView({ block: 'nearest' });
}

/** announce tells screen readers what changed in the picker, without showing it. */
function announce(text) {
  $('when-live').textContent = text;
}

function show(step, focus = true) {
  state.step = step;
  for (const s of STEPS) $(`step-${s}`).hidden = s !== step;
  for (const box of [status, whenStatus, detailsStatus]) say('', 'info', box);
  $('steps').hidden = step === 'manage' || step === 'choose' || state.rescheduling;
  const order = ['when', 'details', 'done'];
  const idx = order.indexOf(step);
  for (const li of document.querySelectorAll('.steps li')) {
    const i = order.indexOf(li.dataset.step);
    li.classList.toggle('done', i < idx);
    if (i === idx) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
  if (focus) $(`h-${step}`).focus();
  document.body.dataset.step = step;
}

function zone() { return $('timezone').value; }

function fmt(iso, opts, tz = zone()) {
  return new Intl.DateTimeFormat(undefined, { timeZone: tz, ...opts }).format(new Date(iso));
}

/** when is a meeting's date and times, e.g. "Tuesday, 3 June 2025, 10:00 – 10:30". */
function when(start, end, tz = zone()) {
  return `${fmt(start, { dateStyle: 'full' }, tz)}, ${fmt(start, { timeStyle: 'short' }, tz)} – ${fmt(end, { timeStyle: 'short' }, tz)}`;
}

/** lengthText is a meeting's length: "30 minutes", "1 hour", "1 h 30 min". */
function lengthText(mins) {
  if (mins < 60) return `${mins} minutes`;
  if (mins % 60 === 0) return mins === 60 ? '1 hour' : `${mins / 60} hours`;
  return `${Math.floor(mins / 60)} h ${mins % 60} min`;
}

/** todayIn returns today's date (YYYY-MM-DD) in an IANA zone. */
function todayIn(tz) {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

function addDays(day, n) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

function monthStart(day) { return `${day.slice(0, 7)}-01`; }

function addMonths(month, n) {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1 + n, 1)).toISOString().slice(0, 10);
}

function apiFailureText(e) {
  if (e instanceof ApiError && e.status === 429) {
    const mins = Math.max(1, Math.ceil((e.retryAfter || 60) / 60));
    return `${e.code === 'RATE_LIMIT_EXCEEDED' && /email address/.test(e.message) ? e.message : 'Too many attempts from your network.'} Please try again in about ${mins} minute${mins === 1 ? '' : 's'}.`;
  }
  if (e instanceof ApiError && e.status === 0) return e.message;
  return 'Something went wrong on our side. Please try again in a moment.';
}

function typeParams() {
  const t = state.type;
  return t && t.slug ? { type: t.slug } : { duration: t ? t.durationMinutes : undefined };
}

/** icsURL is the booking's .ics for "Add to calendar", whatever the calendar provider. */
function icsURL(token) {
  return `/api/schedule/bookings/${encodeURIComponent(token)}/invite.ics`;
}

/** linkButton fills a link styled as a button with an icon and a short label (never the URL). */
function linkButton(a, href, iconName, label) {
  a.hidden = !href;
  if (!href) return;
  a.href = href;
  replace(a, icon(iconName), label);
}

function rows(pairs) {
  return pairs.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]);
}

/** meetingTitle is the chosen kind of meeting's title, or its length when it has none. */
function meetingTitle() {
  const t = state.type;
  if (t && t.title) return t.title;
  return t && t.durationMinutes ? `${lengthText(t.durationMinutes)} meeting` : 'Book a meeting';
}

/** renderMeeting shows what the meeting is: its title, length, place and description. */
function renderMeeting() {
  const t = state.type;
  $('title').textContent = meetingTitle();
  const length = $('fact-length');
  length.hidden = !(t && t.durationMinutes);
  if (t && t.durationMinutes) replace(length, icon('clock'), lengthText(t.durationMinutes));
  replace($('fact-place'), placeFact(t)); // a type without places: the provider's video link
  $('fact-place').hidden = !t;
  $('type-about').hidden = !(t && t.description);
  replace($('type-about'), describe(t));
}

// ---- the picker: type, month, day, time -----------------------------------------------------

function bounds() {
  const today = todayIn(zone());
  return { first: addDays(today, Math.floor((state.config.minNoticeHours || 0) / 24)), last: addDays(today, state.config.advanceDays) };
}

function renderTypes() {
  const box = $('types');
  replace(box, state.types.map((t) => {
    const input = h('input', { type: 'radio', name: 'type', value: t.slug, checked: state.type && state.type.slug === t.slug });
    input.addEventListener('change', () => {
      state.type = t;
      state.day = '';
      renderMeeting();
      loadMonth();
    });
    return h('label', {}, input, h('span', {}, h('strong', {}, t.title), h('small', {}, lengthText(t.durationMinutes))));
  }));
  $('types-box').hidden = state.rescheduling || state.single || state.types.length < 2;
}

let monthSeq = 0;
async function loadMonth() {
  const seq = ++monthSeq;
  const { first, last } = bounds();
  if (!state.month) state.month = monthStart(first);
  const from = state.month < first ? first : state.month;
  const monthEnd = addDays(addMonths(state.month, 1), -1);
  const to = monthEnd > last ? last : monthEnd;
  $('month-label').textContent = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${state.month}T12:00:00Z`));
  $('prev-month').disabled = state.month <= monthStart(first);
  $('next-month').disabled = addMonths(state.month, 1) > last;
  state.days = {};
  renderDays(true);
  if (from <= to) {
    try {
      const res = await api('GET', `/api/schedule/days${query({ from, to, timezone: zone(), ...typeParams() })}`);
      if (seq !== monthSeq) return;
      for (const d of res.days || []) state.days[d.date] = d.slots;
    } catch (e) {
      if (seq !== monthSeq) return;
      trackError('api_failure');
      say(apiFailureText(e), 'error', whenStatus);
    }
  }
  renderDays(false);
  // Open the first day with free times, so a phone shows times without another tap.
  if (!state.day || !state.days[state.day]) {
    const firstFree = Object.keys(state.days).sort().find((d) => state.days[d] > 0);
    if (firstFree) pickDay(firstFree, false);
    else {
      choose(null);
      replace($('slots'));
      $('time-caption').textContent = 'No free times this month';
      say('No free times in this month. Try the next one.', 'info', whenStatus);
    }
  }
}

function renderDays(loading) {
  const [y, m] = state.month.split('-').map(Number);
  const firstWeekday = (new Date(Date.UTC(y, m - 1, 1)).getUTCDay() + 6) % 7; // Monday first
  const count = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const cells = [];
  for (let i = 0; i < firstWeekday; i++) cells.push(h('span', { 'aria-hidden': 'true' }));
  for (let d = 1; d <= count; d++) {
    const date = `${state.month.slice(0, 8)}${String(d).padStart(2, '0')}`;
    const n = state.days[date] || 0;
    const label = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${date}T12:00:00Z`));
    const b = h('button', {
      type: 'button', class: n > 0 ? 'free' : '', 'data-date': date, disabled: loading || n === 0,
      'aria-pressed': String(date === state.day), 'aria-label': n > 0 ? `${label}, ${n} free time${n === 1 ? '' : 's'}` : `${label}, no free times`,
    }, String(d));
    b.addEventListener('click', () => pickDay(date, true));
    cells.push(b);
  }
  replace($('days'), cells);
  $('days').dataset.loading = String(loading);
  const names = [];
  for (let i = 0; i < 7; i++) names.push(new Intl.DateTimeFormat(undefined, { weekday: 'narrow', timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, 1 + i))));
  replace(document.querySelector('.weekdays'), names.map((n) => h('span', {}, n)));
}

let pickSeq = 0;
async function pickDay(date, userChose) {
  const seq = ++pickSeq; // a slower answer for an earlier pick must not overwrite this one
  state.day = date;
  choose(null);
  replace($('slots'));
  $('slots').dataset.date = '';
  for (const b of document.querySelectorAll('#days button')) b.setAttribute('aria-pressed', String(b.dataset.date === date));
  const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${date}T12:00:00Z`));
  $('time-caption').textContent = `${day} · times in ${zone()}`;
  let res;
  try {
    res = await api('GET', `/api/schedule/available${query({ date, timezone: zone(), ...typeParams() })}`);
  } catch (e) {
    if (seq !== pickSeq) return;
    trackError(e instanceof ApiError && e.status === 422 ? 'validation' : 'api_failure');
    return say(apiFailureText(e), 'error', whenStatus);
  }
  if (seq !== pickSeq) return;
  if (userChose) track('date_selected', { duration: state.type ? state.type.durationMinutes : 0 });
  const slots = res.slots || [];
  replace($('slots'), slots.map((s) => {
    const label = fmt(s.start, { timeStyle: 'short' });
    const b = h('button', { type: 'button', 'data-start': s.start, 'aria-pressed': 'false', 'aria-label': `${label} to ${fmt(s.end, { timeStyle: 'short' })}` }, label);
    b.addEventListener('click', () => choose(s));
    return b;
  }));
  $('slots').dataset.date = date;
  if (slots.length === 0) return say('No free times left on that day. Please choose another day.', 'info', whenStatus);
  // A message about an earlier day goes; an error stays until the visitor picks a day.
  if (userChose || !whenStatus.classList.contains('error')) say('', 'info', whenStatus);
  if (userChose) announce(`${slots.length} free time${slots.length === 1 ? '' : 's'} on ${day}.`);
}

/**
 * choose marks slot as the chosen time (null: none) and shows it with the Confirm button,
 * scrolled into view; nothing is booked or moved before Confirm.
 */
function choose(slot) {
  state.slot = slot;
  for (const b of document.querySelectorAll('#slots button')) b.setAttribute('aria-pressed', String(!!slot && b.dataset.start === slot.start));
  $('choice').hidden = !slot;
  if (!slot) return;
  const text = when(slot.start, slot.end);
  $('choice-text').textContent = state.rescheduling ? `New time: ${text}` : text;
  $('time-confirm').textContent = state.rescheduling ? 'Confirm new time' : 'Confirm';
  announce(`Chosen: ${text}. Press ${$('time-confirm').textContent} to continue.`);
  $('choice').scrollIntoView({ block: 'nearest' });
}

$('prev-month').addEventListener('click', () => { state.month = addMonths(state.month, -1); state.day = ''; loadMonth(); });
$('next-month').addEventListener('click', () => { state.month = addMonths(state.month, 1); state.day = ''; loadMonth(); });
$('timezone').addEventListener('change', () => {
  state.month = '';
  state.day = '';
  if (state.step === 'when') loadMonth();
  if (state.step === 'manage') renderManage();
});

$('time-confirm').addEventListener('click', () => {
  const slot = state.slot;
  if (!slot) return;
  if (state.rescheduling) return move(slot);
  track('time_selected');
  const pairs = [['When', `${when(slot.start, slot.end)} (${zone()})`]];
  const owner = state.config.ownerTimeZone;
  if (owner && owner !== zone()) pairs.push(['Host time', `${fmt(slot.start, { dateStyle: 'medium', timeStyle: 'short' }, owner)} (${owner})`]);
  replace($('summary'), rows(pairs));
  renderDetails(state.type);
  show('details');
});
$('back-when').addEventListener('click', () => {
  show('when');
  choose(state.slot);
});

// ---- details and booking ---------------------------------------------------------------------

// The form's fields (id, label) by the API's names, for the field details of a 400 or 422.
const FIELDS = { attendeeName: ['name', 'The name'], attendeeEmail: ['email', 'The email address'], description: ['description', 'The note'] };

/** fieldError marks input invalid with text under it (aria-describedby), or clears it. */
function fieldError(input, text) {
  $(`${input.id}-error`).textContent = text;
  if (text) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/** showFirstInvalid puts the first invalid field of the form in view and focus. */
function showFirstInvalid() {
  const first = $('details-form').querySelector('[aria-invalid=true]');
  if (!first) return false;
  first.focus({ preventScroll: true });
  first.closest('.field').scrollIntoView({ block: 'center' });
  return true;
}

/** checkDetails marks every missing or malformed field; it returns whether all are right. */
function checkDetails() {
  const name = $('name');
  const email = $('email');
  fieldError(name, name.value.trim() ? '' : 'Please enter your name.');
  fieldError(email, !email.value.trim() ? 'Please enter your email address.'
    : email.checkValidity() ? '' : 'Please enter a valid email address, like name@example.com.');
  fieldError($('description'), '');
  state.extra = collect(state.type, fieldError);
  return !showFirstInvalid();
}

// A field marked invalid is cleared as soon as what is typed would pass.
for (const id of ['name', 'email']) {
  $(id).addEventListener('input', (ev) => {
    const input = ev.target;
    if (input.getAttribute('aria-invalid') === 'true' && input.value.trim() && input.checkValidity()) fieldError(input, '');
  });
}

let idempotencyKey = '';
$('details-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const button = $('confirm');
  if (!checkDetails() || button.disabled) return;
  track('contact_info_submitted');
  button.disabled = true;
  track('booking_confirmed');
  say('Booking…', 'info', detailsStatus);
  const slot = state.slot;
  // One key per chosen slot, so a retry after a network failure cannot book twice.
  idempotencyKey = idempotencyKey && idempotencyKey.startsWith(slot.start) ? idempotencyKey : `${slot.start}-${crypto.randomUUID()}`;
  const body = { startISO: slot.start, durationMinutes: slot.duration, timeZone: zone(), attendeeName: $('name').value.trim(), attendeeEmail: $('email').value.trim() };
  if (state.type && state.type.slug) body.type = state.type.slug;
  if ($('description').value.trim()) body.description = $('description').value.trim();
  Object.assign(body, state.extra.body);
  try {
    const res = await api('POST', '/api/schedule/book', body, { 'Idempotency-Key': idempotencyKey.replace(/[^A-Za-z0-9_-]/g, ''), ...visitorHeaders() });
    funnel.completed = true;
    track('booking_completed');
    done(res, slot, body.attendeeEmail);
  } catch (e) {
    // Keep the key after a network failure: the retry replays the first answer if it got through.
    if (!(e instanceof ApiError && e.status === 0)) idempotencyKey = '';
    if (e instanceof ApiError && e.status === 409) {
      trackError('conflict');
      state.slot = null;
      show('when');
      say('Sorry — someone else just booked that time. Please choose another time.', 'error', whenStatus);
      await loadMonth();
      if (state.day) pickDay(state.day, false);
      return;
    }
    if (e instanceof ApiError && (e.status === 400 || e.status === 422)) {
      trackError('validation');
      const mine = (e.details || []).filter((d) => FIELDS[d.field]);
      for (const d of mine) fieldError($(FIELDS[d.field][0]), `${FIELDS[d.field][1]} ${d.message.replace(/\.$/, '')}.`);
      const placed = mine.length + serverErrors(e.details, fieldError);
      if (placed && placed === e.details.length) {
        say('', 'info', detailsStatus);
        showFirstInvalid();
      } else say(`${e.describe()} Please check your details and try again.`, 'error', detailsStatus);
      return;
    }
    trackError('api_failure');
    say(apiFailureText(e), 'error', detailsStatus);
  } finally {
    button.disabled = false;
  }
});

/** done is the one page after booking: what and when, Join meeting, Add to calendar. */
function done(res, slot, email) {
  const what = state.host.name ? `${meetingTitle()} with ${state.host.name}` : meetingTitle();
  replace($('done-summary'), rows([['What', what], ['When', `${when(slot.start, slot.end)} (${zone()})`], placeRow(res.location)].filter(Boolean)));
  $('done-mail').textContent = `An invitation with the details is on its way to ${email}.`;
  const manage = safeURL(res.manageUrl);
  const token = manage ? new URL(manage).pathname.slice('/book/manage/'.length) : '';
  linkButton($('meet-link'), joinLink(res), 'video', 'Join meeting');
  linkButton($('ics-link'), token ? icsURL(token) : '', 'calendar-plus', 'Add to calendar');
  $('manage-link').hidden = !manage;
  if (manage) $('manage-link').href = manage;
  show('done');
}

// ---- the manage view -------------------------------------------------------------------------

/** bookedType is the kind of meeting of the managed booking, at its booked length. */
function bookedType(b) {
  const mins = Math.round((new Date(b.endTime) - new Date(b.startTime)) / 60000);
  return state.types.find((t) => t.slug === b.type && t.durationMinutes === mins) || { slug: '', title: '', durationMinutes: mins, description: '' };
}

function renderManage() {
  const b = state.manage;
  state.type = bookedType(b);
  renderMeeting();
  replace($('manage-summary'), rows([['When', `${when(b.startTime, b.endTime)} (${zone()})`], ['Name', b.name],
    b.status === 'confirmed' ? placeRow(b.location) : null].filter(Boolean)));
  const confirmed = b.status === 'confirmed';
  $('manage-links').hidden = !confirmed;
  linkButton($('manage-meet'), confirmed ? joinLink(b) : '', 'video', 'Join meeting');
  linkButton($('manage-ics'), confirmed ? icsURL(state.token) : '', 'calendar-plus', 'Add to calendar');
  const note = $('manage-note');
  note.hidden = true;
  if (b.status === 'cancelled') {
    note.hidden = false;
    replace(note, 'This meeting was cancelled. ', h('a', { href: '/book' }, 'Book a new meeting'), '.');
  } else if (!b.canCancel && !b.canReschedule) {
    note.hidden = false;
    note.textContent = 'This meeting has started or already taken place, so it can no longer be cancelled or moved.';
  }
  $('manage-actions').hidden = !(b.canCancel || b.canReschedule);
  $('manage-reschedule').hidden = !b.canReschedule;
  $('manage-cancel-open').hidden = !b.canCancel;
  $('cancel-form').hidden = true;
}

async function openManage(token) {
  state.token = token;
  funnel.managing = true;
  document.title = 'Your booking';
  say('Loading your booking…');
  try {
    state.manage = await api('GET', `/api/schedule/bookings/${encodeURIComponent(token)}`);
  } catch (e) {
    show('manage', false);
    $('manage-actions').hidden = true;
    if (e instanceof ApiError && e.status === 404) {
      replace($('manage-summary'));
      return say('This link does not match any booking. Check the link in your confirmation mail.', 'error');
    }
    return say(apiFailureText(e), 'error');
  }
  const tz = state.manage.timezone;
  if (tz && [...$('timezone').options].some((o) => o.value === tz)) $('timezone').value = tz;
  track('manage_opened');
  renderManage();
  show('manage', false);
}

$('manage-cancel-open').addEventListener('click', () => {
  $('cancel-form').hidden = false;
  $('manage-actions').hidden = true;
  $('cancel-reason').focus();
});
$('cancel-back').addEventListener('click', () => renderManage());
$('cancel-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const button = $('cancel-confirm');
  button.disabled = true;
  say('Cancelling…');
  try {
    const body = $('cancel-reason').value.trim() ? { reason: $('cancel-reason').value.trim() } : {};
    await api('POST', `/api/schedule/bookings/${encodeURIComponent(state.token)}/cancel`, body);
    track('booking_cancelled');
    state.manage = await api('GET', `/api/schedule/bookings/${encodeURIComponent(state.token)}`);
    renderManage();
    show('manage');
    say('Your meeting is cancelled. The host has been told, and a cancellation for your calendar is on its way.', 'ok');
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      trackError('conflict');
      say(e.message, 'error');
    } else {
      trackError('api_failure');
      say(apiFailureText(e), 'error');
    }
  } finally {
    button.disabled = false;
  }
});

/** moving switches the picker between booking and moving the managed booking. */
function moving(on) {
  state.rescheduling = on;
  $('h-when').textContent = on ? 'Pick a new time' : 'Pick a time';
  $('moving-from').hidden = !on;
  $('moving-actions').hidden = !on;
  if (on) $('moving-from').textContent = `Now: ${when(state.manage.startTime, state.manage.endTime)}`;
}

$('manage-reschedule').addEventListener('click', () => {
  state.month = '';
  state.day = '';
  moving(true);
  renderTypes();
  show('when');
  loadMonth();
});
$('keep-time').addEventListener('click', () => {
  moving(false);
  renderManage();
  show('manage');
});

async function move(slot) {
  const button = $('time-confirm');
  if (button.disabled) return;
  button.disabled = true;
  const to = when(slot.start, slot.end);
  say('Moving your meeting…', 'info', whenStatus);
  try {
    state.manage = await api('POST', `/api/schedule/bookings/${encodeURIComponent(state.token)}/reschedule`, { startTime: slot.start, timezone: zone() });
    track('booking_rescheduled');
    moving(false);
    renderManage();
    show('manage');
    say(`Moved to ${to}. An updated invitation is on its way.`, 'ok');
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      trackError('conflict');
      say(e.code === 'CONFLICT' && /cancel|started|progress/.test(e.message) ? e.message : 'Sorry — that time was just taken. Please choose another.', 'error', whenStatus);
      await loadMonth();
      if (state.day) pickDay(state.day, false);
      return;
    }
    trackError(e instanceof ApiError && e.status === 422 ? 'validation' : 'api_failure');
    say(e instanceof ApiError && e.status === 422 ? e.describe() : apiFailureText(e), 'error', whenStatus);
  } finally {
    button.disabled = false;
  }
}

// ---- start -----------------------------------------------------------------------------------

async function start() {
  try {
    state.config = await (await fetch('/book/config.json', { credentials: 'omit' })).json();
  } catch {
    state.config = { durationOptions: [30, 60], advanceDays: 60, minNoticeHours: 24, ownerTimeZone: '' };
  }
  const detected = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const all = [...new Set([detected, 'UTC', ...zones])].sort();
  replace($('timezone'), all.map((z) => h('option', { value: z, selected: z === detected }, z === detected ? `${z} (detected)` : z)));
  const token = location.pathname.startsWith('/book/manage/') ? location.pathname.slice('/book/manage/'.length) : '';
  state.token = token;
  try {
    const res = await api('GET', '/api/schedule/types');
    state.types = res.types || [];
    state.host = { ...state.host, ...res.host };
  } catch {
    state.types = state.config.durationOptions.map((d) => ({ slug: `${d}min`, title: `${d} minute meeting`, durationMinutes: d, description: '' }));
  }
  renderHostCard(state.host, !state.token);
  if (token) return openManage(token);
  // /book/{typeSlug} books that type; /book offers a chooser when there are several.
  const slug = !token && location.pathname.startsWith('/book/') ? decodeURIComponent(location.pathname.slice('/book/'.length)) : '';
  state.type = slug ? state.types.find((t) => t.slug === slug) : state.types[0] || null;
  if (!state.type || (!slug && state.types.length > 1 && !state.types.every((t) => t.default))) {
    state.type = null;
    renderChooser(state.types, lengthText);
    renderMeeting();
    show('choose', false);
    if (slug) say('This kind of meeting is not offered. Please choose one of these.', 'error');
    return;
  }
  state.single = !!slug;
  renderMeeting();
  renderTypes();
  track('modal_opened');
  show('when', false);
  loadMonth();
}
start();
