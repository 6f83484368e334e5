// Keys of the adjudication page: j/k move between disagreements, n to the next open one,
// h/← and l/→ take the left / right annotator's value, e writes the gold value, u undoes the
// last decision, ? shows the keys. Without JavaScript every button works as a plain form.
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.disagreement"));
  var current = rows.findIndex(function (r) { return r.classList.contains("selected"); });

  function select(i) {
    if (!rows.length) return;
    i = Math.max(0, Math.min(rows.length - 1, i));
    rows.forEach(function (r) { r.classList.remove("selected"); r.removeAttribute("aria-current"); });
    current = i;
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

  if (current >= 0) select(current);
  rows.forEach(function (row, i) {
    row.addEventListener("click", function (event) {
      if (!event.target.closest("button, input, label, a")) select(i);
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var typing = event.target.closest && event.target.closest("input, textarea, select");
    if (typing) {
      if (event.key === "Escape" && current >= 0) { event.target.blur(); select(current); }
      return;
    }
    var key = event.key;
    if (key === "j") select(current + 1);
    else if (key === "k") select(current < 0 ? 0 : current - 1);
    else if (key === "n") {
      for (var step = 1; step <= rows.length; step++) {
        var i = (Math.max(current, 0) + step) % rows.length;
        if (!rows[i].classList.contains("settled")) { select(i); break; }
      }
    }
    else if (key === "h" || key === "ArrowLeft") press("button.take-left");
    else if (key === "l" || key === "ArrowRight") press("button.take-right");
    else if (key === "e") { if (current >= 0) { var input = rows[current].querySelector("form.write input[name=value]"); if (input) input.focus(); } }
    else if (key === "u") { var undo = document.getElementById("undo-decision"); if (undo && !undo.disabled) undo.click(); }
    else if (key === "?") { var help = document.getElementById("keys-help"); if (help) { help.open = true; help.querySelector("summary").focus(); } }
    else return;
    event.preventDefault();
  });
})();
