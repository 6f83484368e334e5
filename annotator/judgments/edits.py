"""Business rules for changing judgments: the only code that writes nuggets, entities,
memberships and turn labels on an annotator's behalf (views, the API and undo all come here).

Every change
- runs in one transaction,
- is based on a version the caller saw; if someone saved in between, `StaleEdit` is raised with
  the latest state and nothing is written (optimistic concurrency: no silent overwrite),
- is recorded as an AnnotationEvent with the state before and after, which undo replays,
- writes the stored figures of what it changed (annotator.scores.stored) before its
  transaction ends (`keeps_figures`), so that a campaign page read at once shows it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, Max, OuterRef
from django.utils import timezone

from annotator.rules.evidence import EvidenceError, vector_from_evidence
from annotator.rules.identity import entity_key_and_name
from annotator.models import (
    AnnotationEvent,
    Assignment,
    AttributeSet,
    Conversation,
    Entity,
    Grade,
    Membership,
    Nugget,
    Turn,
    TurnLabel,
)
from annotator.rules.ids import ENTITY, id_problem
from annotator.rules.spans import SpanProblem, SpanSweep, span_problem
from annotator.rules.vectors import VectorError, check_distribution, format_vector, read_vector
from annotator.judgments import completion
from annotator.scores.stored import invalidation
from annotator.scores.stored.figures import StoredScore
from scoring.words import tokenise

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


# -- what a change looks like in the history ------------------------------------------------


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


# What the services running in this call have recorded (`_record`), for the outermost one to
# store once: a service calls others (undo, adjudication, whole submissions), and the events
# they record are written deep inside them. It never leaves this module.
_touched: ContextVar[set | None] = ContextVar("judgments_touched", default=None)
Service = TypeVar("Service", bound=Callable[..., Any])
Result = TypeVar("Result")


class Saved(NamedTuple, Generic[Result]):
    """What a service returned, and the score its save stored (`invalidation.judgments_saved`): one
    annotator's score of one conversation; None when it stored several conversations or none,
    or ran inside another service (which stores)."""

    result: Result
    score: StoredScore | None


def keeps_figures(service: Service) -> Service:
    """Run `service` in one transaction and, before that transaction ends, store the figures of
    the conversations its recorded changes touched (a service called inside another adds to
    the outer one's, which stores them once). `save_with_score` runs it and returns the score
    it stored too."""

    @functools.wraps(service)
    def run(*args, **kwargs):
        return _keeping_figures(service, args, kwargs).result

    return run  # type: ignore[return-value]


def save_with_score(service: Callable[..., Result], /, *args, **kwargs) -> Saved[Result]:
    """`service(*args, **kwargs)` (a service that keeps_figures) and the score its save stored:
    an answer that shows the conversation's score (the workspace's panel) shows that one rather
    than read and score the same judgments again. The score is of the committed save unless the
    caller runs this inside its own transaction."""
    return _keeping_figures(service.__wrapped__, args, kwargs)  # type: ignore[attr-defined]


def _keeping_figures(service: Callable[..., Result], args, kwargs) -> Saved[Result]:
    if _touched.get() is not None:
        with transaction.atomic():
            return Saved(service(*args, **kwargs), None)
    token = _touched.set(set())
    try:
        with transaction.atomic():
            result = service(*args, **kwargs)
            saved = store_figures(_touched.get())
        return Saved(result, saved)
    finally:
        _touched.reset(token)


def store_figures(touched: Iterable[tuple]) -> StoredScore | None:
    """Write the stored figures of what the recorded changes touched (what they invalidate:
    annotator.scores.stored.invalidation); a done conversation the save left short is not done
    any more. Returns the score stored when that is one conversation of one annotator (a save),
    else None."""
    by_annotator, topic_id = invalidation.conversations_touched(touched)
    if by_annotator:
        completion.reopen_if_short(by_annotator)
    return invalidation.judgments_saved(by_annotator, topic_id)


def _touched_entity(kind: str, object_id: int | None, before: dict | None, after: dict | None) -> int | None:
    if kind == Event.Kind.ENTITY:
        # an entity just created (or put back) has no nugget yet: the nuggets this edit gives it
        # are recorded as nugget events of their own conversations
        return object_id if before is not None else None
    if kind == Event.Kind.MEMBERSHIP:
        return (after or before or {}).get("entity")
    return None


def _record(
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
    touched = _touched.get()
    if touched is not None:
        touched.add((kind, topic_id, conversation_id, getattr(annotator, "pk", annotator),
                     _touched_entity(kind, object_id, before, after)))
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


def _bump(model, obj, expected_version: int, kind: str, **changes) -> None:
    """Write `changes` only if the row is still at `expected_version`; else StaleEdit."""
    updated = model.objects.filter(pk=obj.pk, version=expected_version).update(
        version=F("version") + 1, **changes
    )
    if not updated:
        raise StaleEdit(kind, model.objects.filter(pk=obj.pk).first())
    for field, value in changes.items():
        setattr(obj, field, value)
    obj.version = expected_version + 1


# -- spans ----------------------------------------------------------------------------------


def check_span_bounds(turn: Turn, start_word: int, end_word: int) -> None:
    """A nugget is a word range inside one system turn (no database needed: forms call this)."""
    check_span_among(turn, start_word, end_word, others=())


def check_span(turn: Turn, annotator, start_word: int, end_word: int, exclude: int | None = None) -> None:
    """Inside one system turn and overlapping none of the annotator's other nuggets.

    The overlap depends on what others just saved, so it is judged once, by the service, with
    the turn locked; forms judge the bounds only (check_span_bounds)."""
    others = Nugget.objects.filter(turn=turn, annotator=annotator).order_by()  # unordered: no joins to sort
    if exclude is not None:
        others = others.exclude(pk=exclude)
    check_span_among(turn, start_word, end_word, others=list(others.values_list("start_word", "end_word")))


def check_span_among(turn: Turn, start_word: int, end_word: int, others: Sequence[tuple[int, int]]) -> None:
    """AnnotationRefused, in the workspace's words, when annotator.rules.spans finds the span
    wrong among the annotator's `others` spans of the turn, given, not read: the one home of the
    span check (check_span reads the others; an adjudication preview passes them, locking nothing)."""
    if not turn.is_system:
        raise AnnotationRefused(USER_TURN)
    words = len(tokenise(turn.text))
    _refuse_problem(span_problem(start_word, end_word, words=words, others=others), turn, start_word, end_word, words)


USER_TURN = "Nuggets are parts of system turns; this is a user turn."


def _refuse_problem(problem: SpanProblem | None, turn: Turn, start_word: int, end_word: int, words: int) -> None:
    if problem is None:
        return
    if problem.outside:
        raise AnnotationRefused(
            f"Words {start_word + 1}-{end_word + 1} are outside {turn}, which has {words} words."
        )
    raise AnnotationRefused("These words overlap a nugget you already marked in this turn.")


# -- entities -------------------------------------------------------------------------------


def entity_for_text(turn: Turn, annotator, text: str, *, actor, conversation: Conversation | None = None) -> Entity:
    """The annotator's entity of the topic that `text` names (URL first, else the name); new if unknown."""
    key, name = entity_key_and_name(text)
    return entity_for_key(turn.conversation.topic_id, annotator, key, name, actor=actor,
                          conversation_id=conversation.pk if conversation else turn.conversation_id)


