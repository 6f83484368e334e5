"""`manage.py judge_with_llm`: on a listed server by its name (as the console and the API), or,
for whoever has a shell on the server, on any --base-url with its --key-variable."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError

from annotator.models import LlmAnswer, LlmJudgeRun, Nugget
from tests.commands.helpers import refused, run
from tests.console.demo import build_demo
from tests.llm_judge.fake_server import FakeServer
from tests.llm_judge.test_runner import scripted

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(settings, monkeypatch):
    settings.GFRC_LLM_SERVERS = {}
    monkeypatch.setenv("GFRC_TEST_LISTED_KEY", "sk-listed")
    monkeypatch.setenv("GFRC_TEST_SHELL_KEY", "sk-shell")
    return build_demo(n_topics=2)[0]


def judge(*options: str) -> tuple[str, str]:
    return run("judge_with_llm", "--campaign", "fw", "--judge", "llm", "--model", "test-model", "--limit", "1",
               "--retries", "0", "--timeout", "10", *options)


def test_a_listed_server_is_named_and_its_listed_key_is_sent(campaign, settings):
    with FakeServer(scripted) as server:
        settings.GFRC_LLM_SERVERS = {"local": {"base_url": server.base_url, "key_variable": "GFRC_TEST_LISTED_KEY"}}
        out, _ = judge("--server", "local")
        assert set(server.keys) == {"Bearer sk-listed"}
    run_ = LlmJudgeRun.objects.get()
    assert (run_.status, run_.server, run_.base_url, run_.judged) == ("done", "local", server.base_url, 1)
    assert "1 of 1 conversations judged" in out and Nugget.objects.filter(annotator__username="llm").exists()


def test_a_name_not_listed_is_refused_and_nothing_is_recorded(campaign):
    message, _ = refused("judge_with_llm", "--campaign", "fw", "--judge", "llm", "--model", "m", "--server", "mine")
    assert "no LLM server named 'mine' is listed" in message and not LlmJudgeRun.objects.exists()


def test_a_listed_servers_key_variable_is_the_listings_not_the_command_lines(campaign, settings):
    settings.GFRC_LLM_SERVERS = {"local": {"base_url": "http://127.0.0.1:9/v1"}}
    message, _ = refused("judge_with_llm", "--campaign", "fw", "--judge", "llm", "--model", "m", "--server", "local",
                         "--key-variable", "SECRET_KEY")
    assert "--key-variable goes with --base-url" in message


def test_a_shell_user_names_any_server_and_the_key_variable(campaign):
    with FakeServer(scripted) as server:
        judge("--base-url", server.base_url, "--key-variable", "GFRC_TEST_SHELL_KEY")
        assert set(server.keys) == {"Bearer sk-shell"}
    run_ = LlmJudgeRun.objects.get()
    assert (run_.server, run_.base_url, run_.key_variable) == ("", server.base_url, "GFRC_TEST_SHELL_KEY")
    assert LlmAnswer.objects.filter(server="", base_url=server.base_url, campaign=campaign).count() == len(server.requests)


def test_the_server_is_one_or_the_other(campaign):
    with pytest.raises(CommandError, match="one of the arguments --server --base-url is required"):
        run("judge_with_llm", "--campaign", "fw", "--judge", "llm", "--model", "m")
