"""The FairWeb-1 pilot campaign shipped in fixtures/ (four topics of four types, targets as
given: R-GENDER sums to 0.999999) with its qrels, memberships and ranked-list runs, plus
conversations imported as JSONL: the console tests' campaign of several topic types."""

from __future__ import annotations

import json

from django.test import Client

from annotator.interchange.imports.conversations import import_files
from annotator.models import Campaign
from tests.commands.pilot import load_pilot
from tests.factories import make_user

PEOPLE = {
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

MOVIES = {
    "topic": "P002", "run": "chat-b",
    "turns": [
        {"role": "user", "text": "Recommend a film about time travel."},
        {"role": "system", "text": "Try Primer, a small film with a large following.", "label": "o"},
    ],
    "nuggets": [
        {"turn": 2, "start": 1, "end": 1, "grade": "L2", "entity": {"name": "Primer (2004)"},
         "memberships": {"RATINGS": {"vector": [0, 0, 1, 0]}, "ORIGIN": {"vector": [0, 1, 0, 0, 0, 0, 0, 0]}}},
    ],
}


def import_conversations(campaign: Campaign, *conversations: dict) -> None:
    files = [(f"{c['run']}-{c['topic']}.jsonl", (json.dumps(c) + "\n").encode()) for c in conversations]
    result = import_files(campaign, files)
    assert not result.errors, result.errors


def pilot_campaign(*conversations: dict) -> tuple[Campaign, Client]:
    """The pilot loaded with its ranked-list runs and `conversations` (default: one on P001),
    and a client logged in as its organiser."""
    load_pilot()
    campaign = Campaign.objects.get(slug="fairweb1pilot")
    organiser = make_user("pilot-org")
    campaign.organisers.add(organiser)
    import_conversations(campaign, *(conversations or (PEOPLE,)))
    client = Client()
    client.force_login(organiser)
    return campaign, client