def entity_for_key(topic_id: int, annotator, key: str, name: str, *, actor, conversation_id: int | None) -> Entity:
    """The annotator's entity of the topic with this identity key; made (named `name`, and
    recorded) if unknown."""
    problem = id_problem(ENTITY, key) if key is not None else None
    if problem is not None:
        raise AnnotationRefused(f"The entity cannot be named so: {problem}.")
    entity = _entity_with_key(topic_id, annotator, key)
    if entity is not None:
        return entity
    try:
        with transaction.atomic():
            entity = Entity.objects.create(topic_id=topic_id, annotator=annotator, key=key, name=name[:1000])
    except IntegrityError:
        # Another tab created it a moment ago (PostgreSQL lets both look before either writes).
        entity = _entity_with_key(topic_id, annotator, key)
        if entity is None:
            raise
        return entity
    _record(
        kind=Event.Kind.ENTITY,
        action=Event.Action.CREATE,
        object_id=entity.pk,
        topic_id=topic_id,
        conversation_id=conversation_id,
        annotator=annotator,
        actor=actor,
        before=None,
        after=entity_state(entity),
    )
    return entity


def _entity_with_key(topic_id: int, annotator, key: str) -> Entity | None:
    # one at most (entity_key_unique): by pk, not Entity's ordering, which joins two tables to sort
    return Entity.objects.filter(topic_id=topic_id, annotator=annotator, key=key).order_by("pk").first()


