/* Workspace, loaded in <head> before any control is shown: until htmx has made the page's
 * controls live (its htmx:load on <body>, just after DOMContentLoaded), a click on a grade, a
 * label or a WC badge would post its form natively, a whole page round trip. Such clicks are
 * held here, in order, and annotate.js replays them in its one queue of keys once the page is
 * live, so they act as htmx controls from the moment they are shown.
 */
(function () {
  "use strict";
  var held = window.gfrcHeld = {
    live: false,
    events: [],
    push: function (item) { held.events.push(item); }, // annotate.js takes this over
    onLive: null
  };
  document.addEventListener("click", function (e) {
    if (held.live || e.button !== 0) return;
    var el = e.target.closest && e.target.closest("#workspace button, #workspace [hx-get]");
    if (!el) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    held.push({ click: el });
  }, true);
  // htmx never came (blocked, offline): the controls are plain forms and links, as without
  // JavaScript; what was held goes that way
  window.addEventListener("load", function () {
    if (held.live || window.htmx) return;
    held.live = true;
    held.events.splice(0).forEach(function (item) { if (item.click) item.click.click(); });
  });
  document.addEventListener("htmx:load", function (e) {
    if (e.target !== document.body || held.live) return;
    held.live = true;
    if (held.onLive) held.onLive();
  });
})();
