// The public booking page, in the order a visitor expects: the kind of meeting and the time
// first (a month view that marks the days with free times, the times beside it), the details
// last. /book/manage/<token> is the manage view of one booking: see it, cancel it with a
// reason, or move it with the same picker. The page reports the funnel steps (docs/api.md,
// "Analytics"; plus manage_opened, booking_rescheduled and booking_cancelled) as analytics
// events, without cookies. Inside an iframe (BOOKING_EMBED_ORIGINS) it tells the host page its
// height, which /book/embed.js uses to size the frame.
import { api, ApiError, query } from './shared/api.js';
import { h, replace, safeURL } from './shared/dom.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const STEPS = ['manage', 'when', 'details', 'done'];

const state = {
  step: '', lastFunnelStep: '', completed: false, config: null,
  types: [], type: null, month: '', day: '', days: {}, slot: null,
  manage: null, token: '', rescheduling: false,
};

// ---- analytics -----------------------------------------------------------------------------

function visitorId() {
  try {
    let id = sessionStorage.getItem('folio-book-visitor');
    if (!id) {
      id = crypto.randomUUID().replaceAll('-', '');
      sessionStorage.setItem('folio-book-visitor', id);
    }
    return id;
  } catch {
    return undefined; // storage blocked: the server falls back to its anonymous daily hash
  }
}
const visitor = visitorId();

/** track reports one funnel event; failures are ignored (analytics never blocks a booking). */
function track(name, props) {
  if (name !== 'booking_error') state.lastFunnelStep = name;
  const body = JSON.stringify({ type: 'event', path: '/book', name, props, visitorId: visitor, title: document.title });
  fetch('/api/analytics/collect', { method: 'POST', body, keepalive: true, credentials: 'omit', headers: { 'Content-Type': 'application/json' } })
    .catch(() => {});
}

function trackError(group) {
  track('booking_error', { group, step: state.lastFunnelStep || 'modal_opened' });
}

// Leaving before the booking completes is an abandonment at the last step reached.
addEventListener('pagehide', () => {
  if (state.completed || !state.lastFunnelStep || state.token) return;
  const body = JSON.stringify({ type: 'event', path: '/book', name: 'booking_error', visitorId: visitor,
    props: { group: 'abandonment', step: state.lastFunnelStep } });
  navigator.sendBeacon('/api/analytics/collect', new Blob([body], { type: 'text/plain' }));
  state.completed = true; // report once
});

// ---- embedding -----------------------------------------------------------------------------

// In a frame, post the page height to the host (embed.js listens). The message holds nothing
// but a number, so any parent may read it.
if (window.parent !== window) {
  document.documentElement.classList.add('embedded');
  let last = 0;
  const post = () => {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height !== last) {
      last = height;
      window.parent.postMessage({ type: 'folio-book:height', height }, '*');
    }
  };
  new ResizeObserver(post).observe(document.body);
  addEventListener('load', post);
}

// ---- helpers -------------------------------------------------------------------------------

function say(text, kind = 'info') {
  status.className = `status ${kind}`;
  status.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  status.textContent = text;
}

