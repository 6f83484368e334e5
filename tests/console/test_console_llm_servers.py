"""The probes of issue 39, run again: an organiser who is not an administrator starts LLM judge
runs on the servers the deployment lists, and on nothing else. Real listeners on loopback stand
in for a listed server and for a server of the organiser's own; the worker runs for real.

Before the fix the form took a "Server" URL and an "API key variable": typing SECRET_KEY and a
listener's address sent the app's secret to the listener as the bearer token."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.models import LlmAnswer, LlmJudgeRun, Nugget
from tests.console.test_console_import_job import run_worker
from tests.console.test_console_llm_judge import list_server, page, run_page
from tests.llm_judge.fake_server import FakeServer, Reply
from tests.llm_judge.test_runner import scripted

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "the-apps-own-secret-key-0123456789"


@pytest.fixture(autouse=True)
def deployment(settings, monkeypatch):
    """Nothing listed yet; the app's secret and a listed server's key in the environment."""
    settings.GFRC_LLM_SERVERS = {}
    settings.SECRET_KEY = SECRET
    monkeypatch.setenv("SECRET_KEY", SECRET)
    monkeypatch.setenv("DATABASE_URL", "postgres://gfrc:db-password-42@db.internal/gfrc")
    monkeypatch.setenv("GFRC_TEST_LISTED_KEY", "sk-listed-server-key")


def form(**extra) -> dict:
    return {"judge": "llm", "server": "listed", "model": "test-model", "concurrency": 1, "quotes": "free",
            "response_format": "json_object", "temperature": 0, "seed": 0, "max_tokens": 512, "timeout": 10,
            "limit": 1, **extra}


def test_the_form_offers_the_listed_servers_by_name_and_no_address_or_variable(organiser, campaign):
    list_server("http://127.0.0.1:9/v1", name="local")
    list_server("https://gpu-host:8000/v1", name="vllm", key_variable="VLLM_KEY", models=["qwen2.5-7b"])
    response = organiser.get(page(campaign))
    fields = set(response.context["form"].fields)
    assert {"server", "model"} <= fields and not {"base_url", "key_variable"} & fields
    html = response.content.decode()
    assert '<option value="local"' in html and '<option value="vllm"' in html
    assert "gpu-host" not in html and "VLLM_KEY" not in html  # the listing's address and variable stay the deployment's
    # choosing vllm brings its models to pick from (htmx takes the model field of the page again)
    models = organiser.get(page(campaign), {"server": "vllm"}, HTTP_HX_REQUEST="true").content.decode()
    assert '<option value="qwen2.5-7b"' in models


def test_with_nothing_listed_the_page_says_how_an_administrator_lists_a_server(organiser, campaign):
    html = organiser.get(page(campaign)).content.decode()
    assert "No LLM server is listed for this deployment yet" in html and "GFRC_LLM_SERVERS=" in html
    assert "Start the run" not in html
    response = organiser.post(page(campaign), form(server="local", base_url="http://127.0.0.1:9/v1"))
    assert response.status_code == 400 and not LlmJudgeRun.objects.exists()


def test_a_typed_address_and_key_variable_choose_nothing_the_listed_server_and_key_are_used(organiser, campaign):
    """The probe: SECRET_KEY as the key variable and the organiser's own listener as the server."""
    with FakeServer(scripted) as listed, FakeServer(scripted) as mine:
        list_server(listed.base_url, name="listed", key_variable="GFRC_TEST_LISTED_KEY")
        response = organiser.post(page(campaign), form(base_url=mine.base_url, key_variable="SECRET_KEY"))
        assert response.status_code == 302
        run_worker()
        assert mine.requests == [] and mine.keys == []
        assert listed.keys and set(listed.keys) == {"Bearer sk-listed-server-key"}
    run = LlmJudgeRun.objects.get()
    assert (run.status, run.server, run.base_url, run.key_variable) == ("done", "listed", listed.base_url, "GFRC_TEST_LISTED_KEY")


