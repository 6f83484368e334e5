"""Migration 0011: entity keys stored before tracking parameters were ignored are keyed again,
and two entities that turn out to be one are merged."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from annotator.models import AttributeSet, Entity, Grade, Membership, Nugget
from tests.factories import make_campaign, make_conversation, make_user, mark

pytestmark = pytest.mark.django_db

rekey_entities = importlib.import_module("annotator.migrations.0011_harvest_topic_and_keys").rekey_entities

TURNS = [("U", "films please"), ("S", "Tenet https://imdb.com/title/tt6723592/\nDune https://imdb.com/title/tt1160419/")]


def stored_as_before(entity: Entity, key: str) -> None:
    """The key as the importer wrote it before tracking parameters were ignored."""
    Entity.objects.filter(pk=entity.pk).update(key=key)


def test_a_key_with_tracking_parameters_loses_them():
    gold = make_user("gold1")
    conversation = make_conversation(make_campaign(), TURNS, annotators=[gold])
    nugget = mark(conversation, gold, 2, 0, 1, grade="L2")
    stored_as_before(nugget.entity, "https://imdb.com/title/tt6723592?utm_source=openai")
    rekey_entities(apps, None)
    assert Entity.objects.get(pk=nugget.entity_id).key == "https://imdb.com/title/tt6723592"


def test_two_entities_that_are_one_page_are_merged_keeping_the_judgments_of_each():
    gold = make_user("gold1")
    campaign = make_campaign()
    conversation = make_conversation(campaign, TURNS, annotators=[gold])
    tenet = mark(conversation, gold, 2, 0, 1, grade="L2", memberships={"RATINGS": [0, 0, 0, 1]})
    dune = mark(conversation, gold, 2, 2, 3, memberships={"RATINGS": [1, 0, 0, 0], "ORIGIN": [0, 1, 0, 0, 0, 0, 0, 0]})
    stored_as_before(dune.entity, "https://imdb.com/title/tt6723592?utm_source=chatgpt.com")
    rekey_entities(apps, None)
    kept = Entity.objects.get()
    assert kept.pk == tenet.entity_id and kept.key == "https://imdb.com/title/tt6723592"
    assert kept.grade == Grade.objects.get(campaign=campaign, label="L2")
    assert set(Nugget.objects.values_list("entity_id", flat=True)) == {kept.pk}
    vectors = {m.attribute_set.name: m.vector for m in Membership.objects.select_related("attribute_set")}
    assert vectors == {"RATINGS": [0, 0, 0, 1], "ORIGIN": [0, 1, 0, 0, 0, 0, 0, 0]}
    assert AttributeSet.objects.count() == 2


def test_an_ungraded_entity_takes_the_grade_of_the_one_merged_into_it():
    gold = make_user("gold1")
    conversation = make_conversation(make_campaign(), TURNS, annotators=[gold])
    tenet = mark(conversation, gold, 2, 0, 1)
    dune = mark(conversation, gold, 2, 2, 3, grade="L1")
    stored_as_before(dune.entity, "https://imdb.com/title/tt6723592?utm_medium=x")
    rekey_entities(apps, None)
    assert Entity.objects.get().grade.label == "L1" and Entity.objects.get().pk == tenet.entity_id


def test_name_keys_and_clean_urls_are_left_alone():
    gold = make_user("gold1")
    conversation = make_conversation(make_campaign(), [("U", "q"), ("S", "Tenet\nhttps://x.org/a?b=1")], annotators=[gold])
    named, linked = mark(conversation, gold, 2, 0, 0), mark(conversation, gold, 2, 1, 1)
    before = dict(Entity.objects.values_list("pk", "key"))
    rekey_entities(apps, None)
    assert dict(Entity.objects.values_list("pk", "key")) == before == {
        named.entity_id: "name:tenet", linked.entity_id: "https://x.org/a?b=1"}
