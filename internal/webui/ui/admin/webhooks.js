// Webhooks (a settings page): outgoing webhooks (docs/api.md, "Outgoing webhooks"). Create one (its
// signing secret is shown once), list them, send a test delivery, read the delivery log, delete.
import { api } from './shared/api.js';
import { h, field, replace } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, badge, busy, markFields, formError, confirmDialog, toast, listTable, cellMain, cellText, cellDate, cellActions, rowMenu,
} from './ui.js';

const EVENTS = [
  ['contact.received', 'A contact message arrives'],
  ['booking.created', 'A meeting is booked'],
  ['booking.cancelled', 'A booking is cancelled'],
  ['booking.rescheduled', 'A booking moves'],
  ['post.published', 'A post is published'],
  ['post.unpublished', 'A post is unpublished'],
  ['project.created', 'A project is created'],
  ['project.updated', 'A project changes'],
  ['project.deleted', 'A project is deleted'],
  ['media.uploaded', 'A file is uploaded'],
  ['subscriber.created', 'Someone asks to subscribe'],
  ['subscriber.confirmed', 'A subscriber confirms'],
];
const EVENT_NAMES = Object.fromEntries(EVENTS);

export async function render({ announce }) {
  const status = statusBox();
  const secretBox = h('div', { id: 'new-webhook', 'aria-live': 'polite' });
  const body = h('div', {});
  const log = h('section', { class: 'panel', id: 'webhook-log', hidden: true });

  const showLog = async (hook) => {
    const refresh = h('button', { type: 'button', class: 'secondary', id: 'webhook-log-refresh' }, 'Refresh');
    const fill = async () => {
      const res = await api('GET', `/api/webhooks/${encodeURIComponent(hook.id)}/deliveries?limit=50`);
      const rows = res.deliveries.map((d) => h('tr', { 'data-delivery-id': d.id, 'data-status': d.status },
        cellDate('Created', d.createdAt),
        cellText('Event', d.eventType, 'mono'),
        h('td', { 'data-label': 'Status' }, badge(d.status), d.responseStatus ? h('span', { class: 'row-sub' }, `HTTP ${d.responseStatus} · ${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`) : null),
        cellText('Last error', d.lastError || ''),
        cellDate('Next attempt', d.nextAttemptAt, '')));
      replace(log, h('div', { class: 'panel-head' }, h('h2', { class: 'truncate', title: hook.url }, `Deliveries to ${hook.url}`), h('span', { class: 'spacer' }), refresh),
        rows.length === 0 ? h('p', { class: 'muted' }, 'No deliveries yet.')
          : listTable('deliveries-table', [{ label: 'Created', cls: 'col-date' }, { label: 'Event', cls: 'col-mid' }, { label: 'Status', cls: 'col-mid' },
            { label: 'Last error' }, { label: 'Next attempt', cls: 'col-date' }], rows));
      log.hidden = false;
    };
    refresh.addEventListener('click', () => busy(refresh, async () => {
      try { await fill(); } catch (e) { status.set(errorText(e), 'error'); }
    }));
    await fill();
  };

  const load = async () => {
    const res = await api('GET', '/api/webhooks');
    const rows = res.webhooks.map((w) => {
      const test = async (btn) => {
        try {
          await api('POST', `/api/webhooks/${encodeURIComponent(w.id)}/test`);
          toast('Test delivery queued; it is sent within seconds.');
          announce('Test delivery queued');
          await showLog(w);
        } catch (e) { status.set(errorText(e), 'error'); }
        btn.focus();
      };
      const view = async () => {
        try { await showLog(w); log.scrollIntoView({ block: 'nearest' }); } catch (e) { status.set(errorText(e), 'error'); }
      };
      const del = async () => {
        if (!await confirmDialog({ title: 'Delete this webhook?', message: `Deliveries to ${w.url} stop, and queued ones are dropped.`, confirmLabel: 'Delete webhook' })) return;
        try {
          await api('DELETE', `/api/webhooks/${encodeURIComponent(w.id)}`);
          toast('Webhook deleted.');
          announce('Webhook deleted');
          log.hidden = true;
          await load();
        } catch (e) { status.set(errorText(e), 'error'); }
      };
      return h('tr', { 'data-webhook-id': w.id },
        cellMain(w.url, null, w.description),
        cellText('Events', w.events.map((e) => EVENT_NAMES[e] || e).join(', ')),
        cellDate('Created', w.createdAt),
        cellActions(rowMenu(`Actions for the webhook to ${w.url}`, [
          { label: 'Send a test', iconName: 'send', onSelect: test, id: `test-${w.id}` },
          { label: 'Deliveries', iconName: 'history', onSelect: view, id: `deliveries-${w.id}` },
          { separator: true },
          { label: 'Delete', iconName: 'trash-2', danger: true, onSelect: del, id: `delete-${w.id}` },
        ])));
    });
    replace(body, rows.length === 0 ? h('p', { class: 'muted empty' }, 'No webhooks yet. Create one above to be told when something happens.')
      : listTable('webhooks-table', [{ label: 'URL' }, { label: 'Events', cls: 'col-wide' }, { label: 'Created', cls: 'col-date' },
        { label: 'Actions', hidden: true, cls: 'col-actions' }], rows));
  };

  const url = h('input', { type: 'url', name: 'url', id: 'webhook-url', required: true, maxlength: 2000, placeholder: 'https://ntfy.sh/my-topic' });
  const description = h('input', { type: 'text', name: 'description', id: 'webhook-description', maxlength: 500 });
  const boxes = EVENTS.map(([v, label]) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', name: 'events', value: v, checked: v === 'contact.received' || v === 'booking.created' }), ` ${label} `,
    h('span', { class: 'mono muted' }, v)));
  const events = h('fieldset', { id: 'webhook-events', name: 'events' }, h('legend', {}, 'Events'), boxes);
  const create = h('button', { type: 'submit' }, 'Create webhook');
  const form = h('form', { class: 'panel', id: 'webhook-form', novalidate: true }, h('h2', {}, 'New webhook'),
    h('p', { class: 'muted' }, 'folio POSTs signed JSON (Standard Webhooks) to this URL, retrying for about a day when it is down.'),
    h('div', { class: 'grid' }, field('URL', url), field('Description', description, 'Optional, e.g. "phone via ntfy"')), events, create);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const chosen = [...form.querySelectorAll('input[name=events]:checked')].map((i) => i.value);
    if (!url.value.trim()) {
      status.set('Enter the URL to deliver to.', 'error');
      url.setAttribute('aria-invalid', 'true');
      url.focus();
      return;
    }
    if (chosen.length === 0) {
      status.set('Choose at least one event.', 'error');
      return;
    }
    busy(create, async () => {
      const req = { url: url.value.trim(), events: chosen };
      if (description.value.trim()) req.description = description.value.trim();
      try {
        const res = await api('POST', '/api/webhooks', req);
        markFields(form, null);
        const secret = h('code', { class: 'secret', id: 'new-webhook-secret' }, res.secret);
        const copy = h('button', { type: 'button', class: 'secondary' }, 'Copy');
        copy.addEventListener('click', async () => {
          try { await navigator.clipboard.writeText(res.secret); copy.textContent = 'Copied'; } catch { copy.textContent = 'Select the secret and copy it'; }
        });
        const done = h('button', { type: 'button', class: 'secondary', id: 'new-webhook-done' }, 'I have stored it');
        done.addEventListener('click', () => { secretBox.replaceChildren(); url.focus(); });
        replace(secretBox, h('section', { class: 'panel' }, h('h2', {}, 'Webhook created'),
          h('p', {}, 'This is the signing secret the receiver verifies deliveries with. It is shown this once.'), secret,
          h('div', { class: 'row' }, copy, done)));
        form.reset();
        announce('Webhook created; copy the secret now, it is shown once');
        status.clear();
        await load();
        copy.focus();
      } catch (e) {
        status.set(formError(form, e), 'error');
      }
    });
  });

  await load();
  return h('div', {}, pageHead('Webhooks'), status, secretBox, form,
    h('section', { class: 'panel flush' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Webhooks')), body), log);
}
