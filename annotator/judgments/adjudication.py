"""Adjudication: the organisers settle the annotators' disagreements one by one.

The adjudicated gold is the judgments of one account marked `is_adjudicated_gold` (no login,
never assigned). When an organiser first settles something in a conversation, the gold starts
as a copy of the judgments the scores used until then (the conversation's judge), so nothing
moves before a decision; the conversation's `gold_annotator` becomes the gold account, and
reports, exports and judge comparisons follow it like any gold.

A disagreement is one unit the annotators of the conversation (two or more) do not all judge alike:
- span: a nugget of an entity in a system turn (its words, or whether it is there at all),
- grade: an entity's grade (per topic: it applies in every conversation of the topic),
- membership: an entity's vector in one attribute set (per topic, like the grade),
- label: a system turn's usefulness label.
Each decision goes through annotator.judgments.edits (versions, history events), is recorded
as an AdjudicationDecision, and can be undone (its events are undone, newest first).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.contrib.auth import get_user_model

from annotator.judgments import edits
from annotator.models import (
    AdjudicationDecision,
    AnnotatorProfile,
    AttributeSet,
    Conversation,
    Entity,
    Grade,
    Membership,
    Nugget,
    Turn,
    TurnLabel,
)
from annotator.models.conversations import word_offsets
from annotator.rules.accounts import ADJUDICATED_GOLD
from annotator.rules.vectors import format_vector
from scoring.words import word_count, word_position

GOLD_USERNAME = ADJUDICATED_GOLD  # reserved: annotator.rules.accounts
KINDS = ("span", "grade", "membership", "label")
WRITABLE = ("grade", "membership", "label")  # a span is taken from one side, never typed


def gold_account():
    """The account holding the adjudicated gold (made on first use: inactive, no password)."""
    profile = AnnotatorProfile.objects.filter(is_adjudicated_gold=True).select_related("user").first()
    if profile is not None:
        return profile.user
    users = get_user_model()
    name, n = GOLD_USERNAME, 1
    while users.objects.filter(username=name).exists():
        n += 1
        name = f"{GOLD_USERNAME}-{n}"
    user = users(username=name, is_active=False)
    user.set_unusable_password()
    user.save()
    AnnotatorProfile.objects.create(
        user=user, is_adjudicated_gold=True,
        description="The organisers' adjudicated gold: settled disagreement by disagreement in the console.",
    )
    return user


def is_gold_account(user_id: int | None) -> bool:
    return user_id is not None and AnnotatorProfile.objects.filter(user_id=user_id, is_adjudicated_gold=True).exists()


# -- one annotator's judgments as the units see them ------------------------------------------


@dataclass
class Side:
    """One annotator's judgments of a conversation, by unit."""

    annotator_id: int | None
    nuggets: dict[tuple[int, str, int], Nugget] = field(default_factory=dict)  # (turn position, entity key, k-th)
    entities: dict[str, Entity] = field(default_factory=dict)  # key -> entity (grade selected)
    memberships: dict[tuple[str, str], Membership] = field(default_factory=dict)  # (key, attribute set)
    labels: dict[int, TurnLabel] = field(default_factory=dict)  # system turn position -> label

    def value(self, kind: str, parts: tuple) -> Any:
        """The comparable value of a unit: a span (start, end), a grade level, a vector, a label; None: not given."""
        if kind == "span":
            nugget = self.nuggets.get(parts)
            return (nugget.start_word, nugget.end_word) if nugget else None
        if kind == "grade":
            entity = self.entities.get(parts[0])
            return entity.grade.level if entity is not None and entity.grade is not None else None
        if kind == "membership":
            membership = self.memberships.get(parts)
            return tuple(membership.vector) if membership else None
        label = self.labels.get(parts[0])
        return label.label if label else None


