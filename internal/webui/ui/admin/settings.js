// Settings stored in the database (GET/PUT /api/settings, docs/api.md "Settings"), one page per
// group: Site, Booking (time zone, hours per weekday with several ranges a day, notice, buffers,
// reminders, embedding), Mail (sender, SMTP server, "send a test mail"), Contact form and
// Analytics. A field set by an environment variable is shown read-only with the variable's
// name; a secret is shown as "set" with a control to replace it. Each page saves only its own
// group, and only the fields that are not locked.
import { api, query } from './shared/api.js';
import { h, field, replace, uid } from './shared/dom.js';
import {
  pageHead, statusBox, errorText, busy, markFields, formError, button, toast, badge, lockedNote, icon, listTable, cellMain, cellDate, cellText, pager,
} from './ui.js';
import { imageField } from './upload.js';
import { trackingSnippet, copySnippet } from './overview.js';

const DAYS = [['mon', 'Monday'], ['tue', 'Tuesday'], ['wed', 'Wednesday'], ['thu', 'Thursday'], ['fri', 'Friday'], ['sat', 'Saturday'], ['sun', 'Sunday']];

/** get reads a dotted path ("smtp.host") of an object. */
function get(obj, path) {
  return path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

/** set writes a dotted path of an object, making the objects on the way. */
function set(obj, path, value) {
  const keys = path.split('.');
  let o = obj;
  for (const k of keys.slice(0, -1)) o = o[k] || (o[k] = {});
  o[keys[keys.length - 1]] = value;
}

/**
 * settingsForm builds one group's page. fields(ctl) returns the form's body, made with ctl,
 * which creates a control for a path of the group and remembers how to read it back. Locked
 * paths become read-only with their variable named. onSaved(settings) runs after a save.
 */
async function settingsForm({ group, title, intro, fields, after }) {
  const status = statusBox();
  let all = await api('GET', '/api/settings');
  const locked = all.locked || {};
  const readers = [];
  const ctl = (path, label, control, { hint, read, decorate } = {}) => {
    const full = `${group}.${path}`;
    control.dataset.field = full;
    if (!control.name) control.name = full;
    if (!control.id) control.id = `set-${full.replace(/[^a-zA-Z0-9]+/g, '-')}`;
    const variable = locked[full];
    if (variable) {
      if (control.tagName === 'SELECT' || control.type === 'checkbox') control.disabled = true;
      else control.readOnly = true;
      control.setAttribute('aria-describedby', `${control.id}-locked`);
    } else {
      ctl.read(path, read || (() => (control.type === 'number' ? Number(control.value || 0) : control.value.trim())));
    }
    const hintId = hint && !variable ? `${control.id}-hint` : null;
    if (hintId) control.setAttribute('aria-describedby', hintId);
    return h('div', { class: 'field' }, h('label', { for: control.id }, label), decorate && !variable ? decorate(control) : control,
      hintId ? h('small', { class: 'hint', id: hintId }, hint) : null, variable ? lockedNote(variable, `${control.id}-locked`) : null);
  };
  /** ctl.read registers how to read a path that has no single control (unless it is locked). */
  ctl.read = (path, fn) => { if (!locked[`${group}.${path}`]) readers.push([path, fn]); };
  const value = (path) => get(all[group] || {}, path);
  const save = button('Save', { type: 'submit', iconName: 'save', id: `save-${group}` });
  const form = h('form', { class: 'panel', id: `settings-${group}`, novalidate: true, 'data-primary': '' });
  replace(form, intro ? h('p', { class: 'muted' }, intro) : null, fields(ctl, value, locked), h('div', { class: 'form-actions' }, save));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    busy(save, async () => {
      const part = {};
      for (const [path, read] of readers) {
        const v = read();
        if (v !== undefined) set(part, path, v);
      }
      try {
        all = await api('PUT', '/api/settings', { [group]: part });
        markFields(form, null);
        status.clear();
        toast(`${title} settings saved.`);
      } catch (e) {
        status.set(formError(form, e), 'error');
      }
    });
  });
  return h('div', {}, pageHead(title), status, form, after ? await after(() => all) : null);
}