@keeps_figures
def update_entity(
    entity: Entity,
    *,
    actor,
    expected_version: int,
    conversation: Conversation | None = None,
    **changes,
) -> Entity:
    """Change name, grade or comment of an entity (everywhere it is mentioned in the topic)."""
    allowed = {"name", "grade", "comment"}
    if set(changes) - allowed:
        raise TypeError(f"cannot change {sorted(set(changes) - allowed)}")
    if "grade" in changes and changes["grade"] is not None:
        grade: Grade = changes["grade"]
        if grade.campaign_id != entity.topic.campaign_id:
            raise AnnotationRefused("That grade belongs to another campaign.")
    before = entity_state(entity)
    _bump(Entity, entity, expected_version, "entity", updated_at=timezone.now(), **changes)
    _record(
        kind=Event.Kind.ENTITY,
        action=Event.Action.UPDATE,
        object_id=entity.pk,
        topic_id=entity.topic_id,
        conversation_id=conversation.pk if conversation else None,
        annotator=entity.annotator,
        actor=actor,
        before=before,
        after=entity_state(entity),
    )
    return entity


def vector_for_evidence(attribute_set: AttributeSet, evidence: str) -> tuple[float, ...]:
    """The vector the attribute set's helper gives the evidence ("1.3M", "United Kingdom,
    United States"): the one place evidence becomes a vector (forms, API, service)."""
    try:
        vector = tuple(vector_from_evidence(attribute_set.helper or {}, list(attribute_set.groups), evidence))
        check_distribution(vector, length=attribute_set.size)
    except (EvidenceError, VectorError) as error:
        raise AnnotationRefused(f"{error}.") from error
    return vector


@keeps_figures
def set_membership(
    entity: Entity,
    attribute_set: AttributeSet,
    *,
    actor,
    expected_version: int,
    vector: Iterable[float] | None,
    evidence: str = "",
    conversation: Conversation | None = None,
    from_evidence: bool = False,
) -> Membership | None:
    """Set (or, with vector None, clear) an entity's membership in one attribute set; with
    `from_evidence`, the vector is the one the attribute set's helper gives the evidence.

    The entity's version guards its memberships too: two people splitting the same movie's
    countries at once cannot both win silently.
    """
    if from_evidence:
        vector = vector_for_evidence(attribute_set, evidence)
    if attribute_set.topic_type_id != entity.topic.topic_type_id:
        raise AnnotationRefused(f"{attribute_set.name} is not an attribute set of this topic.")
    current = Membership.objects.filter(entity=entity, attribute_set=attribute_set).first()
    before = membership_state(current) if current else None
    values = None
    if vector is not None:
        # Check the vector before the version moves on (the caller's entity object included).
        try:
            values = list(read_vector(vector if isinstance(vector, str) else list(vector), attribute_set.size))
        except (VectorError, TypeError) as error:
            raise AnnotationRefused(f"The {attribute_set.name} vector {error}.") from error
    elif current is None:
        return None  # nothing to clear
    _bump(Entity, entity, expected_version, "entity", updated_at=timezone.now())
    object_id = current.pk if current else None
    if vector is None:
        current.delete()  # (sets current.pk to None: the event uses object_id)
        membership, action, after = None, Event.Action.DELETE, None
    else:
        membership, created = Membership.objects.update_or_create(
            entity=entity, attribute_set=attribute_set, defaults={"vector": values, "evidence": evidence[:1000]}
        )
        action = Event.Action.CREATE if created else Event.Action.UPDATE
        after = membership_state(membership)
        object_id = membership.pk
    _record(
        kind=Event.Kind.MEMBERSHIP,
        action=action,
        object_id=object_id,
        topic_id=entity.topic_id,
        conversation_id=conversation.pk if conversation else None,
        annotator=entity.annotator,
        actor=actor,
        before=before,
        after=after,
    )
    return membership


