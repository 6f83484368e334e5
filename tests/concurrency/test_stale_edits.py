"""Optimistic concurrency, one step at a time: two tabs (or two people) load the same version,
both save; the second save is refused with StaleEdit carrying the latest state, nothing of it is
written and no event is recorded. Every kind of change is covered."""

from __future__ import annotations

import pytest

from annotator.judgments import edits
from annotator.judgments.edits import AnnotationRefused, StaleEdit
from annotator.models import AnnotationEvent, Entity, Membership, Nugget, TurnLabel

pytestmark = pytest.mark.django_db


def snapshot():
    """Every judgment row with its version, and the event count: must not move on a refusal."""
    return (
        sorted(Nugget.objects.values_list("id", "start_word", "end_word", "entity_id", "version")),
        sorted(Entity.objects.values_list("id", "name", "grade_id", "comment", "version")),
        sorted((m.id, m.attribute_set_id, tuple(m.vector), m.evidence) for m in Membership.objects.all()),
        sorted(TurnLabel.objects.values_list("id", "label", "version")),
        AnnotationEvent.objects.count(),
    )


def two_tabs(model, pk):
    return model.objects.get(pk=pk), model.objects.get(pk=pk)


def test_entity_edit_from_a_stale_tab_is_refused_with_the_latest_state(world):
    nugget = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    tab1, tab2 = two_tabs(Entity, nugget.entity_id)
    edits.update_entity(tab1, actor=world.alice, expected_version=tab1.version, name="Back to the Future")
    before = snapshot()
    with pytest.raises(StaleEdit) as refused:
        edits.update_entity(tab2, actor=world.alice, expected_version=tab2.version, grade=world.grade("L2"))
    assert snapshot() == before
    assert refused.value.current.name == "Back to the Future"
    assert refused.value.current.version == tab1.version == 2
    assert "changed by someone else" in str(refused.value) and "nothing was saved" in str(refused.value)
    # Redone on the latest state, it goes through and keeps both changes.
    latest = refused.value.current
    edits.update_entity(latest, actor=world.alice, expected_version=latest.version, grade=world.grade("L2"))
    entity = Entity.objects.get(pk=nugget.entity_id)
    assert (entity.name, entity.grade.label, entity.version) == ("Back to the Future", "L2", 3)


def test_membership_edit_from_a_stale_tab_is_refused(world):
    nugget = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    origin = world.attribute_set("ORIGIN")
    tab1, tab2 = two_tabs(Entity, nugget.entity_id)
    edits.set_membership(tab1, origin, actor=world.alice, expected_version=tab1.version,
                               vector=[0, 1, 0, 0, 0, 0, 0, 0], evidence="United States")
    before = snapshot()
    with pytest.raises(StaleEdit) as refused:
        edits.set_membership(tab2, origin, actor=world.alice, expected_version=tab2.version,
                                   vector=[0, 0, 0, 0, 0, 1, 0, 0], evidence="United Kingdom")
    assert snapshot() == before
    assert refused.value.current.pk == nugget.entity_id
    assert Membership.objects.get().evidence == "United States"
    # Clearing a membership from a stale tab is refused too.
    with pytest.raises(StaleEdit):
        edits.set_membership(tab2, origin, actor=world.alice, expected_version=1, vector=None)
    assert snapshot() == before


def test_nugget_update_and_delete_from_a_stale_tab_are_refused(world):
    nugget = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    tab1, tab2 = two_tabs(Nugget, nugget.pk)
    edits.update_nugget(tab1, actor=world.alice, expected_version=tab1.version, end_word=4)
    before = snapshot()
    with pytest.raises(StaleEdit) as refused:
        edits.update_nugget(tab2, actor=world.alice, expected_version=tab2.version, end_word=3)
    assert refused.value.current.end_word == 4 and refused.value.current.version == 2
    with pytest.raises(StaleEdit):
        edits.delete_nugget(tab2, actor=world.alice, expected_version=tab2.version)
    assert snapshot() == before
    assert Nugget.objects.get(pk=nugget.pk).end_word == 4


