"""The history an import writes: every judgment it creates, changes or deletes, as the
AnnotationEvents a workspace edit records (the same states: annotator.judgments.edits), marked
`imported` so the workspace's undo never takes back what an import brought (an import is where
the annotator's work starts).

Every importer writes its history here, as plain rows (annotator.interchange.imports.rows): the
events are kept as runs of one kind and action in the order recorded, and each run is one
insert whose columns the same for every event of it (kind, action, actor, time, and for
`record_all` the topic and annotator) are bound once, not once an event. Events of rows staged
by a conversation import are written staged (in the staging area's short transactions), the
others in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import timezone

from annotator.interchange.imports.rows import insert_rows
from annotator.interchange.imports.staging import StagingArea
from annotator.judgments.edits import Event
from annotator.models import AnnotationEvent

__all__ = ["ImportHistory"]

_EACH = ("object_id", "topic_id", "conversation_id", "annotator_id", "before", "after")  # a `record`ed event's columns


class ImportHistory:
    def __init__(self, actor=None):
        self.actor_id = getattr(actor, "pk", None)
        self.at = timezone.now()
        # (kind, action, the columns every event of the run shares, the events' rows)
        self.runs: list[tuple[str, str, dict, list[tuple]]] = []
        self.replaced_by: dict[int, int] = {}  # replaced conversation id -> its replacement's

    def record(self, kind: str, action: str, object_id: int, topic_id: int, conversation_id: int | None,
               annotator_id: int, *, before: dict | None = None, after: dict | None = None) -> None:
        last = self.runs[-1] if self.runs else None
        if last is None or last[:2] != (kind, action) or last[2]:
            last = (kind, action, {}, [])
            self.runs.append(last)
        last[3].append((object_id, topic_id, conversation_id, annotator_id, before, after))

    def record_all(self, kind: str, action: str, events: Iterable[tuple], *, topic_id: int, annotator_id: int) -> None:
        """Events (object id, state before, state after) of one kind and action, on one topic by
        one annotator, none on a conversation (entities and memberships)."""
        events = list(events)
        if events:
            self.runs.append((kind, action, {"topic_id": topic_id, "conversation_id": None, "annotator_id": annotator_id},
                              events))

    def replace(self, replaced_id: int, replacement_id: int, topic_id: int, annotator_ids: Iterable[int], source: str) -> None:
        """A conversation replaced, once in the history of each annotator whose judgments it
        replaced: the older events move to the replacement (here for the events recorded with
        this history, by the staging area's publishing for those already written), and undo
        stops there."""
        self.replaced_by[replaced_id] = replacement_id
        for annotator_id in sorted(set(annotator_ids)):
            self.record(Event.Kind.CONVERSATION, Event.Action.REPLACE, replacement_id, topic_id, replacement_id, annotator_id,
                        before={"conversation": replaced_id}, after={"conversation": replacement_id, "source": source})

    def write(self, area: StagingArea | None = None) -> None:
        """Every event recorded so far: staged in `area`'s short transactions, else at once."""
        for kind, action, same, rows in self.runs:
            columns = ["object_id", "before", "after"] if same else list(_EACH)
            if not same and self.replaced_by:  # events of replaced conversations belong to the replacement
                rows = [(o, t, self.replaced_by.get(c, c), a, b, af) for o, t, c, a, b, af in rows]
            fixed = {"kind": kind, "action": action, "actor_id": self.actor_id, "at": self.at, "imported": True, **same}
            if action == Event.Action.CREATE:  # nothing before: one value for every row
                at = columns.index("before")
                columns.pop(at)
                rows = [row[:at] + row[at + 1:] for row in rows]
                fixed["before"] = None
            if area is None:
                insert_rows(AnnotationEvent, columns, rows, same=fixed)
            else:
                area.in_short_transactions(AnnotationEvent, rows,
                                           lambda chunk, columns=columns, fixed=fixed: insert_rows(
                                               AnnotationEvent, columns, chunk, same=fixed), what="AnnotationEvent")
        self.runs.clear()