# -- nuggets --------------------------------------------------------------------------------


def _lock_turn(turn: Turn) -> None:
    """Serialise nugget edits in one turn, so the no-overlap check and the write are one step.

    SQLite's IMMEDIATE transactions already serialise writers; on PostgreSQL two transactions
    could otherwise both find "no overlap" and both insert.
    """
    if not connection.features.has_select_for_update:
        return  # SQLite: nothing to lock, and a query for nothing in every save
    # No .first(): Turn's default ordering goes through Conversation's (topic, run), and FOR UPDATE
    # would then lock those rows too (deadlocks with the foreign-key checks of other saves).
    list(Turn.objects.select_for_update(of=("self",)).filter(pk=turn.pk).order_by().values_list("pk", flat=True))


def _lock_judgments(conversation: Conversation, annotator) -> None:
    """Serialise whole-conversation submissions of one annotator (their assignment's row), so
    that the version check and the replacement are one step (SQLite: IMMEDIATE already does)."""
    if not connection.features.has_select_for_update:
        return
    list(Assignment.objects.select_for_update(of=("self",)).filter(
        conversation_id=conversation.pk, annotator_id=getattr(annotator, "pk", annotator)).order_by().values_list("pk", flat=True))


def _save_nugget(nugget: Nugget) -> None:
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
    _lock_turn(turn)
    check_span(turn, annotator, start_word, end_word)
    naming = Nugget.words_naming(tokenise(turn.text), start_word, end_word)
    if entity is None and cited is not None:
        entity = entity_for_key(turn.conversation.topic_id, annotator, *cited, actor=actor,
                                conversation_id=turn.conversation_id)
    elif entity is None:
        entity = _entity_its_words_name(turn, annotator, naming, actor=actor)
    return _write_nugget(annotator=annotator, actor=actor, turn=turn, start_word=start_word, end_word=end_word,
                         entity=entity, naming=naming)


def _entity_its_words_name(turn: Turn, annotator, naming: dict, *, actor) -> Entity:
    """The annotator's entity that a nugget's words name (`naming`: Nugget.words_naming, the
    one derivation of them), new if unknown."""
    return entity_for_key(turn.conversation.topic_id, annotator, naming["text_key"], naming["text_name"], actor=actor,
                          conversation_id=turn.conversation_id)


