"""The conversation column of the workspace and the score panel's tables, rendered in Python
from the plain types of annotator.workspace.workbench (the read side fills them; nothing here
imports it back).

A 300-nugget conversation has thousands of words. They are sent as runs of text with the
position of their first word (`_runs`); annotate.js makes each word a focusable span, so the
page is a few hundred elements instead of a span per word (docs/benchmarks.md). Every piece
of conversation text goes through `escape` (the text is untrusted LLM output: markup in it
shows as text and never runs).
"""

from __future__ import annotations

from bisect import bisect_left
from html import escape

from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from annotator.models import TurnLabel
from annotator.rules.candidates import Line, lines_of
from annotator.rules.links import link_html
from annotator.scores.per_conversation import NuggetScore, TurnScore
from annotator.workspace.workbench import Candidate, EntityOption, NuggetLine, Workbench

# The turn's header (name, word range, running word count, label buttons): a template partial.
TURN_HEAD = "annotator/conversation.html#turn-head"
OOB = ' hx-swap-oob="true"'
# (value, meaning) of each usefulness label, from TurnLabel.Label: its label less the "o: " before it
LABEL_MEANINGS = [(value, label.removeprefix(f"{value}: ")) for value, label in TurnLabel.Label.choices]
# Blocks whose elements stay and whose figures change (Table 2's bars): morphed (idiomorph).
MORPH = ' hx-swap-oob="morph"'


# In a turn longer than this, annotate.js makes word spans only where the annotator works (the
# nuggets, the suggested lines) and where the pointer or the keyboard goes: a 200,000-word
# turn as spans is about 20 MB of DOM (tests/workspace/test_conversation_view.py).
HUGE_TURN_WORDS = 5000


def render_datalist(entities: list[EntityOption], exclude: int | None) -> SafeString:
    options = (
        f'<option value="{escape(e.name or e.key)}">{escape(e.key)}{" · " + escape(e.grade) if e.grade else ""}</option>'
        for e in entities
        if e.pk != exclude
    )
    return mark_safe("".join(options))


def _hidden(name: str, value) -> str:
    return f'<input type="hidden" name="{name}" value="{escape(str(value))}">'


def _form(action: str, token: str, fields: dict, button: str, *, label: str, cls: str, extra: str = "") -> str:
    hidden = "".join(_hidden(k, v) for k, v in fields.items())
    return (
        f'<form method="post" action="{escape(action)}" hx-post="{escape(action)}" class="inline">'
        f'{_hidden("csrfmiddlewaretoken", token)}{hidden}'
        f'<button type="submit" class="{cls}" aria-label="{escape(label)}" title="{escape(label)}"{extra}>{button}</button>'
        "</form>"
    )


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_turns(bench: Workbench, only: set[int] | None = None, lines: dict[int, set[int]] | None = None,
                 looks: set[int] = frozenset()) -> SafeString:
    """Every turn's <section>; or, with `only`, just those turns, of the turns in `lines` just
    those lines (by their first word), and the marks and WC badges of the nuggets in `looks`,
    each marked hx-swap-oob: the answer to an edit replaces what its rendering changed, not
    the whole column."""
    score = bench.score
    by_turn: dict[int, list[NuggetScore]] = {}
    for n in score.nuggets:
        by_turn.setdefault(n.nugget.turn_id, []).append(n)
    candidates: dict[int, list[tuple[int, int, Candidate]]] = {}
    for rank, c in enumerate(bench.candidates):  # cited spans come first: a line shows the first starting in it
        candidates.setdefault(c.turn_id, []).append((c.start, rank, c))
    for found in candidates.values():
        found.sort(key=lambda item: item[:2])
    lines = lines or {}
    out: list[str] = []
    for view in score.turns:
        if only is None and bench.path is not None and view.turn.pk not in bench.path:
            continue  # another branch of a conversation that branches: its turn is on another page
        if only is not None and view.turn.pk not in only:
            if view.turn.pk in lines:
                out.extend(_render_lines(bench, view, by_turn.get(view.turn.pk, []), candidates, lines[view.turn.pk]))
            continue
        out.append(_render_turn(bench, view, by_turn.get(view.turn.pk, []), candidates, oob=only is not None))
    out.extend(_render_looks(bench, looks))
    return mark_safe("".join(out))


