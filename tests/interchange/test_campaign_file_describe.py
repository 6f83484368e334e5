"""A campaign described as a campaign file (`describe_campaign`) loads back to the same campaign:
what the console's templates and "start from one of yours" rely on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.interchange.imports.campaign_file import describe_campaign, load_campaign
from annotator.models import Campaign

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.mark.parametrize("name", ["fairweb-campaign.json", "fairweb1-pilot-campaign.json"])
def test_a_described_campaign_loads_back_to_the_same_description(name):
    original = load_campaign(json.loads((FIXTURES / name).read_text()), source=name).campaign
    described = describe_campaign(original, topics=True, runs=True)
    copy = load_campaign({**described, "slug": "copy", "name": "copy"}, source="described").campaign
    again = describe_campaign(copy, topics=True, runs=True)
    assert {**again, "slug": original.slug, "name": original.name} == described
    assert Campaign.objects.get(slug="copy").organisers.count() == 0  # never its organisers


def test_the_description_names_no_organiser_and_topics_only_when_asked():
    campaign = load_campaign(json.loads((FIXTURES / "fairweb-campaign.json").read_text())).campaign
    described = describe_campaign(campaign)
    assert "organisers" not in described and "topics" not in described and "runs" not in described
    assert described["settings"]["L"] == campaign.patience
