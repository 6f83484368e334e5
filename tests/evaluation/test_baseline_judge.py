"""The demo's baseline automatic judge: the workspace's URL-line suggestions, with grades and
memberships only from the topic's other conversations (never the gold it is compared with); an
entity seen nowhere else is taken as fully relevant with no memberships."""

import pytest

from annotator.evaluation import baseline_judge
from annotator.models import Entity, Nugget, TurnLabel
from annotator.rules.candidates import lines_of
from tests.console.demo import build_demo
from tests.factories import make_user


@pytest.fixture
def demo(db):
    campaign, _, (ann, bob) = build_demo(n_topics=2)
    return campaign, ann, make_user("baseline")


def test_every_url_line_of_a_system_turn_becomes_a_nugget(demo):
    campaign, ann, judge = demo
    conversation = campaign.topics.get(code="M001").conversations.get(run__name="bing-trial1")
    written = baseline_judge.judge_conversation(conversation, judge)
    url_lines = [(turn.pk, line.start, line.end) for turn in conversation.turns.filter(role="S")
                 for line in lines_of(turn.text) if "https://" in line.text]
    assert sorted(Nugget.objects.filter(annotator=judge).values_list("turn_id", "start_word", "end_word")) == sorted(url_lines)
    assert written.nuggets == len(url_lines)
    assert set(TurnLabel.objects.filter(annotator=judge).values_list("label", flat=True)) <= {"o", "x"}


def test_grades_and_memberships_come_from_the_topics_other_conversations_only(demo):
    campaign, ann, judge = demo
    conversation = campaign.topics.get(code="M001").conversations.get(run__name="bing-trial1")
    baseline_judge.judge_conversation(conversation, judge)
    elsewhere = {e.key: e for e in Entity.objects.filter(
        annotator=ann, topic=conversation.topic,
        nuggets__turn__conversation__in=conversation.topic.conversations.exclude(pk=conversation.pk)).distinct()}
    judged = list(Entity.objects.filter(annotator=judge).select_related("grade"))
    top_grade = campaign.grades.order_by("-level").first()
    assert any(e.key in elsewhere for e in judged)  # (the unknown ones: see the load_demo test)
    for entity in judged:
        known = elsewhere.get(entity.key)
        if known is None:
            assert entity.grade == top_grade and not entity.memberships.exists()
        else:
            assert entity.grade == known.grade
            assert {m.attribute_set_id: m.vector for m in entity.memberships.all()} == {
                m.attribute_set_id: m.vector for m in known.memberships.all()}
