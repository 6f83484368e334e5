import math

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse

from annotator.console import reports
from annotator.models import Assignment, Conversation, Grade
from scoring import agreement
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.demo import build_demo
from tests.factories import make_conversation, make_user, mark

TEXT = "Here are films: Alpha https://www.imdb.com/title/tt0000001/ and Beta https://www.imdb.com/title/tt0000002/ enjoy"


def url(campaign):
    return reverse("console:agreement", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_agreement(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_page_reports_alpha_kappa_span_and_membership_agreement(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200
    content = response.content.decode()
    for text in ("Krippendorff", "Cohen", "exact-match F1", "word-overlap Dice", "mean JSD", "Adjudicate"):
        assert text in content
    assert response.context["agreement"]["pairs"]


def test_disagreements_on_grades_spans_and_memberships_are_listed(campaign, demo):
    ann, bob = demo[2]
    conversation = make_conversation(campaign, [("U", "films please"), ("S", TEXT)], topic="M009", run="x-trial1",
                                      annotators=[ann, bob])
    mark(conversation, ann, 2, 3, 4, grade="L2", memberships={"RATINGS": [0, 0, 0, 1]})
    mark(conversation, bob, 2, 3, 4, grade="L1", memberships={"RATINGS": [0, 0, 1, 0]})
    mark(conversation, ann, 2, 6, 7, grade="L2")
    pair, vectors = reports.conversation_agreement(conversation, ann, bob)
    text = "\n".join(pair.disagreements)
    assert "grade L2 (ann) vs L1 (bob)" in text
    assert "RATINGS memberships differ" in text
    assert "marked only by ann" in text
    assert pair.spans.exact_f1 == 2 / 3
    assert vectors == [([0, 0, 0, 1], [0, 0, 1, 0])]


def test_identical_judgments_agree_perfectly(campaign):
    one, two = make_user("one"), make_user("two")
    conversation = make_conversation(campaign, [("U", "films please"), ("S", TEXT)], topic="M009", run="x-trial1",
                                     annotators=[one, two])
    for who in (one, two):
        mark(conversation, who, 2, 3, 4, grade="L2", memberships={"RATINGS": [0, 0, 0, 1]})
        mark(conversation, who, 2, 6, 7, grade="L1")
    pair, vectors = reports.conversation_agreement(conversation, one, two)
    assert pair.disagreements == [] and pair.spans.exact_f1 == 1.0 and pair.spans.word_dice == 1.0
    assert Grade.objects.filter(campaign=campaign).count() == 3


def test_without_double_annotation_the_page_says_how_to_get_it(organiser, campaign):
    from annotator.models import Assignment

    Assignment.objects.filter(conversation__topic__campaign=campaign, annotator__username="bob").delete()
    response = organiser.get(url(campaign))
    assert "Assign two per conversation" in response.content.decode()
    assert math.isnan(response.context["agreement"]["alpha_ordinal"])


def test_three_annotators_are_compared_pair_by_pair_and_alpha_takes_all_three(campaign):
    one, two, three = make_user("one"), make_user("two"), make_user("three")
    conversation = make_conversation(campaign, [("U", "films please"), ("S", TEXT)], topic="M009", run="x-trial1",
                                     annotators=[one, two, three])
    for who, grade in ((one, "L2"), (two, "L2"), (three, "L1")):
        mark(conversation, who, 2, 3, 4, grade=grade)
    mark(conversation, three, 2, 6, 7, grade="L1")
    result = reports.campaign_agreement(campaign)
    mine = [p for p in result["pairs"] if p.conversation == conversation]
    assert [(p.first.username, p.second.username) for p in mine] == [("one", "two"), ("one", "three"), ("two", "three")]
    assert [p.disagreements == [] for p in mine] == [True, False, False]
    assert {k["pair"] for k in result["kappas"]} >= {"one / two", "one / three", "two / three"}
    # Alpha's data: one row per coder, all three of them
    assert result["units"] >= 2


def test_the_adjudication_page_shows_every_pair_of_three_annotators(organiser, campaign):
    one, two, three = make_user("one"), make_user("two"), make_user("three")
    conversation = make_conversation(campaign, [("U", "films please"), ("S", TEXT)], topic="M009", run="x-trial1",
                                     annotators=[one, two, three])
    for who, grade in ((one, "L2"), (two, "L1"), (three, "L0")):
        mark(conversation, who, 2, 3, 4, grade=grade)
    response = organiser.get(reverse("console:adjudicate", kwargs={"slug": campaign.slug, "conversation": conversation.pk}))
    html = response.content.decode()
    assert [(p.first.username, p.second.username) for p in response.context["pairs"]] == [
        ("one", "two"), ("one", "three"), ("two", "three")]
    assert "<h3>one / two</h3>" in html and "<h3>two / three</h3>" in html
    assert "grade L1 (two) vs L0 (three)" in html


def test_a_nugget_one_annotator_skipped_is_listed_once_with_its_wc_position(organiser, campaign):
    from annotator.console.reports import campaign_agreement

    coherence = [d for p in campaign_agreement(campaign)["pairs"] for d in p.disagreements if "Coherence" in d]
    assert coherence, "bob skips Coherence in the demo"
    for conversation_lines in [coherence]:
        assert all("marked only by ann (S" in d and " WC " in d for d in conversation_lines)
    listed = [d for p in campaign_agreement(campaign)["pairs"] for d in p.disagreements]
    assert not any("span only by" in d and "words" in d for d in listed)
    assert not any(d.endswith("span only by ann") for d in listed), "the skipped nugget is not listed a second time"


def test_the_campaigns_figures_equal_each_conversations_own_computation(campaign, demo):
    ann, bob = demo[2]
    cat = make_user("cat")
    # cat joins a conversation whose films the other runs of its topic list too: entities are topic-wide
    shared = Conversation.objects.filter(topic__code="M001", run__name="bing-trial1").get()
    Assignment.objects.create(conversation=shared, annotator=cat)
    mark(shared, cat, 2, 0, 1, grade="L1", memberships={"RATINGS": [0, 1, 0, 0]})
    result = reports.campaign_agreement(campaign)
    own, vectors = [], []
    for conversation in reports.doubly_annotated(campaign):
        for first, second in reports.annotator_pairs(conversation):
            pair, pair_vectors = reports.conversation_agreement(conversation, first, second)
            own.append(pair)
            vectors.extend(pair_vectors)
    assert len(result["pairs"]) == len(own) == 6  # 4 conversations; the shared one has 3 pairs
    for page, alone in zip(result["pairs"], own, strict=True):
        assert (page.conversation, page.first, page.second) == (alone.conversation, alone.first, alone.second)
        assert (page.spans, page.grade_pairs, page.disagreements) == (alone.spans, alone.grade_pairs, alone.disagreements)
    assert result["membership"] == agreement.membership_distance(vectors) and result["membership"].pairs > 0
    assert result["span_exact_f1"] == pytest.approx(np.mean([p.spans.exact_f1 for p in own]))


@pytest.mark.parametrize("topics", [1, 6])
def test_the_page_reads_a_fixed_number_of_queries_however_many_conversations(db, topics, django_assert_num_queries):
    campaign, organiser, _ = build_demo(n_topics=topics)
    client = Client()
    client.force_login(organiser)
    assert len(reports.doubly_annotated(campaign)) == {1: 3, 6: 5}[topics]
    # 1 the session; 2 the user; 3 the campaign (campaign_for_organiser); 4 the doubly annotated
    # conversations with topic, run and gold; 5 their human assignments as (conversation,
    # annotator) rows; 6 those annotators (one instance each); 7 their nuggets with turn and
    # entity; 8 those entities' memberships; 9 the conversations' turns; 10 the base template's
    # Console link (does the user organise a campaign)
    with django_assert_num_queries(10):
        response = client.get(url(campaign))
    assert len(response.context["agreement"]["pairs"]) == {1: 3, 6: 5}[topics]
