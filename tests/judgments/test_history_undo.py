"""undo_last puts back the state before each kind of change, and records the undo itself."""

from __future__ import annotations

import pytest

from annotator.judgments import edits
from annotator.models import AnnotationEvent, Entity, Membership, Nugget, TurnLabel
from tests.concurrency.conftest import TURNS
from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    alice = make_user("alice")
    campaign = make_campaign()
    conversation = make_conversation(campaign, TURNS, annotators=[alice])
    return campaign, conversation, alice


def judgments():
    return (
        sorted(Nugget.objects.values_list("id", "turn_id", "entity_id", "start_word", "end_word")),
        sorted(Entity.objects.values_list("id", "key", "name", "grade_id", "comment")),
        sorted((m.entity_id, m.attribute_set_id, tuple(m.vector), m.evidence) for m in Membership.objects.all()),
        sorted(TurnLabel.objects.values_list("turn_id", "label")),
    )


def undo(conversation, alice):
    result = edits.undo_last(conversation, alice, actor=alice)
    assert result is not None
    return result


def test_undo_nugget_create_update_delete(setup):
    campaign, conversation, alice = setup
    turn = conversation.turns.get(position=2)
    empty = judgments()
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=turn, start_word=0, end_word=5)
    created = judgments()
    edits.update_nugget(nugget, actor=alice, expected_version=1, end_word=4)
    moved = judgments()
    edits.delete_nugget(Nugget.objects.get(pk=nugget.pk), actor=alice, expected_version=2)
    assert not Nugget.objects.exists()

    undo(conversation, alice)  # the delete
    assert judgments() == moved
    undo(conversation, alice)  # the move
    assert judgments() == created
    restored = Nugget.objects.get(pk=nugget.pk)
    # An undo is an edit like any other: a tab that still shows the old version is refused.
    with pytest.raises(edits.StaleEdit):
        edits.update_nugget(restored, actor=alice, expected_version=2, end_word=3)
    undo(conversation, alice)  # the create: the nugget...
    undo(conversation, alice)  # ...and then the entity it had brought
    assert judgments() == empty
    assert edits.undo_last(conversation, alice, actor=alice) is None


def test_undo_entity_update(setup):
    campaign, conversation, alice = setup
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2), start_word=0, end_word=5)
    before = judgments()
    edits.update_entity(nugget.entity, actor=alice, expected_version=1, conversation=conversation,
                              name="BTTF", grade=campaign.grades.get(label="L1"), comment="hmm")
    undone = undo(conversation, alice)
    assert "entity" in undone.description
    assert judgments() == before
    assert Entity.objects.get(pk=nugget.entity_id).version == 3  # moved on: stale tabs are refused


def test_undo_membership_create_update_delete(setup):
    campaign, conversation, alice = setup
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2), start_word=0, end_word=5)
    origin = conversation.topic.topic_type.attribute_sets.get(name="ORIGIN")
    entity = Entity.objects.get(pk=nugget.entity_id)
    states = [judgments()]
    for vector, evidence in (([0, 1, 0, 0, 0, 0, 0, 0], "US"), ([0, 0.5, 0, 0, 0, 0.5, 0, 0], "US, UK"), (None, "")):
        edits.set_membership(entity, origin, actor=alice, expected_version=entity.version, vector=vector,
                                   evidence=evidence, conversation=conversation)
        states.append(judgments())
    assert not Membership.objects.exists()
    version = Entity.objects.get(pk=entity.pk).version
    for expected in reversed(states[:-1]):
        undo(conversation, alice)
        assert judgments() == expected
    # Each undo moved the entity's version on (memberships are guarded by it).
    assert Entity.objects.get(pk=entity.pk).version == version + 3


def test_undo_turn_label_create_update_delete(setup):
    campaign, conversation, alice = setup
    turn = conversation.turns.get(position=2)
    states = [judgments()]
    edits.set_turn_label(turn, annotator=alice, actor=alice, label="o", expected_version=None)
    states.append(judgments())
    edits.set_turn_label(turn, annotator=alice, actor=alice, label="x", expected_version=1)
    states.append(judgments())
    edits.set_turn_label(turn, annotator=alice, actor=alice, label=None, expected_version=2)
    for expected in reversed(states):
        undo(conversation, alice)
        assert judgments() == expected


def test_undo_is_recorded_and_never_undone_twice(setup):
    campaign, conversation, alice = setup
    turn = conversation.turns.get(position=2)
    edits.set_turn_label(turn, annotator=alice, actor=alice, label="o", expected_version=None)
    first = AnnotationEvent.objects.get()
    undo(conversation, alice)
    undo_event = AnnotationEvent.objects.exclude(pk=first.pk).get()
    assert undo_event.undo_of == first and undo_event.action == "delete" and undo_event.kind == "label"
    assert undo_event.before == {"turn": turn.pk, "label": "o"} and undo_event.after is None
    assert edits.undo_last(conversation, alice, actor=alice) is None
    assert AnnotationEvent.objects.count() == 2


def graded_then_commented_elsewhere(campaign, conversation, alice):
    """Alice grades an entity in the workspace, then changes its comment through the API (an
    edit outside this conversation's history)."""
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2),
                                       start_word=0, end_word=5)
    entity = Entity.objects.get(pk=nugget.entity_id)
    grade = campaign.grades.get(label="L2")
    edits.update_entity(entity, actor=alice, expected_version=entity.version, conversation=conversation, grade=grade)
    edits.update_entity(entity, actor=alice, expected_version=entity.version, comment="seen on IMDb")
    return Entity.objects.get(pk=entity.pk)


def test_an_undo_of_a_change_made_stale_since_is_refused_with_the_latest_state(setup):
    campaign, conversation, alice = setup
    entity = graded_then_commented_elsewhere(campaign, conversation, alice)
    before, events = judgments(), AnnotationEvent.objects.count()
    with pytest.raises(edits.StaleEdit) as refused:
        edits.undo_last(conversation, alice, actor=alice)
    assert refused.value.current == entity and refused.value.current.comment == "seen on IMDb"
    assert judgments() == before and AnnotationEvent.objects.count() == events


def test_an_undo_of_a_membership_changed_since_is_refused(setup):
    campaign, conversation, alice = setup
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2),
                                       start_word=0, end_word=5)
    entity = Entity.objects.get(pk=nugget.entity_id)
    ratings = campaign.topic_types.get().attribute_sets.get(name="RATINGS")
    edits.set_membership(entity, ratings, actor=alice, expected_version=entity.version, vector=[0, 0, 0, 1],
                               conversation=conversation)
    entity.refresh_from_db()
    edits.set_membership(entity, ratings, actor=alice, expected_version=entity.version, vector=[1, 0, 0, 0])
    with pytest.raises(edits.StaleEdit):
        edits.undo_last(conversation, alice, actor=alice)
    assert Membership.objects.get().vector == [1, 0, 0, 0]