def _render_looks(bench: Workbench, looks: set[int]) -> list[str]:
    """The marks (one per line a nugget runs over) and the WC badges of these nuggets, each out
    of band: what a grade, a membership, a name or a link changes in the column."""
    out: list[str] = []
    if not looks:
        return out
    texts = {view.turn.pk: view.turn.text for view in bench.score.turns}
    for n in bench.score.nuggets:
        if n.nugget.pk not in looks:
            continue
        start, end = n.nugget.start_word, n.nugget.end_word
        for line in lines_of(texts[n.nugget.turn_id]):
            first, last = max(start, line.start), min(end, line.end)
            if line.words and first <= last:
                out.append(f"{_open_mark(bench, n, first, oob=True)}"
                           f"{_runs(first, line.words[first - line.start:last - line.start + 1])}</mark>")
        out.append(_badge(bench, n, oob=True))
    return out


def _render_turn(bench: Workbench, view: TurnScore, nuggets: list[NuggetScore], candidates, oob: bool = False) -> str:
    turn = view.turn
    system = turn.is_system
    label = bench.labels.get(turn.pk) if system else None
    current = label.label if label else ""
    name = f"{turn.role}{turn.number}"
    head = get_template(TURN_HEAD).render({
        "turn": turn, "name": name, "view": view, "system": system, "current": current,
        "version": label.version if label else "", "selected_id": bench.selected_id or "",
        "action": bench.urls.label.format(turn.pk), "csrf_token": bench.csrf_token,
        # (label, what its button sends: nothing when pressed, which takes the label off, ...)
        "labels": [(value, "" if value == current else value, "dash" if value == "-" else value,
                    "true" if value == current else "false", f"{name}: {meaning} ({value})")
                   for value, meaning in LABEL_MEANINGS] if system else (),
    })
    body = "".join(_render_lines(bench, view, nuggets, candidates))
    huge = view.end_wc - view.offset > HUGE_TURN_WORDS
    role = "system" if system else "user"
    return (
        f'<section class="turn turn-{role}" id="turn-{turn.pk}" data-turn="{turn.pk}" data-role="{turn.role}" '
        f'data-offset="{view.offset}"{" data-lazy-words" if huge else ""} aria-labelledby="turn-{turn.pk}-h"'
        f'{OOB if oob else ""}>'
        + head
        + _branches(bench, turn, name)
        + f'<div class="turn-text">{body}</div></section>'
    )


def _branches(bench: Workbench, turn, name: str) -> str:
    """At a turn with siblings (a regenerated answer, an edited question), which of them this
    is and a link to each: the page shows one path of the tree at a time."""
    siblings = bench.siblings.get(turn.pk)
    if not siblings:
        return ""
    current = ' aria-current="true"'
    links = " ".join(
        f'<a href="?branch={pk}" class="branch"{current if pk == turn.pk else ""}>{k}</a>'
        for k, pk in enumerate(siblings, start=1))
    return (f'<nav class="branches" aria-label="Branches at {name}">branch {siblings.index(turn.pk) + 1} '
            f'of {len(siblings)}: {links}</nav>')


