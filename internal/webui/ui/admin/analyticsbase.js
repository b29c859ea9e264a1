// Where the analytics page reads its figures: /api/analytics for the signed-in owner, or a shared
// link's /api/analytics/shared/<token> (docs/api.md, "Shared dashboards"), which answers only the
// report, the breakdowns and realtime.
export let base = '/api/analytics';

/** setBase points the analytics page at a shared link's routes. */
export function setBase(b) {
  base = b;
}

/** isShared reports whether the page shows a shared link (read-only, no owner-only cards). */
export function isShared() {
  return base !== '/api/analytics';
}
