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
  w.folio = { track: function (name, props) { send({ type: 'event', name: name, props: props }); }, visitor: v || '' };
  pv();
})(window, document);
