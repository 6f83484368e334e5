"""Undo: the annotator's last change taken back, by the history's states, unless someone changed
the object since."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, F, OuterRef

from annotator.judgments.edits.recording import (
    entity_state,
    Event,
    label_state,
    membership_state,
    nugget_state,
    record,
    StaleEdit,
)
from annotator.judgments.edits.saving import keeps_figures
from annotator.models import (
    AnnotationEvent,
    AttributeSet,
    Conversation,
    Entity,
    Grade,
    Membership,
    Nugget,
    Turn,
    TurnLabel,
)
from annotator.rules.vectors import format_vector


_FOREIGN_KEYS = {"turn", "entity", "grade", "topic", "attribute_set"}


def _model_fields(state: dict) -> dict:
    """A recorded state as model field values (foreign keys by id)."""
    return {f"{name}_id" if name in _FOREIGN_KEYS else name: value for name, value in state.items()}


@dataclass
class Undone:
    event: AnnotationEvent
    description: str

    @property
    def restored_nugget(self) -> int | None:
        """The nugget the undo put back or moved back (the workspace selects it again)."""
        if self.event.kind == Event.Kind.NUGGET and self.event.action != Event.Action.CREATE:
            return self.event.object_id
        return None


def describe(event: AnnotationEvent) -> str:
    """A change in the annotator's words: "grade of Interstellar (2014) L2 -> L1", "new nugget
    Looper (2012) in S1", "ORIGIN of Tenet (2020) (0,1,0,...) -> (...)", "label of S2 o -> x"."""
    before, after = event.before or {}, event.after or {}
    state = after or before
    if event.kind in (Event.Kind.NUGGET, Event.Kind.LABEL):
        turn = Turn.objects.filter(pk=state.get("turn")).first()
        where = f"S{turn.number}" if turn else "a turn"
    if event.kind == Event.Kind.NUGGET:
        names = {pk: name or key for pk, name, key in Entity.objects.filter(
            pk__in={before.get("entity"), after.get("entity")} - {None}).values_list("pk", "name", "key")}
        name = names.get(state.get("entity")) or "nugget"
        if event.action == Event.Action.CREATE:
            return f"new nugget {name} in {where}"
        if event.action == Event.Action.DELETE:
            return f"deleting nugget {name} in {where}"
        if before.get("entity") != after.get("entity"):
            return f"link of the nugget in {where} {names.get(before.get('entity'), '?')} -> {names.get(after.get('entity'), '?')}"
        return (f"words of {name} in {where} {before['start_word'] + 1}-{before['end_word'] + 1}"
                f" -> {after['start_word'] + 1}-{after['end_word'] + 1}")
    if event.kind == Event.Kind.ENTITY:
        name = state.get("name") or state.get("key", "entity")
        if event.action != Event.Action.UPDATE:
            return f"{'new' if event.action == Event.Action.CREATE else 'deleting'} entity {name}"
        if before.get("grade") != after.get("grade"):
            labels = dict(Grade.objects.filter(pk__in={before.get("grade"), after.get("grade")} - {None})
                          .values_list("pk", "label"))
            return (f"grade of {name} {labels.get(before.get('grade'), 'ungraded')}"
                    f" -> {labels.get(after.get('grade'), 'ungraded')}")
        if before.get("name") != after.get("name"):
            return f"name {before.get('name')} -> {after.get('name')}"
        return f"comment of {name}"
    if event.kind == Event.Kind.MEMBERSHIP:
        entity = Entity.objects.filter(pk=state.get("entity")).first()
        attribute_set = AttributeSet.objects.filter(pk=state.get("attribute_set")).first()
        vector = lambda s: format_vector(s["vector"]) if s else "none"  # noqa: E731
        return f"{attribute_set.name if attribute_set else 'membership'} of {entity or 'entity'} {vector(before)} -> {vector(after)}"
    if event.kind == Event.Kind.LABEL:
        return f"label of {where} {before.get('label', 'none')} -> {after.get('label', 'none')}"
    return f"{event.get_action_display()} {event.get_kind_display()}"


