"""Nuggets: marked, moved, relinked and deleted, each with its turn locked and its span checked."""

from __future__ import annotations

from typing import Any

from django.db import connection, IntegrityError, transaction
from django.utils import timezone

from annotator.judgments.edits.entities import entity_for_key, entity_for_text
from annotator.judgments.edits.recording import AnnotationRefused, bump, Event, nugget_state, record, StaleEdit
from annotator.judgments.edits.saving import keeps_figures
from annotator.judgments.edits.spans import check_span
from annotator.models import Assignment, Conversation, Entity, Nugget, Turn
from scoring.words import tokenise


def lock_turn(turn: Turn) -> None:
    """Serialise nugget edits in one turn, so the no-overlap check and the write are one step.

    SQLite's IMMEDIATE transactions already serialise writers; on PostgreSQL two transactions
    could otherwise both find "no overlap" and both insert.
    """
    if not connection.features.has_select_for_update:
        return  # SQLite: nothing to lock, and a query for nothing in every save
    # No .first(): Turn's default ordering goes through Conversation's (topic, run), and FOR UPDATE
    # would then lock those rows too (deadlocks with the foreign-key checks of other saves).
    list(Turn.objects.select_for_update(of=("self",)).filter(pk=turn.pk).order_by().values_list("pk", flat=True))


def lock_judgments(conversation: Conversation, annotator) -> None:
    """Serialise whole-conversation submissions of one annotator (their assignment's row), so
    that the version check and the replacement are one step (SQLite: IMMEDIATE already does)."""
    if not connection.features.has_select_for_update:
        return
    list(Assignment.objects.select_for_update(of=("self",)).filter(
        conversation_id=conversation.pk, annotator_id=getattr(annotator, "pk", annotator)).order_by().values_list("pk", flat=True))


def save_nugget(nugget: Nugget) -> None:
    try:
        with transaction.atomic():
            nugget.save()
    except IntegrityError as error:
        # Two tabs marking the same words at once: the second insert loses the race.
        raise AnnotationRefused("These words were just marked as a nugget (in another tab?).") from error


@keeps_figures
def create_nugget(
    *,
    annotator,
    actor,
    turn: Turn,
    start_word: int,
    end_word: int,
    entity: Entity | None = None,
    cited: tuple[str, str] | None = None,
) -> Nugget:
    """Mark words of a system turn as a nugget, linked to `entity`, else to the entity the
    system cited on them (`cited`: its key and name), else to the entity its text names."""
    lock_turn(turn)
    check_span(turn, annotator, start_word, end_word)
    naming = Nugget.words_naming(tokenise(turn.text), start_word, end_word)
    if entity is None and cited is not None:
        entity = entity_for_key(turn.conversation.topic_id, annotator, *cited, actor=actor,
                                conversation_id=turn.conversation_id)
    elif entity is None:
        entity = entity_its_words_name(turn, annotator, naming, actor=actor)
    return write_nugget(annotator=annotator, actor=actor, turn=turn, start_word=start_word, end_word=end_word,
                         entity=entity, naming=naming)


def entity_its_words_name(turn: Turn, annotator, naming: dict, *, actor) -> Entity:
    """The annotator's entity that a nugget's words name (`naming`: Nugget.words_naming, the
    one derivation of them), new if unknown."""
    return entity_for_key(turn.conversation.topic_id, annotator, naming["text_key"], naming["text_name"], actor=actor,
                          conversation_id=turn.conversation_id)


def write_nugget(*, annotator, actor, turn: Turn, start_word: int, end_word: int, entity: Entity,
                  naming: dict) -> Nugget:
    """The nugget of a span already checked (create_nugget, or a whole submission at once);
    `naming`: what its words name (Nugget.words_naming), stored with it."""
    if entity.topic_id != turn.conversation.topic_id or entity.annotator_id != annotator.pk:
        raise AnnotationRefused("That entity belongs to another topic or annotator.")
    nugget = Nugget(turn=turn, annotator=annotator, entity=entity, start_word=start_word, end_word=end_word, **naming)
    save_nugget(nugget)
    record(
        kind=Event.Kind.NUGGET,
        action=Event.Action.CREATE,
        object_id=nugget.pk,
        topic_id=entity.topic_id,
        conversation_id=turn.conversation_id,
        annotator=annotator,
        actor=actor,
        before=None,
        after=nugget_state(nugget),
    )
    return nugget


@keeps_figures
def update_nugget(
    nugget: Nugget,
    *,
    actor,
    expected_version: int,
    start_word: int | None = None,
    end_word: int | None = None,
    entity: Entity | None = None,
) -> Nugget:
    start = nugget.start_word if start_word is None else start_word
    end = nugget.end_word if end_word is None else end_word
    lock_turn(nugget.turn)
    check_span(nugget.turn, nugget.annotator, start, end, exclude=nugget.pk)
    if entity is not None and (
        entity.topic_id != nugget.turn.conversation.topic_id or entity.annotator_id != nugget.annotator_id
    ):
        raise AnnotationRefused("That entity belongs to another topic or annotator.")
    before = nugget_state(nugget)
    changes: dict[str, Any] = {"start_word": start, "end_word": end, "updated_at": timezone.now()}
    if (start, end) != (nugget.text_start, nugget.text_end):  # other words: the entity they name
        changes.update(Nugget.words_naming(tokenise(nugget.turn.text), start, end))
    if entity is not None:
        changes["entity"] = entity
    bump(Nugget, nugget, expected_version, "nugget", **changes)
    record(
        kind=Event.Kind.NUGGET,
        action=Event.Action.UPDATE,
        object_id=nugget.pk,
        topic_id=nugget.turn.conversation.topic_id,
        conversation_id=nugget.turn.conversation_id,
        annotator=nugget.annotator,
        actor=actor,
        before=before,
        after=nugget_state(nugget),
    )
    return nugget


@keeps_figures
def delete_nugget(nugget: Nugget, *, actor, expected_version: int) -> None:
    deleted, _ = Nugget.objects.filter(pk=nugget.pk, version=expected_version).delete()
    if not deleted:
        raise StaleEdit("nugget", Nugget.objects.filter(pk=nugget.pk).first())
    record(
        kind=Event.Kind.NUGGET,
        action=Event.Action.DELETE,
        object_id=nugget.pk,
        topic_id=nugget.turn.conversation.topic_id,
        conversation_id=nugget.turn.conversation_id,
        annotator=nugget.annotator,
        actor=actor,
        before=nugget_state(nugget),
        after=None,
    )


@keeps_figures
def link_nugget(nugget: Nugget, *, actor, expected_version: int, entity: Entity | None, text: str = "",
                conversation: Conversation | None = None) -> Entity:
    """Point the nugget at `entity`, or (None) at the annotator's entity that `text` names (an
    existing one with the same URL or name, else a new one): one step, all or nothing."""
    if entity is None:
        entity = entity_for_text(nugget.turn, nugget.annotator, text, actor=actor, conversation=conversation)
    update_nugget(nugget, actor=actor, expected_version=expected_version, entity=entity)
    return entity
