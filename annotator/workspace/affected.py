"""What an edit touched, and what of the page can look different because of it: the edit views
say what they touched (`Affected`, `touched`, `nugget_touched`, `entity_touched`, and for the
selected nugget's entity `EditorChange`); `turns_to_render` turns that into what the answer
re-renders of the conversation column, no more (docs/benchmarks.md)."""

from __future__ import annotations

from dataclasses import dataclass

from annotator.workspace.workbench import Workbench


@dataclass(frozen=True)
class Affected:
    """What an edit touched, so that its answer re-renders only what can look different: the
    turns whose lines it changed (whole), the entities (by id) whose nuggets and suggestions
    show them (those lines only), and entity keys (for an entity that may be gone, e.g.
    after a delete)."""

    turns: frozenset[int] = frozenset()
    entities: frozenset[int] = frozenset()
    keys: frozenset[str] = frozenset()


NOTHING = Affected()


def touched(turn_ids=(), entities: tuple[tuple[int | None, str], ...] | list = ()) -> Affected:
    """What an edit touched: turns, and entities as (id, key): a deleted entity is gone by id,
    but the suggestions that name its key still show it."""
    return Affected(
        frozenset(t for t in turn_ids if t is not None),
        frozenset(pk for pk, _key in entities if pk is not None),
        frozenset(key for _pk, key in entities if key),
    )


def nugget_touched(nugget) -> Affected:
    """An edit of `nugget` (or of its entity) touched its turn and its entity."""
    return touched([nugget.turn_id], [(nugget.entity_id, nugget.entity.key)])


def entity_touched(nugget) -> Affected:
    """An edit of `nugget`'s entity (grade, name, membership) changes how its nuggets and the
    suggestions naming it look (marks, badges, Table 1 rows), not the lines of any turn."""
    return touched(entities=[(nugget.entity_id, nugget.entity.key)])


@dataclass(frozen=True)
class EditorChange:
    """An edit of the selected nugget's entity that keeps the selection (a grade, a membership,
    a name or comment): its answer sends the editor's parts that can differ, not the whole
    editor: the message, the summary (g, pw*g, missing memberships), the entity's version that
    every entity form sends, and the form it saved (with the entity's head for a rename). The
    selection, the counts and the other forms stay as they are."""

    grade: bool = False
    attribute_set_id: int | None = None  # the membership form saved
    details: bool = False  # the name and comment form saved


def affected_looks(bench: Workbench, entity_ids: set[int], keys: set[str]) -> tuple[set[int], dict[int, set[int]]]:
    """What a change of these entities can change in the column: the look of their nuggets
    (grade, name, membership and duplicate marks show on the marks and WC badges), by nugget
    id, and the suggested lines naming them ("known · grade"), turn -> first words."""
    looks = {n.nugget.pk for n in bench.score.nuggets if n.nugget.entity_id in entity_ids}
    lines: dict[int, set[int]] = {}
    for c in bench.candidates:
        if (c.key is not None and c.key in keys) or (c.known is not None and c.known.pk in entity_ids):
            lines.setdefault(c.turn_id, set()).add(c.start)
    return looks, lines


def turns_to_render(bench: Workbench, only: Affected | None) -> tuple[set[int] | None, dict[int, set[int]], set[int]]:
    """(None, {}, set()): every turn. Else the turns `only` names, whole; of the other turns,
    the suggested lines naming its entities (turn -> first words) and the marks and badges
    of its entities' nuggets (nugget ids). The selection marks of the rest are brought up to
    date by annotate.js (syncSelection)."""
    if only is None:
        return None, {}, set()
    whole = set(only.turns)
    looks, lines = affected_looks(bench, set(only.entities), set(only.keys))
    looks = {n.nugget.pk for n in bench.score.nuggets if n.nugget.pk in looks and n.nugget.turn_id not in whole}
    return whole, {turn: starts for turn, starts in lines.items() if turn not in whole}, looks
