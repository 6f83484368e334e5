"""A judge account belongs to the campaign that made it; the app's own names are reserved; an
organiser changes only the accounts whose every campaign is theirs (issue 39's probes: a judge
account of another campaign taken over while it had no assignment yet, `citations` and
look-alikes of the adjudicated gold taken as judge names, tokens of shared accounts revoked)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from annotator.accounts import JudgeRefused, judge_account, judge_problem
from annotator.models import AnnotatorProfile, LlmJudgeRun
from tests.console.test_console_llm_judge import list_server, page
from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def a_listed_server(settings):
    settings.GFRC_LLM_SERVERS = {}
    list_server("http://127.0.0.1:9/v1", name="local")


@pytest.fixture
def theirs(db):
    """Another organiser's campaign."""
    return make_campaign("theirs", organiser=make_user("their-org"))


def start(client, campaign, judge: str):
    return client.post(page(campaign), {"judge": judge, "server": "local", "model": "m", "concurrency": 1, "quotes": "free",
                                        "response_format": "json_object", "temperature": 0, "seed": 0, "max_tokens": 512,
                                        "timeout": 10})


def test_a_judge_made_by_another_campaigns_run_is_not_taken_over_before_it_has_assignments(organiser, campaign, theirs):
    their_organiser = Client()
    their_organiser.force_login(theirs.organisers.get())
    assert start(their_organiser, theirs, "their-llm").status_code == 302  # queued: no assignment anywhere yet
    response = start(organiser, campaign, "their-llm")
    assert response.status_code == 400 and "automatic judge of another campaign" in response.content.decode()
    assert LlmJudgeRun.objects.filter(campaign=campaign).count() == 0
    assert get_user_model().objects.get(username="their-llm").annotator_profile.campaign == theirs


@pytest.mark.parametrize("name", ["citations", "CITATIONS", "citations.", "adjudicated-gold", "adjudicated_gold",
                                  "Adjudicated-Gold-2", "adjudicatedgold7", "gold", "Gold"])
def test_the_apps_own_names_and_their_look_alikes_are_refused_as_judge_names(organiser, campaign, name):
    response = start(organiser, campaign, name)
    assert response.status_code == 400 and "is reserved" in response.content.decode()
    assert not get_user_model().objects.filter(username=name).exists()


def test_the_reserved_names_are_refused_even_when_the_account_exists(campaign):
    citations = make_user("citations")
    AnnotatorProfile.mark(citations)  # the importer's own judge (every campaign's)
    assert "reserved" in judge_problem("citations", campaign)
    with pytest.raises(JudgeRefused, match="reserved"):
        judge_account("citations", campaign)


def test_a_new_judge_belongs_to_its_campaign_and_is_used_again_there(campaign):
    judge = judge_account("gemma", campaign)
    assert judge.annotator_profile.is_automatic and judge.annotator_profile.campaign == campaign
    assert judge_account("gemma", campaign) == judge
    assert not judge.has_usable_password()


def test_an_account_shared_with_another_organisers_campaign_is_not_changed_from_this_one(organiser, campaign, demo, theirs):
    bob = demo[2][1]
    make_conversation(theirs, [("U", "hi"), ("S", "Primer (2004)")], annotators=[bob])
    Token.objects.create(user=bob)
    accounts = organiser.get(reverse("console:accounts", args=[campaign.slug])).content.decode()
    assert "Revoke bob's token" not in accounts and "Revoke ann" not in accounts  # ann has no token
    assert organiser.post(reverse("console:token_revoke", args=[campaign.slug, bob.pk])).status_code == 404
    assert organiser.delete(f"/api/campaigns/{campaign.slug}/annotators/{bob.pk}/token/").status_code == 404
    assert Token.objects.filter(user=bob).exists()
    judges = organiser.get(reverse("console:judges", args=[campaign.slug]))
    assert bob not in judges.context["mark_form"].fields["annotator"].queryset


def test_an_account_of_the_organisers_campaigns_only_is_changed(organiser, campaign, demo):
    ann = demo[2][0]
    Token.objects.create(user=ann)
    assert "Revoke ann's token" in organiser.get(reverse("console:accounts", args=[campaign.slug])).content.decode()
    assert organiser.post(reverse("console:token_revoke", args=[campaign.slug, ann.pk])).status_code == 302
    assert not Token.objects.filter(user=ann).exists()


def test_marking_an_account_a_judge_makes_it_this_campaigns(organiser, campaign, demo):
    bob = demo[2][1]
    response = organiser.post(reverse("console:judges", args=[campaign.slug]), {"annotator": bob.pk, "is_automatic": "on"})
    assert response.status_code == 302
    profile = AnnotatorProfile.objects.get(user=bob)
    assert profile.is_automatic and profile.campaign == campaign
