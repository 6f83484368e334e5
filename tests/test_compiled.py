"""Queries compiled once give what the same ORM query gives, run after run, with new values."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.compiled import CompiledQuery
from annotator.models import Assignment, AttributeSet, Turn
from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db

TURNS = CompiledQuery(
    lambda conversation: Turn.objects.filter(conversation_id=conversation).order_by("position").values_list("pk", "text"),
    "conversation",
)
ASSIGNMENT = CompiledQuery(
    lambda conversation, annotator: Assignment.objects.select_related("conversation__topic__campaign", "annotator")
    .filter(annotator_id=annotator, conversation_id=conversation),
    "conversation", "annotator",
)


@pytest.fixture
def two_conversations():
    campaign = make_campaign()
    first, second = make_user("first"), make_user("second")
    a = make_conversation(campaign, [("U", "one two"), ("S", "three four five")], topic="M001", annotators=[first])
    b = make_conversation(campaign, [("U", "six"), ("S", "seven")], topic="M002", annotators=[second])
    return a, b, first, second


def test_rows_are_the_orm_rows_for_each_new_value(two_conversations):
    a, b, _, _ = two_conversations
    for conversation in (a, b, a):
        assert TURNS.rows(conversation=conversation.pk) == list(
            Turn.objects.filter(conversation=conversation).order_by("position").values_list("pk", "text")
        )
    assert TURNS.rows(conversation=-1) == []


def test_arguments_are_matched_to_their_parameters_whatever_their_order_in_the_sql(two_conversations):
    a, b, first, second = two_conversations
    assert [x.pk for x in ASSIGNMENT.objects(conversation=a.pk, annotator=first.pk)] == [
        Assignment.objects.get(conversation=a, annotator=first).pk
    ]
    assert ASSIGNMENT.objects(conversation=a.pk, annotator=second.pk) == []
    assert ASSIGNMENT.first(conversation=b.pk, annotator=second.pk).annotator == second


def test_objects_come_with_their_related_objects_and_no_further_queries(two_conversations):
    a, _, first, _ = two_conversations
    with CaptureQueriesContext(connection) as queries:
        assignment = ASSIGNMENT.first(conversation=a.pk, annotator=first.pk)
        assert assignment.conversation.topic.campaign.slug == a.topic.campaign.slug
        assert assignment.annotator.username == "first"
    assert len(queries) == 1
    assert assignment.assigned_at == Assignment.objects.get(pk=assignment.pk).assigned_at  # converted, aware


def test_values_are_converted_like_the_orms(two_conversations):
    a, _, _, _ = two_conversations
    sets = CompiledQuery(
        lambda topic_type: AttributeSet.objects.filter(topic_type_id=topic_type).values_list("name", "groups", "target"),
        "topic_type",
    )
    expected = [list(row) for row in AttributeSet.objects.filter(topic_type=a.topic.topic_type).values_list("name", "groups", "target")]
    assert expected and sets.values(topic_type=a.topic.topic_type_id) == expected
    assert isinstance(expected[0][1], list)  # JSON decoded, not text


def test_a_query_with_a_value_that_is_not_an_argument_is_refused_when_compiled(two_conversations):
    fixed = CompiledQuery(lambda conversation: Turn.objects.filter(conversation_id=conversation, position__gte=2), "conversation")
    with pytest.raises(ValueError, match="not arguments"):
        fixed.rows(conversation=1)
