"""What a harvest asks is a campaign setting with one set of rules
(annotator.rules.campaign_settings.harvest_problems), said the same through every entrance: the
console's settings page, the campaign file, the model; and the protocol's pure parts."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from annotator.harvesting.protocol import TopicAsked, first_turn, log_of, transcript, user_request
from annotator.interchange.imports.campaign_file import CampaignFileError, describe_campaign, load_campaign
from annotator.models import Campaign
from tests.commands.helpers import CAMPAIGN_FILE
from tests.scoring.test_scoring_without_django import _loaded

pytestmark = pytest.mark.django_db

MOVIES = TopicAsked("M001", "heist movies, listed in IMDb.", "M", "Movies")


def test_the_first_turn_is_the_papers_unless_the_topic_type_has_a_template():
    assert first_turn({}, MOVIES) == "Please list up heist movies, listed in IMDb."
    assert first_turn({"M": "Please list up {description}.\nFormat: movie title, iMDB URL", "R": "x"}, MOVIES) == (
        "Please list up heist movies, listed in IMDb.\nFormat: movie title, iMDB URL")


def test_a_simulated_user_reads_the_topic_and_the_conversation_so_far():
    messages = [{"role": "user", "content": "Please list up..."}, {"role": "assistant", "content": "Heat (1995)"}]
    assert transcript(messages) == "User: Please list up...\n\nSystem: Heat (1995)"
    asked = user_request("Topic {topic}: {description}\n{conversation}", MOVIES, messages)
    assert asked == [{"role": "user", "content": "Topic M001: heist movies, listed in IMDb\n" + transcript(messages)}]


def test_a_held_conversation_is_a_request_response_log_a_line_a_call():
    lines = log_of([({"messages": []}, {"choices": []}), ({"messages": [1]}, {"choices": [2]})]).decode().splitlines()
    assert [json.loads(line) for line in lines] == [{"request": {"messages": []}, "response": {"choices": []}},
                                                    {"request": {"messages": [1]}, "response": {"choices": [2]}}]


def test_the_protocol_imports_with_django_made_unimportable():
    call = "from annotator.harvesting.protocol import *; first_turn({}, TopicAsked('M1', 'x', 'M'))"
    assert _loaded(["annotator.harvesting.protocol"], ("numpy", "scoring", "annotator"), call) == {"django": [], "outside": []}


def test_the_settings_page_saves_what_a_harvest_asks_and_says_a_bad_placeholder_beside_its_field(campaign):
    client = Client()
    client.force_login(campaign.organisers.get())
    url = reverse("console:harvest_settings", args=["fw"])
    assert 'id="harvest-settings"' in client.get(reverse("console:settings", args=["fw"])).content.decode()
    saved = client.post(url, {"template_M": "Please list up {description}.\nFormat: movie title, iMDB URL",
                              "follow_ups": "Can you name a few more?\n\nAny older ones?", "user_prompt": "Go on: {conversation}"})
    assert saved.status_code == 302
    campaign.refresh_from_db()
    assert campaign.harvest_templates == {"M": "Please list up {description}.\nFormat: movie title, iMDB URL"}
    assert campaign.harvest_follow_ups == ["Can you name a few more?", "Any older ones?"]
    refused = client.post(url, {"template_M": "List {genre}", "follow_ups": "ok\n{", "user_prompt": "x"})
    shown = refused.content.decode()
    assert refused.status_code == 400
    assert "{genre} is no placeholder: it may name {topic}, {description}, {type}." in shown
    assert "line 2: a lone { or }" in shown
    campaign.refresh_from_db()
    assert campaign.harvest_follow_ups == ["Can you name a few more?", "Any older ones?"]


def test_the_campaign_file_sets_them_says_a_problem_at_its_path_and_describes_them_back(campaign):
    data = json.loads(CAMPAIGN_FILE.read_text())
    load_campaign(data)
    loaded = Campaign.objects.get(slug=data["slug"])
    assert loaded.harvest_templates == {"M": "Please list up {description}.\nFormat: movie title, iMDB URL"}
    assert describe_campaign(loaded)["settings"]["harvest_follow_ups"] == ["Can you name a few more?"]
    data["settings"]["harvest_templates"] = {"Q": "x", "M": "{genre}"}
    with pytest.raises(CampaignFileError) as refused:
        load_campaign(data)
    said = str(refused.value)
    assert "settings.harvest_templates.Q: no topic type Q in the campaign" in said
    assert "settings.harvest_templates.M: {genre} is no placeholder" in said


def test_the_model_refuses_what_the_rules_refuse(campaign):
    campaign.harvest_user_prompt = "{nothing}"
    with pytest.raises(ValidationError) as refused:
        campaign.full_clean()
    assert refused.value.message_dict["harvest_user_prompt"] == [
        "{nothing} is no placeholder: it may name {topic}, {description}, {type}, {conversation}."]


@pytest.mark.parametrize("template", ["{description:>999999999}", "{description!r}", "{description.__class__}"])
def test_a_placeholder_with_a_width_a_conversion_or_an_attribute_is_refused(campaign, template):
    campaign.harvest_user_prompt = template
    with pytest.raises(ValidationError) as refused:
        campaign.full_clean()
    assert "{description" in refused.value.message_dict["harvest_user_prompt"][0]
