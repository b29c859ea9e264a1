// The booking funnel as analytics events (docs/api.md, "Analytics"; plus manage_opened,
// booking_rescheduled and booking_cancelled), without cookies: a random id per tab session.
// Leaving before the booking completes is reported once as an abandonment at the last step.

/** funnel is what the abandonment report needs: the last step, whether the visit ended, and
 * whether it is the manage view (which is no funnel). */
export const funnel = { lastStep: '', completed: false, managing: false };

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
export function track(name, props) {
  if (name !== 'booking_error') funnel.lastStep = name;
  const body = JSON.stringify({ type: 'event', path: '/book', name, props, visitorId: visitor, title: document.title });
  fetch('/api/analytics/collect', { method: 'POST', body, keepalive: true, credentials: 'omit', headers: { 'Content-Type': 'application/json' } })
    .catch(() => {});
}

export function trackError(group) {
  track('booking_error', { group, step: funnel.lastStep || 'modal_opened' });
}

addEventListener('pagehide', () => {
  if (funnel.completed || !funnel.lastStep || funnel.managing) return;
  const body = JSON.stringify({ type: 'event', path: '/book', name: 'booking_error', visitorId: visitor,
    props: { group: 'abandonment', step: funnel.lastStep } });
  navigator.sendBeacon('/api/analytics/collect', new Blob([body], { type: 'text/plain' }));
  funnel.completed = true; // report once
});
