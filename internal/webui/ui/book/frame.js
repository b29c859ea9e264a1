// In a frame (BOOKING_EMBED_ORIGINS), the booking page posts its height to the host page
// (/book/embed.js listens and sizes the frame). The message holds nothing but a number, so any
// parent may read it.
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
