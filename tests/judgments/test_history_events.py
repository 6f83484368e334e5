"""Every change to judgments is recorded: who (whose judgments, and who acted), when, what,
the state before and after. One test per business rule of annotator.judgments.edits."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotator.judgments import edits
from annotator.judgments.edits import entities
from annotator.models import AnnotationEvent, Entity, Membership, Nugget, TurnLabel
from tests.concurrency.conftest import TURNS
from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    alice, olga = make_user("alice"), make_user("olga")
    campaign = make_campaign(organiser=olga)
    conversation = make_conversation(campaign, TURNS, annotators=[alice])
    return campaign, conversation, alice, olga


def only_new_event(since: int, **expected) -> AnnotationEvent:
    new = list(AnnotationEvent.objects.filter(id__gt=since).order_by("id"))
    assert len(new) == 1, [str(e) for e in new]
    event = new[0]
    for field, value in expected.items():
        assert getattr(event, field) == value, (field, getattr(event, field), value)
    assert abs(event.at - timezone.now()) < timedelta(seconds=30)
    return event


def last_id() -> int:
    return AnnotationEvent.objects.order_by("-id").values_list("id", flat=True).first() or 0


def test_create_nugget_records_the_new_entity_then_the_nugget(setup):
    campaign, conversation, alice, _ = setup
    turn = conversation.turns.get(position=2)
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=turn, start_word=0, end_word=5)
    entity_event, nugget_event = AnnotationEvent.objects.order_by("id")
    assert (entity_event.kind, entity_event.action, entity_event.object_id) == ("entity", "create", nugget.entity_id)
    assert entity_event.before is None
    assert entity_event.after["key"] == "https://imdb.com/title/tt0088763"
    assert (nugget_event.kind, nugget_event.action, nugget_event.object_id) == ("nugget", "create", nugget.pk)
    assert nugget_event.before is None
    assert nugget_event.after == {"turn": turn.pk, "entity": nugget.entity_id, "start_word": 0, "end_word": 5}
    for event in (entity_event, nugget_event):
        assert event.annotator == alice and event.actor == alice
        assert event.conversation == conversation and event.topic_id == conversation.topic_id
    # A second nugget naming a known entity records the nugget only.
    since = last_id()
    edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=4), start_word=1, end_word=3)
    edits.create_nugget(annotator=alice, actor=alice, turn=turn, start_word=9, end_word=11)
    assert list(AnnotationEvent.objects.filter(id__gt=since).order_by("id").values_list("kind", "action")) == [
        ("entity", "create"), ("nugget", "create"), ("nugget", "create"),
    ]


def test_update_and_delete_nugget_record_before_and_after(setup):
    campaign, conversation, alice, olga = setup
    turn = conversation.turns.get(position=2)
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=turn, start_word=0, end_word=5)
    since = last_id()
    # The organiser corrects Alice's nugget: Alice's judgments, Olga's action.
    edits.update_nugget(nugget, actor=olga, expected_version=1, start_word=1)
    event = only_new_event(since, kind="nugget", action="update", object_id=nugget.pk, annotator=alice, actor=olga)
    assert (event.before["start_word"], event.after["start_word"]) == (0, 1)
    assert event.before["end_word"] == event.after["end_word"] == 5
    since = last_id()
    edits.delete_nugget(nugget, actor=alice, expected_version=2)
    event = only_new_event(since, kind="nugget", action="delete", object_id=nugget.pk, annotator=alice, actor=alice)
    assert event.before == {"turn": turn.pk, "entity": nugget.entity_id, "start_word": 1, "end_word": 5}
    assert event.after is None


def test_update_entity_records_name_grade_and_comment(setup):
    campaign, conversation, alice, _ = setup
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2), start_word=0, end_word=5)
    grade = campaign.grades.get(label="L2")
    since = last_id()
    edits.update_entity(nugget.entity, actor=alice, expected_version=1, conversation=conversation,
                              name="Back to the Future", grade=grade, comment="a classic")
    event = only_new_event(since, kind="entity", action="update", object_id=nugget.entity_id,
                           annotator=alice, actor=alice, conversation=conversation)
    assert event.before["grade"] is None and event.after["grade"] == grade.pk
    assert event.after["name"] == "Back to the Future" and event.after["comment"] == "a classic"
    assert event.before["name"] != "Back to the Future"


def test_set_membership_records_create_update_and_clear(setup):
    campaign, conversation, alice, _ = setup
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2), start_word=0, end_word=5)
    origin = conversation.topic.topic_type.attribute_sets.get(name="ORIGIN")
    entity = Entity.objects.get(pk=nugget.entity_id)
    since = last_id()
    membership = edits.set_membership(entity, origin, actor=alice, expected_version=entity.version,
                                            vector=[0, 1, 0, 0, 0, 0, 0, 0], evidence="US", conversation=conversation)
    event = only_new_event(since, kind="membership", action="create", object_id=membership.pk, conversation=conversation)
    assert event.before is None and event.after["vector"] == [0, 1, 0, 0, 0, 0, 0, 0] and event.after["evidence"] == "US"
    since = last_id()
    edits.set_membership(entity, origin, actor=alice, expected_version=entity.version,
                               vector=[0, 0.5, 0, 0, 0, 0.5, 0, 0], evidence="US, UK", conversation=conversation)
    event = only_new_event(since, kind="membership", action="update", object_id=membership.pk)
    assert event.before["evidence"] == "US" and event.after["evidence"] == "US, UK"
    since = last_id()
    edits.set_membership(entity, origin, actor=alice, expected_version=entity.version, vector=None,
                               conversation=conversation)
    event = only_new_event(since, kind="membership", action="delete", object_id=membership.pk)
    assert event.before["vector"] == [0, 0.5, 0, 0, 0, 0.5, 0, 0] and event.after is None
    assert not Membership.objects.exists()


def test_set_turn_label_records_create_update_and_clear(setup):
    campaign, conversation, alice, _ = setup
    turn = conversation.turns.get(position=2)
    since = last_id()
    label = edits.set_turn_label(turn, annotator=alice, actor=alice, label="o", expected_version=None)
    event = only_new_event(since, kind="label", action="create", object_id=label.pk, conversation=conversation)
    assert event.before is None and event.after == {"turn": turn.pk, "label": "o"}
    since = last_id()
    edits.set_turn_label(turn, annotator=alice, actor=alice, label="x", expected_version=1)
    event = only_new_event(since, kind="label", action="update", object_id=label.pk)
    assert (event.before["label"], event.after["label"]) == ("o", "x")
    since = last_id()
    edits.set_turn_label(turn, annotator=alice, actor=alice, label=None, expected_version=2)
    event = only_new_event(since, kind="label", action="delete", object_id=label.pk)
    assert event.before["label"] == "x" and event.after is None
    assert not TurnLabel.objects.exists()


def test_refused_changes_record_nothing(setup):
    campaign, conversation, alice, _ = setup
    user_turn = conversation.turns.get(position=1)
    since = last_id()
    for attempt in (
        lambda: edits.create_nugget(annotator=alice, actor=alice, turn=user_turn, start_word=0, end_word=1),
        lambda: edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2),
                                          start_word=0, end_word=999),
        lambda: edits.set_turn_label(conversation.turns.get(position=2), annotator=alice, actor=alice,
                                           label="maybe", expected_version=None),
    ):
        with pytest.raises(edits.AnnotationRefused):
            attempt()
    assert last_id() == since and not Nugget.objects.exists() and not Entity.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_membership_whose_history_cannot_be_written_is_not_saved_either(setup, monkeypatch):
    campaign, conversation, alice, _ = setup
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2), start_word=0, end_word=5)
    origin = conversation.topic.topic_type.attribute_sets.get(name="ORIGIN")
    entity = Entity.objects.get(pk=nugget.entity_id)
    version = entity.version

    def history_fails(**_):
        raise RuntimeError("the history table is gone")

    monkeypatch.setattr(entities, "record", history_fails)  # where set_membership records
    with pytest.raises(RuntimeError):
        edits.set_membership(entity, origin, actor=alice, expected_version=version,
                                   vector=[0, 1, 0, 0, 0, 0, 0, 0], conversation=conversation)
    # one change, all or nothing: no membership, no new entity version, as before the call
    assert not Membership.objects.filter(entity_id=entity.pk).exists()
    assert Entity.objects.get(pk=entity.pk).version == version
