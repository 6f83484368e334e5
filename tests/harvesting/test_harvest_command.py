"""`manage.py harvest` against a loopback stub server (tests/llm_judge/fake_server.py): what is
asked in what order, what is stored with where it came from, what is kept on a second run or
replaced, and what a broken, slow or refusing server leaves (nothing half-stored, said)."""

from __future__ import annotations

import json

import pytest

from annotator.models import Conversation, HarvestedAnswer, HarvestRun, Nugget, Run
from annotator.rules.citations import CITATIONS_JUDGE
from tests.commands.helpers import refused, run
from tests.harvesting.stub import cited, list_server, perplexity, turn_of
from tests.llm_judge.fake_server import FakeServer, Reply

pytestmark = pytest.mark.django_db


def harvest(*args: str, **options) -> str:
    options = {"campaign": "fw", "system": "gpt", "server": "stub", "model": "search-1", "trials": 2, **options}
    return run("harvest", *args, **options)[0]


def texts(conversation: Conversation) -> list[tuple[str, str]]:
    return [(f"{t.role}{t.number}", t.text) for t in conversation.turns.order_by("position")]


def test_two_topics_by_two_trials_are_four_conversations_with_the_papers_turns_and_the_systems_citations(campaign):
    with FakeServer(cited) as server:
        list_server(server)
        out = harvest()
    assert "4 of 4 conversations harvested, 0 already there kept, 0 failed; 8 answers" in out
    runs = {(r.name, r.system, r.trial) for r in Run.objects.filter(campaign=campaign)}
    assert runs == {("gpt-trial1", "gpt", 1), ("gpt-trial2", "gpt", 2)}
    conversation = Conversation.objects.get(topic__code="M002", run__name="gpt-trial2")
    turns = texts(conversation)
    # the description's own full stop is not doubled
    assert turns[0] == ("U1", "Please list up sci-fi movies that feature time travel, listed in IMDb.")
    assert turns[2] == ("U2", "Can you name a few more?")
    assert "Film 21 (2001)" in turns[3][1]
    cited_nuggets = Nugget.objects.filter(turn__conversation=conversation, annotator__username=CITATIONS_JUDGE)
    assert cited_nuggets.count() == 4
    # each request carried the conversation so far
    assert [turn_of(body) for body in server.requests].count(2) == 4
    assert server.requests[-1]["messages"][1]["role"] == "assistant"


def test_every_system_turn_says_where_it_came_from_and_keeps_the_raw_answer(campaign):
    with FakeServer(cited) as server:
        list_server(server)
        harvest(topic=["M001"], trials=1, seed=7, temperature=0.3)
    conversation = Conversation.objects.get()
    answers = list(HarvestedAnswer.objects.filter(conversation=conversation).order_by("number"))
    assert [a.turn for a in answers] == ["S1", "S2"]
    first = answers[0]
    assert (first.server, first.model, first.model_answered) == ("stub", "search-1", "search-1-2025-01-01")
    assert first.parameters == {"temperature": 0.3, "seed": 7, "max_tokens": 2048, "timeout": 120.0, "retries": 3}
    assert first.requested_at <= first.answered_at
    assert (first.prompt_tokens, first.completion_tokens) == (100, len(texts(conversation)[1][1].split()))
    raw = json.loads(first.raw)
    assert raw["choices"][0]["message"]["annotations"][0]["type"] == "url_citation"
    assert server.requests[0]["seed"] == 7 and server.requests[0]["temperature"] == 0.3
    recorded = HarvestRun.objects.get()
    assert (recorded.status, recorded.harvested, recorded.requests, recorded.base_url) == ("done", 1, 2, server.base_url)


def test_the_topic_types_template_and_the_follow_ups_given_are_what_is_asked(campaign):
    campaign.harvest_templates = {"M": "Please list up {description}.\nFormat: movie title, iMDB URL"}
    campaign.save()
    with FakeServer(cited) as server:
        list_server(server)
        harvest(topic=["M001"], trials=1, follow_up=["Any {type} from the 1990s?", "And before?"])
    turns = texts(Conversation.objects.get())
    assert [t for t in turns if t[0].startswith("U")] == [
        ("U1", "Please list up heist movies, listed in IMDb.\nFormat: movie title, iMDB URL"),
        ("U2", "Any Movies from the 1990s?"), ("U3", "And before?")]


def test_a_second_harvest_asks_nothing_already_stored_and_replace_asks_again(campaign):
    with FakeServer(cited) as server:
        list_server(server)
        harvest(topic=["M001"], trials=1)
        out = harvest(trials=2)
        assert len(server.requests) == 2 + 3 * 2  # M001 trial 1 was not asked again
        assert "M001 / gpt-trial1: already in the campaign, not asked again" in out
        assert "3 of 4 conversations harvested, 1 already there kept" in out
        first = Conversation.objects.get(topic__code="M001", run__name="gpt-trial1")
        out = harvest("--replace", topic=["M001"], trials=1)
    assert "1 of 1 conversations harvested, 0 already there kept" in out
    replaced = Conversation.objects.get(topic__code="M001", run__name="gpt-trial1")
    assert replaced.pk != first.pk and Conversation.objects.count() == 4
    assert HarvestedAnswer.objects.filter(conversation=replaced).count() == 2
    assert HarvestedAnswer.objects.count() == 8  # the replaced conversation's went with it