def read_side(conversation: Conversation, annotator_id: int | None, keys: set[str] | None = None) -> Side:
    """Four queries: nuggets (with entities, grades and turns), topic entities named by `keys`
    (the gold's entities of the topic the conversation does not mention yet), memberships, labels."""
    side = Side(annotator_id)
    if annotator_id is None:
        return side
    seen: dict[tuple[int, str], int] = defaultdict(int)
    for nugget in (Nugget.objects.filter(turn__conversation=conversation, annotator_id=annotator_id)
                   .select_related("entity__grade", "turn").order_by("turn__position", "start_word")):
        key = nugget.entity.key
        k = seen[(nugget.turn.position, key)]
        seen[(nugget.turn.position, key)] += 1
        side.nuggets[(nugget.turn.position, key, k)] = nugget
        side.entities.setdefault(key, nugget.entity)
    missing = (keys or set()) - set(side.entities)
    if missing:
        for entity in Entity.objects.filter(topic_id=conversation.topic_id, annotator_id=annotator_id,
                                            key__in=missing).select_related("grade"):
            side.entities[entity.key] = entity
    by_id = {e.pk: key for key, e in side.entities.items()}
    for membership in Membership.objects.filter(entity_id__in=by_id).select_related("attribute_set"):
        side.memberships[(by_id[membership.entity_id], membership.attribute_set.name)] = membership
    for label in TurnLabel.objects.filter(turn__conversation=conversation, annotator_id=annotator_id).select_related("turn"):
        side.labels[label.turn.position] = label
    return side


# -- disagreements ------------------------------------------------------------------------------


@dataclass
class Said:
    """What one annotator said about a unit: its value, as the page shows it, and whether the
    gold can take it (a grade or membership only from an annotator who marked the entity here)."""

    annotator: Any  # user
    value: Any
    shown: str
    takeable: bool = True


@dataclass
class Disagreement:
    unit: str  # e.g. "grade\x1fhttps://imdb.com/title/tt0816692"
    kind: str
    parts: tuple
    what: str  # "grade of Interstellar (2014)"
    where: str  # "S1 WC 35-39": where it is in the conversation, as the workspace counts words
    order: tuple  # position in the conversation: next/previous follow it
    said: list[Said]  # one per annotator, in the order of Adjudication.annotators
    gold: Any
    shown_gold: str
    decision: AdjudicationDecision | None = None

    @property
    def settled(self) -> bool:
        return self.decision is not None

    @property
    def gold_matches(self) -> list[Any]:
        """The annotators whose value the gold holds now."""
        return [s.annotator for s in self.said if s.takeable and same_value(self.kind, s.value, self.gold)]

    @property
    def majority(self) -> Said | None:
        """With three annotators or more, the value all but one of them gave (the first of them
        says it); None otherwise."""
        takeable = [s for s in self.said if s.takeable]
        if len(takeable) < 3:
            return None
        for said in takeable[:2]:  # one of the first two is in any all-but-one majority
            if sum(same_value(self.kind, said.value, other.value) for other in takeable) == len(takeable) - 1:
                return said
        return None

    @property
    def dissenter(self) -> Said | None:
        """The one annotator outside the majority."""
        majority = self.majority
        if majority is None:
            return None
        return next(s for s in self.said if s.takeable and not same_value(self.kind, s.value, majority.value))

    @property
    def writable(self) -> bool:
        return self.kind in WRITABLE

    def said_by(self, annotator_id: int) -> Said | None:
        return next((s for s in self.said if s.annotator.pk == annotator_id), None)


SEP = "\x1f"  # between the parts of a unit id (entity keys are URLs or names: never this)


def unit_id(kind: str, parts: tuple) -> str:
    return SEP.join([kind, *map(str, parts)])


def parse_unit(unit: str) -> tuple[str, tuple]:
    kind, *rest = unit.split(SEP)
    if kind not in KINDS:
        raise ValueError(unit)
    if kind == "span":
        return kind, (int(rest[0]), rest[1], int(rest[2]))
    if kind == "label":
        return kind, (int(rest[0]),)
    return kind, tuple(rest)