def _render_lines(bench: Workbench, view: TurnScore, nuggets: list[NuggetScore], candidates,
                  only: set[int] | None = None) -> list[str]:
    """The turn's lines (<div class="line" id="ln-<turn>-<first word>">); with `only`, just the
    lines starting at those words, each out of band."""
    turn = view.turn
    token = bench.csrf_token
    system = turn.is_system
    owner: dict[int, NuggetScore] = {}  # word index in the turn -> the nugget holding it
    for n in nuggets:
        for i in range(n.nugget.start_word, n.nugget.end_word + 1):
            owner[i] = n
    huge = view.end_wc - view.offset > HUGE_TURN_WORDS
    swap = OOB if only is not None else ""
    body = []
    for line in lines_of(turn.text):
        if only is not None and (line.start not in only or not line.words):
            continue
        if not line.words:
            body.append('<div class="line empty"></div>')
            continue
        candidate = _candidate_in(candidates.get(turn.pk, []), line) if system else None
        touched = any(i in owner for i in range(line.start, line.end + 1)) if owner else False
        classes = "line"
        gutter = ""
        if candidate is not None:
            classes += " candidate"
            known = ""
            if candidate.known is not None:
                known = f" (known entity, {candidate.known.grade or 'ungraded'})"
            fields = {"turn": turn.pk, "start": candidate.start, "end": candidate.end}
            what = "suggested nugget"
            if candidate.cited_by is not None:
                classes += " proposal" if candidate.proposed_by else " citation"
                fields["cited"] = candidate.cited_by
                what = (f"nugget proposed by {candidate.proposed_by} ({candidate.source or candidate.key})"
                        if candidate.proposed_by else f"nugget cited by the system ({candidate.key})")
            gutter = (
                _form(bench.urls.create, token, fields, "✓", label=f"Accept {what}{known}: {_short(candidate.text)}",
                      cls="accept", extra=f' data-accept id="accept-{turn.pk}-{line.start}"')
                + _form(bench.urls.dismiss, token, fields, "✕", label=f"Dismiss suggestion: {_short(candidate.text)}",
                        cls="dismiss", extra=f' data-dismiss id="dismiss-{turn.pk}-{line.start}"')
            )
        elif system and not touched and not huge:
            fields = {"turn": turn.pk, "start": line.start, "end": line.end}
            gutter = _form(bench.urls.create, token, fields, "¶", label=f"Mark this line as a nugget: {_short(line.text)}",
                           cls="mark-line", extra=f' data-mark-line id="line-{turn.pk}-{line.start}"')
        cited = (candidate.start, candidate.end) if candidate is not None and candidate.cited_by is not None else None
        words = _line_words(bench, line, owner, cited) if touched or cited else _runs(line.start, line.words)
        if cited is not None:
            words += _cited_by(candidate)
        if candidate is not None and candidate.known is not None:
            grade = candidate.known.grade or "ungraded"
            words += (
                f' <span class="known" title="You judged this entity already in this topic: '
                f'{escape(candidate.known.name or candidate.known.key)}">known · {escape(grade)}</span>'
            )
        body.append(
            f'<div class="{classes}" id="ln-{turn.pk}-{line.start}" data-start="{line.start}" data-end="{line.end}"{swap}>'
            f'<div class="gutter">{gutter}</div><div class="words">{words}</div></div>'
        )
    return body


RUN_WORDS = 500  # words of a run (annotate.js turns a run into word spans at once)


def _runs(start: int, words: list[str]) -> str:
    """Words `start`.. of a turn as runs of escaped text, one space apart: annotate.js splits
    each run on that space and makes the word spans, numbered from the run's `data-i` and the
    turn's `data-offset` (the positions the server counted). Every turn is sent this way, so a
    page carries a few hundred runs, not a span per word; in a huge turn (data-lazy-words) a
    run becomes spans only when the pointer or the keyboard reaches it."""
    return " ".join(
        f'<span class="lazy" data-i="{start + k}">{escape(" ".join(words[k:k + RUN_WORDS]))}</span>'
        for k in range(0, len(words), RUN_WORDS)
    )


def _candidate_in(found: list[tuple[int, int, Candidate]], line: Line) -> Candidate | None:
    """The suggestion a line shows: of those starting in it (`found`: by start, then rank), the
    first in rank (bench.candidates' order)."""
    lo = bisect_left(found, (line.start, -1))
    hi = bisect_left(found, (line.end + 1, -1))
    return min(found[lo:hi], key=lambda item: item[1])[2] if hi > lo else None