/** secretControl shows a secret as set or not, with a button that opens a field to replace it. */
function secretControl(isSet, id) {
  const input = h('input', { type: 'password', id, autocomplete: 'new-password', hidden: isSet, placeholder: isSet ? 'The new value' : '' });
  const state = isSet ? badge('confirmed', 'Set') : badge('pending', 'Not set');
  const replaceBtn = h('button', { type: 'button', class: 'secondary small', hidden: !isSet }, 'Replace');
  replaceBtn.setAttribute('aria-label', 'Replace the password');
  replaceBtn.addEventListener('click', () => { input.hidden = false; replaceBtn.hidden = true; input.focus(); });
  const wrap = h('div', { class: 'secret-field', id: `${id}-state` }, state, replaceBtn, input);
  // Empty means "keep what is stored": a secret is only ever sent when it is replaced.
  return { input, wrap, read: () => (input.value ? input.value : undefined) };
}

// ---- Site ----

export const site = {
  render: () => settingsForm({
    group: 'site', title: 'Site',
    intro: 'Who the site belongs to. Mails and invitations use the owner\'s name; the public posts show the owner\'s email as their author\'s.',
    fields: (ctl, value) => [
      h('div', { class: 'grid' },
        ctl('name', 'Site name', h('input', { type: 'text', value: value('name') || '', maxlength: 200 })),
        ctl('url', 'Site address', h('input', { type: 'url', value: value('url') || '', placeholder: 'https://example.com' }), { hint: 'Canonical links and feeds use it.' })),
      h('div', { class: 'grid' },
        ctl('ownerName', 'Owner\'s name', h('input', { type: 'text', value: value('ownerName') || '', maxlength: 200 })),
        ctl('ownerEmail', 'Owner\'s public email', h('input', { type: 'email', value: value('ownerEmail') || '' }), { hint: 'Shown as the author of public posts; leave empty to show none.' })),
      ctl('photoUrl', 'Owner\'s photo', h('input', { type: 'url', value: value('photoUrl') || '', placeholder: 'https://…' }), { decorate: (c) => imageField(c, 'Photo') }),
    ],
  }),
};

// ---- Booking ----

/** rangeRow is one from–to range of a day's hours. */
function rangeRow(day, r, onRemove) {
  const n = uid('range');
  const start = h('input', { type: 'time', value: r.start || '09:00', id: `${n}-start`, name: `${n}-start`, 'aria-label': 'From', step: 300 });
  const end = h('input', { type: 'time', value: r.end || '17:00', id: `${n}-end`, name: `${n}-end`, 'aria-label': 'Until', step: 300 });
  const remove = h('button', { type: 'button', class: 'ghost icon-only', 'aria-label': 'Remove this range', title: 'Remove this range' }, icon('x'));
  const row = h('div', { class: 'hours-range' }, start, h('span', { class: 'muted' }, 'to'), end, remove);
  remove.addEventListener('click', () => { row.remove(); onRemove(); });
  row.read = () => ({ start: start.value, end: end.value });
  row.fields = [start, end];
  return row;
}

/**
 * hoursEditor edits hours per weekday: a day is on or off, and an on day has one or more
 * ranges. It returns its node and a reader giving {mon: [{start, end}], …}. Controls carry the
 * API's field names (booking.hours.mon[0].start), so a 422 marks the right one.
 */