@pytest.mark.parametrize("address", ["http://127.0.0.1:9/v1", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.5/v1"])
def test_a_server_not_listed_is_refused_by_the_form_whatever_its_address(organiser, campaign, address):
    list_server("http://127.0.0.1:9/v1", name="listed")
    response = organiser.post(page(campaign), form(server=address))
    assert response.status_code == 400 and "server" in response.context["form"].errors
    assert not LlmJudgeRun.objects.exists()


def test_a_model_the_listed_server_does_not_offer_is_refused(organiser, campaign):
    list_server("http://127.0.0.1:9/v1", name="listed", models=["gemma-3-270m"])
    response = organiser.post(page(campaign), form(model="gpt-4o"))
    assert response.status_code == 400 and not LlmJudgeRun.objects.exists()


def test_the_worker_refuses_a_run_whose_server_was_removed_from_the_list_since(organiser, campaign, settings):
    with FakeServer(scripted) as server:
        list_server(server.base_url, name="listed")
        organiser.post(page(campaign), form())
        settings.GFRC_LLM_SERVERS = {}  # the administrator removed it before the worker started the run
        run_worker()
        assert server.requests == []
    run = LlmJudgeRun.objects.get()
    assert run.status == "failed" and "no LLM server named 'listed' is listed by the deployment" in run.summary
    assert "no LLM server named" in organiser.get(run_page(run)).content.decode()


def test_the_worker_takes_the_address_of_the_listing_not_of_the_runs_row(organiser, campaign):
    """A row changed behind the app (or queued before the listing moved) never chooses the host."""
    with FakeServer(scripted) as listed, FakeServer(scripted) as mine:
        list_server(listed.base_url, name="listed")
        organiser.post(page(campaign), form())
        LlmJudgeRun.objects.update(base_url=mine.base_url, key_variable="SECRET_KEY")
        run_worker()
        assert mine.requests == [] and listed.requests
        assert all(SECRET not in key for key in listed.keys)


def test_a_redirect_from_a_listed_server_is_not_followed_with_the_key(organiser, campaign):
    with FakeServer(scripted) as elsewhere:
        target = elsewhere.base_url + "/chat/completions"
        with FakeServer(lambda body: Reply(status=307, location=target)) as listed:
            list_server(listed.base_url, name="listed", key_variable="GFRC_TEST_LISTED_KEY")
            organiser.post(page(campaign), form())
            run_worker()
        assert elsewhere.requests == [] and elsewhere.keys == []
    run = LlmJudgeRun.objects.get()
    assert run.failed == 1 and "a redirect to" in str(run.problems) and "not followed" in str(run.problems)


def test_the_answer_cache_never_crosses_servers_or_campaigns(organiser, campaign):
    """The probe: a run on a server of the organiser's own filled the cache another campaign's
    (or another server's) next run read instead of asking its own server."""
    from django.test import Client

    from annotator.models import Conversation
    from tests.factories import make_campaign, make_conversation, make_user

    with FakeServer(scripted) as first, FakeServer(scripted) as second:
        list_server(first.base_url, name="first")
        list_server(second.base_url, name="second")
        organiser.post(page(campaign), form(server="first"))
        run_worker()
        asked = len(first.requests)
        assert asked > 0
        organiser.post(page(campaign), form(server="second"))  # the same prompts on another server
        run_worker()
        assert len(second.requests) == asked  # asked again: nothing read from the first server's answers

        # another campaign with the same conversation: the same prompts, its own answers
        judged = Conversation.objects.filter(topic__campaign=campaign).order_by("topic__code", "run__name").first()
        other_organiser = make_user("other-org")
        other_campaign = make_campaign("other-fw", organiser=other_organiser)
        twin = make_conversation(other_campaign, [(t.role, t.text) for t in judged.turns.order_by("position")],
                                 topic=judged.topic.code, run=judged.run.name)
        twin.topic.description = judged.topic.description
        twin.topic.save()
        other = Client()
        other.force_login(other_organiser)
        assert other.post(page(other_campaign), form(server="first", judge="llm-other")).status_code == 302
        run_worker()
        assert len(first.requests) == 2 * asked  # the other campaign asked its own
    assert set(LlmAnswer.objects.values_list("server", flat=True)) == {"first", "second"}
    assert LlmAnswer.objects.filter(campaign=other_campaign).count() == asked
    assert Nugget.objects.filter(annotator__username="llm-other").exists()


def test_the_run_page_and_the_list_say_which_listed_server(organiser, campaign):
    with FakeServer(scripted) as server:
        list_server(server.base_url, name="listed")
        organiser.post(page(campaign), form())
        run_worker()
    run = LlmJudgeRun.objects.get()
    assert "server listed (" in organiser.get(run_page(run)).content.decode()
    assert "<td>listed</td>" in organiser.get(reverse("console:llm_judge", args=[campaign.slug])).content.decode()
