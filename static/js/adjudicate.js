// Keys of the adjudication page: j/k move between disagreements, n to the next open one,
// 1-9 take the value of the annotator with that number; with two annotators h/← and l/→
// take the left / right one's, with more h/l (or the arrows) move the aim between their
// values and Enter takes the one aimed at, m the majority's; e writes the gold value, u undoes
// the last decision, ? shows the keys. Without JavaScript every button works as a plain form.
// Every decision is a form posted and answered by a new page: keys typed before this script
// runs (keys-while-loading.js keeps them) or after a decision was sent (kept here for the page
// that answers it) are applied there, in order, never on a page already on its way out.
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.disagreement"));
  var current = rows.findIndex(function (r) { return r.classList.contains("selected"); });
  var aim = -1; // index among the current row's take buttons, -1: none aimed at yet

  function takes() {
    return current < 0 ? [] : Array.prototype.slice.call(rows[current].querySelectorAll("button.take"));
  }

  function aimAt(i) {
    var buttons = takes();
    buttons.forEach(function (b) { b.classList.remove("aimed"); });
    if (!buttons.length) return;
    aim = (i + buttons.length) % buttons.length;
    buttons[aim].classList.add("aimed");
  }

  function select(i) {
    if (!rows.length) return;
    i = Math.max(0, Math.min(rows.length - 1, i));
    takes().forEach(function (b) { b.classList.remove("aimed"); });
    rows.forEach(function (r) { r.classList.remove("selected"); r.removeAttribute("aria-current"); });
    current = i;
    aim = -1;
    rows[i].classList.add("selected");
    rows[i].setAttribute("aria-current", "true");
    rows[i].focus({ preventScroll: true });
    rows[i].scrollIntoView({ block: "nearest" });
  }

  function press(selector) {
    if (current < 0) return;
    var button = rows[current].querySelector(selector);
    if (button) button.click();
  }

  // Two annotators: h and l take a side at once, as before. More: they aim, Enter takes.
  var sides = document.querySelectorAll(".disagreements-table thead th[data-side]").length;

  if (current >= 0) select(current);
  rows.forEach(function (row, i) {
    row.addEventListener("click", function (event) {
      if (!event.target.closest("button, input, label, a")) select(i);
    });
  });

  // Keys typed after a form was sent belong to the page that answers it (this path, within
  // a few seconds): kept in the tab's session storage, replayed there.
  var CARRIED = "gfrc-adjudication-keys", sent = false;
  document.addEventListener("submit", function () { sent = true; });

  function carry(keys) {
    try {
      var kept = JSON.parse(sessionStorage.getItem(CARRIED) || "null");
      var before = kept && kept.path === location.pathname ? kept.keys : [];
      sessionStorage.setItem(CARRIED, JSON.stringify({ path: location.pathname, at: Date.now(), keys: before.concat(keys) }));
    } catch (e) { /* no storage: the keys are lost as before */ }
  }

  function carried() {
    try {
      var kept = JSON.parse(sessionStorage.getItem(CARRIED) || "null");
      sessionStorage.removeItem(CARRIED);
      return kept && kept.path === location.pathname && Date.now() - kept.at < 30000 ? kept.keys : [];
    } catch (e) { return []; }
  }

  function act(key) {
    var left = key === "h" || key === "ArrowLeft", right = key === "l" || key === "ArrowRight";
    if (key === "j") select(current + 1);
    else if (key === "k") select(current < 0 ? 0 : current - 1);
    else if (key === "n") {
      for (var step = 1; step <= rows.length; step++) {
        var i = (Math.max(current, 0) + step) % rows.length;
        if (!rows[i].classList.contains("settled")) { select(i); break; }
      }
    }
    else if (/^[1-9]$/.test(key)) press('button.take[data-side="' + key + '"]');
    else if (sides <= 2 && left) press('button.take[data-side="1"]');
    else if (sides <= 2 && right) press('button.take[data-side="2"]');
    else if (left || right) { if (current >= 0) aimAt(aim < 0 ? (left ? -1 : 0) : aim + (left ? -1 : 1)); }
    else if (key === "Enter" && aim >= 0 && sides > 2) { var aimed = takes()[aim]; if (aimed) aimed.click(); }
    else if (key === "m") press("button.take[data-majority]");
    else if (key === "e") { if (current >= 0) { var input = rows[current].querySelector("form.write input[name=value]"); if (input) input.focus(); } }
    else if (key === "u") { var undo = document.getElementById("undo-decision"); if (undo && !undo.disabled) undo.click(); }
    else if (key === "?") { var help = document.getElementById("keys-help"); if (help) { help.open = true; help.querySelector("summary").focus(); } }
    else return false;
    return true;
  }

  function replay(keys) {
    for (var i = 0; i < keys.length; i++) {
      if (sent) { carry(keys.slice(i)); return; }
      act(keys[i]);
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var typing = event.target.closest && event.target.closest("input, textarea, select");
    if (typing) {
      if (event.key === "Escape" && current >= 0) { event.target.blur(); select(current); }
      return;
    }
    if (sent) { carry([event.key]); event.preventDefault(); return; }
    if (act(event.key)) event.preventDefault();
  });

  var early = window.gfrcKeysWhileLoading;
  var waiting = carried().concat(early ? early.keys.splice(0) : []);
  if (early) early.live = true;
  replay(waiting);
})();
