"""The campaign pages read a number of queries that does not grow with the campaign: the same
with 2 conversations as with 8 (stored figures and plain rows, never a query per
conversation)."""

from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotator.interchange.imports.conversations import import_files
from tests.factories import make_campaign, make_user

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "M002-bing-trial1.txt"
RUNS = ["bing-trial1", "bard-trial1", "chat-trial1", "bing-trial2", "bard-trial2", "chat-trial2", "bing-trial3", "bard-trial3"]

pytestmark = pytest.mark.django_db

PAGES = [
    "/console/fw/report/", "/console/fw/report/?sort=GFRC&order=desc&page=1", "/console/fw/report.csv",
    "/console/fw/report-conversations.csv", "/console/fw/progress/", "/console/fw/grid/", "/console/fw/report/trials/",
    "/console/fw/report/worst/", "/console/fw/exports/scores-csv/", "/console/fw/exports/scores-json/",
    "/console/fw/exports/nuggets-tsv/", "/console/fw/exports/turns-csv/", "/console/fw/exports/nuggets-csv/",
    "/console/fw/exports/qrels/", "/console/fw/exports/jsonl/", "/api/campaigns/fw/scores/",
]


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
        assert response.status_code == 200, url
        if response.streaming:
            b"".join(response.streaming_content)
    return len(queries.captured_queries)


def test_every_campaign_page_reads_as_many_queries_for_8_conversations_as_for_2():
    organiser = make_user("organiser", is_superuser=True)
    gold = make_user("gold")
    campaign = make_campaign(organiser=organiser)
    client = Client()
    client.force_login(organiser)
    for run in RUNS[:2]:
        assert import_files(campaign, [(f"M002-{run}.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    small = {url: _queries(client, url) for url in PAGES}
    for run in RUNS[2:]:
        assert import_files(campaign, [(f"M002-{run}.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    large = {url: _queries(client, url) for url in PAGES}
    assert large == small


def test_progress_and_agreement_read_as_many_queries_for_three_annotators_as_for_two():
    from annotator.models import Assignment, Conversation

    organiser = make_user("organiser", is_superuser=True)
    gold, second, third = make_user("gold"), make_user("second"), make_user("third")
    campaign = make_campaign(organiser=organiser)
    client = Client()
    client.force_login(organiser)
    for run in RUNS[:3]:
        assert import_files(campaign, [(f"M002-{run}.txt", EXAMPLE.read_bytes())], annotator=gold).ok
    assert import_files(campaign, [(f"M002-{RUNS[0]}.txt", EXAMPLE.read_bytes())], annotator=second).ok
    pages = ["/console/fw/progress/", "/console/fw/agreement/"]
    two = {url: _queries(client, url) for url in pages}
    assert import_files(campaign, [(f"M002-{RUNS[1]}.txt", EXAMPLE.read_bytes())], annotator=third).ok
    for conversation in Conversation.objects.filter(topic__campaign=campaign):
        Assignment.objects.get_or_create(conversation=conversation, annotator=third)
    assert Assignment.objects.filter(annotator=third).count() == 3
    three = {url: _queries(client, url) for url in pages}
    assert three == two
