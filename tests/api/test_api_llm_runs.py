"""The API's LLM judge runs: the same names and the same rules as the console (the form is the
one home of the checks), a run on a listed server only, its progress, and cancel."""

from __future__ import annotations

import pytest

from annotator.models import LlmJudgeRun, Nugget
from tests.console.test_console_import_job import run_worker
from tests.llm_judge.fake_server import FakeServer
from tests.llm_judge.test_runner import scripted

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def listing(settings):
    settings.GFRC_LLM_SERVERS = {"local": {"base_url": "http://127.0.0.1:9/v1", "key_variable": "GFRC_TEST_LISTED_KEY",
                                           "models": ["test-model"]}}
    return settings


def runs_url(campaign) -> str:
    return f"/api/campaigns/{campaign.slug}/llm-runs/"


def body(**extra) -> dict:
    return {"judge": "llm", "server": "local", "model": "test-model", "topics": ["M001"], "limit": 1, "timeout": 10, **extra}


def test_the_listed_servers_are_offered_by_name_and_models_never_their_address(api_as, campaign):
    answer = api_as("organiser").get(runs_url(campaign) + "servers/")
    assert answer.status_code == 200 and answer.json() == {"servers": [{"name": "local", "models": ["test-model"]}]}
    assert "127.0.0.1" not in answer.content.decode() and "GFRC_TEST_LISTED_KEY" not in answer.content.decode()


def test_only_the_campaigns_organisers_reach_the_runs(api_as, campaign):
    assert api_as("anonymous").get(runs_url(campaign)).status_code == 401
    assert api_as("annotator").get(runs_url(campaign)).status_code == 403
    assert api_as("other organiser").get(runs_url(campaign)).status_code == 404
    assert api_as("annotator").post(runs_url(campaign), body(), format="json").status_code == 403
    assert not LlmJudgeRun.objects.exists()


def test_a_run_on_a_listed_server_is_queued_run_by_the_worker_and_followed(api_as, campaign, listing):
    client = api_as("organiser")
    with FakeServer(scripted) as server:
        listing.GFRC_LLM_SERVERS = {"local": {"base_url": server.base_url}}
        created = client.post(runs_url(campaign), body(), format="json")
        assert created.status_code == 201, created.json()
        run = created.json()
        assert (run["status"], run["server"], run["model"], run["topics"]) == ("queued", "local", "test-model", ["M001"])
        assert "base_url" not in run and "key_variable" not in run
        run_worker()
    progress = client.get(f"{runs_url(campaign)}{run['id']}/").json()
    assert (progress["status"], progress["conversations"], progress["judged"]) == ("done", 1, 1)
    assert Nugget.objects.filter(annotator__username="llm").exists()
    assert [r["id"] for r in client.get(runs_url(campaign)).json()["results"]] == [run["id"]]


@pytest.mark.parametrize("server", ["mine", "http://127.0.0.1:9/v1", "http://169.254.169.254/latest/meta-data/"])
def test_a_server_not_listed_is_refused(api_as, campaign, server):
    answer = api_as("organiser").post(runs_url(campaign), body(server=server), format="json")
    assert answer.status_code == 400 and "server" in answer.json()
    assert not LlmJudgeRun.objects.exists()


def test_an_address_or_a_key_variable_in_the_request_chooses_nothing(api_as, campaign, listing):
    """The API takes the same names as the console: extra fields are ignored, never used."""
    with FakeServer(scripted) as listed, FakeServer(scripted) as mine:
        listing.GFRC_LLM_SERVERS = {"local": {"base_url": listed.base_url}}
        answer = api_as("organiser").post(runs_url(campaign), body(base_url=mine.base_url, key_variable="SECRET_KEY"),
                                          format="json")
        assert answer.status_code == 201
        run_worker()
        assert mine.requests == [] and len(listed.requests) > 0


def test_a_model_not_offered_a_reserved_judge_name_and_an_unknown_topic_are_refused_as_the_console_refuses(api_as, campaign):
    client = api_as("organiser")
    assert "model" in client.post(runs_url(campaign), body(model="gpt-4o"), format="json").json()
    assert "reserved" in str(client.post(runs_url(campaign), body(judge="Citations"), format="json").json())
    assert "not an automatic judge" in str(client.post(runs_url(campaign), body(judge="ann"), format="json").json())
    assert client.post(runs_url(campaign), body(topics=["M999"]), format="json").json() == {"topics": "not in fw: M999"}
    assert client.post(runs_url(campaign), body(temperature=9), format="json").status_code == 400
    assert not LlmJudgeRun.objects.exists()


def test_a_run_is_cancelled_through_the_api(api_as, campaign):
    client = api_as("organiser")
    run = client.post(runs_url(campaign), body(), format="json").json()
    answer = client.post(f"{runs_url(campaign)}{run['id']}/cancel/")
    assert answer.status_code == 200 and answer.json()["status"] == "cancelled"
    assert answer.json()["detail"] == "Cancelled before it started: nothing was asked or written."
    assert api_as("other organiser").post(f"{runs_url(campaign)}{run['id']}/cancel/").status_code == 404
