// Embed folio's booking page in another site:
//
//   <script src="<folio's origin>/book/embed.js" async></script>
//
// puts an iframe of <folio's origin>/book where the script tag is (or inside the
// element named by data-target="#id"), and keeps its height equal to the page's, which the
// booking page reports with postMessage. The embedding site's origin must be listed in folio's
// BOOKING_EMBED_ORIGINS, or the browser refuses to show the frame (CSP frame-ancestors).
(() => {
  const script = document.currentScript;
  if (!script) return;
  const origin = new URL(script.src).origin;
  const frame = document.createElement('iframe');
  const src = new URL(`${origin}/book`);
  // The tracker's anonymous id on this site (folio_vid), so a booking is attributed to the
  // visit that led to it (docs/api.md, "Conversions"). Nothing when the tracker keeps none.
  try {
    const vid = localStorage.getItem('folio_vid');
    if (vid) src.searchParams.set('vid', vid);
  } catch (e) { /* storage blocked */ }
  frame.src = src.href;
  frame.title = script.dataset.title || 'Book a meeting';
  frame.loading = 'lazy';
  frame.style.width = '100%';
  frame.style.border = '0';
  frame.style.minHeight = '36rem';
  frame.setAttribute('allow', 'clipboard-write');
  const target = script.dataset.target ? document.querySelector(script.dataset.target) : null;
  if (target) target.appendChild(frame);
  else script.insertAdjacentElement('afterend', frame);
  window.addEventListener('message', (ev) => {
    // Only folio's own page may resize its frame, and only with a sane number.
    if (ev.origin !== origin || ev.source !== frame.contentWindow) return;
    const d = ev.data;
    if (d && d.type === 'folio-book:height' && Number.isFinite(d.height) && d.height > 0 && d.height < 20000) {
      frame.style.height = `${Math.ceil(d.height)}px`;
      frame.style.minHeight = '0';
    }
  });
})();
