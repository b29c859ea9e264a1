/* folio automatic measurements, after script.js, each opt-in by an attribute of this tag:
   data-outbound (links to other hosts), data-downloads[="pdf,zip"] (links to files), data-404
   (this page is a "not found" page). Sent as events through window.folio.track. */
(function (w, d) {
  var ds = d.currentScript.dataset, x = (ds.downloads || 'pdf,zip,gz,tgz,dmg,exe,msi,pkg,deb,rpm,apk,epub,csv,xlsx,docx,pptx,odt,mp3,mp4,mov,iso').split(/[\s,]+/);
  function t(name, props) { if (w.folio) w.folio.track(name, props); }
  if ('outbound' in ds || 'downloads' in ds) d.addEventListener('click', function (e) {
    var a = e.target && e.target.closest && e.target.closest('a[href]'), p;
    if (!a || !/^https?:$/.test(a.protocol)) return;
    p = a.pathname.lastIndexOf('.');
    if ('downloads' in ds && p > 0 && x.indexOf(a.pathname.slice(p + 1).toLowerCase()) >= 0) t('file_download', { url: a.href.slice(0, 256) });
    else if ('outbound' in ds && a.host !== location.host) t('outbound_link', { url: a.href.slice(0, 256) });
  }, true);
  if ('404' in ds) w.folio ? t('not_found') : w.addEventListener('load', function () { t('not_found'); });
})(window, document);