def test_edit_of_a_nugget_deleted_in_another_tab_says_it_was_deleted(world):
    nugget = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    tab1, tab2 = two_tabs(Nugget, nugget.pk)
    edits.delete_nugget(tab1, actor=world.alice, expected_version=tab1.version)
    before = snapshot()
    for attempt in (
        lambda: edits.update_nugget(tab2, actor=world.alice, expected_version=tab2.version, end_word=3),
        lambda: edits.delete_nugget(tab2, actor=world.alice, expected_version=tab2.version),
    ):
        with pytest.raises(StaleEdit) as refused:
            attempt()
        assert refused.value.current is None
        assert "deleted by someone else" in str(refused.value)
    assert snapshot() == before
    assert not Nugget.objects.filter(pk=nugget.pk).exists()


def test_the_same_words_marked_in_two_tabs_are_one_nugget(world):
    edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    before = snapshot()
    with pytest.raises(AnnotationRefused):
        edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    with pytest.raises(AnnotationRefused):  # overlapping words: refused as well
        edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=3, end_word=7)
    assert snapshot() == before


def test_turn_label_from_a_stale_tab_is_refused(world):
    turn = world.turn(2)
    # Both tabs saw no label; the first sets one; the second's "create" is stale.
    first = edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label="o", expected_version=None)
    before = snapshot()
    with pytest.raises(StaleEdit) as refused:
        edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label="x", expected_version=None)
    assert refused.value.current.label == "o"
    assert snapshot() == before
    # Both tabs saw version 1; the first changes it; the second's change and clearing are stale.
    edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label="x", expected_version=first.version)
    before = snapshot()
    for label in ("-", None):
        with pytest.raises(StaleEdit) as refused:
            edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label=label, expected_version=1)
        assert refused.value.current.label == "x"
    assert snapshot() == before
    # A tab that saw a label which was cleared meanwhile.
    edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label=None, expected_version=2)
    before = snapshot()
    with pytest.raises(StaleEdit) as refused:
        edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label="o", expected_version=2)
    assert refused.value.current is None
    assert snapshot() == before


def test_two_annotators_never_touch_each_others_judgments(world):
    """Alice and Bob judge the same conversation independently: same words, separate rows."""
    turn = world.turn(2)
    a = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=turn, start_word=0, end_word=5)
    b = edits.create_nugget(annotator=world.bob, actor=world.bob, turn=turn, start_word=0, end_word=5)
    assert a.entity_id != b.entity_id
    edits.update_entity(a.entity, actor=world.alice, expected_version=1, name="Alice's name")
    edits.update_entity(b.entity, actor=world.bob, expected_version=1, name="Bob's name")
    assert Entity.objects.get(pk=a.entity_id).name == "Alice's name"
    assert Entity.objects.get(pk=b.entity_id).name == "Bob's name"
    edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label="o", expected_version=None)
    edits.set_turn_label(turn, annotator=world.bob, actor=world.bob, label="x", expected_version=None)
    assert dict(TurnLabel.objects.values_list("annotator__username", "label")) == {"alice": "o", "bob": "x"}
    # Bob's undo undoes Bob's change only.
    edits.undo_last(world.conversation, world.bob, actor=world.bob)
    assert dict(TurnLabel.objects.values_list("annotator__username", "label")) == {"alice": "o"}


def test_an_entity_of_another_annotator_cannot_be_attached(world):
    turn = world.turn(2)
    bobs = edits.create_nugget(annotator=world.bob, actor=world.bob, turn=turn, start_word=0, end_word=5)
    before = snapshot()
    with pytest.raises(AnnotationRefused):
        edits.create_nugget(annotator=world.alice, actor=world.alice, turn=turn, start_word=0, end_word=5,
                                  entity=bobs.entity)
    assert snapshot() == before
