"""Cancelling an LLM judge run from its page: a queued run never starts; a running one sends no
more requests; what was written stays (one transaction per conversation) and the answers
received stay cached, so running it again goes on without asking them again."""

from __future__ import annotations

import threading
import time

import pytest
from django.test import Client
from django.urls import reverse

from annotator.llm_judge import runner
from annotator.models import LlmAnswer, LlmJudgeRun, Nugget
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.test_console_import_job import run_worker
from tests.console.test_console_llm_judge import run_page, start
from tests.llm_judge.fake_server import FakeServer
from tests.llm_judge.test_runner import scripted

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_servers_listed(settings):
    settings.GFRC_LLM_SERVERS = {}


def cancel_url(run: LlmJudgeRun) -> str:
    return reverse("console:llm_run_cancel", kwargs={"slug": run.campaign.slug, "run": run.pk})


def test_only_the_campaigns_organisers_cancel_and_only_by_post(client_as, organiser, campaign):
    start(organiser, campaign, "http://127.0.0.1:9/v1")
    run = LlmJudgeRun.objects.get()
    assert_only_the_organiser_gets_in(client_as, cancel_url(run), method="post")
    assert organiser.get(cancel_url(run)).status_code == 405
    run.refresh_from_db()
    assert run.status == "queued" and run.cancel_requested_at is None


def test_a_queued_run_cancelled_never_starts(organiser, campaign):
    with FakeServer(scripted) as server:
        start(organiser, campaign, server.base_url, limit=2)
        run = LlmJudgeRun.objects.get()
        assert "Cancel the run" in organiser.get(run_page(run)).content.decode()
        response = organiser.post(cancel_url(run), follow=True)
        assert "Cancelled before it started" in response.content.decode()
        run_worker()
        assert server.requests == []
    run.refresh_from_db()
    assert run.status == "cancelled" and run.cancelled_by.username == "org" and run.started_at is None
    assert not Nugget.objects.filter(annotator=run.judge).exists()
    assert "Cancel the run" not in organiser.get(run_page(run)).content.decode()


def test_a_running_run_cancelled_asks_nothing_more_and_keeps_what_it_wrote_and_received(organiser, campaign, monkeypatch):
    monkeypatch.setattr(runner, "CANCEL_POLL_SECONDS", 0.05)  # the worker looks at once
    canceller = Client()
    canceller.force_login(campaign.organisers.get())
    answered = []
    lock = threading.Lock()

    def answer_then_cancel(body):
        with lock:
            answered.append(body)
            count = len(answered)
            if count == 3:  # the organiser clicks while the third answer is on its way
                run = LlmJudgeRun.objects.get()
                assert canceller.post(cancel_url(run), HTTP_HX_REQUEST="true").status_code == 200
        if 3 < count <= 6:
            time.sleep(1.0)  # a slow answer: the worker looks (every 0.05 s here) long before it comes
        return scripted(body)

    with FakeServer(answer_then_cancel) as server:
        start(organiser, campaign, server.base_url, concurrency=1)  # every conversation of the campaign
        run = LlmJudgeRun.objects.get()
        run_worker()
        asked = len(server.requests)
        run.refresh_from_db()
        total = run.conversations
        assert run.status == "cancelled" and "Cancelled by org after" in run.summary
        assert asked <= 4 < 2 * total  # at most the request in flight when it noticed; never the rest
        assert 1 <= run.judged < total
        assert Nugget.objects.filter(annotator=run.judge).values("turn__conversation").distinct().count() == run.judged
        kept = LlmAnswer.objects.count()
        assert 2 <= kept <= asked  # every answer received is cached (the one in flight may be abandoned)
        html = organiser.get(run_page(run)).content.decode()
        assert "Cancelled" in html and "Cancel the run" not in html

        # running it again goes on from there: the cached answers are not asked again
        start(organiser, campaign, server.base_url, concurrency=1)
        run_worker()
        resumed = LlmJudgeRun.objects.latest("pk")
        # (a request abandoned in flight may still reach the server meanwhile: count the run's own)
        assert (resumed.status, resumed.judged, resumed.cached, resumed.requests) == ("done", total, kept, 2 * total - kept)


def test_a_finished_run_cannot_be_cancelled(organiser, campaign):
    with FakeServer(scripted) as server:
        start(organiser, campaign, server.base_url, limit=1)
        run_worker()
    run = LlmJudgeRun.objects.get()
    response = organiser.post(cancel_url(run), follow=True)
    assert "had already ended" in response.content.decode()
    run.refresh_from_db()
    assert run.status == "done" and run.cancel_requested_at is None
