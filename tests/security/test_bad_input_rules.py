"""Bad numbers and spans at the business rules (every view and the API go through them):
a clear AnnotationRefused, and nothing changed."""

from __future__ import annotations

import math

import pytest

from annotator.judgments import edits
from annotator.judgments.edits import AnnotationRefused
from annotator.models import Entity
from tests.security.conftest import judgment_counts

pytestmark = pytest.mark.django_db

BAD_VECTORS = {
    "too short": [1.0],
    "too long": [0.125] * 9,
    "negative": [-0.5, 1.5, 0, 0, 0, 0, 0, 0],
    "NaN": [math.nan, 1, 0, 0, 0, 0, 0, 0],
    "infinite": [math.inf, 0, 0, 0, 0, 0, 0, 0],
    "not summing to one": [0.5, 0.1, 0, 0, 0, 0, 0, 0],
    "all zero": [0] * 8,
    "empty": [],
}


def state():
    return judgment_counts(), sorted(
        (e.pk, e.version, e.name, e.grade_id) for e in Entity.objects.all()
    )


@pytest.mark.parametrize("name", BAD_VECTORS)
def test_bad_membership_vectors_are_refused(site, name):
    entity = Entity.objects.get(pk=site.nugget.entity_id)
    before = state()
    with pytest.raises(AnnotationRefused) as refused:
        edits.set_membership(entity, site.attribute_set, actor=site.alice, expected_version=entity.version,
                                   vector=BAD_VECTORS[name])
    assert "ORIGIN vector" in str(refused.value)
    assert state() == before


def test_non_numbers_in_a_vector_are_refused(site):
    entity = Entity.objects.get(pk=site.nugget.entity_id)
    before = state()
    with pytest.raises(AnnotationRefused, match="ORIGIN vector value 1 is not a number"):
        edits.set_membership(entity, site.attribute_set, actor=site.alice, expected_version=entity.version,
                                   vector=["a", "b", 0, 0, 0, 0, 0, 0])
    assert state() == before


@pytest.mark.parametrize("span", [(-1, 2), (0, 10_000), (5, 2), (10_000, 10_001), (-3, -1)])
def test_spans_outside_the_turn_are_refused(site, span):
    before = state()
    with pytest.raises(AnnotationRefused) as refused:
        edits.create_nugget(annotator=site.alice, actor=site.alice, turn=site.turn,
                                  start_word=span[0], end_word=span[1])
    assert "outside" in str(refused.value)
    with pytest.raises(AnnotationRefused):
        edits.update_nugget(site.nugget, actor=site.alice, expected_version=site.nugget.version,
                                  start_word=span[0], end_word=span[1])
    assert state() == before


def test_nuggets_in_user_turns_are_refused(site):
    before = state()
    with pytest.raises(AnnotationRefused, match="user turn"):
        edits.create_nugget(annotator=site.alice, actor=site.alice,
                                  turn=site.conversation.turns.get(position=1), start_word=0, end_word=1)
    assert state() == before


def test_a_grade_of_another_campaign_is_refused(site):
    from tests.factories import make_campaign

    other = make_campaign(slug="other")
    entity = Entity.objects.get(pk=site.nugget.entity_id)
    before = state()
    with pytest.raises(AnnotationRefused, match="another campaign"):
        edits.update_entity(entity, actor=site.alice, expected_version=entity.version,
                                  grade=other.grades.get(label="L2"))
    assert state() == before


def test_an_attribute_set_of_another_topic_type_is_refused(site):
    from annotator.models import AttributeSet, TopicType

    researchers = TopicType.objects.create(campaign=site.campaign, code="R", name="Researchers")
    gender = AttributeSet.objects.create(topic_type=researchers, name="GENDER", kind="nominal", divergence="jsd",
                                         groups=["he", "she", "they"], target=[1 / 3] * 3)
    entity = Entity.objects.get(pk=site.nugget.entity_id)
    before = state()
    with pytest.raises(AnnotationRefused):
        edits.set_membership(entity, gender, actor=site.alice, expected_version=entity.version,
                                   vector=[1, 0, 0])
    assert state() == before
