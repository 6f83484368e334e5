"""A run over a campaign: judgments written through the judges' bulk path, answers cached and
resumed, and every failure of the server or the answer reported, with nothing half-written.

The server here is tests/llm_judge/fake_server.py, answering what a test needs (errors,
slowness, cut answers); the real model's round trip is test_real_server.py."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model

from annotator.judgments.edits import judgments_version
from annotator.llm_judge import client as llm
from annotator.llm_judge import servers
from annotator.llm_judge.prompt import PROMPT_VERSION
from annotator.llm_judge.runner import JudgeRefused, execute, new_run
from annotator.models import AnnotationEvent, Conversation, LlmAnswer, LlmJudgeRun, Nugget
from annotator.scores.per_conversation import gold_annotators
from scoring.words import span_text, tokenise
from tests.console.demo import build_demo
from tests.llm_judge.fake_server import FakeServer, Reply, turn_text

pytestmark = pytest.mark.django_db


def scripted(body: dict) -> str:
    """Every line with a URL, quoted whole, the URL as its entity, graded L2, in the first group."""
    items = body["response_format"]["schema"]["properties"]["entities"]["items"]["properties"]
    sets = [name for name in items if name not in ("quote", "entity", "grade")]
    entities = []
    for line in turn_text(body).splitlines():
        url = next((w for w in line.split() if w.startswith("https://")), None)
        if url:
            entities.append({"quote": line, "entity": url, "grade": "L2",
                             **{s: items[s]["enum"][1] if "enum" in items[s] else "1.3M" for s in sets}})
    return json.dumps({"entities": entities})


@pytest.fixture
def demo():
    campaign, organiser, annotators = build_demo(n_topics=2)
    return campaign, organiser, annotators


@pytest.fixture(autouse=True)
def no_servers_listed(settings):
    """Each test lists its fake server itself (`start`); nothing is listed otherwise."""
    settings.GFRC_LLM_SERVERS = {}


def list_server(server: FakeServer | str, name: str = "fake", **spec) -> None:
    """List the server for the deployment, as an administrator does (GFRC_LLM_SERVERS)."""
    base = server if isinstance(server, str) else server.base_url
    django_settings.GFRC_LLM_SERVERS = {**django_settings.GFRC_LLM_SERVERS, name: {"base_url": base, **spec}}


def start(campaign, server, *, judge="llm", key_variable=None, **extra):
    """A run on the server, listed as "fake" (the worker's way: execute takes its settings from the listing)."""
    list_server(server, **({"key_variable": key_variable} if key_variable else {}))
    options = {k: extra.pop(k) for k in ("topics", "runs", "concurrency", "limit") if k in extra}
    settings = servers.listed("fake", "test-model").settings_for("test-model", **{"retries": 0, "timeout": 10.0, **extra})
    return new_run(campaign, judge, settings, **options)


def line_nuggets(conversation: Conversation) -> set[tuple[int, str]]:
    """The URL lines of the conversation's system turns (by line text)."""
    return {
        (turn.number, line)
        for turn in conversation.turns.filter(role="S") for line in turn.text.split("\n") if "https://" in line
    }


def judge_nuggets(conversation: Conversation, judge) -> set[tuple[int, str]]:
    return {
        (n.turn.number, span_text(tokenise(n.turn.text), n.start_word, n.end_word))
        for n in Nugget.objects.filter(turn__conversation=conversation, annotator=judge).select_related("turn")
    }


def test_a_run_writes_every_conversations_judgments_through_the_bulk_path(demo):
    campaign, _, _ = demo
    with FakeServer(scripted) as server:
        run = execute(start(campaign, server, topics=["M001"]))
    assert (run.status, run.conversations, run.judged, run.failed) == ("done", 3, 3, 0)
    assert run.requests == 6 and run.cached == 0 and run.problems == []
    assert run.completion_tokens > 0 and run.prompt_tokens == 600
    judge = run.judge
    assert judge.annotator_profile.is_automatic
    for conversation in Conversation.objects.filter(topic__code="M001"):
        assert judge_nuggets(conversation, judge) == {
            (number, " ".join(line.split())) for number, line in line_nuggets(conversation)
        }
        # through annotator.judgments.edits: in the history, and the judge is never the gold
        assert AnnotationEvent.objects.filter(conversation=conversation, annotator=judge, kind="nugget").exists()
        assert gold_annotators([conversation])[conversation.pk] != judge.pk
    entity = Nugget.objects.filter(annotator=judge).first().entity
    assert entity.grade.label == "L2" and {m.attribute_set.name for m in entity.memberships.all()} == {"RATINGS", "ORIGIN"}


def test_the_run_records_what_produced_the_judgments(demo):
    campaign, _, _ = demo
    with FakeServer(scripted) as server:
        run = execute(start(campaign, server, limit=1, temperature=0.2, seed=42))
    run.refresh_from_db()
    assert (run.model, run.base_url, run.prompt_version, run.temperature, run.seed) == (
        "test-model", server.base_url, PROMPT_VERSION, 0.2, 42)
    description = run.judge.annotator_profile.description
    assert "model test-model" in description and PROMPT_VERSION in description and "seed 42" in description
    assert "temperature 0.2" in description and server.base_url in description


def test_running_again_replaces_the_judges_judgments_and_asks_nothing(demo):
    campaign, _, _ = demo
    with FakeServer(scripted) as server:
        execute(start(campaign, server, topics=["M001"]))
        first = Nugget.objects.filter(annotator__username="llm").count()
        again = execute(start(campaign, server, topics=["M001"]))
        assert len(server.requests) == 6  # the second run read every answer from the cache
    assert (again.requests, again.cached, again.judged) == (0, 6, 3)
    assert Nugget.objects.filter(annotator__username="llm").count() == first


def test_an_interrupted_run_resumes_without_asking_again(demo):
    campaign, _, _ = demo
    with FakeServer(scripted) as server:
        run = start(campaign, server, topics=["M001", "M002"])
        said = []

        def interrupt(line):
            said.append(line)
            if len(said) == 2:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            execute(run, report=interrupt)
        run.refresh_from_db()
        assert run.status == "failed" and "run it again to resume" in run.summary
        asked = len(server.requests)
        assert 0 < asked < 12 and LlmAnswer.objects.count() == asked
        resumed = execute(start(campaign, server, topics=["M001", "M002"]))
        assert len(server.requests) == 12  # each request asked once over both runs
    assert (resumed.judged, resumed.cached, resumed.requests) == (6, asked, 12 - asked)


def test_a_server_answering_errors_is_retried_then_reported_and_nothing_written(demo):
    campaign, _, _ = demo
    with FakeServer(lambda body: Reply(status=500, message="model crashed")) as server:
        run = execute(start(campaign, server, limit=2, retries=1))
        assert len(server.requests) == 8  # 4 turns, each tried twice (with backoff)
    assert (run.judged, run.failed) == (0, 2)
    assert run.problems[0]["problem"] == "skipped, nothing written: S1: the server answered 500: model crashed"
    assert not Nugget.objects.filter(annotator=run.judge).exists() and LlmAnswer.objects.count() == 0


def test_a_slow_server_times_out_per_request(demo):
    campaign, _, _ = demo
    with FakeServer(scripted, delay=3.0) as server:
        run = execute(start(campaign, server, limit=1, timeout=0.5))
    assert run.failed == 1 and "no answer within 0.5 s (1 attempts)" in run.problems[0]["problem"]


def test_no_server_at_all_is_reported(demo):
    campaign, _, _ = demo
    run = execute(start(campaign, "http://127.0.0.1:9/v1", limit=1))
    assert run.failed == 1 and "cannot reach the server at http://127.0.0.1:9/v1" in run.problems[0]["problem"]


def test_a_cut_answer_skips_its_conversation_and_keeps_what_the_judge_had(demo):
    campaign, _, _ = demo
    with FakeServer(scripted) as server:
        execute(start(campaign, server, topics=["M001"], runs=["bing-trial1"]))
    conversation = Conversation.objects.get(topic__code="M001", run__name="bing-trial1")
    judge = get_user_model().objects.get(username="llm")
    before, version = judge_nuggets(conversation, judge), judgments_version(conversation, judge)
    assert before

    def cut(body):
        whole = scripted(body)
        return (whole[: len(whole) // 2], "length") if "S2" in body["messages"][-1]["content"].split("<<<")[0] else whole

    with FakeServer(cut) as server:
        run = execute(start(campaign, server, topics=["M001"], runs=["bing-trial1"], max_tokens=50))
    assert (run.judged, run.failed) == (0, 1)
    assert "S2: the answer was cut at the token limit" in run.problems[0]["problem"]
    assert judge_nuggets(conversation, judge) == before and judgments_version(conversation, judge) == version


def test_problems_with_single_entities_are_reported_beside_the_judgments(demo):
    campaign, _, _ = demo

    def sloppy(body):
        answer = json.loads(scripted(body))
        answer["entities"].append({**answer["entities"][0], "quote": "Inception (2010)"})
        answer["entities"].append(dict(answer["entities"][0]))  # repeated
        return json.dumps(answer)

    with FakeServer(sloppy) as server:
        run = execute(start(campaign, server, limit=1))
    assert (run.judged, run.failed) == (1, 0)
    problems = [p["problem"] for p in run.problems]
    assert len(problems) == 2  # one per system turn; the repeated entity is merged, not reported
    assert all(re.fullmatch(r"S[12] entities\[\d+\]: quote not found in the turn: 'Inception \(2010\)'; skipped", p)
               for p in problems)
    assert not any(p["skipped"] for p in run.problems)


def test_the_key_comes_from_the_environment_and_is_stored_nowhere(demo, monkeypatch):
    campaign, _, _ = demo
    monkeypatch.setenv("GFRC_TEST_LLM_KEY", "sk-secret-123")
    with FakeServer(scripted) as server:
        run = execute(start(campaign, server, limit=1, key_variable="GFRC_TEST_LLM_KEY"))
        assert set(server.keys) == {"Bearer sk-secret-123"}
    assert run.key_variable == "GFRC_TEST_LLM_KEY"
    stored = json.dumps(list(LlmJudgeRun.objects.values()), default=str) + json.dumps(list(LlmAnswer.objects.values()), default=str)
    assert "sk-secret" not in stored and "sk-secret" not in run.judge.annotator_profile.description


def test_requests_go_concurrently_up_to_the_concurrency(demo):
    campaign, _, _ = demo
    with FakeServer(scripted, delay=0.3) as server:
        run = execute(start(campaign, server, topics=["M001", "M002"], concurrency=3))
        assert server.most_at_once == 3
    assert run.judged == 6


def test_a_persons_account_is_never_taken_for_a_judge(demo):
    campaign, _, _ = demo
    with pytest.raises(JudgeRefused, match="ann is not an automatic judge"):
        start(campaign, "http://127.0.0.1:9/v1", judge="ann")
    with pytest.raises(JudgeRefused, match="no topic M999"):
        start(campaign, "http://127.0.0.1:9/v1", topics=["M999"])
