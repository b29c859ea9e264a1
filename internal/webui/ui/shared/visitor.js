// The tracker's anonymous id of the visit that led to this page (docs/api.md, "Conversions"):
// ?vid= as the booking and subscribe embeds pass the embedding site's folio_vid, or folio_vid
// itself when the tracker runs on this origin. Sent as X-Folio-Visitor with a booking or a
// subscription, so it is attributed to that visit.

/** visitorHeaders returns {'X-Folio-Visitor': id}, or {} without a valid id. */
export function visitorHeaders() {
  let id = new URLSearchParams(location.search).get('vid');
  try {
    id = id || localStorage.getItem('folio_vid');
  } catch {
    /* storage blocked */
  }
  return id && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? { 'X-Folio-Visitor': id } : {};
}