def test_a_server_that_keeps_failing_fails_its_conversation_whole_and_the_others_are_stored(campaign):
    def failing_on_m002(body):
        if "time travel" in body["messages"][0]["content"] and turn_of(body) == 2:
            return Reply(status=500, message="the GPU caught fire")
        return cited(body)

    with FakeServer(failing_on_m002) as server:
        list_server(server)
        message, _err = refused("harvest", campaign="fw", system="gpt", server="stub", model="m", trials=1, retries=1,
                                timeout=5)
    assert message == "1 conversation failed"
    recorded = HarvestRun.objects.get()
    assert recorded.failures == [{"topic": "M002", "run": "gpt-trial1",
                                  "problem": "the server answered 500: the GPU caught fire"}]
    # the second turn was tried twice (one retry); nothing of M002 is stored, not even its first answer
    assert sum(1 for b in server.requests if "time travel" in b["messages"][0]["content"]) == 1 + 2
    assert list(Conversation.objects.values_list("topic__code", flat=True)) == ["M001"]
    assert not HarvestedAnswer.objects.filter(topic="M002").exists()


def test_a_429_is_retried_with_backoff_and_the_conversation_stored(campaign):
    calls = []

    def busy_once(body):
        calls.append(body)
        return Reply(status=429, message="slow down") if len(calls) == 1 else cited(body)

    with FakeServer(busy_once) as server:
        list_server(server)
        out = harvest(topic=["M001"], trials=1, retries=2)
    assert "1 of 1 conversations harvested" in out and len(calls) == 3


def test_a_server_that_does_not_answer_in_time_fails_the_conversation_saying_so(campaign):
    with FakeServer(lambda body: Reply(content="late", delay=3)) as server:
        list_server(server)
        message, _ = refused("harvest", campaign="fw", system="gpt", server="stub", model="m", trials=1, topic=["M001"],
                             timeout=0.5, retries=0)
    assert message == "1 conversation failed"
    assert HarvestRun.objects.get().failures[0]["problem"] == "no answer within 0.5 s (1 attempts)"
    assert not Conversation.objects.exists() and not HarvestedAnswer.objects.exists()


def test_an_answer_without_content_fails_the_conversation(campaign):
    with FakeServer(lambda body: Reply(content="")) as server:
        list_server(server)
        refused("harvest", campaign="fw", system="gpt", server="stub", model="m", trials=1, topic=["M001"])
    assert HarvestRun.objects.get().failures[0]["problem"] == "the server answered without content"


def test_perplexitys_search_results_become_the_proposed_nuggets(campaign):
    with FakeServer(perplexity) as server:
        list_server(server)
        harvest(topic=["M001"], trials=1, system="sonar")
    conversation = Conversation.objects.get(run__name="sonar-trial1")
    urls = set(Nugget.objects.filter(turn__conversation=conversation).values_list("entity__key", flat=True))
    assert len(urls) == 4 and all("imdb.com/title/tt99" in u for u in urls)


def test_k_conversations_are_in_flight_at_once(campaign):
    with FakeServer(cited, delay=0.3) as server:
        list_server(server)
        harvest(concurrency=2, follow_up=[], trials=2)
    assert server.most_at_once == 2 and Conversation.objects.count() == 4


@pytest.mark.parametrize(("options", "said"), [
    ({"server": "elsewhere"}, "no LLM server named 'elsewhere' is listed by the deployment"),
    ({"model": "gpt-5"}, "the server stub does not offer the model 'gpt-5'"),
    ({"topic": ["M404"]}, "no topic M404 in fw"),
    ({"system": "gpt-trial3"}, "a system's name does not end in -trial<N>"),
    ({"system": "has space"}, "system 'has space'"),
    ({"trials": 0}, "trials are 1 to 100"),
    ({"follow_up": ["Any {genre}?"]}, "follow-up 1: {genre} is no placeholder"),
    ({"user_server": "stub"}, "a simulated user is a listed server and a model: give both"),
])
def test_what_cannot_be_harvested_is_refused_before_anything_is_asked(campaign, options, said):
    list_server("http://127.0.0.1:9/v1", models=["search-1"])
    options = {"campaign": "fw", "system": "gpt", "server": "stub", "model": "search-1", "trials": 1, **options}
    message, _ = refused("harvest", **options)
    assert said in message
    assert not HarvestRun.objects.exists()


def test_the_apis_conversation_says_where_each_harvested_turn_came_from_without_its_raw_answer(campaign):
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    with FakeServer(cited) as server:
        list_server(server)
        harvest("--topic", "M001", trials=1, seed=7)
    conversation = Conversation.objects.get()
    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="org"))
    data = client.get(f"/api/conversations/{conversation.pk}/").json()
    assert [(h["turn"], h["server"], h["model"], h["model_answered"], h["parameters"]["seed"]) for h in data["harvested"]] == [
        ("S1", "stub", "search-1", "search-1-2025-01-01", 7), ("S2", "stub", "search-1", "search-1-2025-01-01", 7)]
    assert all(h["prompt_tokens"] >= 0 and h["answered_at"] >= h["requested_at"] for h in data["harvested"])
    assert "raw" not in data["harvested"][0] and "choices" not in json.dumps(data)