function hoursEditor(hours, disabled) {
  const days = DAYS.map(([key, name]) => {
    const ranges = h('div', { class: 'hours-ranges' });
    const on = h('input', { type: 'checkbox', id: `hours-${key}-on`, name: `hours-${key}-on`, checked: (hours[key] || []).length > 0, disabled });
    const off = h('div', { class: 'hours-off' }, 'Unavailable');
    const add = h('button', { type: 'button', class: 'ghost small', disabled }, icon('plus'), 'Add a range');
    add.setAttribute('aria-label', `Add a range on ${name}`);
    const label = () => {
      [...ranges.querySelectorAll('.hours-range')].forEach((row, i) => {
        row.fields[0].dataset.field = `booking.hours.${key}[${i}].start`;
        row.fields[1].dataset.field = `booking.hours.${key}[${i}].end`;
        row.fields[0].setAttribute('aria-label', `${name}, range ${i + 1}, from`);
        row.fields[1].setAttribute('aria-label', `${name}, range ${i + 1}, until`);
      });
    };
    const addRange = (r) => {
      const row = rangeRow(key, r, () => { if (!ranges.querySelector('.hours-range')) { on.checked = false; sync(); } label(); });
      if (disabled) for (const el of row.querySelectorAll('input, button')) el.disabled = true;
      ranges.insertBefore(row, add);
      label();
    };
    ranges.append(add);
    for (const r of hours[key] || []) addRange(r);
    const sync = () => {
      ranges.hidden = !on.checked;
      off.hidden = on.checked;
      if (on.checked && !ranges.querySelector('.hours-range')) addRange({ start: '09:00', end: '17:00' });
    };
    on.addEventListener('change', sync);
    add.addEventListener('click', () => {
      const last = [...ranges.querySelectorAll('.hours-range')].pop();
      addRange(last ? { start: last.read().end, end: '' } : {});
      ranges.querySelectorAll('.hours-range input[type=time]')[ranges.querySelectorAll('.hours-range').length * 2 - 2]?.focus();
    });
    sync();
    const node = h('div', { class: 'hours-day', 'data-day': key },
      h('div', { class: 'check' }, on, h('label', { for: on.id }, name)), h('div', {}, ranges, off));
    return { key, node, read: () => (on.checked ? [...ranges.querySelectorAll('.hours-range')].map((r) => r.read()) : []) };
  });
  return {
    node: h('div', { class: 'hours', id: 'hours-editor' }, days.map((d) => d.node)),
    read: () => Object.fromEntries(days.map((d) => [d.key, d.read()])),
  };
}

/** zoneSelect lists every IANA zone the browser knows, with value selected. */
function zoneSelect(value) {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  if (value && !zones.includes(value)) zones.unshift(value);
  return h('select', {}, zones.map((z) => h('option', { value: z, selected: z === value }, z.replace(/_/g, ' '))));
}

export const booking = {
  render: () => settingsForm({
    group: 'booking', title: 'Booking',
    intro: 'When visitors can book you on /book. Days off and special hours for single dates are on the Days off page.',
    fields: (ctl, value, locked) => {
      const hours = hoursEditor(value('hours') || {}, !!locked['booking.hours']);
      ctl.read('hours', hours.read);
      const reminders = h('input', { type: 'text', value: (value('reminders') || []).join(', '), placeholder: '24h, 1h' });
      const origins = h('textarea', { rows: 3, placeholder: 'https://example.com' });
      origins.value = (value('embedOrigins') || []).join('\n');
      const hoursField = h('fieldset', { id: 'booking-hours' }, h('legend', {}, 'Weekly hours'),
        h('p', { class: 'muted small' }, 'In the time zone below. A day can have several ranges, e.g. 09:00–12:00 and 14:00–17:00.'), hours.node,
        locked['booking.hours'] ? lockedNote(locked['booking.hours']) : null);
      return [
        ctl('timezone', 'Time zone', zoneSelect(value('timezone'))),
        hoursField,
        h('div', { class: 'grid' },
          ctl('minNoticeMinutes', 'Minimum notice (minutes)', h('input', { type: 'number', min: 0, step: 15, value: value('minNoticeMinutes') ?? 0 }), { hint: 'How soon before a meeting it can still be booked.' }),
          ctl('horizonDays', 'Bookable days ahead', h('input', { type: 'number', min: 1, max: 365, value: value('horizonDays') ?? 60 })),
          ctl('bufferMinutes', 'Buffer around meetings (minutes)', h('input', { type: 'number', min: 0, step: 5, value: value('bufferMinutes') ?? 0 }))),
        ctl('reminders', 'Reminders before a meeting', reminders, {
          hint: 'Comma-separated, e.g. 24h, 1h; empty sends none.',
          read: () => reminders.value.split(',').map((x) => x.trim()).filter(Boolean),
        }),
        ctl('embedOrigins', 'Sites that may embed the booking page', origins, {
          hint: 'One origin per line (https://example.com); others cannot show /book in a frame.',
          read: () => origins.value.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean),
        }),
        ctl('jitsiUrl', 'Jitsi server', h('input', { type: 'url', value: value('jitsiUrl') || '', placeholder: 'https://meet.jit.si' }), {
          hint: 'Where meeting types with the Jitsi place get a room of their own for each booking; empty uses https://meet.jit.si.',
        }),
      ];
    },
  }),
};

