"""The runs' sums and counts summed by the database (annotator.scores.stored.totals) are those
of the campaign's score table, whoever's judgments count in each conversation; the adjudication
page's run means read them and its topic's rows, not the campaign's."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from annotator.evaluation.adjudication_effect import RunMeans
from annotator.models import Assignment, Campaign, Conversation, StoredFigures, Topic
from django.contrib.auth import get_user_model

from annotator.models import AnnotatorProfile
from annotator.scores.campaign_tables import score_table
from annotator.scores.campaign_tables import measure_columns
from annotator.judgments.run_totals import run_totals
from annotator.scores.stored.totals import judge_rows
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db

MEASURES = measure_columns(())  # R, GF, GFRC


def assert_totals_are_the_score_tables(campaign: Campaign) -> None:
    table = score_table(campaign)
    totals = run_totals(campaign)
    grouped = table.groupby("run")[list(MEASURES)]
    assert totals.runs == sorted(grouped.groups)
    np.testing.assert_allclose(totals.sums, grouped.sum().loc[totals.runs].to_numpy(), rtol=1e-12, atol=1e-12)
    assert totals.counts.tolist() == grouped.count().loc[totals.runs].to_numpy(dtype=float).tolist()


def test_the_runs_totals_are_the_score_tables_sums_and_counts_on_the_demo():
    run("load_demo")
    assert_totals_are_the_score_tables(Campaign.objects.get())


def test_the_gold_then_the_first_human_assignee_then_nobody_counts_as_the_score_table_says():
    run("load_demo")
    campaign = Campaign.objects.get()
    doubly = Conversation.objects.filter(assignments__annotator__username="bea").filter(
        assignments__annotator__username="annotator").first()
    bea = doubly.assignments.get(annotator__username="bea").annotator
    doubly.gold_annotator = bea  # the gold is bea's, not the first assignee's
    doubly.save(update_fields=["gold_annotator"])
    robot = get_user_model().objects.create_user("robot")
    AnnotatorProfile.mark(robot, campaign=campaign)
    judged, nobodys = Conversation.objects.filter(topic__campaign=campaign, topic__code="Y001").order_by("pk")[:2]
    first = Assignment.objects.create(conversation=judged, annotator=robot)  # an automatic judge is never the gold
    Assignment.objects.filter(pk=first.pk).update(assigned_at=datetime(2000, 1, 1, tzinfo=timezone.utc))
    nobodys.assignments.all().delete()  # nobody's judgments: the row with no annotator
    assert_totals_are_the_score_tables(campaign)


def test_a_conversation_with_no_stored_row_is_stored_first():
    run("load_demo")
    campaign = Campaign.objects.get()
    conversation = Conversation.objects.filter(topic__campaign=campaign).first()
    StoredFigures.objects.filter(conversation=conversation).delete()
    assert_totals_are_the_score_tables(campaign)
    assert StoredFigures.objects.filter(conversation=conversation, annotator=None).exists()


def test_the_adjudication_pages_means_are_those_of_the_whole_table_with_the_topics_rows_alone():
    run("load_demo")
    campaign = Campaign.objects.get()
    conversation = Conversation.objects.filter(assignments__annotator__username="carl", topic__code="M001").first()
    of_topic = RunMeans.of_topic(conversation)
    whole = RunMeans.of_table(score_table(campaign), list(MEASURES))
    assert of_topic.runs == whole.runs
    np.testing.assert_allclose(of_topic.before, whole.before, rtol=1e-12)
    topic = set(Topic.objects.get(pk=conversation.topic_id).conversations.values_list("pk", flat=True))
    assert set(of_topic.rows) == topic
    for pk in topic:
        assert of_topic.rows[pk][0] == whole.rows[pk][0]
        assert of_topic.rows[pk][1].tolist() == whole.rows[pk][1].tolist()


def test_judge_rows_read_just_the_conversations_asked_for(django_assert_max_num_queries):
    run("load_demo")
    campaign = Campaign.objects.get()
    two = list(Conversation.objects.filter(topic__campaign=campaign).order_by("pk")[:2])
    with django_assert_max_num_queries(2):
        rows = judge_rows(campaign, {c.pk: None for c in two})
    assert set(rows) == {c.pk for c in two}
