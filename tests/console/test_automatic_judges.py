"""An automatic judge annotates like anyone but is nobody's colleague: it is never the gold by
default, never paired for agreement or adjudication, and not in human progress figures."""

import pytest

from annotator.console import progress_report, reports
from annotator.console.forms import GoldForm
from annotator.models import AnnotatorProfile, Assignment, is_automatic_judge
from annotator.scores.per_conversation import gold_annotators
from tests.console.demo import build_demo


@pytest.fixture
def demo_with_judge(db):
    """The console demo with bob an automatic judge assigned *first* to every doubled conversation."""
    campaign, organiser, (ann, bob) = build_demo(n_topics=2)
    AnnotatorProfile.mark(bob, description="baseline")
    doubled = [a.conversation for a in Assignment.objects.filter(annotator=bob, conversation__assignments__annotator=ann)]
    Assignment.objects.filter(annotator=ann, conversation__in=doubled).update(assigned_at="2100-01-01T00:00:00Z")
    return campaign, ann, bob, doubled


def test_a_marked_account_is_an_automatic_judge_and_an_unmarked_one_is_not(demo_with_judge):
    _, ann, bob, _ = demo_with_judge
    assert is_automatic_judge(bob) and not is_automatic_judge(ann)


def test_the_scores_never_take_an_automatic_judge_for_the_gold_even_when_it_was_assigned_first(demo_with_judge):
    _, ann, _, doubled = demo_with_judge
    assert set(gold_annotators(doubled).values()) == {ann.pk}


def test_a_conversation_an_automatic_judge_alone_annotates_has_no_gold(demo_with_judge):
    _, _, bob, _ = demo_with_judge
    alone = [a.conversation for a in Assignment.objects.filter(annotator=bob).exclude(conversation__assignments__annotator__username="ann")]
    assert alone and set(gold_annotators(alone).values()) == {None}


def test_agreement_pairs_only_people(demo_with_judge):
    campaign, _, _, _ = demo_with_judge
    assert reports.campaign_agreement(campaign)["pairs"] == []
    assert reports.doubly_annotated(campaign) == []


def test_adjudication_offers_no_automatic_judge_as_colleague_or_gold(demo_with_judge):
    _, ann, _, doubled = demo_with_judge
    assert reports.annotator_pairs(doubled[0]) == []
    assert list(GoldForm(conversation=doubled[0]).fields["gold_annotator"].queryset) == [ann]


def test_progress_figures_count_people_only(demo_with_judge):
    campaign, ann, _, _ = demo_with_judge
    figures = progress_report.progress(campaign)
    assert [p["annotator"] for p in figures["annotators"]] == [ann]
    assert sum(t["assigned"] for t in figures["topics"]) == Assignment.objects.filter(annotator=ann).count()


def test_a_judges_file_that_creates_a_conversation_does_not_make_the_judge_its_gold(db):
    from annotator.interchange.imports.conversations import import_files
    from annotator.models import Campaign, Conversation
    from tests.commands.helpers import EXAMPLE, load_fairweb
    from tests.factories import make_user

    load_fairweb()
    campaign = Campaign.objects.get(slug="fairweb1")
    robot = make_user("robot")
    AnnotatorProfile.mark(robot, description="GPT-4o")
    result = import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=robot)
    assert result.ok, result.errors
    conversation = Conversation.objects.get()
    assert conversation.gold_annotator is None
    assert gold_annotators([conversation]) == {conversation.pk: None}
    # the human's judgments, added later, are the gold
    ann = make_user("ann")
    assert import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=ann).ok
    assert gold_annotators([conversation]) == {conversation.pk: ann.pk}


def test_marking_a_gold_annotator_as_a_judge_leaves_the_conversation_to_the_humans(demo_with_judge):
    _, ann, _, doubled = demo_with_judge
    conversation = doubled[0]
    conversation.gold_annotator = ann
    conversation.save()
    AnnotatorProfile.mark(ann)
    conversation.refresh_from_db()
    assert conversation.gold_annotator is None and gold_annotators([conversation]) == {conversation.pk: None}
