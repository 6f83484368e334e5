"""The organiser's read-only view of conversations, one or several side by side."""

from django.urls import reverse

from annotator.models import Conversation
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.factories import make_campaign, make_conversation


def url(campaign, ids):
    return reverse("console:conversations", kwargs={"slug": campaign.slug, "ids": ids})


def test_only_the_campaigns_organiser_sees_a_conversation(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign, [Conversation.objects.first().pk]))


def test_a_conversation_shows_its_turns_nuggets_and_score_panel_without_edit_controls(organiser, campaign):
    conversation = Conversation.objects.filter(topic__campaign=campaign).order_by("pk").first()
    response = organiser.get(url(campaign, [conversation.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    (shown,) = response.context["shown"]
    assert shown["score"].nuggets and 'data-score="GFRC"' in html  # the workspace's score panel
    assert "Back to the Future" in html or "https://www.imdb.com" in html
    assert "<form" not in html.split('class="side-by-side"')[1]  # read-only: no edit controls


def test_conversation_text_is_rendered_inert(organiser, campaign, with_second_trial):
    response = organiser.get(url(campaign, [with_second_trial[0].pk]))
    html = response.content.decode()
    assert "&lt;b&gt;Nothing&lt;/b&gt;" in html and "<b>Nothing</b>" not in html


def test_several_conversations_stand_side_by_side(organiser, campaign):
    ids = list(Conversation.objects.filter(topic__campaign=campaign).order_by("pk").values_list("pk", flat=True)[:3])
    response = organiser.get(url(campaign, ids))
    assert [s["conversation"].pk for s in response.context["shown"]] == ids
    assert response.content.decode().count('class="card read-only-conversation"') == 3


def test_a_conversation_of_another_campaign_is_not_found_under_this_one(organiser, campaign):
    other = make_campaign("other-round", organiser=campaign.organisers.get())  # organised by the same person
    conversation = make_conversation(other, [("U", "Hi"), ("S", "Hello")], topic="M001")
    assert organiser.get(url(other, [conversation.pk])).status_code == 200
    assert organiser.get(url(campaign, [conversation.pk])).status_code == 404


def test_a_conversation_only_automatic_judges_annotated_says_it_has_no_gold(organiser, campaign):
    from annotator.models import AnnotatorProfile, Assignment

    conversation = Conversation.objects.filter(topic__campaign=campaign).order_by("pk").first()
    for assignment in Assignment.objects.filter(conversation=conversation).select_related("annotator"):
        AnnotatorProfile.mark(assignment.annotator)
    html = organiser.get(url(campaign, [conversation.pk])).content.decode()
    assert "No gold yet" in html and "Judged by" not in html.split('class="side-by-side"')[1]
