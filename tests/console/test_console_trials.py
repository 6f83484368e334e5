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


def test_a_system_with_more_trials_than_fit_side_by_side_links_the_first_ones(organiser, campaign, with_second_trial):
    from annotator.evaluation.run_comparison import SIDE_BY_SIDE
    from tests.factories import make_conversation

    ann = campaign.topics.get(code="M001").conversations.first().assignments.first().annotator
    turns = [("U", "Please list sci-fi movies that feature time travel."), ("S", "Sorry.")]
    for trial in range(3, SIDE_BY_SIDE + 3):  # bing-trial3 .. : 11 trials of M001 in all
        make_conversation(campaign, turns, topic="M001", run=f"bing-trial{trial}", annotators=[ann])
    response = organiser.get(url(campaign))
    assert response.status_code == 200
    m001 = next(s for s in response.context["instability"].spreads if s["system"] == "bing" and s["topic"] == "M001")
    assert m001["trials"] == SIDE_BY_SIDE + 2 and len(m001["side_by_side"]) == SIDE_BY_SIDE
    link = reverse("console:conversations", kwargs={"slug": campaign.slug, "ids": m001["side_by_side"]})
    assert f"the first {SIDE_BY_SIDE} of {SIDE_BY_SIDE + 2} conversations side by side" in response.content.decode()
    assert organiser.get(link).status_code == 200


def test_a_conversation_that_branches_shows_the_spread_of_its_paths_and_its_worst_path(organiser, campaign, demo):
    from tests.console.conftest import import_a_tree_and_its_paths

    topic, paths = import_a_tree_and_its_paths(campaign, demo[1])
    a, b = paths["patha-trial1"].GFRC, paths["pathb-trial1"].GFRC
    response = organiser.get(url(campaign))
    (spread,) = response.context["branches"]
    assert (spread.topic, spread.run, spread.paths) == (topic, "tree-trial1", 2)
    assert (spread.lowest, spread.highest) == (min(a, b), max(a, b))
    assert spread.expected == __import__("pytest").approx(0.7 * a + 0.3 * b, abs=1e-12)
    assert spread.worst_path == ("u1>a>u2a>s2a" if a < b else "u1>b>u2b>s2b")
    assert spread.worst_path.replace(">", "&gt;") in response.content.decode()