@dataclass
class Adjudication:
    """The disagreements of a conversation among its annotators, with the gold beside them."""

    conversation: Conversation
    annotators: list[Any]  # users, in account order: the columns of the page
    gold_account: Any
    gold_in_use: bool  # the conversation's scores already use the adjudicated gold
    version: int  # the gold's judgments version in this conversation (edits.judgments_version)
    disagreements: list[Disagreement]
    sides: list[Side]  # one per annotator, in the same order
    gold: Side
    turns: list[Turn]
    grades: dict[int, Grade]
    attribute_sets: list[AttributeSet]

    @property
    def open(self) -> int:
        return sum(not d.settled for d in self.disagreements)

    def find(self, unit: str) -> Disagreement | None:
        return next((d for d in self.disagreements if d.unit == unit), None)

    def side_of(self, annotator_id: int) -> Side | None:
        return next((s for s in self.sides if s.annotator_id == annotator_id), None)


def _vector_text(vector) -> str:
    return "not given" if vector is None else format_vector(vector)


def span_text(offset: int, value) -> str:
    """A span as the page and the decisions name it: its WC positions (`offset`: the words
    before its turn), or that there is none."""
    return NO_NUGGET if value is None else f"WC {offset + value[0] + 1}-{offset + value[1] + 1}"


NO_NUGGET = "no nugget here"
NOT_MARKED = "entity not marked"  # a grade or membership of an annotator without the entity here


def adjudication(conversation: Conversation, annotators: list, judge: int | None = None) -> Adjudication:
    """Every unit the annotators do not all judge alike, in the order of the conversation.

    `judge`: whose judgments the conversation's scores use now (annotator.scores.per_conversation
    .judges). Each disagreement's gold value is what is scored: the adjudicated gold's once it is
    this conversation's gold, else the judge's (the gold's values of the topic decided in another
    conversation are not this one's until its first decision)."""
    turns = list(Turn.objects.filter(conversation=conversation).order_by("position"))
    offsets = system_turn_offsets(conversation, turns)
    name_at = {turn.position: str(turn) for turn in turns}
    sides = [read_side(conversation, annotator.pk) for annotator in annotators]
    gold = gold_account()
    keys = set().union(*(side.entities for side in sides))
    g = read_side(conversation, gold.pk, keys)
    if conversation.gold_annotator_id == gold.pk or judge is None or judge == gold.pk:
        scored = g
    else:
        scored = next((side for side in sides if side.annotator_id == judge), None) or read_side(conversation, judge)
    grades = {grade.level: grade for grade in Grade.objects.filter(campaign_id=conversation.topic.campaign_id)}
    attribute_sets = list(AttributeSet.objects.filter(topic_type_id=conversation.topic.topic_type_id))
    decisions: dict[str, AdjudicationDecision] = {}
    for decision in AdjudicationDecision.objects.filter(conversation=conversation).order_by("id"):
        decisions[decision.unit] = decision  # the latest decision of a unit stands

    def name_of(key: str) -> str:
        entity = next((side.entities[key] for side in (*sides, g) if key in side.entities), None)
        return (entity.name or entity.key) if entity else key

    first_wc: dict[str, int] = {}
    for side in sides:
        for (position, key, _k), nugget in side.nuggets.items():
            wc = word_position(offsets[position], nugget.start_word)
            first_wc[key] = min(first_wc.get(key, wc), wc)

    def grade_text(value) -> str:
        return grades[value].label if value in grades else "ungraded"

    result: list[Disagreement] = []

    def add(kind: str, parts: tuple, what: str, where: str, order: tuple, show) -> None:
        takeable = [kind not in ("grade", "membership") or parts[0] in side.entities for side in sides]
        said = [Said(annotator, side.value(kind, parts), "", can) for annotator, side, can in zip(annotators, sides, takeable)]
        given = [s.value for s in said if s.takeable]
        if all(same_value(kind, given[0], value) for value in given[1:]):
            return
        for s in said:
            s.shown = show(s.value) if s.takeable else NOT_MARKED
        unit = unit_id(kind, parts)
        gold_value = scored.value(kind, parts)
        result.append(Disagreement(unit=unit, kind=kind, parts=parts, what=what, where=where, order=order,
                                   said=said, gold=gold_value, shown_gold=show(gold_value), decision=decisions.get(unit)))

    for parts in sorted(set().union(*(side.nuggets for side in sides))):
        position, key, _k = parts
        spans = [v for side in sides if (v := side.value("span", parts)) is not None]
        add("span", parts, f"{name_of(key)} in {name_at[position]}", span_text(offsets[position], min(spans)),
            (offsets[position] + min(spans)[0], 0), lambda v, at=position: span_text(offsets[at], v))
    marked = [key for key in keys if sum(key in side.entities for side in sides) >= 2]
    for key in sorted(marked, key=lambda k: (first_wc.get(k, 0), k)):
        wc = first_wc.get(key, 0)
        add("grade", (key,), f"grade of {name_of(key)}", f"WC {wc}", (wc, 1), grade_text)
        for attribute_set in attribute_sets:
            add("membership", (key, attribute_set.name), f"{attribute_set.name} of {name_of(key)}", f"WC {wc}",
                (wc, 2, attribute_set.position), _vector_text)
    for turn in turns:
        if turn.is_system:
            add("label", (turn.position,), f"label of {turn}", str(turn),
                (offsets[turn.position] + word_count(turn.text), 3), lambda v: v or "not given")
    result.sort(key=lambda d: d.order)
    return Adjudication(conversation, list(annotators), gold, conversation.gold_annotator_id == gold.pk,
                        edits.judgments_version(conversation, gold), result, sides, g, turns, grades, attribute_sets)