def _cited_by(candidate: Candidate) -> str:
    """What the system cited on the suggested words: its title and link (inert: the URL is
    escaped and opens elsewhere, without a referrer); a Google grounding link says it stands
    for a page nobody can know offline. A judge's proposal says whose it is, its entity and grade."""
    if candidate.proposed_by:
        entity = escape(candidate.source or candidate.key or "")
        grade = f" · {escape(candidate.proposed_grade)}" if candidate.proposed_grade else ""
        return (f' <span class="cited-by proposed-by">proposed by {escape(candidate.proposed_by)}: '
                f'<span title="{escape(candidate.key or "")}">{entity}</span>{grade}</span>')
    note = (' <span class="redirect" title="Gemini cites through Google redirect links: the real page needs an online '
            'lookup, so this entity is the link itself">Google grounding redirect, not resolved offline</span>'
            if candidate.redirect else "")
    # a link only to an http(s) URL (annotator.rules.links): an uploaded key is anything
    return f' <span class="cited-by">cited by the system: {link_html(candidate.key, candidate.source or candidate.key)}{note}</span>'



def _line_words(bench: Workbench, line: Line, owner: dict[int, NuggetScore], cited: tuple[int, int] | None = None) -> str:
    """A line holding nuggets or a span the system cited: its runs, each nugget's inside its
    <mark> (a nugget running over several lines is marked on each), the WC badge after the
    mark holding its last word, the cited words (`cited`: first, last) inside <span class="cited">."""
    def inside(i: int) -> bool:
        return cited is not None and cited[0] <= i <= cited[1]

    parts = []
    k, count = 0, len(line.words)
    while k < count:
        held_by = owner.get(line.start + k)
        in_cited = inside(line.start + k)
        j = k + 1
        while j < count and owner.get(line.start + j) is held_by and inside(line.start + j) == in_cited:
            j += 1
        run = _runs(line.start + k, line.words[k:j])
        if held_by is None and in_cited:
            parts.append(f'<span class="cited">{run}</span>')
        elif held_by is None:
            parts.append(run)
        else:
            badge = _badge(bench, held_by) if line.start + j - 1 == held_by.nugget.end_word else ""
            parts.append(f"{_open_mark(bench, held_by, line.start + k)}{run}</mark>{badge}")
        k = j
    return " ".join(parts)


def _open_mark(bench: Workbench, n: NuggetScore, first: int, oob: bool = False) -> str:
    """A nugget's <mark> from word `first` of its turn (id mk-<nugget>-<first>: a nugget over
    several lines has a mark on each): its grade's colour, duplicate, a relevant nugget
    missing a membership, selected; the title says what it is."""
    entity = n.nugget.entity
    grade = entity.grade
    classes = "nugget " + (f"g{grade.level}" if grade is not None else "ungraded")
    if n.duplicate:
        classes += " dup"
    if n.missing:
        classes += " incomplete"
    if n.nugget.pk == bench.selected_id:
        classes += " selected"
    title = f"{entity.name or entity.key} · {grade.label if grade else 'ungraded'} · WC {n.wc}"
    return (f'<mark class="{classes}" id="mk-{n.nugget.pk}-{first}" data-nugget="{n.nugget.pk}" '
            f'title="{escape(title + (" · duplicate" if n.duplicate else ""))}"{MORPH if oob else ""}>')


def _badge(bench: Workbench, n: NuggetScore, oob: bool = False) -> str:
    """The WC badge after a nugget's last word: a link that opens it in the editor."""
    pk, entity, grade = n.nugget.pk, n.nugget.entity, n.nugget.entity.grade
    shown = f"WC {n.wc}" + (f" · {grade.label}" if grade is not None else "") + (" · dup" if n.duplicate else "")
    text = escape(shown)
    # the accessible name starts with the visible text (WCAG 2.5.3: a speech user says what they see)
    label = f"{shown}: nugget ending at word {n.wc}, {entity.name or entity.key}" + (", duplicate, gains nothing" if n.duplicate else "")
    current = ' aria-current="true"' if pk == bench.selected_id else ""
    return (
        f'<a class="wc{" dup" if n.duplicate else ""}" href="{escape(bench.urls.page)}?nugget={pk}" '
        f'hx-get="{escape(bench.urls.nugget.format(pk))}" id="badge-{pk}" data-nugget="{pk}" '
        f'aria-label="{escape(label)}"{current}{MORPH if oob else ""}>{text}</a>'
    )


