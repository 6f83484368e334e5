"""The score panel: the scores, the paper's Table 1 (`table_1`, a row per nugget) and Table 2
(`table_2`, per system turn and attribute set) laid out from a conversation's score (no
queries), rendered by annotator.workspace.conversation_html; the whole panel or, in an edit's
answer, what of it the edit can have changed (`score_panel_context`)."""

from __future__ import annotations

from django.template.loader import render_to_string

from annotator.scores.per_conversation import ConversationScore
from annotator.workspace.conversation_html import table_1_html, table_1_rows_html, table_2_html
from annotator.workspace.workbench import Bar, NuggetLine


def _gain(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value else "0"


def table_1(score: ConversationScore, turns: set[int] | None = None, nuggets: set[int] = frozenset()) -> list[NuggetLine]:
    """Table 1 of the paper, one row per nugget: turn, entity, WC, pw, g, pw*g (duplicates
    marked); with `turns`, only the nuggets of those turns and those in `nuggets`."""
    names = {t.turn.pk: f"{t.turn.role}{t.turn.number}" for t in score.turns}
    rows = []
    for n in score.nuggets:
        if turns is not None and n.nugget.turn_id not in turns and n.nugget.pk not in nuggets:
            continue
        entity = n.nugget.entity
        name = entity.name or entity.key
        rows.append(NuggetLine(
            n.nugget.turn_id, names[n.nugget.turn_id], name if len(name) <= 40 else name[:39] + "…", n.wc, f"{n.pw:.4f}",
            _gain(n.gain) if entity.grade_id is not None else None, f"{n.contribution:.4f}", n.duplicate,
            ", ".join(n.missing), n.nugget.pk,
        ))
    return rows


def table_2(score: ConversationScore, turns: set[int] | None = None) -> list[dict]:
    """Table 2 of the paper: per system turn and attribute set, achieved vs target, DistrSim;
    with `turns`, only the system turns whose block an edit of those turns can change: the
    turns themselves and, under the cumulative method (a turn's distribution pools every
    relevant nugget up to it), every system turn after the first of them."""
    views = score.system_turns
    if turns is not None:
        if score.settings.method == "cumulative":
            first = next((k for k, view in enumerate(views) if view.turn.pk in turns), len(views))
            views = views[first:]
        else:
            views = [view for view in views if view.turn.pk in turns]
    blocks = []
    for view in views:
        sets = []
        for spec in score.attribute_sets if view.scored else ():
            sim = view.distr_sim.get(spec.name)
            bars = [
                Bar(group, f"{100 * float(a):.1f}", f"{100 * float(q):.1f}", f"{100 * float(a):.0f}")
                for group, a, q in zip(spec.groups, view.achieved.get(spec.name, []), spec.target)
            ]
            sets.append({"name": spec.name, "sim": f"{sim:.4f}" if sim is not None else "–", "bars": bars})
        blocks.append({"pk": view.turn.pk, "name": f"S{view.turn.number}", "scored": view.scored, "sets": sets})
    return blocks


def score_panel_context(score: ConversationScore, turns: set[int] | None = None, looks: set[int] = frozenset()) -> dict:
    """What the partial score-panel shows: the scores, Table 1 and Table 2 (no queries).

    With `turns` (an edit's answer, partial score-changes), Table 1 holds only those turns'
    rows, each turn's <tbody> out of band, and the rows of the nuggets in `looks` (whose
    entity changed), each row out of band. An edit passes what it re-renders in the column
    (annotator.workspace.affected.turns_to_render): a row's pw follows from its WC alone, and
    its grade, duplicate mark, pw*g and missing memberships from its entity, so no other row
    can have changed. Table 2 likewise holds the blocks of the system turns those can change
    (table_2), each out of band: the browser swaps what changed, not the whole table
    (docs/benchmarks.md).
    """
    ids = [t.turn.pk for t in score.turns]
    if turns is None:
        return {
            "score": score,
            "table_1_html": table_1_html(table_1(score), ids, empty=not score.nuggets),
            "table_2_html": table_2_html(table_2(score)),
        }
    rows = table_1(score, turns, looks)
    look_turns = {r.turn_id for r in rows if r.turn_id not in turns}
    return {
        "score": score,
        "table_1_html": table_1_html([r for r in rows if r.turn_id in turns], [i for i in ids if i in turns],
                                     empty=not score.nuggets, oob=True)
        + table_1_rows_html([r for r in rows if r.turn_id not in turns]),
        "table_2_html": table_2_html(table_2(score, turns | look_turns), oob=True),
    }


def score_panel_html(score: ConversationScore) -> str:
    """The score panel alone (partial score-panel), for pages that show it without the workspace
    (the organiser's read-only conversation)."""
    return render_to_string("annotator/conversation.html#score-panel", score_panel_context(score))