def same_value(kind: str, x, y) -> bool:
    """Whether two values of a unit are the same judgment (vectors within rounding)."""
    if kind != "membership" or x is None or y is None:
        return x == y
    return len(x) == len(y) and bool(np.abs(np.asarray(x, dtype=float) - np.asarray(y, dtype=float)).sum() <= 1e-6)


# -- writing the gold ---------------------------------------------------------------------------


def _gold_entity(conversation: Conversation, gold, source: Entity, *, actor) -> Entity:
    """The gold's entity with the source's identity; a new one takes the source's grade and memberships."""
    existing = Entity.objects.filter(topic_id=conversation.topic_id, annotator=gold, key=source.key).first()
    if existing is not None:
        return existing
    entity = edits.entity_for_key(conversation.topic_id, gold, source.key, source.name, actor=actor,
                                  conversation_id=conversation.pk)
    entity.topic = conversation.topic
    if source.grade_id is not None:
        edits.update_entity(entity, actor=actor, expected_version=entity.version, conversation=conversation,
                            grade=source.grade)
    for membership in Membership.objects.filter(entity=source).select_related("attribute_set"):
        edits.set_membership(entity, membership.attribute_set, actor=actor, expected_version=entity.version,
                             vector=membership.vector, evidence=membership.evidence, conversation=conversation)
    return entity


@edits.keeps_figures
def start(conversation: Conversation, *, actor, judge: int | None):
    """Make the adjudicated gold this conversation's gold; the first time, as a copy of `judge`'s
    judgments, those the scores used so far (annotator.scores.per_conversation.judges), so that
    no score moves before a decision."""
    gold = gold_account()
    if conversation.gold_annotator_id == gold.pk:
        return gold
    has_own = Nugget.objects.filter(turn__conversation=conversation, annotator=gold).exists() or \
        TurnLabel.objects.filter(turn__conversation=conversation, annotator=gold).exists()
    if judge is not None and not has_own:  # a gold already begun here (then left by the shortcut) is resumed
        for nugget in (Nugget.objects.filter(turn__conversation=conversation, annotator_id=judge)
                       .select_related("entity__grade", "turn__conversation").order_by("turn__position", "start_word")):
            entity = _gold_entity(conversation, gold, nugget.entity, actor=actor)
            edits.create_nugget(annotator=gold, actor=actor, turn=nugget.turn, start_word=nugget.start_word,
                                end_word=nugget.end_word, entity=entity)
        for label in TurnLabel.objects.filter(turn__conversation=conversation, annotator_id=judge).select_related(
                "turn__conversation"):
            edits.set_turn_label(label.turn, annotator=gold, actor=actor, label=label.label, expected_version=None)
    conversation.gold_annotator = gold
    conversation.save(update_fields=["gold_annotator"])
    return gold