def table_1_html(rows: list[NuggetLine], turn_ids: list[int], *, empty: bool, oob: bool = False) -> SafeString:
    """Table 1's rows, a <tbody> per turn (`turn_ids`, in
    order; empty ones too, so that an edit's answer can replace any of them out of band, each
    in a <template>: a lone <tbody> is not valid HTML elsewhere). Tables 1 and 2 are loops over
    every nugget and every group of every turn, so like the words they stay in Python: as
    template loops they doubled the 300-nugget save (docs/benchmarks.md)."""
    by_turn: dict[int, list[str]] = {}
    for r in rows:
        by_turn.setdefault(r.turn_id, []).append(_table_1_row(r))
    swap = OOB if oob else ""
    bodies = "".join(f'<tbody id="t1-{pk}"{swap}>{"".join(by_turn.get(pk, ()))}</tbody>' for pk in turn_ids)
    if turn_ids or not oob:  # an answer that re-renders no turn's rows cannot change whether there are any
        bodies += f'<tbody id="t1-none"{swap}{"" if empty else " hidden"}><tr><td colspan="6" class="muted">No nuggets yet.</td></tr></tbody>'
    return mark_safe(f"<template>{bodies}</template>" if oob and bodies else bodies)


def table_1_rows_html(rows: list[NuggetLine]) -> SafeString:
    """Rows of Table 1 alone (tr id t1r-<nugget>), each out of band, in a <template>: what a
    change of an entity changes in the table when its turns keep their nuggets."""
    return mark_safe(f'<template>{"".join(_table_1_row(r, oob=True) for r in rows)}</template>' if rows else "")


def _table_1_row(r: NuggetLine, oob: bool = False) -> str:
    dup = ' <span class="badge dup">dup</span>' if r.duplicate else ""
    warn = f' <span class="badge warn" title="no membership: {escape(r.missing)}">?</span>' if r.missing else ""
    gain = '<span class="muted">–</span>' if r.gain is None else r.gain
    return (
        f'<tr id="t1r-{r.nugget_id}"{DUP_ROW if r.duplicate else ""}{MORPH if oob else ""}><td>{r.turn}</td>'
        f'<td class="ename">{escape(r.name)}{dup}{warn}</td>'
        f'<td class="num">{r.wc}</td><td class="num">{r.pw}</td><td class="num">{gain}</td>'
        f'<td class="num">{r.contribution}</td></tr>'
    )


DUP_ROW = ' class="dup"'


def table_2_html(turns: list[dict], *, oob: bool = False) -> SafeString:
    """Table 2 (annotator.workspace.score_panel.table_2): per system turn and attribute set, the achieved
    distribution against the target as bars, and DistrSim; a block per turn (`t2-<turn>`),
    each out of band in an edit's answer."""
    out = []
    swap = MORPH if oob else ""
    for turn in turns:
        name = turn["name"]
        block = f'<div class="turn-score" id="t2-{turn["pk"]}"{swap}>'
        if not turn["scored"]:
            out.append(f'{block}<h4>{name} <span class="muted">not scored (no relevant nugget)</span></h4></div>')
            continue
        out.append(f'{block}<h4>{name}</h4>')
        for spec in turn["sets"]:
            label = escape(f"{name} {spec['name']}")
            out.append(
                f'<div class="dist"><div class="dist-head"><span>{escape(spec["name"])}</span> <span>DistrSim '
                f'<strong data-distrsim="{label}">{spec["sim"]}</strong></span></div>'
                f'<table class="bars" aria-label="{label}: achieved and target distributions">'
            )
            out.extend(
                f'<tr><th scope="row">{escape(bar.group)}</th><td class="bar-cell">'
                f'<span class="bar achieved" style="width: {bar.achieved}%"></span>'
                f'<span class="bar target" style="width: {bar.target}%"></span></td><td class="num">{bar.shown}%</td></tr>'
                for bar in spec["bars"]
            )
            out.append("</table></div>")
        out.append("</div>")
    return mark_safe("".join(out) or ("" if oob else '<p class="muted">No system turns.</p>'))
