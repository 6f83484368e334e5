"""The FairWeb-1 pilot campaign shipped in fixtures/ (targets as given: R-GENDER sums to
0.999999) with its qrels, memberships and runs, and one conversation on P001: every report page
of the console answers, and report.csv streams to its end."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from annotator.interchange.importing import import_files
from annotator.models import Campaign
from tests.commands.pilot import load_pilot
from tests.factories import make_user

CONVERSATION = {
    "topic": "P001", "run": "chat-a",
    "turns": [
        {"role": "user", "text": "Who are the leading researchers in information retrieval evaluation?"},
        {"role": "system", "text": "Tetsuya Sakai and Ellen Voorhees have shaped how we evaluate search.", "label": "o"},
    ],
    "nuggets": [
        {"turn": 2, "start": 0, "end": 1, "grade": "L2", "entity": {"name": "Tetsuya Sakai"},
         "memberships": {"GENDER": {"vector": [1, 0, 0]}, "HINDEX": {"vector": [0, 0, 0, 1]}}},
        {"turn": 2, "start": 3, "end": 4, "grade": "L1", "entity": {"name": "Ellen Voorhees"},
         "memberships": {"GENDER": {"vector": [0, 1, 0]}, "HINDEX": {"vector": [0, 0, 0, 1]}}},
    ],
}


def load_pilot_with_a_conversation() -> tuple[Campaign, Client]:
    load_pilot()
    campaign = Campaign.objects.get(slug="fairweb1pilot")
    organiser = make_user("pilot-org")
    campaign.organisers.add(organiser)
    result = import_files(campaign, [("chat-a.jsonl", (json.dumps(CONVERSATION) + "\n").encode())])
    assert not result.errors, result.errors
    client = Client()
    client.force_login(organiser)
    return campaign, client


@pytest.mark.django_db
def test_the_pilot_campaign_with_a_conversation_has_working_report_pages():
    campaign, client = load_pilot_with_a_conversation()
    for name in ("report", "significance", "trials", "worst"):
        response = client.get(reverse(f"console:{name}", kwargs={"slug": campaign.slug}))
        assert response.status_code == 200, name
    response = client.get(reverse("console:report_csv", kwargs={"slug": campaign.slug}))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["run"] for r in rows] == ["chat-a"]
    assert 0 <= float(rows[0]["GF_GENDER"]) <= 1
