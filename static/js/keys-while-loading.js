/* Loaded in <head>, not deferred, on pages whose keys a deferred script handles (the
 * adjudication page): keys typed while the page is still loading -- after a decision the page
 * that shows it comes back from the server, and its script runs only once the whole page is
 * parsed -- are kept in order here, and that script replays them once it is live. Without it
 * such a key would do nothing and say nothing.
 */
(function () {
  "use strict";
  var early = window.gfrcKeysWhileLoading = { keys: [], live: false };
  document.addEventListener("keydown", function (event) {
    if (early.live || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest && event.target.closest("input, textarea, select")) return;
    early.keys.push(event.key);
    event.preventDefault();
  }, true);
})();
