"""An automatic judge's nuggets (e.g. an LLM judge's) shown to gold annotators as suggestions,
"proposed by NAME", when the campaign says so (Campaign.proposals_from); accepted like the
systems' citations: the annotator's own nugget, linked to the entity the judge named."""

import pytest
from django.urls import reverse

from annotator.models import AnnotatorProfile, Assignment, Nugget
from tests.factories import make_user, mark
from tests.workspace.conftest import HTMX, line_span

pytestmark = pytest.mark.django_db


@pytest.fixture
def proposed(bare_paper):
    conversation, annotator, _ = bare_paper
    judge = make_user("gemma")
    AnnotatorProfile.mark(judge, description="LLM judge")
    Assignment.objects.create(conversation=conversation, annotator=judge)
    turn, start, end = line_span(conversation, 2, "Interstellar")
    proposal = mark(conversation, judge, 2, start, end, grade="L1")
    campaign = conversation.topic.campaign
    campaign.proposals_from = judge
    campaign.save()
    return conversation, annotator, judge, proposal


def test_the_judges_nugget_is_suggested_with_whose_it_is_and_its_grade(client, proposed):
    conversation, annotator, _, proposal = proposed
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert 'class="line candidate proposal"' in html
    assert "proposed by gemma: " in html and "Interstellar (2014)" in html and " · L1</span>" in html
    assert f'name="cited" value="{proposal.pk}"' in html
    assert "Accept nugget proposed by gemma (Interstellar (2014)): Interstellar (2014): https://www.imdb.com/title/tt0816692/" in html


def test_accepting_a_proposal_makes_the_annotators_own_ungraded_nugget_of_that_entity(client, proposed):
    conversation, annotator, _, proposal = proposed
    client.force_login(annotator)
    response = client.post(reverse("nugget-create", args=[conversation.pk]),
                           {"turn": proposal.turn_id, "start": proposal.start_word, "end": proposal.end_word,
                            "cited": proposal.pk}, headers=HTMX)
    assert response.status_code == 200
    mine = Nugget.objects.select_related("entity").get(annotator=annotator)
    assert (mine.start_word, mine.end_word, mine.entity.key) == (proposal.start_word, proposal.end_word, proposal.entity.key)
    assert mine.entity.grade is None  # the judge's grade is a proposal, not the annotator's judgment
    assert "proposed by gemma" not in response.content.decode()  # taken: no longer suggested


def test_without_the_setting_nothing_is_proposed_and_accepting_is_refused(client, proposed):
    conversation, annotator, _, proposal = proposed
    campaign = conversation.topic.campaign
    campaign.proposals_from = None
    campaign.save()
    client.force_login(annotator)
    assert "proposed by gemma" not in client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    response = client.post(reverse("nugget-create", args=[conversation.pk]),
                           {"turn": proposal.turn_id, "start": proposal.start_word, "end": proposal.end_word,
                            "cited": proposal.pk}, headers=HTMX)
    assert response.status_code == 422 and "The system cited nothing there." in response.content.decode()
    assert not Nugget.objects.filter(annotator=annotator).exists()


def test_the_judge_itself_is_not_shown_its_own_nuggets_as_proposals(client, proposed):
    conversation, _, judge, _ = proposed
    client.force_login(judge)
    assert "proposed by" not in client.get(reverse("conversation", args=[conversation.pk])).content.decode()


def test_another_annotators_nugget_cannot_be_passed_off_as_a_proposal(client, proposed):
    conversation, annotator, _, _ = proposed
    other = make_user("carol")
    Assignment.objects.create(conversation=conversation, annotator=other)
    turn, start, end = line_span(conversation, 2, "Groundhog Day")
    theirs = mark(conversation, other, 2, start, end)
    client.force_login(annotator)
    response = client.post(reverse("nugget-create", args=[conversation.pk]),
                           {"turn": turn, "start": start, "end": end, "cited": theirs.pk}, headers=HTMX)
    assert response.status_code == 422 and "Nothing was cited or proposed there." in response.content.decode()
