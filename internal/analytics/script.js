/* folio analytics: page views, SPA navigations and named events; only a random id is kept. */
(function (w, d) {
  var s = d.currentScript, u = s.src.replace(/script\.js([?#].*)?$/, 'collect'), n = navigator, k = 'folio_vid', v, last, r = d.referrer;
  try {
    v = localStorage.getItem(k);
    if (!v) {
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
  w.folio = { track: function (name, props) { send({ type: 'event', name: name, props: props }); } };
  pv();
})(window, document);
