// Embed folio's subscribe form in another site:
//
//   <script src="<folio's origin>/subscribe/embed.js" data-source="blog sidebar" async></script>
//
// puts an iframe of <folio's origin>/subscribe where the script tag is (or inside the element
// named by data-target="#id") and keeps its height equal to the page's. data-source, when set,
// is stored as the subscriber's source. The embedding site's origin must be listed in folio's
// BOOKING_EMBED_ORIGINS (the same list as the booking page's), or the browser refuses to show
// the frame (CSP frame-ancestors).
(() => {
  const script = document.currentScript;
  if (!script) return;
  const origin = new URL(script.src).origin;
  const frame = document.createElement('iframe');
  const src = new URL(`${origin}/subscribe`);
  if (script.dataset.source) src.searchParams.set('source', script.dataset.source);
  // The tracker's anonymous id on this site (folio_vid), so a subscription is attributed to the
  // visit that led to it (docs/api.md, "Conversions").
  try {
    const vid = localStorage.getItem('folio_vid');
    if (vid) src.searchParams.set('vid', vid);
  } catch (e) { /* storage blocked */ }
  frame.src = src.href;
  frame.title = script.dataset.title || 'Subscribe';
  frame.loading = 'lazy';
  frame.style.width = '100%';
  frame.style.border = '0';
  frame.style.minHeight = '18rem';
  const target = script.dataset.target ? document.querySelector(script.dataset.target) : null;
  if (target) target.appendChild(frame);
  else script.insertAdjacentElement('afterend', frame);
  window.addEventListener('message', (ev) => {
    // Only folio's own page may resize its frame, and only with a sane number.
    if (ev.origin !== origin || ev.source !== frame.contentWindow) return;
    const d = ev.data;
    if (d && d.type === 'folio-subscribe:height' && Number.isFinite(d.height) && d.height > 0 && d.height < 20000) {
      frame.style.height = `${Math.ceil(d.height)}px`;
      frame.style.minHeight = '0';
    }
  });
})();