@edits.keeps_figures
def decide(conversation: Conversation, unit: str, *, actor, judge: int | None, take=None,
           written: Any = None, expected_version: int | None = None) -> AdjudicationDecision:
    """Settle one disagreement: the gold takes `take`'s value (an annotator), or the `written`
    value (a Grade, a vector, a label "o"/"x"/"-" or None). `judge` is whose judgments the
    scores use now (the gold starts as their copy, see `start`). AnnotationRefused when the gold
    cannot take it (a span overlapping another gold nugget); nothing is written then.

    `expected_version` is the gold's judgments version in this conversation the organiser saw
    (`Adjudication.version`): if someone changed the gold here since (another organiser, another
    tab), StaleEdit and nothing is written: a decision is never taken on a gold nobody saw."""
    kind, parts = parse_unit(unit)
    if take is None and kind not in WRITABLE:
        raise edits.AnnotationRefused("A span is settled by taking one annotator's.")
    if expected_version is not None and edits.judgments_version(conversation, gold_account()) != expected_version:
        raise edits.StaleEdit("adjudication", None, message=(
            "Someone else changed the gold of this conversation since you opened it; nothing was decided. "
            "The page now shows the gold as it is: decide again on it."))
    gold = start(conversation, actor=actor, judge=judge)
    floor = edits.judgments_version(conversation, gold)
    source = read_side(conversation, take.pk if take is not None else None, {parts[0]} if kind in ("grade", "membership") else None)
    mine = read_side(conversation, gold.pk, {parts[1]} if kind == "span" else {parts[0]} if kind != "label" else None)
    before = mine.value(kind, parts)
    if kind == "span":
        after = _take_span(conversation, gold, parts, source, mine, actor=actor)
        turn = Turn.objects.get(conversation=conversation, position=parts[0])
        what = f"{_name(source, mine, parts[1])} in {turn}"
        offset = _offset(conversation, parts[0])
        shown = (span_text(offset, before), span_text(offset, after))
    elif kind == "grade":
        grade = written if take is None else (source.entities[parts[0]].grade if parts[0] in source.entities else None)
        was = _grade_label(mine.entities.get(parts[0]))
        entity = _entity_for(conversation, gold, parts[0], source, mine, actor=actor)
        if entity.grade_id != getattr(grade, "pk", None):
            edits.update_entity(entity, actor=actor, expected_version=entity.version, conversation=conversation, grade=grade)
        what = f"grade of {entity.name or entity.key}"
        shown = (was, grade.label if grade else "ungraded")
    elif kind == "membership":
        key, set_name = parts
        attribute_set = AttributeSet.objects.get(topic_type_id=conversation.topic.topic_type_id, name=set_name)
        if take is None:
            vector, evidence = written, ""
        else:
            membership = source.memberships.get(parts)
            vector, evidence = (membership.vector, membership.evidence) if membership else (None, "")
        entity = _entity_for(conversation, gold, key, source, mine, actor=actor)
        if not same_value("membership", before, tuple(vector) if vector is not None else None):
            edits.set_membership(entity, attribute_set, actor=actor, expected_version=entity.version, vector=vector,
                                 evidence=evidence, conversation=conversation)
        what = f"{set_name} of {entity.name or entity.key}"
        shown = (_vector_text(before), _vector_text(vector))
    else:
        position = parts[0]
        label = written if take is None else source.value("label", parts)
        turn = Turn.objects.select_related("conversation").get(conversation=conversation, role=Turn.Role.SYSTEM,
                                                               position=position)
        if label != before:
            current = mine.labels.get(position)
            edits.set_turn_label(turn, annotator=gold, actor=actor, label=label,
                                 expected_version=current.version if current else None)
        what = f"label of {turn}"
        shown = (before or "not given", label or "not given")
    change = f"{shown[0]} -> {shown[1]}" if shown[0] != shown[1] else f"kept {shown[1]}"
    return AdjudicationDecision.objects.create(
        conversation=conversation, unit=unit, taken_from=take, decided_by=actor, after_event=floor,
        description=f"{what} {change}"[:1200],
    )


