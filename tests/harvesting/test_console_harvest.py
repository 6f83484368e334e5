"""The console's harvest: started on a listed server as a background job that the worker runs,
its page with progress and failures, cancel, organisers only; the provenance on the read-only
conversation and its raw answer downloaded as JSON, never shown as markup."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse

from annotator.models import Conversation, HarvestedAnswer, HarvestRun
from tests.console.test_console_import_job import run_worker
from tests.factories import make_user
from tests.harvesting.stub import cited, list_server
from tests.llm_judge.fake_server import FakeServer, Reply

# the worker runs in this process with its own transactions: the test commits for real
pytestmark = pytest.mark.django_db(transaction=True)

FORM = {"system": "gpt", "server": "stub", "model": "search-1", "trials": 2, "concurrency": 1, "temperature": 0,
        "max_tokens": 512, "timeout": 30, "user_server": ""}


@pytest.fixture
def organiser(campaign) -> Client:
    client = Client()
    client.force_login(campaign.organisers.get())
    return client


def page(campaign) -> str:
    return reverse("console:harvest", args=[campaign.slug])


def test_an_organiser_starts_a_harvest_the_worker_runs_and_its_page_says_what_it_did(organiser, campaign):
    def failing_on_m002(body):
        return Reply(status=503, message="overloaded") if "time travel" in body["messages"][0]["content"] else cited(body)

    with FakeServer(failing_on_m002) as server:
        list_server(server)
        assert '<option value="stub">stub</option>' in organiser.get(page(campaign)).content.decode()
        started = organiser.post(page(campaign), {**FORM, "timeout": 5})
        harvest = HarvestRun.objects.get()
        assert started.status_code == 302 and started["Location"] == reverse("console:harvest_run", args=["fw", harvest.pk])
        assert harvest.status == "queued" and harvest.created_by.username == "org"
        run_worker()
    harvest.refresh_from_db()
    assert (harvest.status, harvest.harvested, harvest.failed) == ("done", 2, 2)
    shown = organiser.get(started["Location"]).content.decode()
    assert "2 harvested, 0 already there kept, 2 failed" in shown
    assert "the server answered 503: overloaded" in shown and "Harvest again" in shown
    assert Conversation.objects.filter(topic__code="M001").count() == 2


def test_a_server_the_deployment_does_not_list_cannot_be_chosen(organiser, campaign):
    list_server("http://127.0.0.1:9/v1")
    answer = organiser.post(page(campaign), {**FORM, "server": "http://evil.example/v1"})
    assert answer.status_code == 400 and "Select a valid choice" in answer.content.decode()
    assert not HarvestRun.objects.exists()


def test_a_queued_harvest_is_cancelled_before_it_asks_anything(organiser, campaign):
    list_server("http://127.0.0.1:9/v1")
    organiser.post(page(campaign), FORM)
    harvest = HarvestRun.objects.get()
    organiser.post(reverse("console:harvest_cancel", args=["fw", harvest.pk]))
    harvest.refresh_from_db()
    assert harvest.status == "cancelled" and "nothing was asked or stored" in harvest.summary


def test_another_campaigns_organiser_sees_no_harvest_and_no_raw_answer(campaign):
    list_server("http://127.0.0.1:9/v1")
    Client().force_login(campaign.organisers.get())
    harvest = HarvestRun.objects.create(campaign=campaign, system="gpt", server="stub", model="m")
    now = datetime.now(UTC)
    answer = HarvestedAnswer.objects.create(campaign=campaign, harvest=harvest, topic="M001", run="gpt-trial1", role="S",
                                            number=1, server="stub", model="m", requested_at=now, answered_at=now, raw="{}")
    stranger = Client()
    stranger.force_login(make_user("someone"))
    for url in (page(campaign), reverse("console:harvest_run", args=["fw", harvest.pk]),
                reverse("console:harvested_answer_raw", args=["fw", answer.pk])):
        assert stranger.get(url).status_code == 404
    assert stranger.post(reverse("console:harvest_cancel", args=["fw", harvest.pk])).status_code == 404


def test_the_raw_answer_is_a_json_download_and_its_markup_is_shown_nowhere(organiser, campaign):
    def scripted(body):
        reply = cited(body)
        return Reply(content=reply.content, annotations=reply.annotations, model="<script>alert(1)</script>")

    with FakeServer(scripted) as server:
        list_server(server)
        organiser.post(page(campaign), {**FORM, "trials": 1, "topics": []})
        run_worker()
    conversation = Conversation.objects.order_by("pk").first()
    answer = HarvestedAnswer.objects.filter(conversation=conversation).first()
    raw = organiser.get(reverse("console:harvested_answer_raw", args=["fw", answer.pk]))
    assert raw["Content-Type"] == "application/json; charset=utf-8"
    assert raw["Content-Disposition"].startswith('attachment; filename="M001-gpt-trial1-S1.json"')
    assert b'"model": "<script>alert(1)</script>"' in raw.content
    shown = organiser.get(reverse("console:conversations", args=["fw", str(conversation.pk)])).content.decode()
    assert "Harvested" in shown and reverse("console:harvested_answer_raw", args=["fw", answer.pk]) in shown
    assert "<script>alert(1)</script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