def _write_nugget(*, annotator, actor, turn: Turn, start_word: int, end_word: int, entity: Entity,
                  naming: dict) -> Nugget:
    """The nugget of a span already checked (create_nugget, or a whole submission at once);
    `naming`: what its words name (Nugget.words_naming), stored with it."""
    if entity.topic_id != turn.conversation.topic_id or entity.annotator_id != annotator.pk:
        raise AnnotationRefused("That entity belongs to another topic or annotator.")
    nugget = Nugget(turn=turn, annotator=annotator, entity=entity, start_word=start_word, end_word=end_word, **naming)
    _save_nugget(nugget)
    _record(
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
    _lock_turn(nugget.turn)
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
    _bump(Nugget, nugget, expected_version, "nugget", **changes)
    _record(
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
    _record(
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


# -- turn labels ----------------------------------------------------------------------------


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
        _bump(TurnLabel, current, expected_version, "turn label", label=label, updated_at=timezone.now())
        result, action, after, object_id = current, Event.Action.UPDATE, label_state(current), current.pk
    _record(
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


# -- undo -----------------------------------------------------------------------------------


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
            _record(action=Event.Action.DELETE, before=after, after=after, **common)
            return undo_last(conversation, annotator, actor=actor)
    _refuse_if_changed_since(event, model)
    if event.action == Event.Action.CREATE:
        model.objects.filter(pk=event.object_id).delete()
        _record(action=Event.Action.DELETE, before=after, after=None, **common)
    elif event.action == Event.Action.DELETE:
        fields = _model_fields(before)
        if event.kind in (Event.Kind.NUGGET, Event.Kind.LABEL):
            fields["annotator"] = annotator
            # Never reuse a version number a tab may still show: each recorded change of this
            # object moved its version on by at most one, so this is past all of them.
            fields["version"] = AnnotationEvent.objects.filter(kind=event.kind, object_id=event.object_id).count() + 1
        model.objects.update_or_create(pk=event.object_id, defaults=fields)
        _record(action=Event.Action.CREATE, before=None, after=before, **common)
    else:
        fields = _model_fields(before)
        if event.kind != Event.Kind.MEMBERSHIP:
            model.objects.filter(pk=event.object_id).update(version=F("version") + 1, **fields)
        else:
            model.objects.filter(pk=event.object_id).update(**fields)
        _record(action=Event.Action.UPDATE, before=after, after=before, **common)
    if event.kind == Event.Kind.MEMBERSHIP:
        # Memberships are guarded by their entity's version: an undo moves it on like any edit.
        Entity.objects.filter(pk=(before or after)["entity"]).update(version=F("version") + 1)
    return Undone(event=event, description=f"Undid: {describe(event)}")


# -- a whole conversation at once (the API's judgments endpoint, automatic judges) -----------


# The most nuggets one whole-conversation submission may hold: each is written through the same
# services as a workspace edit (entity, nugget, history event: a few queries each), all in one
# transaction that holds SQLite's only writer; a larger judgment goes in by file import (bulk).
MAX_SUBMITTED_NUGGETS = 2_000


@dataclass(frozen=True)
class JudgedNugget:
    """One nugget of a whole-conversation submission: words of a system turn ("S1"), the entity
    it names (a URL or a name; default: its own words), the entity's grade and memberships."""

    turn: str
    start_word: int
    end_word: int
    entity: str | None = None
    grade: str | None = None
    memberships: dict[str, Any] | None = None  # attribute set -> vector (numbers, or "(0,1/2,...)")


@dataclass(frozen=True)
class JudgmentsSet:
    nuggets: int
    labels: int
    entities: int
    version: int  # of the judgments now (judgments_version)


@dataclass(frozen=True)
class JudgmentsVersion:
    """Where an annotator's judgments of a conversation stand (StaleEdit's `current`)."""

    version: int


def judgments_version(conversation: Conversation, annotator) -> int:
    """The last change an annotator made to their judgments in this conversation: its history
    event's id (0: none yet). A submission of the whole conversation names the version it was
    based on, so that it never replaces changes it has not seen."""
    events = Event.objects.filter(conversation_id=conversation.pk, annotator_id=getattr(annotator, "pk", annotator))
    return events.aggregate(last=Max("id"))["last"] or 0


@keeps_figures
def set_conversation_judgments(
    conversation: Conversation,
    *,
    annotator,
    actor,
    nuggets: list[JudgedNugget],
    labels: dict[str, str | None] | None = None,
    expected_version: int | None = None,
) -> JudgmentsSet:
    """Make the annotator's judgments of the conversation exactly these, all or nothing.

    `expected_version` is the judgments_version the submission was based on. When the
    annotator has changed their judgments here since (in the workspace, another submission),
    or has judgments here and names no version, nothing is written: StaleEdit, with the
    version now, so that a replacement is always made knowingly.

    The annotator's nuggets and turn labels already there are removed, then every nugget,
    grade, membership and label is written through the same services as a human edit (span
    bounds and overlaps, grades of the campaign, vectors that are distributions over the
    attribute set's groups), each recorded in the history. Any refusal (AnnotationRefused,
    naming the nugget as "nuggets[i]") undoes the whole submission. An entity's grade and
    memberships are per topic, as in the workspace: they change wherever it is mentioned.
    """
    _lock_judgments(conversation, annotator)
    now = judgments_version(conversation, annotator)
    if now and expected_version != now:
        raise StaleEdit("judgments", JudgmentsVersion(now), message=(
            f"Your judgments of this conversation are at version {now}"
            + (f", not {expected_version}: they changed since" if expected_version is not None else
               ": send that version to replace them")
            + "; nothing was saved."
        ))
    turns = {str(t): t for t in conversation.turns.select_related("conversation__topic__campaign").all()}
    grades = {g.label: g for g in Grade.objects.filter(campaign_id=conversation.topic.campaign_id)}
    sets = {a.name: a for a in AttributeSet.objects.filter(topic_type_id=conversation.topic.topic_type_id)}
    for nugget in Nugget.objects.filter(turn__conversation=conversation, annotator=annotator).select_related("turn__conversation"):
        delete_nugget(nugget, actor=actor, expected_version=nugget.version)
    words = _check_submitted_spans(conversation, annotator, turns, nuggets)
    judged: dict[int, tuple[str | None, dict]] = {}  # entity -> (grade, memberships) as first given
    for i, given in enumerate(nuggets):
        where = f"nuggets[{i}]"
        turn = turns[given.turn]
        if given.grade is not None and given.grade not in grades:
            raise AnnotationRefused(f"{where}: {given.grade} is not a grade of this campaign ({', '.join(grades)}).")
        unknown = sorted(set(given.memberships or {}) - set(sets))
        if unknown:
            raise AnnotationRefused(f"{where}: {', '.join(unknown)} is not an attribute set of this topic ({', '.join(sets)}).")
        try:
            if given.entity and entity_key_and_name(given.entity)[0] is None:
                raise AnnotationRefused(f"{given.entity!r} names no entity (give a URL or a name).")
            naming = Nugget.words_naming(words[turn.pk], given.start_word, given.end_word)
            entity = (entity_for_text(turn, annotator, given.entity, actor=actor) if given.entity
                      else _entity_its_words_name(turn, annotator, naming, actor=actor))
            nugget = _write_nugget(annotator=annotator, actor=actor, turn=turn, start_word=given.start_word,
                                   end_word=given.end_word, entity=entity, naming=naming)
        except AnnotationRefused as refused:
            raise AnnotationRefused(f"{where}: {refused}") from refused
        entity = nugget.entity  # read (or made) by create_nugget, in this transaction
        entity.topic = conversation.topic
        memberships = {name: _vector(vector, sets[name], where) for name, vector in (given.memberships or {}).items()}
        if entity.pk in judged:
            first_grade, first_memberships = judged[entity.pk]
            if given.grade is not None and first_grade is not None and given.grade != first_grade or any(
                name in first_memberships and first_memberships[name] != vector for name, vector in memberships.items()
            ):
                raise AnnotationRefused(f"{where}: {entity} is judged differently by an earlier nugget (one entity, one grade "
                                        "and one membership per attribute set)")
        judged.setdefault(entity.pk, (given.grade, {}))
        judged[entity.pk][1].update(memberships)
        if given.grade is not None and entity.grade_id != grades[given.grade].pk:
            update_entity(entity, actor=actor, expected_version=entity.version, conversation=conversation,
                          grade=grades[given.grade])
        for name, vector in memberships.items():
            set_membership(entity, sets[name], actor=actor, expected_version=entity.version, vector=vector,
                           conversation=conversation)
    labels = labels or {}
    unknown_turns = sorted(set(labels) - set(turns))
    if unknown_turns:
        raise AnnotationRefused(f"labels: no turn {', '.join(unknown_turns)} in this conversation.")
    current = {label.turn_id: label for label in TurnLabel.objects.filter(turn__conversation=conversation, annotator=annotator)}
    written = 0
    for name, turn in turns.items():
        label, existing = labels.get(name), current.get(turn.pk)
        if label is None and existing is None:
            continue
        try:
            set_turn_label(turn, annotator=annotator, actor=actor, label=label,
                           expected_version=existing.version if existing else None)
        except AnnotationRefused as refused:
            raise AnnotationRefused(f"labels: {name}: {refused}") from refused
        written += label is not None
    return JudgmentsSet(nuggets=len(nuggets), labels=written, entities=len(judged),
                        version=judgments_version(conversation, annotator))


def _check_submitted_spans(conversation: Conversation, annotator, turns: dict[str, Turn],
                           nuggets: Sequence[JudgedNugget]) -> dict[int, list[str]]:
    """The spans of a whole submission checked at once, as create_nugget checks one: each turn
    locked and tokenised once, overlaps found by one sorted sweep per turn (with whatever of
    the annotator's nuggets is still there), so that n nuggets cost O(n log n), not O(n^2).
    Returns the words of each turn (by id)."""
    list(Turn.objects.select_for_update(of=("self",)).filter(conversation=conversation).order_by()
         .values_list("pk", flat=True))  # as _lock_turn, for every turn at once
    spans: dict[int, list[tuple[int, int, int | None]]] = {}  # turn -> (start, end, index in nuggets)
    for start, end, turn_id in Nugget.objects.filter(turn__conversation=conversation, annotator=annotator).values_list(
        "start_word", "end_word", "turn_id"
    ):
        spans.setdefault(turn_id, []).append((start, end, None))
    for i, given in enumerate(nuggets):
        turn = turns.get(given.turn)
        if turn is None:
            raise AnnotationRefused(f"nuggets[{i}]: no turn {given.turn} in this conversation ({', '.join(turns)}).")
        if not turn.is_system:
            raise AnnotationRefused(f"nuggets[{i}]: {USER_TURN}")
        spans.setdefault(turn.pk, []).append((given.start_word, given.end_word, i))
    by_id = {turn.pk: turn for turn in turns.values()}
    words = {turn_id: tokenise(by_id[turn_id].text) for turn_id in spans}
    for turn_id, turn_spans in spans.items():
        sweep = SpanSweep(len(words[turn_id]))
        # the annotator's stored nuggets (index None) before submitted ones starting at the same word
        for start, end, index in sorted(turn_spans, key=lambda s: (s[0], s[1], s[2] is not None, s[2] or 0)):
            problem = sweep.check(start, end, index)
            # the submitted nugget of the two is at fault (stored ones that are wrong already,
            # e.g. outside a turn whose text changed, are not this request's doing)
            blame = index if index is not None or problem is None or problem.outside else problem.overlaps
            try:
                _refuse_problem(problem, by_id[turn_id], start, end, sweep.words)
            except AnnotationRefused as refused:
                if blame is None:
                    continue
                raise AnnotationRefused(f"nuggets[{blame}]: {refused}") from refused
    return words


def _vector(vector, attribute_set: AttributeSet, where: str) -> list[float]:
    """A membership vector as numbers, or as annotators type it: "(0,1/2,0,0,0,1/2,0,0)"."""
    try:
        values = list(read_vector(vector, attribute_set.size))
    except VectorError as error:
        raise AnnotationRefused(f"{where}: the {attribute_set.name} vector {error}.") from error
    return values


@keeps_figures
def link_nugget(nugget: Nugget, *, actor, expected_version: int, entity: Entity | None, text: str = "",
                conversation: Conversation | None = None) -> Entity:
    """Point the nugget at `entity`, or (None) at the annotator's entity that `text` names (an
    existing one with the same URL or name, else a new one): one step, all or nothing."""
    if entity is None:
        entity = entity_for_text(nugget.turn, nugget.annotator, text, actor=actor, conversation=conversation)
    update_nugget(nugget, actor=actor, expected_version=expected_version, entity=entity)
    return entity
