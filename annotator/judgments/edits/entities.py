"""Entities: found or made for the words or key a nugget names, their grade, comment and name,
and their memberships (typed vectors or the campaign's evidence helper)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotator.judgments.edits.recording import AnnotationRefused, bump, entity_state, Event, membership_state, record
from annotator.judgments.edits.saving import keeps_figures
from annotator.models import AttributeSet, Conversation, Entity, Grade, Membership, Turn
from annotator.rules.evidence import EvidenceError, vector_from_evidence
from annotator.rules.identity import entity_key_and_name
from annotator.rules.ids import ENTITY, id_problem
from annotator.rules.vectors import check_distribution, read_vector, VectorError


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
    record(
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
    bump(Entity, entity, expected_version, "entity", updated_at=timezone.now(), **changes)
    record(
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
    bump(Entity, entity, expected_version, "entity", updated_at=timezone.now())
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
    record(
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