def _name(source: Side, mine: Side, key: str) -> str:
    entity = source.entities.get(key) or mine.entities.get(key)
    return (entity.name or entity.key) if entity else key


def _offset(conversation: Conversation, position: int) -> int:
    return system_turn_offsets(conversation).get(position, 0)


def system_turn_offsets(conversation: Conversation | None, turns: list[Turn] | None = None) -> dict[int, int]:
    """A system turn's position -> the words before it along its path (user turns count too): a
    word k (0-based) of it is at WC offset + k + 1, as the workspace counts. One query, unless
    `turns` (in position order) are given."""
    if turns is None:
        turns = list(Turn.objects.filter(conversation=conversation).order_by("position")
                     .only("role", "number", "text", "position", "follows"))
    return {t.position: offset for t, offset in zip(turns, word_offsets(turns)) if t.role == Turn.Role.SYSTEM}


def _grade_label(entity: Entity | None) -> str:
    return entity.grade.label if entity is not None and entity.grade is not None else "ungraded"


def _entity_for(conversation, gold, key: str, source: Side, mine: Side, *, actor) -> Entity:
    entity = mine.entities.get(key)
    if entity is None:
        model = source.entities.get(key) or Entity.objects.filter(topic_id=conversation.topic_id, key=key).first()
        entity = _gold_entity(conversation, gold, model, actor=actor)
    entity.topic = conversation.topic
    return entity


def _take_span(conversation, gold, parts, source: Side, mine: Side, *, actor):
    theirs, current = source.nuggets.get(parts), mine.nuggets.get(parts)
    if theirs is None:
        if current is not None:
            current.turn.conversation = conversation
            edits.delete_nugget(current, actor=actor, expected_version=current.version)
        return None
    if current is not None:
        if (current.start_word, current.end_word) != (theirs.start_word, theirs.end_word):
            current.turn.conversation = conversation
            edits.update_nugget(current, actor=actor, expected_version=current.version,
                                start_word=theirs.start_word, end_word=theirs.end_word)
    else:
        entity = _gold_entity(conversation, gold, theirs.entity, actor=actor)
        theirs.turn.conversation = conversation
        edits.create_nugget(annotator=gold, actor=actor, turn=theirs.turn, start_word=theirs.start_word,
                            end_word=theirs.end_word, entity=entity)
    return theirs.start_word, theirs.end_word


@dataclass
class UndoneDecision:
    description: str
    unit: str


@edits.keeps_figures
def undo_last_decision(conversation: Conversation, *, actor) -> UndoneDecision | None:
    """Take back the conversation's latest decision: undo the gold's changes it made (newest
    first, each recorded in the history as an undo) and forget the decision. StaleEdit when
    one of them was changed since by something else; then nothing is undone."""
    decision = AdjudicationDecision.objects.select_for_update().filter(conversation=conversation).order_by("-id").first()
    if decision is None:
        return None
    gold = gold_account()
    while (event := edits.last_undoable(conversation, gold)) is not None and event.pk > decision.after_event:
        edits.undo_last(conversation, gold, actor=actor)
    description, unit = decision.description, decision.unit
    decision.delete()
    return UndoneDecision(description=f"Undid: {description}", unit=unit)
