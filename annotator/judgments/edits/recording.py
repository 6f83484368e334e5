"""What every edit records and refuses: the history event (the states before and after that undo
replays), the version bump that refuses a stale edit, and what the services in this call have
touched, for the outermost one to store (`saving`)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from django.db.models import F

from annotator.models import AnnotationEvent, Entity, Membership, Nugget, TurnLabel


Event = AnnotationEvent


class AnnotationRefused(Exception):
    """A change that breaks a rule of the domain (a nugget in a user turn, overlapping spans...)."""


class StaleEdit(Exception):
    """The edit was based on an old version; `current` is the latest state (None if deleted)."""

    def __init__(self, kind: str, current: Any | None, message: str = ""):
        self.kind = kind
        self.current = current
        if message:
            super().__init__(message)
        elif current is None:
            super().__init__(f"This {kind} was deleted by someone else in the meantime; nothing was saved.")
        else:
            super().__init__(
                f"This {kind} was changed by someone else in the meantime (now version {current.version}); "
                "nothing was saved. The latest state is shown: redo your change on it."
            )


def nugget_state(nugget: Nugget) -> dict:
    return {
        "turn": nugget.turn_id,
        "entity": nugget.entity_id,
        "start_word": nugget.start_word,
        "end_word": nugget.end_word,
    }


def entity_state(entity: Entity) -> dict:
    return {
        "topic": entity.topic_id,
        "key": entity.key,
        "name": entity.name,
        "grade": entity.grade_id,
        "comment": entity.comment,
    }


def membership_state(membership: Membership) -> dict:
    return {
        "entity": membership.entity_id,
        "attribute_set": membership.attribute_set_id,
        "vector": membership.vector,
        "evidence": membership.evidence,
    }


def label_state(label: TurnLabel) -> dict:
    return {"turn": label.turn_id, "label": label.label}


# What the services running in this call have recorded (`record`), for the outermost one to
# store once: a service calls others (undo, adjudication, whole submissions), and the events
# they record are written deep inside them. Only `record` and `saving` touch it.
touched_by_services: ContextVar[set | None] = ContextVar("judgments_touched", default=None)


def touched_entity(kind: str, object_id: int | None, before: dict | None, after: dict | None) -> int | None:
    if kind == Event.Kind.ENTITY:
        # an entity just created (or put back) has no nugget yet: the nuggets this edit gives it
        # are recorded as nugget events of their own conversations
        return object_id if before is not None else None
    if kind == Event.Kind.MEMBERSHIP:
        return (after or before or {}).get("entity")
    return None


def record(
    *,
    kind: str,
    action: str,
    object_id: int,
    topic_id: int,
    conversation_id: int | None,
    annotator,
    actor,
    before: dict | None,
    after: dict | None,
    undo_of: AnnotationEvent | None = None,
) -> AnnotationEvent:
    touched = touched_by_services.get()
    if touched is not None:
        touched.add((kind, topic_id, conversation_id, getattr(annotator, "pk", annotator),
                     touched_entity(kind, object_id, before, after)))
    return AnnotationEvent.objects.create(
        kind=kind,
        action=action,
        object_id=object_id,
        topic_id=topic_id,
        conversation_id=conversation_id,
        annotator=annotator,
        actor=actor,
        before=before,
        after=after,
        undo_of=undo_of,
    )


def bump(model, obj, expected_version: int, kind: str, **changes) -> None:
    """Write `changes` only if the row is still at `expected_version`; else StaleEdit."""
    updated = model.objects.filter(pk=obj.pk, version=expected_version).update(
        version=F("version") + 1, **changes
    )
    if not updated:
        raise StaleEdit(kind, model.objects.filter(pk=obj.pk).first())
    for field, value in changes.items():
        setattr(obj, field, value)
    obj.version = expected_version + 1