// ---- Mail ----

export const mail = {
  render: () => settingsForm({
    group: 'mail', title: 'Mail',
    intro: 'The sender of every mail folio sends (booking confirmations, reminders, contact messages) and the server that sends them. Without a server, mail is written to the outbox folder on the server.',
    fields: (ctl, value) => {
      const pw = secretControl(value('smtp.password') === 'set', 'set-mail-smtp-password');
      const pwField = ctl('smtp.password', 'Password', pw.input, { read: pw.read, decorate: () => pw.wrap });
      return [
        h('div', { class: 'grid' },
          ctl('fromName', 'Sender name', h('input', { type: 'text', value: value('fromName') || '' })),
          ctl('fromAddress', 'Sender address', h('input', { type: 'email', value: value('fromAddress') || '', placeholder: 'hello@example.com' }))),
        h('fieldset', {}, h('legend', {}, 'SMTP server'),
          h('div', { class: 'grid' },
            ctl('smtp.host', 'Host', h('input', { type: 'text', value: value('smtp.host') || '', placeholder: 'smtp.example.com' })),
            ctl('smtp.port', 'Port', h('input', { type: 'number', min: 1, max: 65535, value: value('smtp.port') || '' })),
            ctl('smtp.tls', 'Encryption', h('select', {}, [['opportunistic', 'STARTTLS when offered'], ['starttls', 'STARTTLS, required'], ['tls', 'TLS from the start (port 465)'], ['none', 'None']]
              .map(([v, t]) => h('option', { value: v, selected: v === (value('smtp.tls') || 'opportunistic') }, t))))),
          h('div', { class: 'grid' },
            ctl('smtp.username', 'User name', h('input', { type: 'text', value: value('smtp.username') || '', autocomplete: 'off' })),
            pwField)),
      ];
    },
    after: async () => {
      const status = statusBox();
      const test = button('Send a test mail', { iconName: 'send', kind: 'secondary', id: 'mail-test' });
      test.addEventListener('click', () => busy(test, async () => {
        status.clear();
        try {
          await api('POST', '/api/settings/mail/test');
          status.set('The test mail went out to the owner\'s address. Check that it arrived (and not in spam).', 'ok');
        } catch (e) {
          status.set(`The test mail could not be sent: ${errorText(e)}`, 'error');
        }
      }));
      return h('div', {},
        h('section', { class: 'panel', id: 'mail-test-panel' }, h('h2', {}, 'Test'),
          h('p', { class: 'muted' }, 'Save first; the test uses the saved settings and writes to the owner\'s address.'), status, test),
        await outbox());
    },
  }),
};

