// The public subscribe page. /subscribe shows the form (POST /api/subscribers: the answer is
// the same whatever the list holds, so the page says only "check your inbox");
// /subscribe/confirm/<token> is the confirmation link of the mail, which confirms on load
// (POST /api/subscribers/confirm/{token}) — a POST from the page, so a mail scanner that
// follows the link confirms nothing. /unsubscribe/<token> is a mail's unsubscribe link: it
// posts the same one-click request a mail provider would (RFC 8058) and links to
// /subscribe/preferences/<token>, where the reader chooses every new post, a weekly digest or
// nothing (GET/PUT /api/subscribers/preferences/{token}). Inside an iframe (BOOKING_EMBED_ORIGINS, via
// /subscribe/embed.js) it tells the host page its height.
import { api, ApiError } from './shared/api.js';

const $ = (id) => document.getElementById(id);
const status = $('status');

function say(text, kind = '') {
  status.textContent = text;
  status.className = `status ${kind}`;
}

function show(id) {
  for (const s of ['step-form', 'step-sent', 'step-confirm', 'step-unsubscribe', 'step-prefs']) $(s).hidden = s !== id;
}

async function confirm(token) {
  show('step-confirm');
  try {
    await api('POST', `/api/subscribers/confirm/${encodeURIComponent(token)}`);
    $('h-confirm').textContent = 'You are subscribed';
    $('confirm-text').textContent = 'Thank you: new posts will come to your inbox. Every mail has a link to unsubscribe.';
  } catch (e) {
    $('h-confirm').textContent = 'This link does not work';
    $('confirm-text').textContent = e instanceof ApiError && e.status === 404
      ? 'It was already used, or it is older than 7 days, or it was cut short. Subscribe again to get a new one.'
      : (e instanceof ApiError ? e.describe() : String(e));
    const again = document.createElement('a');
    again.href = '/subscribe';
    again.textContent = 'Subscribe again';
    $('step-confirm').append(again);
  }
  $('h-confirm').focus();
}

async function unsubscribe(token) {
  show('step-unsubscribe');
  let res = null;
  try {
    res = await fetch(`/unsubscribe/${encodeURIComponent(token)}`, {
      method: 'POST', credentials: 'omit',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: 'List-Unsubscribe=One-Click',
    });
  } catch {
    res = null;
  }
  if (res && res.ok) {
    const link = $('prefs-link');
    link.href = `/subscribe/preferences/${encodeURIComponent(token)}`;
    link.hidden = false;
    $('h-unsubscribe').textContent = 'You are unsubscribed';
    $('unsubscribe-text').textContent = 'No more mail will come to this address. Changed your mind? Subscribe again at any time.';
  } else {
    $('h-unsubscribe').textContent = 'This link does not work';
    $('unsubscribe-text').textContent = res && res.status === 404
      ? 'The address may have been erased from the list already, or the link was cut short.'
      : 'The server could not be reached. Try again in a moment.';
  }
  $('h-unsubscribe').focus();
}

function form() {
  show('step-form');
  const params = new URLSearchParams(location.search);
  $('subscribe-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const email = $('email').value.trim();
    if (!email || !$('email').checkValidity()) {
      say('Enter your e-mail address.', 'error');
      $('email').focus();
      return;
    }
    $('subscribe').disabled = true;
    say('Sending…');
    try {
      await api('POST', '/api/subscribers', {
        email, name: $('name').value.trim(), source: params.get('source') || (window.parent !== window ? 'embed' : 'subscribe page'),
        website: $('website').value,
      });
      say('');
      show('step-sent');
      $('h-sent').focus();
    } catch (e) {
      say(e instanceof ApiError ? e.describe() : String(e), 'error');
    } finally {
      $('subscribe').disabled = false;
    }
  });
}

function reportHeight() {
  if (window.parent === window) return;
  let last = 0;
  const post = () => {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height !== last) {
      last = height;
      window.parent.postMessage({ type: 'folio-subscribe:height', height }, '*');
    }
  };
  new ResizeObserver(post).observe(document.body);
  addEventListener('load', post);
}

async function preferences(token) {
  show('step-prefs');
  const path = `/api/subscribers/preferences/${encodeURIComponent(token)}`;
  const fill = (p) => {
    $('prefs-who').textContent = `For ${p.email}${p.status === 'active' ? '' : ` (${p.status})`}.`;
    const box = $(`pref-${p.preference}`);
    if (box) box.checked = true;
  };
  try {
    fill(await api('GET', path));
  } catch (e) {
    $('h-prefs').textContent = 'This link does not work';
    $('prefs-form').hidden = true;
    say(e instanceof ApiError && e.status === 404 ? 'The address may have been erased from the list, or the link was cut short.'
      : (e instanceof ApiError ? e.describe() : String(e)), 'error');
    return;
  }
  $('prefs-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const chosen = document.querySelector('input[name="preference"]:checked');
    if (!chosen) { say('Choose one.', 'error'); return; }
    $('prefs-save').disabled = true;
    try {
      fill(await api('PUT', path, { preference: chosen.value }));
      say(chosen.value === 'none' ? 'Saved: nothing more will be sent.' : 'Saved.');
    } catch (e) {
      say(e instanceof ApiError ? e.describe() : String(e), 'error');
    } finally {
      $('prefs-save').disabled = false;
    }
  });
  $('h-prefs').focus();
}

const prefs = location.pathname.match(/^\/subscribe\/preferences\/([A-Za-z0-9_-]+)$/);
const token = location.pathname.match(/^\/subscribe\/confirm\/([A-Za-z0-9_-]+)$/);
const unsub = location.pathname.match(/^\/unsubscribe\/([A-Za-z0-9_-]+)$/);
if (prefs) preferences(prefs[1]);
else if (token) confirm(token[1]);
else if (unsub) unsubscribe(unsub[1]);
else form();
reportHeight();
