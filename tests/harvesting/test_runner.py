"""A harvest's life (annotator.harvesting.runner): interrupted and resumed without asking twice,
the provenance a kill left untied tied or dropped, cancelled, a simulated user's follow-ups, a
server delisted before the worker starts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.utils import timezone

from annotator.harvesting import runner
from annotator.harvesting.protocol import log_of
from annotator.harvesting.runner import execute, new_harvest, tie_untied
from annotator.interchange.imports.conversations import import_files
from annotator.models import Conversation, HarvestedAnswer, HarvestRun
from tests.harvesting.stub import cited, list_server
from tests.llm_judge.fake_server import FakeServer, Reply

pytestmark = pytest.mark.django_db


def started(campaign, **options) -> HarvestRun:
    return new_harvest(campaign, options.pop("system", "gpt"), server="stub", model="m", **{"trials": 2, **options})


def test_an_interrupted_harvest_run_again_asks_only_what_was_not_stored(campaign):
    lines = []

    def interrupt_after_the_first(line: str) -> None:
        lines.append(line)
        if "proposed" in line:
            raise KeyboardInterrupt

    with FakeServer(cited) as server:
        list_server(server)
        first = started(campaign)
        with pytest.raises(KeyboardInterrupt):
            execute(first, report=interrupt_after_the_first)
        first.refresh_from_db()
        assert first.status == "failed" and first.summary.startswith("Interrupted: 1 of 4 conversations harvested")
        assert Conversation.objects.count() == 1
        asked_before = len(server.requests)
        execute(started(campaign))
    assert len(server.requests) - asked_before == 3 * 2  # three conversations of two turns: the stored one not again
    assert Conversation.objects.count() == 4 and HarvestedAnswer.objects.filter(conversation__isnull=False).count() == 8
    assert HarvestRun.objects.get(pk=first.pk + 1).kept == 1


def untied_rows(campaign, harvest: HarvestRun, topic: str, run: str) -> None:
    now = datetime.now(UTC)
    HarvestedAnswer.objects.create(campaign=campaign, harvest=harvest, topic=topic, run=run, role="S", number=1,
                                   server="stub", model="m", requested_at=now, answered_at=now, raw="{}")


def test_provenance_a_kill_left_untied_is_tied_to_its_published_conversation_or_dropped(campaign):
    list_server("http://127.0.0.1:9/v1")
    killed = started(campaign)
    HarvestRun.objects.filter(pk=killed.pk).update(status="failed")
    untied_rows(campaign, killed, "M001", "gpt-trial1")  # its import was published: tied
    untied_rows(campaign, killed, "M002", "gpt-trial1")  # its import never happened: dropped
    body = {"model": "m", "messages": [{"role": "user", "content": "Please list up heist movies."}]}
    log = log_of([(body, {"object": "chat.completion", "choices": [{"message": {
        "role": "assistant", "content": cited(body).content}}]})])
    assert import_files(campaign, [("M001-gpt-trial1.jsonl", log)], run="gpt-trial1", topic="M001").ok
    assert tie_untied(campaign) == 1
    conversation = Conversation.objects.get()
    assert list(HarvestedAnswer.objects.values_list("topic", "conversation")) == [("M001", conversation.pk)]


def test_rows_of_a_harvest_still_running_are_left_alone(campaign):
    list_server("http://127.0.0.1:9/v1")
    running = started(campaign)
    HarvestRun.objects.filter(pk=running.pk).update(status="running")
    untied_rows(campaign, running, "M002", "gpt-trial1")
    assert tie_untied(campaign) == 0 and HarvestedAnswer.objects.count() == 1


def test_a_cancelled_harvest_begins_no_new_conversation_and_keeps_what_it_stored(campaign, monkeypatch):
    monkeypatch.setattr(runner, "CANCEL_POLL_SECONDS", 0)

    def cancel_after_the_first(line: str) -> None:
        if "proposed" in line:
            HarvestRun.objects.filter(pk=harvest.pk).update(cancel_requested_at=timezone.now())

    with FakeServer(cited) as server:
        list_server(server)
        harvest = started(campaign)
        execute(harvest, report=cancel_after_the_first)
    harvest.refresh_from_db()
    assert harvest.status == "cancelled" and harvest.summary.startswith("Cancelled by an organiser: 1 of 4")
    assert Conversation.objects.count() == 1 and len(server.requests) == 2


def test_a_simulated_user_writes_each_follow_up_from_the_topic_and_the_conversation_so_far(campaign):
    def user(body):
        prompt = body["messages"][0]["content"]
        assert "looking for heist movies, listed in IMDb (topic M001)" in prompt and "System: Here are some:" in prompt
        return Reply(content=f"  More heist films, please ({prompt.count('User:')}).  ", model="user-model-v2")

    campaign.harvest_follow_ups = ["x", "y"]  # how many follow-ups the simulated user writes
    campaign.save()
    with FakeServer(cited) as system_server, FakeServer(user) as user_server:
        list_server(system_server)
        list_server(user_server, name="users")
        execute(started(campaign, trials=1, topics=["M001"], user_server="users", user_model="u"))
    conversation = Conversation.objects.get()
    users = [t.text for t in conversation.turns.filter(role="U").order_by("position")]
    assert users == ["Please list up heist movies, listed in IMDb.", "More heist films, please (1).",
                     "More heist films, please (2)."]
    written = HarvestedAnswer.objects.filter(conversation=conversation, role="U").order_by("number")
    assert [(a.turn, a.server, a.model, a.model_answered) for a in written] == [
        ("U2", "users", "u", "user-model-v2"), ("U3", "users", "u", "user-model-v2")]
    assert HarvestedAnswer.objects.filter(conversation=conversation, role="S").count() == 3


def test_a_server_delisted_before_the_harvest_runs_stops_it_asking_nothing(campaign, settings):
    list_server("http://127.0.0.1:9/v1")
    harvest = started(campaign)
    settings.GFRC_LLM_SERVERS = {}
    execute(harvest)
    assert harvest.status == "failed" and "Nothing asked: no LLM server named 'stub'" in harvest.summary