function show(step, focus = true) {
  state.step = step;
  for (const s of STEPS) $(`step-${s}`).hidden = s !== step;
  $('steps').hidden = step === 'manage' || state.rescheduling;
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

function invalid(el, text) {
  el.setAttribute('aria-invalid', 'true');
  say(text, 'error');
  el.focus();
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
      loadMonth();
    });
    return h('label', {}, input, h('span', {}, h('strong', {}, t.title), h('small', {}, `${t.durationMinutes} minutes${t.description ? ' · ' + t.description : ''}`)));
  }));
  $('types-box').hidden = state.rescheduling || state.types.length < 2;
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
      say(apiFailureText(e), 'error');
    }
  }
  renderDays(false);
  // Open the first day with free times, so a phone shows times without another tap.
  if (!state.day || !state.days[state.day]) {
    const firstFree = Object.keys(state.days).sort().find((d) => state.days[d] > 0);
    if (firstFree) pickDay(firstFree, false);
    else {
      replace($('slots'));
      $('time-caption').textContent = 'No free times this month';
      say('No free times in this month. Try the next one.', 'info');
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
let moveFor = ''; // the time a first tap asked to move to (manage view)
async function pickDay(date, userChose) {
  const seq = ++pickSeq; // a slower answer for an earlier pick must not overwrite this one
  state.day = date;
  moveFor = '';
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
    return say(apiFailureText(e), 'error');
  }
  if (seq !== pickSeq) return;
  if (userChose) track('date_selected', { duration: state.type ? state.type.durationMinutes : 0 });
  const slots = res.slots || [];
  replace($('slots'), slots.map((s) => {
    const label = fmt(s.start, { timeStyle: 'short' });
    const b = h('button', { type: 'button', 'data-start': s.start, 'aria-label': `${label} to ${fmt(s.end, { timeStyle: 'short' })}` }, label);
    b.addEventListener('click', () => chooseSlot(s));
    return b;
  }));
  $('slots').dataset.date = date;
  if (slots.length === 0) say('No free times left on that day. Please choose another day.', 'info');
  else if (userChose) say(`${slots.length} free time${slots.length === 1 ? '' : 's'} on ${day}.`, 'info');
  else if (!status.classList.contains('error')) say('');
}

$('prev-month').addEventListener('click', () => { state.month = addMonths(state.month, -1); state.day = ''; loadMonth(); });
$('next-month').addEventListener('click', () => { state.month = addMonths(state.month, 1); state.day = ''; loadMonth(); });
$('timezone').addEventListener('change', () => {
  state.month = '';
  state.day = '';
  if (state.step === 'when') loadMonth();
  if (state.step === 'manage') renderManage();
});

function whenRows(slot) {
  const rows = [['When', `${fmt(slot.start, { dateStyle: 'full', timeStyle: 'short' })} (${zone()})`], ['Length', `${slot.duration} minutes`]];
  if (state.type && state.type.title) rows.unshift(['Meeting', state.type.title]);
  const owner = state.config.ownerTimeZone;
  if (owner && owner !== zone()) rows.push(['Host time', `${fmt(slot.start, { dateStyle: 'medium', timeStyle: 'short' }, owner)} (${owner})`]);
  return rows;
}

function chooseSlot(slot) {
  state.slot = slot;
  if (state.rescheduling) return confirmMove(slot);
  track('time_selected');
  replace($('summary'), whenRows(slot).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  say('');
  show('details');
}
$('back-when').addEventListener('click', () => show('when'));

// ---- details and booking ---------------------------------------------------------------------

let idempotencyKey = '';
$('details-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const name = $('name');
  const email = $('email');
  const button = $('confirm');
  name.removeAttribute('aria-invalid');
  email.removeAttribute('aria-invalid');
  if (!name.value.trim()) return invalid(name, 'Please enter your name.');
  if (!email.value.trim() || !email.checkValidity()) return invalid(email, 'Please enter a valid email address.');
  if (button.disabled) return;
  track('contact_info_submitted');
  button.disabled = true;
  track('booking_confirmed');
  say('Booking…');
  const slot = state.slot;
  // One key per chosen slot, so a retry after a network failure cannot book twice.
  idempotencyKey = idempotencyKey && idempotencyKey.startsWith(slot.start) ? idempotencyKey : `${slot.start}-${crypto.randomUUID()}`;
  const body = { startISO: slot.start, durationMinutes: slot.duration, timeZone: zone(), attendeeName: name.value.trim(), attendeeEmail: email.value.trim() };
  if (state.type && state.type.slug) body.type = state.type.slug;
  if ($('description').value.trim()) body.description = $('description').value.trim();
  try {
    const res = await api('POST', '/api/schedule/book', body, { 'Idempotency-Key': idempotencyKey.replace(/[^A-Za-z0-9_-]/g, '') });
    state.completed = true;
    track('booking_completed');
    done(res, slot);
  } catch (e) {
    // Keep the key after a network failure: the retry replays the first answer if it got through.
    if (!(e instanceof ApiError && e.status === 0)) idempotencyKey = '';
    if (e instanceof ApiError && e.status === 409) {
      trackError('conflict');
      state.slot = null;
      show('when');
      say('Sorry — someone else just booked that time. Please choose another time.', 'error');
      await loadMonth();
      if (state.day) pickDay(state.day, false);
      return;
    }
    if (e instanceof ApiError && (e.status === 400 || e.status === 422)) {
      trackError('validation');
      say(`${e.describe()} Please check your details and try again.`, 'error');
      return;
    }
    trackError('api_failure');
    say(apiFailureText(e), 'error');
  } finally {
    button.disabled = false;
  }
});

function done(res, slot) {
  $('done-text').textContent = `Your ${slot.duration}-minute meeting is on ${fmt(slot.start, { dateStyle: 'full', timeStyle: 'short' })} (${zone()}).`;
  const meet = safeURL(res.providerMeetLink);
  const ev = safeURL(res.providerEventLink);
  const manage = safeURL(res.manageUrl);
  $('meet-link').hidden = !meet;
  if (meet) {
    $('meet-link').href = meet;
    $('meet-link').textContent = `Join the meeting: ${meet}`;
  }
  $('event-link').hidden = !ev;
  if (ev) $('event-link').href = ev;
  $('manage-link').hidden = !manage;
  if (manage) $('manage-link').href = manage;
  say('Booked. Check your inbox for the invitation.', 'ok');
  show('done');
}

// ---- the manage view -------------------------------------------------------------------------

function renderManage() {
  const b = state.manage;
  const type = state.types.find((t) => t.slug === b.type);
  const rows = [
    ['When', `${fmt(b.startTime, { dateStyle: 'full', timeStyle: 'short' })} – ${fmt(b.endTime, { timeStyle: 'short' })} (${zone()})`],
    ['Name', b.name],
  ];
  if (type) rows.unshift(['Meeting', type.title]);
  const meet = safeURL(b.providerMeetLink);
  replace($('manage-summary'), rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    meet && b.status === 'confirmed' ? [h('dt', {}, 'Join'), h('dd', {}, h('a', { href: meet, target: '_blank', rel: 'noopener' }, meet))] : null);
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
  document.title = 'Your booking';
  $('title').textContent = 'Your booking';
  $('intro').hidden = true;
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
  say('');
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

$('manage-reschedule').addEventListener('click', () => {
  state.rescheduling = true;
  const b = state.manage;
  const mins = Math.round((new Date(b.endTime) - new Date(b.startTime)) / 60000);
  state.type = state.types.find((t) => t.slug === b.type && t.durationMinutes === mins) || { slug: '', title: '', durationMinutes: mins };
  $('h-when').textContent = 'Pick a new time';
  renderTypes();
  show('when');
  loadMonth();
});

function confirmMove(slot) {
  // A second tap on the same time confirms: the first one asks.
  const when = fmt(slot.start, { dateStyle: 'full', timeStyle: 'short' });
  if (moveFor !== slot.start) {
    moveFor = slot.start;
    for (const b of document.querySelectorAll('#slots button')) b.setAttribute('aria-pressed', String(b.dataset.start === slot.start));
    say(`Move your meeting to ${when}? Tap the time again to confirm.`, 'info');
    return;
  }
  moveFor = '';
  move(slot, when);
}

async function move(slot, when) {
  say('Moving your meeting…');
  try {
    state.manage = await api('POST', `/api/schedule/bookings/${encodeURIComponent(state.token)}/reschedule`, { startTime: slot.start, timezone: zone() });
    track('booking_rescheduled');
    state.rescheduling = false;
    renderManage();
    show('manage');
    say(`Moved to ${when}. An updated invitation is on its way.`, 'ok');
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      trackError('conflict');
      say(e.code === 'CONFLICT' && /cancel|started|progress/.test(e.message) ? e.message : 'Sorry — that time was just taken. Please choose another.', 'error');
      await loadMonth();
      if (state.day) pickDay(state.day, false);
      return;
    }
    trackError(e instanceof ApiError && e.status === 422 ? 'validation' : 'api_failure');
    say(e instanceof ApiError && e.status === 422 ? e.describe() : apiFailureText(e), 'error');
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
  try {
    state.types = (await api('GET', '/api/schedule/types')).types || [];
  } catch {
    state.types = state.config.durationOptions.map((d) => ({ slug: `${d}min`, title: `${d} minute meeting`, durationMinutes: d, description: '' }));
  }
  const token = location.pathname.startsWith('/book/manage/') ? location.pathname.slice('/book/manage/'.length) : '';
  if (token) return openManage(token);
  state.type = state.types[0] || null;
  renderTypes();
  track('modal_opened');
  show('when', false);
  loadMonth();
}
start();
