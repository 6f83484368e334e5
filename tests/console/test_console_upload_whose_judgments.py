"""Whose judgments an upload holds: the campaign's annotators and automatic judges, or a new
judge of this campaign by a new name; never staff, superusers, the app's own accounts or people
of other campaigns only (issue 39: the list offered every active account of the deployment)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator.models import AnnotatorProfile, Nugget
from tests.console.test_console_upload import EXAMPLE
from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db


def url(campaign) -> str:
    return reverse("console:upload", kwargs={"slug": campaign.slug})


def example() -> SimpleUploadedFile:
    return SimpleUploadedFile("M002-bing-trial1.txt", EXAMPLE.read_bytes(), content_type="text/plain")


@pytest.fixture
def outsiders(demo):
    """A superuser, a staff member, another campaign's annotator and judge, the app's own accounts."""
    User = get_user_model()
    admin = User.objects.create_superuser("admin", "admin@example.org", "admin-pw-123456")
    staffer = make_user("staffer", is_staff=True)
    other = make_campaign("other")
    elsewhere, their_judge = make_user("elsewhere"), make_user("their-llm")
    AnnotatorProfile.mark(their_judge, campaign=other)
    make_conversation(other, [("U", "hi"), ("S", "Primer (2004)")], annotators=[elsewhere, their_judge])
    citations = make_user("citations")
    AnnotatorProfile.mark(citations)
    make_conversation(demo[0], [("U", "hi"), ("S", "Primer (2004)")], topic="M009", annotators=[admin, staffer, citations])
    return {"admin": admin, "staffer": staffer, "elsewhere": elsewhere, "their-llm": their_judge, "citations": citations}


def test_the_list_offers_this_campaigns_annotators_and_judges_only(organiser, campaign, outsiders):
    mine = make_user("our-pipeline")
    AnnotatorProfile.mark(mine, campaign=campaign)
    offered = {u.get_username() for u in organiser.get(url(campaign)).context["form"].fields["annotator"].queryset}
    assert {"ann", "bob", "our-pipeline"} <= offered
    assert not offered & set(outsiders)


@pytest.mark.parametrize("who", ["admin", "staffer", "elsewhere", "their-llm", "citations"])
def test_an_upload_in_the_name_of_someone_not_offered_is_refused_and_imports_nothing(organiser, campaign, outsiders, who):
    before = Nugget.objects.count()
    response = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9", "annotator": outsiders[who].pk})
    assert response.status_code == 400 and "annotator" in response.context["form"].errors
    assert Nugget.objects.count() == before


def test_a_new_judge_by_a_new_name_is_made_for_this_campaign_and_holds_the_judgments(organiser, campaign):
    response = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9", "new_judge": "pipeline-v2"}, follow=True)
    assert response.status_code == 200
    judge = get_user_model().objects.get(username="pipeline-v2")
    assert judge.annotator_profile.is_automatic and judge.annotator_profile.campaign == campaign
    assert not judge.has_usable_password()
    assert Nugget.objects.filter(annotator=judge).count() == 10
    # it is this campaign's now: offered in the list next time
    assert judge in organiser.get(url(campaign)).context["form"].fields["annotator"].queryset


@pytest.mark.parametrize(("name", "why"), [
    ("citations", "reserved"), ("Citations", "reserved"), ("adjudicated-gold", "reserved"), ("Adjudicated_Gold-2", "reserved"),
    ("gold", "reserved"), ("ann", "not an automatic judge"), ("their-llm", "another campaign"),
    ("<script>", "not a judge name"), ("сitations", "not a judge name"),  # a Cyrillic с
])
def test_a_new_judge_name_that_is_reserved_a_persons_or_another_campaigns_is_refused(organiser, campaign, outsiders, name, why):
    before = get_user_model().objects.count()
    response = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9", "new_judge": name})
    assert response.status_code == 400 and why in str(response.context["form"].errors["new_judge"])
    assert get_user_model().objects.count() == before and not Nugget.objects.filter(turn__conversation__run__name="bing-trial9").exists()


def test_an_account_and_a_new_judge_together_are_refused(organiser, campaign, demo):
    response = organiser.post(url(campaign), {"files": [example()], "annotator": demo[2][0].pk, "new_judge": "x-llm"})
    assert response.status_code == 400 and "not both" in str(response.context["form"].errors)