/** outbox lists the mail folio sent, newest first, with its delivery state (GET /api/mail/outbox). */
async function outbox() {
  const body = h('div', {});
  const load = async (page = 1) => {
    const res = await api('GET', `/api/mail/outbox${query({ page, limit: 10 })}`);
    replace(body, res.items.length === 0 ? h('p', { class: 'muted empty' }, 'No mail sent yet. Confirmations and contact messages appear here once they go out.')
      : listTable('outbox-table', [{ label: 'Subject' }, { label: 'To', cls: 'col-wide' }, { label: 'Status', cls: 'col-status' }, { label: 'Created', cls: 'col-date' }],
        res.items.map((m) => h('tr', {},
          cellMain(m.subject, null, m.lastError),
          cellText('To', m.recipients),
          h('td', { 'data-label': 'Status' }, badge(m.status)),
          cellDate('Created', m.createdAt)))),
    pager(res.pagination, load));
  };
  await load();
  return h('section', { class: 'panel flush', id: 'outbox-panel' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Sent mail')), body);
}

// ---- Contact form ----

export const contact = {
  render: () => settingsForm({
    group: 'contact', title: 'Contact form',
    intro: 'Messages from your site\'s contact form are kept in the Inbox and forwarded to this address.',
    fields: (ctl, value) => [
      ctl('recipient', 'Forward messages to', h('input', { type: 'email', value: value('recipient') || '', placeholder: 'you@example.com' }),
        { hint: 'Empty: the owner\'s account email. Booking notices go here too.' }),
    ],
  }),
};

// ---- Newsletter ----

export const newsletter = {
  render: () => settingsForm({
    group: 'newsletter', title: 'Newsletter',
    intro: 'The welcome mail a subscriber gets after confirming. {site} stands for the site\'s name; every mail ends with the unsubscribe link.',
    fields: (ctl, value) => {
      const text = h('textarea', { rows: 8, maxlength: 5000, placeholder: 'Thank you: your subscription to {site} is confirmed, and new posts will come to this address.' });
      text.value = value('welcomeText') || '';
      return [
        ctl('welcomeSubject', 'Subject', h('input', { type: 'text', maxlength: 200, value: value('welcomeSubject') || '', placeholder: 'Welcome to {site}' }),
          { hint: 'Empty: Welcome to <site name>.' }),
        ctl('welcomeText', 'Text', text, { hint: 'Plain text; a blank line starts a paragraph. Empty: the text shown in grey.', read: () => text.value }),
      ];
    },
  }),
};

// ---- Analytics ----

export const analytics = {
  render: () => settingsForm({
    group: 'analytics', title: 'Analytics',
    intro: 'folio counts visits without cookies and keeps no address. Here: what the tracking tag may keep in a visitor\'s browser, and how long the figures are kept.',
    fields: (ctl, value) => [
      h('div', { class: 'grid' },
        ctl('storage', 'On the visitor\'s device', h('select', {}, [['local', 'A random id (counts returning visitors)'], ['none', 'Nothing']]
          .map(([v, t]) => h('option', { value: v, selected: v === (value('storage') || 'local') }, t))),
        { hint: 'The id lives in the browser\'s localStorage (folio_vid), never in a cookie.' }),
        ctl('retentionDays', 'Keep the figures for (days)', h('input', { type: 'number', min: 1, value: value('retentionDays') || '' }), { hint: 'Raw page views and events older than this are deleted; empty keeps everything.' })),
      h('div', { class: 'grid' },
        checkbox(ctl, 'reports.weekly', 'Mail me a weekly report', value('reports.weekly'), 'On Mondays: last week beside the week before.'),
        checkbox(ctl, 'reports.monthly', 'Mail me a monthly report', value('reports.monthly'), 'On the 1st: last month beside the month before.')),
      h('div', { class: 'grid' },
        ctl('alert.visitorsPerHour', 'Traffic alert: visitors in an hour', h('input', { type: 'number', min: 0, value: value('alert.visitorsPerHour') || '' }), { hint: 'Empty or 0: off.' }),
        ctl('alert.multiple', 'Traffic alert: times the usual hour', h('input', { type: 'number', min: 0, step: '0.5', value: value('alert.multiple') || '' }), { hint: 'From 1.5; empty or 0: off. At most one alert every few hours.' })),
    ],
    after: async () => h('div', {}, h('section', { class: 'panel', id: 'tracking-panel' }, h('h2', {}, 'Tracking tag'),
      h('p', {}, 'Add this tag to every page of your site, before </body>:'),
      h('pre', { class: 'snippet' }, h('code', { id: 'tracking-snippet' }, trackingSnippet())), copySnippet()),
    await sharesPanel(), importPanel()),
  }),
};

/** checkbox is a boolean setting: checked or not. */
function checkbox(ctl, path, label, checked, hint) {
  const box = h('input', { type: 'checkbox', checked: !!checked });
  return ctl(path, label, box, { hint, read: () => box.checked });
}

/**
 * sharesPanel lists the read-only links to the analytics page (GET /api/analytics/shares), makes
 * one — its address is shown once — and revokes them.
 */
async function sharesPanel() {
  const panel = h('section', { class: 'panel', id: 'shares-panel' });
  const draw = async (made) => {
    const { shares } = await api('GET', '/api/analytics/shares');
    const password = h('input', { type: 'password', id: 'share-new-password', autocomplete: 'new-password', placeholder: 'Optional, 8 characters or more' });
    const status = h('p', { class: 'status', role: 'status', id: 'share-made' }, made ? ['New link (copy it now, it is not shown again): ', h('code', {}, made)] : '');
    const create = h('button', { type: 'button', id: 'share-create' }, 'Make a link');
    create.addEventListener('click', async () => {
      try {
        const res = await api('POST', '/api/analytics/shares', password.value ? { password: password.value } : {});
        await draw(res.url);
      } catch (e) {
        replace(status, e.describe ? e.describe() : String(e));
        status.className = 'status error';
      }
    });
    replace(panel, h('h2', {}, 'Shared links'),
      h('p', { class: 'muted' }, 'A link shows the analytics page read-only to anyone who has it (and its password), without an account.'),
      h('div', { class: 'row' }, h('label', { for: 'share-new-password' }, 'Password'), password, create), status,
      shares.length ? h('ul', { id: 'share-list' }, shares.map((sh) => {
        const revoke = h('button', { type: 'button', class: 'secondary small', 'data-share': sh.id }, 'Revoke');
        revoke.addEventListener('click', async () => { await api('DELETE', `/api/analytics/shares/${encodeURIComponent(sh.id)}`); await draw(); });
        return h('li', {}, `Made ${new Date(sh.createdAt).toLocaleString()}${sh.password ? ', with a password' : ''} `, revoke);
      })) : h('p', { class: 'muted small', id: 'share-list' }, 'No shared links.'));
  };
  try {
    await draw();
  } catch (e) {
    replace(panel, h('h2', {}, 'Shared links'), h('p', { class: 'muted' }, e.describe ? e.describe() : String(e)));
  }
  return panel;
}

/** importPanel sends another tool's export to POST /api/analytics/import. */
function importPanel() {
  const file = h('input', { type: 'file', id: 'import-file', accept: '.zip,.csv' });
  const format = h('select', { id: 'import-format' }, h('option', { value: 'plausible' }, 'Plausible (the export zip)'), h('option', { value: 'umami' }, 'Umami (CSV)'));
  const status = h('p', { class: 'status', role: 'status', id: 'import-status' });
  const send = h('button', { type: 'button', id: 'import-send' }, 'Import');
  send.addEventListener('click', async () => {
    if (!file.files.length) return;
    status.className = 'status';
    replace(status, 'Importing…');
    try {
      const res = await fetch(`/api/analytics/import?format=${format.value}`, { method: 'POST', body: file.files[0], credentials: 'same-origin',
        headers: { 'Content-Type': 'application/octet-stream', Accept: 'application/json' } });
      const body = await res.json();
      if (!res.ok) throw new Error(body.error ? body.error.message : `HTTP ${res.status}`);
      replace(status, `Imported ${body.days} days (${body.pageViews} page views)${body.skippedDays.length ? `; ${body.skippedDays.length} days already had figures and were left out` : ''}.`);
    } catch (e) {
      status.className = 'status error';
      replace(status, String(e.message || e));
    }
  });
  return h('section', { class: 'panel', id: 'import-panel' }, h('h2', {}, 'Import'),
    h('p', { class: 'muted' }, 'Daily figures from Plausible or Umami, for the days folio has none of. Imported days are marked in the reports.'),
    h('div', { class: 'grid' }, field('Exported from', format), field('File', file, 'A Plausible export zip (imported_*.csv) or an Umami CSV.')),
    h('p', {}, send), status);
}
