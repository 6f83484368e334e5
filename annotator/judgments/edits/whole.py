"""A whole conversation's judgments at once (the API's judgments endpoint, automatic judges):
replaced all or nothing, through the same services as a human edit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Max

from annotator.judgments.edits.entities import entity_for_text, set_membership, update_entity
from annotator.judgments.edits.labels import set_turn_label
from annotator.judgments.edits.nuggets import delete_nugget, entity_its_words_name, lock_judgments, write_nugget
from annotator.judgments.edits.recording import AnnotationRefused, Event, StaleEdit
from annotator.judgments.edits.saving import keeps_figures
from annotator.judgments.edits.spans import refuse_problem, USER_TURN
from annotator.models import AttributeSet, Conversation, Grade, Nugget, Turn, TurnLabel
from annotator.rules.identity import entity_key_and_name
from annotator.rules.spans import SpanSweep
from annotator.rules.vectors import read_vector, VectorError
from scoring.words import tokenise


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
    lock_judgments(conversation, annotator)
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
                      else entity_its_words_name(turn, annotator, naming, actor=actor))
            nugget = write_nugget(annotator=annotator, actor=actor, turn=turn, start_word=given.start_word,
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
         .values_list("pk", flat=True))  # as lock_turn, for every turn at once
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
                refuse_problem(problem, by_id[turn_id], start, end, sweep.words)
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