def last_undoable(conversation: Conversation, annotator) -> AnnotationEvent | None:
    """The latest change to these judgments in this conversation that is not an undo and not undone.
    Imported judgments are where the annotator started (an import creates the conversation):
    undo never takes them back, nor anything made before the conversation was replaced by an
    import (those events concern turns and nuggets that are gone)."""
    replaced_after = AnnotationEvent.objects.filter(
        conversation=conversation, action=Event.Action.REPLACE, id__gt=OuterRef("id")
    )
    return (
        AnnotationEvent.objects.filter(
            conversation=conversation, annotator=annotator, undo_of__isnull=True, undone_by__isnull=True,
            imported=False,
        )
        .exclude(Exists(replaced_after))
        .order_by("-id")
        .first()
    )


_STATE_OF = {
    Event.Kind.NUGGET: (Nugget, nugget_state, "nugget"),
    Event.Kind.ENTITY: (Entity, entity_state, "entity"),
    Event.Kind.MEMBERSHIP: (Membership, membership_state, "entity"),
    Event.Kind.LABEL: (TurnLabel, label_state, "turn label"),
}


def _refuse_if_changed_since(event: AnnotationEvent, model) -> None:
    """Undo puts back what one change did. If the object has changed since (the API, another
    tab, another conversation of the topic), undoing would silently overwrite that change:
    StaleEdit with the latest state, like any edit based on an old version."""
    _, state_of, kind = _STATE_OF[event.kind]
    current = model.objects.filter(pk=event.object_id).first()
    if (state_of(current) if current is not None else None) == event.after:
        return
    if event.kind == Event.Kind.MEMBERSHIP:  # memberships are versioned by their entity
        current = Entity.objects.filter(pk=(event.before or event.after)["entity"]).first()
    raise StaleEdit(kind, current)


@keeps_figures
def undo_last(conversation: Conversation, annotator, *, actor) -> Undone | None:
    """Put back the state before the annotator's last change in this conversation; StaleEdit
    (nothing changed) when the object was changed since by something else."""
    event = last_undoable(conversation, annotator)
    if event is None:
        return None
    list(AnnotationEvent.objects.select_for_update(of=("self",)).filter(pk=event.pk).order_by().values_list("pk", flat=True))
    if AnnotationEvent.objects.filter(undo_of=event).exists():
        # Undone by another tab while we waited for the lock: undo the change before it instead.
        return undo_last(conversation, annotator, actor=actor)
    before, after = event.before, event.after
    common = dict(
        kind=event.kind,
        object_id=event.object_id,
        topic_id=event.topic_id,
        conversation_id=conversation.pk,
        annotator=annotator,
        actor=actor,
        undo_of=event,
    )
    model = _STATE_OF[event.kind][0]
    if event.action == Event.Action.CREATE:
        if event.kind == Event.Kind.ENTITY and Nugget.objects.filter(entity_id=event.object_id).exists():
            # The entity came with a nugget that is still there; keep it and move past it.
            record(action=Event.Action.DELETE, before=after, after=after, **common)
            return undo_last(conversation, annotator, actor=actor)
    _refuse_if_changed_since(event, model)
    if event.action == Event.Action.CREATE:
        model.objects.filter(pk=event.object_id).delete()
        record(action=Event.Action.DELETE, before=after, after=None, **common)
    elif event.action == Event.Action.DELETE:
        fields = _model_fields(before)
        if event.kind in (Event.Kind.NUGGET, Event.Kind.LABEL):
            fields["annotator"] = annotator
            # Never reuse a version number a tab may still show: each recorded change of this
            # object moved its version on by at most one, so this is past all of them.
            fields["version"] = AnnotationEvent.objects.filter(kind=event.kind, object_id=event.object_id).count() + 1
        model.objects.update_or_create(pk=event.object_id, defaults=fields)
        record(action=Event.Action.CREATE, before=None, after=before, **common)
    else:
        fields = _model_fields(before)
        if event.kind != Event.Kind.MEMBERSHIP:
            model.objects.filter(pk=event.object_id).update(version=F("version") + 1, **fields)
        else:
            model.objects.filter(pk=event.object_id).update(**fields)
        record(action=Event.Action.UPDATE, before=after, after=before, **common)
    if event.kind == Event.Kind.MEMBERSHIP:
        # Memberships are guarded by their entity's version: an undo moves it on like any edit.
        Entity.objects.filter(pk=(before or after)["entity"]).update(version=F("version") + 1)
    return Undone(event=event, description=f"Undid: {describe(event)}")
