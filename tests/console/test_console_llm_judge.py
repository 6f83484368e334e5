"""The console's LLM judge: a run started from the page becomes a background job that the worker
runs; its page follows progress, tokens and failures; the proposals setting."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.models import Campaign, LlmJudgeRun, Nugget
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.test_console_import_job import run_worker
from tests.llm_judge.fake_server import FakeServer, Reply
from tests.llm_judge.test_runner import scripted

# The worker runs in this process, with its own transactions: the tests commit for real.
pytestmark = pytest.mark.django_db(transaction=True)


def page(campaign) -> str:
    return reverse("console:llm_judge", kwargs={"slug": campaign.slug})


def run_page(run: LlmJudgeRun) -> str:
    return reverse("console:llm_run", kwargs={"slug": run.campaign.slug, "run": run.pk})


@pytest.fixture(autouse=True)
def no_servers_listed(settings):
    settings.GFRC_LLM_SERVERS = {}


def list_server(base_url: str, name: str = "fake", **spec) -> None:
    """List a server for the deployment, as its administrator does (GFRC_LLM_SERVERS)."""
    from django.conf import settings

    settings.GFRC_LLM_SERVERS = {**settings.GFRC_LLM_SERVERS, name: {"base_url": base_url, **spec}}


def start(organiser, campaign, base_url: str, **extra):
    """Start a run from the page on the server at base_url, listed as "fake"."""
    list_server(base_url)
    data = {"judge": "llm", "server": "fake", "model": "test-model",
            "concurrency": 2, "quotes": "free", "response_format": "json_object", "temperature": 0, "seed": 0,
            "max_tokens": 512, "timeout": 10, **extra}
    return organiser.post(page(campaign), data)


def test_only_the_campaigns_organisers_reach_the_pages(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, page(campaign))
    run = LlmJudgeRun.objects.create(campaign=campaign, judge=campaign.organisers.get(), base_url="http://x/v1", model="m",
                                     prompt_version="v")
    assert_only_the_organiser_gets_in(client_as, run_page(run))


def test_a_run_started_on_the_page_is_run_by_the_worker_and_its_page_says_how_it_went(organiser, campaign):
    topic = campaign.topics.order_by("code").first()
    with FakeServer(scripted) as server:
        response = start(organiser, campaign, server.base_url, topics=[topic.pk], limit=2)
        run = LlmJudgeRun.objects.get()
        assert response.status_code == 302 and response["Location"] == run_page(run)
        assert "Waiting for the worker" in organiser.get(run_page(run)).content.decode()
        run_worker()
    run.refresh_from_db()
    assert (run.status, run.conversations, run.judged, run.failed) == ("done", 2, 2, 0)
    assert Nugget.objects.filter(annotator__username="llm").exists()
    html = organiser.get(run_page(run)).content.decode()
    assert "Finished" in html and "2 conversations: 2 judged, 0 skipped; 4 requests to the server" in html
    assert "model test-model" in html and 'hx-trigger="every 1s"' not in html  # finished: no more polling
    assert f'<a href="{run_page(run)}">{run.pk}</a>' in organiser.get(page(campaign)).content.decode()


def test_a_failing_server_is_listed_conversation_by_conversation(organiser, campaign):
    with FakeServer(lambda body: Reply(status=503, message="overloaded")) as server:
        start(organiser, campaign, server.base_url, limit=1, timeout=5)
        run_worker()
    run = LlmJudgeRun.objects.get()
    html = organiser.get(run_page(run)).content.decode()
    assert run.failed == 1 and "What went wrong (1)" in html and "the server answered 503: overloaded" in html


def test_the_form_refuses_a_judge_name_held_by_a_person(organiser, campaign):
    response = start(organiser, campaign, "http://127.0.0.1:9/v1", judge="ann")
    assert response.status_code == 400 and "ann is not an automatic judge" in response.content.decode()
    assert not LlmJudgeRun.objects.exists()


def test_the_proposals_setting_names_an_automatic_judge_or_nobody(organiser, campaign):
    with FakeServer(scripted) as server:
        start(organiser, campaign, server.base_url, limit=1)
        run_worker()
    judge = LlmJudgeRun.objects.get().judge
    url = reverse("console:llm_proposals", kwargs={"slug": campaign.slug})
    assert organiser.post(url, {"proposals_from": judge.pk}).status_code == 302
    assert Campaign.objects.get(pk=campaign.pk).proposals_from == judge
    ann = campaign.organisers.get()  # not an automatic judge: refused
    assert organiser.post(url, {"proposals_from": ann.pk}).status_code == 400
    organiser.post(url, {"proposals_from": ""})
    assert Campaign.objects.get(pk=campaign.pk).proposals_from is None
