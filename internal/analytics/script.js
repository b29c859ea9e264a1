/* folio analytics. Mode local (keep on): one random id in localStorage (folio_vid), nothing else;
   mode none (keep off): nothing stored, an earlier id removed. */
(function (w, d) {
  var s = d.currentScript, u = s.src.replace(/script\.js([?#].*)?$/, 'collect'), n = navigator, k = 'folio_vid', keep = true, v, last, r = d.referrer;
  try {
    if (!keep) localStorage.removeItem(k);
    else if (!(v = localStorage.getItem(k))) {
      v = w.crypto && crypto.randomUUID ? crypto.randomUUID() : Math.random().toString(36).slice(2) + Date.now().toString(36);
      localStorage.setItem(k, v);
    }
  } catch (e) {}
  function send(o) {
    o.path = location.pathname + location.search;
    if (v) o.visitorId = v;
    var b = JSON.stringify(o);
    if (!(n.sendBeacon && n.sendBeacon(u, b))) fetch(u, { method: 'POST', body: b, keepalive: true, credentials: 'omit' }).catch(function () {});
  }
  function pv() {
    var p = location.pathname + location.search;
    if (p === last) return;
    last = p;
    send({ type: 'pageview', title: d.title, referrer: r });
    r = '';
  }
  ['pushState', 'replaceState'].forEach(function (m) {
    var f = history[m];
    history[m] = function () { var x = f.apply(this, arguments); setTimeout(pv); return x; };
  });
  w.addEventListener('popstate', pv);
  /* Automatic measurements, each opt-in by an attribute of this script tag: data-outbound (clicks
     on links to other hosts), data-downloads (clicks on links to files; the attribute may list the
     extensions, default pdf,zip,…) and data-404 (this page is a "not found" page). */
  var ds = s.dataset, exts = (ds.downloads || 'pdf,zip,gz,tgz,dmg,exe,msi,pkg,deb,rpm,apk,epub,mobi,csv,xlsx,docx,pptx,odt,mp3,mp4,mov,avi,iso').split(/[\s,]+/);
  if (ds.outbound !== undefined || ds.downloads !== undefined) d.addEventListener('click', function (e) {
    var a = e.target && e.target.closest && e.target.closest('a[href]'), h;
    if (!a || !/^https?:$/.test(a.protocol)) return;
    h = a.pathname.split('.').pop().toLowerCase();
    if (ds.downloads !== undefined && a.pathname.indexOf('.') > 0 && exts.indexOf(h) >= 0) send({ type: 'event', name: 'file_download', props: { url: a.href.slice(0, 256) } });
    else if (ds.outbound !== undefined && a.host !== location.host) send({ type: 'event', name: 'outbound_link', props: { url: a.href.slice(0, 256) } });
  }, true);
  if (ds['404'] !== undefined) setTimeout(function () { send({ type: 'event', name: 'not_found' }); });
  /* visitor: the id to send as X-Folio-Visitor with a booking, contact message or subscription
     ('' in mode none), so it is attributed to this visit. */
  w.folio = { track: function (name, props) { send({ type: 'event', name: name, props: props }); }, visitor: v || '',
    notFound: function () { send({ type: 'event', name: 'not_found' }); } };
  pv();
})(window, document);
