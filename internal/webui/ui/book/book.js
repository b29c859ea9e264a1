// The public booking page: details → date → time → confirm → done. It reports the funnel steps
// of spec §6 as analytics events (no cookies; an anonymous id kept for this tab only) and, when
// someone else books the chosen time first (409), says so and returns to date selection.
import { api, ApiError, query } from './shared/api.js';
import { h, replace, safeURL } from './shared/dom.js';

const $ = (id) => document.getElementById(id);
const status = $('status');
const STEPS = ['details', 'date', 'time', 'confirm', 'done'];

const state = { step: 'details', lastFunnelStep: '', completed: false, slot: null, config: null };

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
  if (state.completed || !state.lastFunnelStep) return;
  const body = JSON.stringify({ type: 'event', path: '/book', name: 'booking_error', visitorId: visitor,
    props: { group: 'abandonment', step: state.lastFunnelStep } });
  navigator.sendBeacon('/api/analytics/collect', new Blob([body], { type: 'text/plain' }));
  state.completed = true; // report once
});

// ---- helpers -------------------------------------------------------------------------------

function say(text, kind = 'info') {
  status.className = `status ${kind}`;
  status.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  status.textContent = text;
}

function show(step, focus = true) {
  state.step = step;
  for (const s of STEPS) $(`step-${s}`).hidden = s !== step;
  const idx = STEPS.indexOf(step);
  for (const li of document.querySelectorAll('.steps li')) {
    const i = STEPS.indexOf(li.dataset.step);
    li.classList.toggle('done', i < idx);
    if (i === idx) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
  if (focus) $(`h-${step}`).focus();
  document.body.dataset.step = step;
}

function zone() { return $('timezone').value; }

function fmtTime(iso, opts) {
  return new Intl.DateTimeFormat(undefined, { timeZone: zone(), ...opts }).format(new Date(iso));
}

/** todayIn returns today's date (YYYY-MM-DD) in an IANA zone. */
function todayIn(tz) {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

function addDays(day, n) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

function invalid(el, text) {
  el.setAttribute('aria-invalid', 'true');
  say(text, 'error');
  el.focus();
}

function apiFailureText(e) {
  if (e instanceof ApiError && e.status === 429) {
    const mins = Math.max(1, Math.ceil((e.retryAfter || 60) / 60));
    return `Too many attempts from your network. Please try again in about ${mins} minute${mins === 1 ? '' : 's'}.`;
  }
  if (e instanceof ApiError && e.status === 0) return e.message;
  return 'Something went wrong on our side. Please try again in a moment.';
}

// ---- step 1: details -----------------------------------------------------------------------

$('details-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const name = $('name');
  const email = $('email');
  name.removeAttribute('aria-invalid');
  email.removeAttribute('aria-invalid');
  if (!name.value.trim()) return invalid(name, 'Please enter your name.');
  if (!email.value.trim() || !email.checkValidity()) return invalid(email, 'Please enter a valid email address.');
  say('');
  track('contact_info_submitted');
  show('date');
});

// ---- step 2: date --------------------------------------------------------------------------

function setDateBounds() {
  const cfg = state.config;
  const today = todayIn(zone());
  const first = addDays(today, Math.floor((cfg.minNoticeHours || 0) / 24));
  const date = $('date');
  date.min = first;
  date.max = addDays(today, cfg.advanceDays);
  if (date.value && (date.value < date.min || date.value > date.max)) date.value = '';
}

async function loadSlots() {
  const date = $('date');
  date.removeAttribute('aria-invalid');
  if (!date.value) return invalid(date, 'Please choose a date.');
  if (date.value < date.min || date.value > date.max) return invalid(date, `Please choose a date between ${date.min} and ${date.max}.`);
  say('Looking for free times…');
  $('find-times').disabled = true;
  let res;
  try {
    res = await api('GET', `/api/schedule/available${query({ date: date.value, duration: $('duration').value, timezone: zone() })}`);
  } catch (e) {
    $('find-times').disabled = false;
    if (e instanceof ApiError && (e.status === 400 || e.status === 422)) {
      trackError('validation');
      return say(e.describe(), 'error');
    }
    trackError('api_failure');
    return say(apiFailureText(e), 'error');
  }
  $('find-times').disabled = false;
  track('date_selected', { duration: Number($('duration').value) });
  const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${date.value}T12:00:00Z`));
  $('time-caption').textContent = `${day} · ${$('duration').value} minutes · times in ${zone()}`;
  const slots = res.slots || [];
  replace($('slots'), slots.map((s) => {
    const label = fmtTime(s.start, { timeStyle: 'short' });
    const b = h('button', { type: 'button', 'data-start': s.start, 'aria-label': `${label} to ${fmtTime(s.end, { timeStyle: 'short' })}` }, label);
    b.addEventListener('click', () => chooseSlot(s));
    return b;
  }));
  if (slots.length === 0) {
    say('No free times on that day. Please choose another date.', 'info');
    date.focus();
    return;
  }
  say(`${slots.length} free time${slots.length === 1 ? '' : 's'} on ${day}.`, 'info');
  show('time');
}

$('date-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  loadSlots();
});
$('timezone').addEventListener('change', () => {
  setDateBounds();
  if (state.step === 'time') loadSlots();
});
$('back-details').addEventListener('click', () => show('details'));
$('back-date').addEventListener('click', () => show('date'));

// ---- step 3 and 4: time and confirm --------------------------------------------------------

function chooseSlot(slot) {
  state.slot = slot;
  track('time_selected');
  const rows = [
    ['Name', $('name').value.trim()], ['Email', $('email').value.trim()],
    ['When', `${fmtTime(slot.start, { dateStyle: 'full', timeStyle: 'short' })} (${zone()})`],
    ['Length', `${slot.duration} minutes`],
  ];
  if (state.config.ownerTimeZone && state.config.ownerTimeZone !== zone()) {
    rows.push(['Host time', new Intl.DateTimeFormat(undefined, { timeZone: state.config.ownerTimeZone, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(slot.start)) + ` (${state.config.ownerTimeZone})`]);
  }
  replace($('summary'), rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  say('');
  show('confirm');
}
$('back-time').addEventListener('click', () => show('time'));

let idempotencyKey = '';
$('confirm-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const button = $('confirm');
  if (button.disabled) return;
  button.disabled = true;
  track('booking_confirmed');
  say('Booking…');
  const slot = state.slot;
  // One key per chosen slot, so a retry after a network failure cannot book twice.
  idempotencyKey = idempotencyKey && idempotencyKey.startsWith(slot.start) ? idempotencyKey : `${slot.start}-${crypto.randomUUID()}`;
  const body = {
    startISO: slot.start, durationMinutes: slot.duration, timeZone: zone(),
    attendeeName: $('name').value.trim(), attendeeEmail: $('email').value.trim(),
  };
  if ($('description').value.trim()) body.description = $('description').value.trim();
  try {
    const res = await api('POST', '/api/schedule/book', body, { 'Idempotency-Key': idempotencyKey.replace(/[^A-Za-z0-9_-]/g, '') });
    state.completed = true;
    track('booking_completed');
    done(res, slot);
  } catch (e) {
    button.disabled = false;
    // Keep the key after a network failure: the retry replays the first answer if it got through.
    if (!(e instanceof ApiError && e.status === 0)) idempotencyKey = '';
    if (e instanceof ApiError && e.status === 409) {
      trackError('conflict');
      state.slot = null;
      show('date');
      say('Sorry — someone else just booked that time. Please choose a date and time again.', 'error');
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
  $('done-text').textContent = `Your ${slot.duration}-minute meeting is on ${fmtTime(slot.start, { dateStyle: 'full', timeStyle: 'short' })} (${zone()}).`;
  const meet = safeURL(res.providerMeetLink);
  const ev = safeURL(res.providerEventLink);
  $('meet-link').hidden = !meet;
  if (meet) {
    $('meet-link').href = meet;
    $('meet-link').textContent = `Join the meeting: ${meet}`;
  }
  $('event-link').hidden = !ev;
  if (ev) $('event-link').href = ev;
  say('Booked. Check your inbox for the invitation.', 'ok');
  show('done');
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
  replace($('duration'), state.config.durationOptions.map((d) => h('option', { value: String(d) }, `${d} minutes`)));
  setDateBounds();
  track('modal_opened');
  show('details', false);
}
start();
