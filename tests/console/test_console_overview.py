from django.urls import reverse

from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:overview", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_the_overview(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_overview_counts_topics_runs_conversations_and_shows_the_settings(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200
    counts = response.context["counts"]
    assert counts["topics"] == 2 and counts["runs"] == 3 and counts["conversations"] == 6
    assert counts["nuggets"] > 0
    assert b"1250 words" in response.content and b"RATINGS" in response.content


def test_the_assignments_counted_are_peoples_not_automatic_judges(organiser, campaign, demo):
    from annotator.models import AnnotatorProfile, Assignment

    everyone = organiser.get(url(campaign)).context["counts"]["assignments"]
    AnnotatorProfile.mark(demo[2][1])
    counts = organiser.get(url(campaign)).context["counts"]
    assert counts["assignments"] == everyone - Assignment.objects.filter(annotator=demo[2][1]).count() < everyone


def test_the_overviews_nuggets_are_peoples_as_the_progress_page_counts_them_and_the_judges_apart(organiser, campaign, demo):
    from annotator.models import AnnotatorProfile, Nugget

    AnnotatorProfile.mark(demo[2][1])  # an annotator with nuggets becomes an automatic judge
    counts = organiser.get(url(campaign)).context["counts"]
    progress = organiser.get(reverse("console:progress", kwargs={"slug": campaign.slug})).context
    people = sum(row["nuggets"] for row in progress["progress"]["annotators"])
    judges = Nugget.objects.filter(turn__conversation__topic__campaign=campaign, annotator=demo[2][1]).count()
    assert judges > 0 and counts["judges_nuggets"] == judges
    assert counts["nuggets"] == people == Nugget.objects.filter(turn__conversation__topic__campaign=campaign).count() - judges
    assert progress["progress"]["unassigned"] == counts["unassigned"]


def test_the_overview_counts_conversation_runs_and_ranked_list_runs_apart(organiser, campaign):
    from tests.console.helpers import add_ranked_list_runs

    add_ranked_list_runs(campaign)
    response = organiser.get(reverse("console:overview", kwargs={"slug": campaign.slug}))
    assert (response.context["counts"]["runs"], response.context["counts"]["ranked_list_runs"]) == (3, 3)
    assert "ranked-list runs" in response.content.decode()
