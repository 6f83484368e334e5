"""The trial instability page: spread across trials per system and topic, variance shares."""

from django.urls import reverse

from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:trials", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_trial_instability(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_without_repeated_trials_the_page_says_how_trials_are_named(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200 and response.context["instability"].spreads == []
    assert "bing-trial2" in response.content.decode()


def test_two_trials_of_a_system_show_their_spread_and_link_their_conversations_side_by_side(organiser, campaign, with_second_trial):
    response = organiser.get(url(campaign))
    instability = response.context["instability"]
    bing = next(s for s in instability.systems if s["system"] == "bing")
    assert (bing["trials"], bing["repeated_topics"]) == (2, 2)
    worst = instability.most_disagreeing[0]
    assert worst["system"] == "bing" and worst["runs"] == ["bing-trial1", "bing-trial2"]
    # trial 2 scores 0 everywhere: the range is trial 1's GFRC
    assert worst["GFRC"]["range"] > 0
    link = reverse("console:conversations", kwargs={"slug": campaign.slug, "ids": worst["conversations"]})
    assert link in response.content.decode()
    assert organiser.get(link).status_code == 200
