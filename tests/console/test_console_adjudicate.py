import pytest
from django.urls import reverse

from annotator.models import Conversation
from annotator.scores.campaign_tables import score_table
from tests.console.conftest import assert_only_the_organiser_gets_in


@pytest.fixture
def doubled(campaign):
    return next(c for c in Conversation.objects.filter(topic__campaign=campaign) if c.assignments.count() == 2)


def url(conversation):
    return reverse("console:adjudicate", kwargs={"slug": conversation.topic.campaign.slug, "conversation": conversation.pk})


def test_only_the_campaigns_organiser_adjudicates(client_as, doubled, demo):
    assert_only_the_organiser_gets_in(client_as, url(doubled))
    assert_only_the_organiser_gets_in(client_as, url(doubled), "post", {"gold_annotator": demo[2][1].pk})
    doubled.refresh_from_db()
    assert doubled.gold_annotator is None


def test_the_page_shows_each_annotators_scores_side_by_side(organiser, doubled):
    response = organiser.get(url(doubled))
    assert response.status_code == 200
    assert [row["annotator"].username for row in response.context["scores"]] == ["ann", "bob"]
    assert "GFRC" in response.content.decode()


def test_picking_the_gold_makes_the_scores_use_it(organiser, doubled, demo):
    bob = demo[2][1]
    response = organiser.post(url(doubled), {"gold_annotator": bob.pk})
    assert response.status_code == 302
    doubled.refresh_from_db()
    assert doubled.gold_annotator == bob
    table = score_table(doubled.topic.campaign)
    assert table.loc[table["conversation"] == doubled.pk, "judge"].item() == bob.pk


def test_only_an_assigned_annotator_can_be_the_gold(organiser, doubled, client_as):
    from tests.factories import make_user

    stranger = make_user("stranger")
    response = organiser.post(url(doubled), {"gold_annotator": stranger.pk})
    assert response.status_code == 200 and response.context["form"].errors


def test_the_page_links_to_the_conversations_history_and_its_exports(organiser, doubled):
    page = organiser.get(url(doubled)).content.decode()
    for name in ("history:conversation", "history:conversation-csv", "history:conversation-json"):
        assert reverse(name, args=[doubled.pk]) in page
