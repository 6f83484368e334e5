from django.urls import reverse

from annotator.models import Entity
from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:progress", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_progress(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_progress_per_annotator_counts_assignments_nuggets_and_done(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200
    people = {p["annotator"].username: p for p in response.context["progress"]["annotators"]}
    assert set(people) == {"ann", "bob"}
    assert people["ann"]["nuggets"] > 0 and people["ann"]["assigned"] >= 1
    assert people["ann"]["done"] == people["ann"]["assigned"]  # every demo judgment is complete
    assert people["ann"]["incomplete"] == 0


def test_a_relevant_entity_without_memberships_shows_as_incomplete(organiser, campaign, demo):
    entity = Entity.objects.filter(topic__campaign=campaign, annotator=demo[2][0], grade__gain__gt=0).first()
    entity.memberships.all().delete()
    people = {p["annotator"].username: p for p in organiser.get(url(campaign)).context["progress"]["annotators"]}
    assert people["ann"]["incomplete"] == 1


def test_nuggets_of_an_ungraded_entity_show_as_ungraded(organiser, campaign, demo):
    entity = Entity.objects.filter(topic__campaign=campaign, annotator=demo[2][0]).first()
    Entity.objects.filter(pk=entity.pk).update(grade=None)
    people = {p["annotator"].username: p for p in organiser.get(url(campaign)).context["progress"]["annotators"]}
    assert people["ann"]["ungraded"] == entity.nuggets.count() >= 1


def test_progress_per_topic_lists_every_topic(organiser, campaign):
    topics = organiser.get(url(campaign)).context["progress"]["topics"]
    assert [t["topic"] for t in topics] == ["M001", "M002"]
    assert all(t["conversations"] == 3 for t in topics)
