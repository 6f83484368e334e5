"""Turn labels: a system turn's usefulness, set, changed or cleared."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotator.judgments.edits.recording import AnnotationRefused, bump, Event, label_state, record, StaleEdit
from annotator.judgments.edits.saving import keeps_figures
from annotator.models import Turn, TurnLabel


@keeps_figures
def set_turn_label(
    turn: Turn, *, annotator, actor, label: str | None, expected_version: int | None
) -> TurnLabel | None:
    """Label a system turn o/x/- (label None clears it). expected_version None: there was no label."""
    if not turn.is_system:
        raise AnnotationRefused("Only system turns are labelled o / x / -.")
    if label is not None and label not in TurnLabel.Label.values:
        raise AnnotationRefused(f"{label!r} is not a turn label (o, x or -).")
    current = TurnLabel.objects.filter(turn=turn, annotator=annotator).first()
    if expected_version is None and current is not None or expected_version is not None and (
        current is None or current.version != expected_version
    ):
        raise StaleEdit("turn label", current)
    before = label_state(current) if current else None
    if label is None:
        if current is None:
            return None
        # Delete only the version the caller saw (another tab may have changed it since we read
        # it), and keep the id: Model.delete() sets pk to None.
        object_id = current.pk
        deleted, _ = TurnLabel.objects.filter(pk=object_id, version=expected_version).delete()
        if not deleted:
            raise StaleEdit("turn label", TurnLabel.objects.filter(pk=object_id).first())
        result, action, after = None, Event.Action.DELETE, None
    elif current is None:
        try:
            with transaction.atomic():
                result = TurnLabel.objects.create(turn=turn, annotator=annotator, label=label)
        except IntegrityError as error:
            raise StaleEdit("turn label", TurnLabel.objects.filter(turn=turn, annotator=annotator).first()) from error
        action, after, object_id = Event.Action.CREATE, label_state(result), result.pk
    else:
        bump(TurnLabel, current, expected_version, "turn label", label=label, updated_at=timezone.now())
        result, action, after, object_id = current, Event.Action.UPDATE, label_state(current), current.pk
    record(
        kind=Event.Kind.LABEL,
        action=action,
        object_id=object_id,
        topic_id=turn.conversation.topic_id,
        conversation_id=turn.conversation_id,
        annotator=annotator,
        actor=actor,
        before=before,
        after=after,
    )
    return result
