/* Workspace: word selection and keyboard shortcuts. Everything else is htmx and plain forms.
 *
 * Words are <span class="w" data-i> inside <section class="turn" data-turn>, made from the
 * server's runs of text (expand); one of them has tabindex 0 (roving focus). A mouse drag, a click + shift-click, or Shift+arrows then Enter
 * mark a nugget: a POST through htmx.ajax to the create URL. Shortcut keys press the page's
 * own buttons (grades, labels, accept/dismiss, undo), so the server stays the only judge.
 * Keys go through one queue, in the order typed: see "one queue of keys" below.
 */
(function () {
  "use strict";
  var ws = document.getElementById("workspace");
  if (!ws || !window.htmx) return;

  var anchor = null; // {turn, i}: where a selection starts
  var current = null; // {turn, i}: the focused word
  var inFlight = 0; // edits sent whose answers are not on the page yet
  var queued = []; // keys typed while something was waiting, oldest first
  var drainAt = 0; // a drain is scheduled (setTimeout id)
  var restore = null;

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function turnEl(id) { return document.getElementById("turn-" + id); }
  function wordAt(pos) { var t = pos && turnEl(pos.turn); return t && $('.w[data-i="' + pos.i + '"]', t); }
  function posOf(w) { return { turn: w.closest(".turn").dataset.turn, i: +w.dataset.i }; }
  function allWords() { return $$("#turns .w"); }

  // Words come as runs of text: <span class="lazy" data-i> holds the server's words one space
  // apart, numbered from data-i (in the turn) and the turn's data-offset. expand makes them
  // word spans: at once in every turn but a huge one (data-lazy-words), where only the
  // nuggets and the suggested lines are, the rest when the pointer or the keyboard reaches them.
  function expand(lazy) {
    if (!lazy || !lazy.classList.contains("lazy")) return;
    var offset = +lazy.closest(".turn").dataset.offset;
    var frag = document.createDocumentFragment();
    lazy.textContent.split(" ").forEach(function (word, k) {
      var i = +lazy.dataset.i + k, w = document.createElement("span");
      w.className = "w"; w.tabIndex = -1; w.dataset.i = i; w.dataset.p = offset + i + 1;
      w.title = "word " + (offset + i + 1); w.textContent = word;
      if (k) frag.appendChild(document.createTextNode(" "));
      frag.appendChild(w);
    });
    lazy.replaceWith(frag);
  }
  function expandNear(w) { // the runs either side of a word (or of its mark, past the WC badge) and at the lines beside it
    var el = w.closest("mark") || w, after = el.nextElementSibling, line = lineOf(w);
    if (after && after.classList.contains("wc")) after = after.nextElementSibling;
    expand(el.previousElementSibling); expand(after);
    var prev = line && line.previousElementSibling, next = line && line.nextElementSibling;
    if (prev) { var p = $$(".lazy", prev); expand(p[p.length - 1]); }
    if (next) expand($(".lazy", next));
  }
  function expandIn(root) {
    $$(".lazy", root).forEach(function (l) {
      // a huge turn: its nuggets and suggested lines now, the runs beside them when reached
      var t = l.closest(".turn");
      if (t && (!t.hasAttribute("data-lazy-words") || l.closest("mark, .candidate"))) expand(l);
    });
  }
  // The page's runs become word spans in the task after DOMContentLoaded, once htmx has made
  // the controls live: htmx then walks 4,000 elements, not 7,000 (a 300-nugget page), and the
  // page is interactive sooner. A key or the pointer needing words before then makes them at
  // once (wordsReady).
  var expanded = false;
  function expandRuns() {
    if (expanded) return;
    expanded = true;
    var t = document.getElementById("turns");
    if (t) expandIn(t);
    ensureRoving();
    if (window.performance && performance.mark) performance.mark("gfrc:words");
  }
  function wordsReady() { expandRuns(); }
  if (document.readyState === "complete") expandRuns();
  else { // a deferred script runs before DOMContentLoaded ("interactive"); load is the backstop
    document.addEventListener("DOMContentLoaded", function () { setTimeout(expandRuns, 0); });
    window.addEventListener("load", expandRuns);
  }
  // A nugget's mark comes back (morphed) with its words as the server's run of text, where the
  // page has made them word spans. Same id, same words: take its attributes (grade, title,
  // selection) and keep the words, so a grade re-makes no word spans and keeps the focus.
  if (window.Idiomorph) Idiomorph.defaults.callbacks.beforeNodeMorphed = function (from, to) {
    if (from.nodeName !== "MARK" || to.nodeName !== "MARK" || from.textContent !== to.textContent) return true;
    var k;
    for (k = from.attributes.length - 1; k >= 0; k--) {
      if (!to.hasAttribute(from.attributes[k].name)) from.removeAttribute(from.attributes[k].name);
    }
    for (k = 0; k < to.attributes.length; k++) {
      var a = to.attributes[k];
      if (from.getAttribute(a.name) !== a.value) from.setAttribute(a.name, a.value);
    }
    return false;
  };

  // htmx:load comes once per element an answer put on the page (a turn, a line, the editor, a
  // row of Table 1): only those are looked at, so the work follows the edit, not the page.
  document.body.addEventListener("htmx:load", function (evt) {
    var el = evt.target;
    if (el !== document.body && el.querySelectorAll && expanded) expandIn(el); // the page itself: expandRuns
  });
  document.addEventListener("mouseover", function (e) {
    var l = e.target.closest && e.target.closest("#turns .lazy");
    if (l) expand(l);
  });

  // "Show word positions": a class on the workspace (a :has() rule on the checkbox made every
  // answer restyle the whole column); the box may come back checked from the browser's history.
  function showPositions() {
    var box = document.getElementById("show-positions");
    ws.classList.toggle("positions", !!(box && box.checked));
  }
  document.addEventListener("change", function (e) { if (e.target.id === "show-positions") showPositions(); });
  showPositions();

  function flash(text) {
    var f = document.getElementById("flash");
    if (f) { f.textContent = text; f.className = "flash error"; }
  }

  function paint() {
    $$("#turns .w.sel").forEach(function (w) { w.classList.remove("sel"); });
    if (!anchor || !current || anchor.turn !== current.turn) return;
    var lo = Math.min(anchor.i, current.i), hi = Math.max(anchor.i, current.i);
    $$(".w", turnEl(anchor.turn)).forEach(function (w) {
      var i = +w.dataset.i;
      if (i >= lo && i <= hi) w.classList.add("sel");
    });
  }

  function focusWord(w, extend, noScroll) {
    if (!w) return;
    expandNear(w);
    $$('#turns .w[tabindex="0"]').forEach(function (o) { if (o !== w) o.tabIndex = -1; });
    w.tabIndex = 0;
    current = posOf(w);
    if (!extend || !anchor || anchor.turn !== current.turn) anchor = { turn: current.turn, i: current.i };
    w.focus({ preventScroll: !!noScroll });
    paint();
  }

  function selectedId() {
    // #selected-holder comes with every answer (the column itself only when it is re-rendered)
    var h = document.querySelector('#selected-holder input[name="selected"]');
    if (h) return h.value || "";
    var t = document.getElementById("turns");
    return t ? t.dataset.selected || "" : "";
  }

  // An edit's answer re-renders only the turns it changed, with the server's selection marks:
  // make the marks and the label forms' "selected" field of the other turns agree with the
  // selected nugget, when the selection is not the one last synced (else nothing is left to do).
  var synced = null;
  function syncSelection() {
    var id = selectedId();
    var t = document.getElementById("turns");
    if (id === synced && t && t.dataset.selected === id) return;
    synced = id;
    if (t) t.dataset.selected = id;
    $$("#turns mark.nugget.selected").forEach(function (m) { if (m.dataset.nugget !== id) m.classList.remove("selected"); });
    $$("#turns a.wc[aria-current]").forEach(function (a) { if (a.dataset.nugget !== id) a.removeAttribute("aria-current"); });
    if (id) {
      $$('#turns mark.nugget[data-nugget="' + id + '"]').forEach(function (m) { m.classList.add("selected"); });
      var b = document.getElementById("badge-" + id);
      if (b) b.setAttribute("aria-current", "true");
    }
    $$('#turns .labels input[name="selected"]').forEach(function (i) { i.value = id; });
  }

  function mark(turn, a, b) {
    var lo = Math.min(a, b), hi = Math.max(a, b);
    anchor = null;
    htmx.ajax("POST", ws.dataset.createUrl, {
      source: turnEl(turn), target: "#turns", swap: "outerHTML",
      values: { turn: turn, start: lo, end: hi, selected: selectedId() }
    });
    current = { turn: turn, i: hi };
  }

  function press(el) { if (el) { el.click(); return true; } return false; }

  // -- mouse ------------------------------------------------------------------------------
  document.addEventListener("mouseup", function (e) {
    if (e.button !== 0) return;
    wordsReady();
    var words = e.target.closest && e.target.closest("#turns .words");
    if (!words || e.target.closest("a, button, form")) return;
    var sel = window.getSelection();
    var w = e.target.closest(".w");
    if (e.shiftKey && anchor && w) {
      sel.removeAllRanges();
      var p = posOf(w);
      if (p.turn !== anchor.turn) { flash("Select words within one turn."); return; }
      mark(p.turn, anchor.i, p.i);
      return;
    }
    if (sel && !sel.isCollapsed && sel.rangeCount) {
      var range = sel.getRangeAt(0);
      var common = range.commonAncestorContainer;
      var turn = (common.nodeType === 1 ? common : common.parentElement).closest(".turn");
      if (!turn) { sel.removeAllRanges(); flash("Select words within one turn."); return; }
      var hit = $$(".w", turn).filter(function (x) { return range.intersectsNode(x.firstChild || x); });
      sel.removeAllRanges();
      if (hit.length) mark(turn.dataset.turn, +hit[0].dataset.i, +hit[hit.length - 1].dataset.i);
      return;
    }
    if (!w) return;
    var nugget = w.closest("mark.nugget");
    if (nugget) {
      var badge = document.getElementById("badge-" + nugget.dataset.nugget);
      focusWord(w, false, true);
      press(badge);
      return;
    }
    focusWord(w, false, true);
  });

  // -- keyboard ---------------------------------------------------------------------------
  function typing(el) {
    return el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);
  }

  function lineOf(el) { return el && el.closest(".line"); }

  function here() {
    // the position the keyboard works from: the focused word, else the focused control's line
    var el = document.activeElement;
    if (el && el.classList && el.classList.contains("w")) return posOf(el);
    var line = lineOf(el);
    if (line) return { turn: line.closest(".turn").dataset.turn, i: +line.dataset.start };
    return current;
  }

  function order(turnId) { var t = turnEl(turnId); return t ? $$("#turns .turn").indexOf(t) : -1; }
  function before(a, b) { return order(a.turn) < order(b.turn) || (a.turn === b.turn && a.i < b.i); }

  function candidateFrom(dir, inclusive) {
    var lines = $$("#turns .line.candidate");
    if (!lines.length) return null;
    var pos = here();
    var found = null;
    if (!pos) return dir > 0 ? lines[0] : lines[lines.length - 1];
    lines.forEach(function (l) {
      var lp = { turn: l.closest(".turn").dataset.turn, i: +l.dataset.start };
      var endp = { turn: lp.turn, i: +l.dataset.end };
      var inside = lp.turn === pos.turn && pos.i >= lp.i && pos.i <= endp.i;
      if (dir > 0 && !found && ((inclusive && inside) || before(pos, lp))) found = l;
      if (dir < 0 && before(lp, pos) && !inside) found = l;
    });
    return found;
  }

  function currentSystemTurn() {
    var pos = here();
    var turns = $$('#turns .turn[data-role="S"]');
    if (!pos) {
      var sel = $("#turns mark.selected");
      return sel ? sel.closest(".turn") : turns[0];
    }
    var t = turnEl(pos.turn);
    if (t && t.dataset.role === "S") return t;
    return turns.filter(function (s) { return order(s.dataset.turn) > order(pos.turn); })[0] || turns[turns.length - 1];
  }

  // A conversation that branches shows one path: [ and ] go to the previous / next branch at
  // the nearest branching turn at or above the current one (else the first on the page).
  function switchBranch(dir) {
    var navs = $$("#turns nav.branches");
    if (!navs.length) { flash("This conversation does not branch."); return; }
    var turn = currentSystemTurn(), nav = null;
    navs.forEach(function (n) { if (turn && order(n.closest(".turn").dataset.turn) <= order(turn.dataset.turn)) nav = n; });
    nav = nav || navs[0];
    var links = $$("a.branch", nav);
    var at = links.findIndex(function (a) { return a.getAttribute("aria-current") === "true"; });
    var next = links[at + dir];
    if (next) window.location.assign(next.href);
    else flash("No " + (dir > 0 ? "next" : "previous") + " branch at " + nav.getAttribute("aria-label").replace("Branches at ", "") + ".");
  }

  function moveLine(dir) {
    var w = wordAt(current) || allWords()[0];
    if (!w) return;
    var lines = $$("#turns .line").filter(function (l) { return $(".w, .lazy", l); });
    var i = lines.indexOf(lineOf(w)) + dir;
    if (i >= 0 && i < lines.length) { expand($(".lazy", lines[i])); focusWord($(".w", lines[i])); }
  }

  function handle(e) {
    var key = e.key;
    var words = allWords();
    var w = wordAt(current);
    if (key === "ArrowRight" || key === "ArrowLeft") {
      if (!w) { focusWord(words[0]); return true; }
      var next = words[words.indexOf(w) + (key === "ArrowRight" ? 1 : -1)];
      if (next && e.shiftKey && posOf(next).turn !== current.turn) return true;
      focusWord(next, e.shiftKey);
      return true;
    }
    if (key === "ArrowDown" || key === "ArrowUp") { moveLine(key === "ArrowDown" ? 1 : -1); return true; }
    if ((key === "Home" || key === "End") && w) {
      var ws_ = $$(".w", lineOf(w));
      focusWord(key === "Home" ? ws_[0] : ws_[ws_.length - 1], e.shiftKey);
      return true;
    }
    if (key === "Enter") {
      var a = document.activeElement;
      if (!(a && a.classList.contains("w"))) return false; // buttons and links do their own thing
      if (anchor && anchor.turn === current.turn) mark(current.turn, anchor.i, current.i);
      else mark(current.turn, current.i, current.i);
      return true;
    }
    if (key === "Escape") { anchor = current ? { turn: current.turn, i: current.i } : null; paint(); return true; }
    if (key === "l") {
      var line = lineOf(document.activeElement) || lineOf(w);
      if (!line) return true;
      if (press($("[data-accept], [data-mark-line]", line))) return true;
      // a huge turn's lines carry no ¶ form: mark the line's words directly
      if ($("mark", line) || line.closest(".turn").dataset.role !== "S") flash("This line already holds a nugget.");
      else mark(line.closest(".turn").dataset.turn, +line.dataset.start, +line.dataset.end);
      return true;
    }
    if (key === "j" || key === "k") {
      var c = candidateFrom(key === "j" ? 1 : -1, false);
      if (c) { var b = $("[data-accept]", c); b.focus(); current = { turn: c.closest(".turn").dataset.turn, i: +c.dataset.start }; }
      return true;
    }
    if (key === "a" || key === "d") {
      var cand = candidateFrom(1, true);
      if (!cand) { flash("No suggestions left."); return true; }
      current = { turn: cand.closest(".turn").dataset.turn, i: +cand.dataset.start };
      press($(key === "a" ? "[data-accept]" : "[data-dismiss]", cand));
      return true;
    }
    if (key === "n" || key === "p") {
      var badges = $$("#turns a.wc");
      if (!badges.length) return true;
      var sel = badges.indexOf(document.getElementById("badge-" + selectedId()));
      var target = badges[sel < 0 ? (key === "n" ? 0 : badges.length - 1) : Math.min(badges.length - 1, Math.max(0, sel + (key === "n" ? 1 : -1)))];
      target.focus();
      press(target);
      return true;
    }
    if (/^[0-9]$/.test(key)) {
      if (!press(document.querySelector('#editor [data-grade-key="' + key + '"]'))) flash("Select a nugget to grade it.");
      return true;
    }
    if (key === "o" || key === "x" || key === "-") {
      var turn = currentSystemTurn();
      if (turn) press(document.getElementById("label-" + turn.dataset.turn + "-" + (key === "-" ? "dash" : key)));
      return true;
    }
    if (key === "[" || key === "]") { switchBranch(key === "]" ? 1 : -1); return true; }
    if (key === "m") {
      var input = $("#editor [data-membership-input][data-unset]") || $("#editor [data-membership-input]");
      if (input) input.focus(); else flash("Select a nugget to give its memberships.");
      return true;
    }
    if (key === "Delete" || key === "Backspace") { press(document.getElementById("delete-nugget")); return true; }
    if (key === "u") { press(document.getElementById("undo-button")); return true; }
    if (key === "f") { press(document.getElementById("done-button")); return true; }
    if (key === "g") { toggleGuidelines(); return true; }
    if (key === "#") { var box = document.getElementById("show-positions"); box.checked = !box.checked; showPositions(); return true; }
    if (key === "?") { var h = $("#keys-help summary"); if (h) h.focus(); return true; }
    return false;
  }

  var HANDLED = /^(Arrow(Left|Right|Up|Down)|Home|End|Enter|Escape|Delete|Backspace|[ljkadnp0-9oxmufg#?\[\]-])$/;

  // The guidelines (a <details> in the page head, open without JavaScript too): g opens them
  // and brings them into view, g again closes them.
  function toggleGuidelines() {
    var g = document.getElementById("guidelines");
    if (!g) { flash("This campaign has no guidelines yet."); return; }
    g.open = !g.open;
    if (g.open) { g.scrollIntoView({ block: "nearest" }); $("summary", g).focus(); }
  }

  // Time on task: the heartbeat (#heartbeat, htmx every 30 s) is sent only while the page is
  // visible and the annotator has moved, scrolled or typed within the idle limit; the server
  // leaves longer gaps out (annotator.judgments.activity).
  var lastInput = Date.now();
  var IDLE_MS = 5 * 60 * 1000;
  ["pointermove", "pointerdown", "keydown", "wheel", "scroll", "touchstart"].forEach(function (type) {
    document.addEventListener(type, function () { lastInput = Date.now(); }, { passive: true, capture: true });
  });
  window.gfrcActive = function () { return document.visibilityState === "visible" && Date.now() - lastInput < IDLE_MS; };

  function dispatch(e) {
    // returns true when the key was ours
    var el = document.activeElement;
    if (typing(el)) {
      if (e.key !== "Escape") return false;
      el.blur();
      focusWord(wordAt(current) || $('#turns .turn[data-role="S"] .w') || allWords()[0]);
      return true;
    }
    if (!HANDLED.test(e.key)) return false;
    if (e.key === "Enter" && !(el && el.classList && el.classList.contains("w"))) return false;
    return handle(e);
  }

  // -- one queue of keys ------------------------------------------------------------------
  // A key acts at once only when nothing is waiting: no edit in flight, its answer swapped in,
  // no key typed before it still queued. Otherwise it joins the queue, drained oldest first;
  // a key that sends an edit stops the drain until that edit's answer is on the page, so each
  // key acts on the page the keys before it made, as if typed slowly.
  // Until htmx has made the controls live, keys wait too, and so do the clicks on controls that
  // hold-until-live.js held (in this queue, in the order they came with the keys).
  var early = window.gfrcHeld;
  function live() { return !early || early.live; }
  function waiting() { return !live() || inFlight > 0 || queued.length > 0 || drainAt !== 0; }
  function showBusy() { ws.setAttribute("aria-busy", waiting() ? "true" : "false"); }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var el = document.activeElement;
    var ours = e.key === "Escape" || (!typing(el) && HANDLED.test(e.key) &&
      !(e.key === "Enter" && !(el && el.classList && el.classList.contains("w"))));
    if (!ours) return;
    wordsReady();
    if (waiting()) queued.push({ key: e.key, shiftKey: e.shiftKey });
    else dispatch(e);
    e.preventDefault();
    showBusy();
  });

  // Leaving the page (a reload, another link, closing the tab) would drop the keys still
  // queued and the edits whose answers have not come: while any is waiting, the browser asks
  // first, as editors do. Nothing waiting, nothing asked.
  window.addEventListener("beforeunload", function (e) {
    if (inFlight === 0 && queued.length === 0) return;
    e.preventDefault();
    e.returnValue = ""; // older browsers ask only when this is set
  });

  function drainSoon() {
    // after htmx has finished with the request (its lock on the element that sent it is
    // released only after htmx:afterRequest): the next key may press that element again
    if (!drainAt) drainAt = setTimeout(drain, 0);
    showBusy();
  }

  function drain() {
    drainAt = 0;
    while (live() && inFlight === 0 && queued.length) run(queued.shift());
    showBusy();
  }

  function run(item) {
    if (item.click) { if (document.body.contains(item.click)) item.click.click(); }
    else dispatch(item);
  }

  if (early) {
    early.push = function (item) { queued.push(item); showBusy(); };
    early.events.splice(0).forEach(early.push);
    early.onLive = drainSoon;
    if (early.live) drainSoon();
  }

  // one word is always reachable with Tab (roving tabindex)
  function ensureRoving() {
    if (!$('#turns .w[tabindex="0"]')) {
      var w = wordAt(current) || $('#turns .turn[data-role="S"] .w') || allWords()[0];
      if (w) w.tabIndex = 0;
    }
  }
  ensureRoving();
  document.addEventListener("focusin", function (e) {
    if (e.target.classList && e.target.classList.contains("w") && !(current && wordAt(current) === e.target)) {
      focusWord(e.target, false, true);
    }
  });

  // -- htmx: keep focus and drain the key queue ------------------------------------------
  // Answers settle at once (htmx-config defaultSettleDelay 0 in the page): the new controls
  // are htmx controls in the same task that shows them, and htmx:afterRequest comes after the
  // swap. Only edits (they answer for the conversation column) hold the key queue; the score
  // panel and the live vector check do not.
  function isEdit(evt) { var t = evt.detail && evt.detail.target; return !!(t && t.id === "turns"); }

  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    if (isEdit(evt)) { inFlight++; showBusy(); }
  });
  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    if (!isEdit(evt) || !evt.detail.shouldSwap) return;
    var a = document.activeElement;
    restore = {
      active: a,
      id: a && a.id,
      candidate: !!(a && a.hasAttribute && (a.hasAttribute("data-accept") || a.hasAttribute("data-dismiss"))),
      pos: here(),
      word: !!(a && a.classList && a.classList.contains("w"))
    };
  });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    if (!isEdit(evt)) return;
    inFlight = Math.max(0, inFlight - 1);
    if (evt.detail.failed && !evt.detail.xhr.status) {
      flash("Could not reach the server: nothing was saved. Try again.");
      queued = [];
    }
    afterAnswer();
    drainSoon();
  });

  // once per answer, after all of it is on the page
  function afterAnswer() {
    syncSelection();
    var r = restore;
    restore = null;
    if (r) {
      var now = document.activeElement;
      // the user moved on (e.g. Esc back to the text) before the answer came: leave focus be
      if (!(now && now !== document.body && now !== r.active && document.body.contains(now))) {
        var el = r.id && document.getElementById(r.id);
        if (el) el.focus({ preventScroll: true });
        else if (r.candidate) {
          var c = candidateFrom(1, true);
          if (c) $("[data-accept]", c).focus({ preventScroll: false });
          else focusWord(wordAt(r.pos) || allWords()[0], false, true);
        } else if (r.word || r.pos) {
          var w = wordAt(current) || wordAt(r.pos);
          if (w && (r.word || !document.activeElement || document.activeElement === document.body)) focusWord(w, false, true);
        }
        paint();
      }
    }
    ensureRoving();
  }

})();
