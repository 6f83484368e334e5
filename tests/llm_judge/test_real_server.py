"""The round trip against a real LLM server: llama.cpp's OpenAI-compatible server with Gemma 3
270M (scripts/with-llama-server.sh starts it, lists it for the deployment as "local" in
GFRC_LLM_SERVERS and exports GFRC_LLM_BASE_URL; `make test-llm`).

The demo campaign is judged by the model, as an organiser starts it: on the console's LLM judge
page, on the listed server by its name, run by the background worker. The request carries the
schema, the answers come back through the server's grammar, the quotes are located as words of
the turns, the judgments are written through the judges' bulk path, and the judges page and
compare_judges compare them with the gold; `judge_with_llm --server local` then reads every
answer from the cache. The tiny model's quality is not the point; its judgments are real ones.
Skipped with a notice without a server; on CI (GFRC_REQUIRE_LLM=1) the script fails instead
when it cannot start one."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from annotator.llm_judge.prompt import PROMPT_VERSION
from annotator.models import Campaign, Conversation, LlmAnswer, LlmJudgeRun, Nugget
from annotator.scores.per_conversation import gold_annotators
from annotator.rules.candidates import lines_of
from scoring.words import span_text, tokenise
from tests.commands.helpers import run
from tests.console.test_console_import_job import run_worker

# the worker runs in this process with its own transactions: the test commits for real
pytestmark = [pytest.mark.llm, pytest.mark.django_db(transaction=True)]

BASE_URL = os.environ.get("GFRC_LLM_BASE_URL", "")
MODEL = os.environ.get("GFRC_LLM_MODEL", "")


@pytest.fixture(autouse=True)
def llm_server() -> None:
    """Judged when a test here runs, not when the module is collected: the suites that deselect
    the `llm` marker (unit, browser, PostgreSQL) collect this file too, on CI as well."""
    if not BASE_URL:
        if os.environ.get("GFRC_REQUIRE_LLM") == "1":
            pytest.fail("GFRC_REQUIRE_LLM=1 but no GFRC_LLM_BASE_URL: run through scripts/with-llama-server.sh")
        pytest.skip("*** No local LLM server (GFRC_LLM_BASE_URL): run `make test-llm` for the real-server test ***")


def shortest_judged_conversation(campaign: Campaign) -> Conversation:
    """A conversation the gold judged with nuggets, the shortest (the model is slow): chosen by
    what it is, so any demo campaign does."""
    conversations = list(Conversation.objects.filter(topic__campaign=campaign).select_related("topic", "run"))
    gold = gold_annotators(conversations)
    judged = [c for c in conversations if gold.get(c.pk) and Nugget.objects.filter(
        turn__conversation=c, annotator_id=gold[c.pk]).exists()]
    assert judged, "the demo has a conversation with gold nuggets"
    return min(judged, key=lambda c: (sum(len(t.text) for t in c.turns.all()), c.topic.code, c.run.name))


def test_the_model_judges_a_demo_conversation_and_the_judges_page_compares_it(client):
    call_command("load_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="fairweb1")
    conversation = shortest_judged_conversation(campaign)
    system_turns = list(conversation.turns.filter(role="S").order_by("position"))

    organiser = get_user_model().objects.get(username="organiser")
    client.force_login(organiser)
    page = reverse("console:llm_judge", args=["fairweb1"])
    assert f'<option value="{MODEL}"' in client.get(page).content.decode()  # the listed server's model
    started = client.post(page, {
        "judge": "gemma-test", "server": "local", "model": MODEL, "topics": [conversation.topic_id],
        "runs": [conversation.run_id], "limit": 1, "concurrency": 1, "quotes": "lines", "response_format": "json_object",
        "temperature": 0, "seed": 0, "max_tokens": 1024, "timeout": 900})
    llm_run = LlmJudgeRun.objects.get()
    assert started.status_code == 302 and (llm_run.server, llm_run.base_url) == ("local", BASE_URL)
    run_worker()
    llm_run.refresh_from_db()
    out = llm_run.summary
    assert (llm_run.status, llm_run.conversations, llm_run.judged, llm_run.failed) == ("done", 1, 1, 0), out
    assert llm_run.requests == len(system_turns) and llm_run.completion_tokens > 0

    # the answers came through the grammar of the schema: JSON of the asked form, one per turn
    answers = list(LlmAnswer.objects.all())
    set_names = set(conversation.topic.topic_type.attribute_sets.values_list("name", flat=True))  # e.g. RATINGS, ORIGIN
    assert len(answers) == len(system_turns)
    for answer in answers:
        assert answer.model == MODEL and answer.prompt_version == PROMPT_VERSION
        entities = json.loads(answer.text)["entities"]
        assert all({"quote", "entity", "grade", *set_names} <= set(e) for e in entities)

    # quotes located as words of the turns: each nugget is one of its turn's lines
    judge = get_user_model().objects.get(username="gemma-test")
    nuggets = list(Nugget.objects.filter(annotator=judge).select_related("turn", "entity__grade"))
    assert nuggets, out
    for nugget in nuggets:
        assert nugget.turn.conversation_id == conversation.pk
        lines = {" ".join(line.words) for line in lines_of(nugget.turn.text)}
        assert span_text(tokenise(nugget.turn.text), nugget.start_word, nugget.end_word) in lines
        assert nugget.entity.grade is not None and nugget.entity.grade.label in ("L0", "L1", "L2")
    assert judge.annotator_profile.is_automatic and gold_annotators([conversation])[conversation.pk] != judge.pk

    # the judges page and compare_judges compare it with the gold, saying what produced it
    page = client.get(reverse("console:judges", args=["fairweb1"]), {"judge": judge.pk, "gold": "adjudicated"})
    html = page.content.decode()
    assert page.status_code == 200 and "gemma-test against the adjudicated gold" in html
    assert f"model {MODEL} at server local ({BASE_URL}), prompt {PROMPT_VERSION}" in html and "1 conversation compared" in html
    csv_out, err = run("compare_judges", "--campaign", "fairweb1", "--judge", "gemma-test")
    rows = list(csv.DictReader(io.StringIO(csv_out)))
    assert [r["measure"] for r in rows][-1] == "GFRC" and f"model {MODEL}" in err

    # run again: every answer from the cache, the judgments replaced, not added to
    before = Nugget.objects.filter(annotator=judge).count()
    run("judge_with_llm", "--campaign", "fairweb1", "--judge", "gemma-test", "--server", "local", "--model", MODEL,
        "--topic", conversation.topic.code, "--run", conversation.run.name, "--limit", "1", "--quotes", "lines",
        "--max-tokens", "1024", "--timeout", "900", "--retries", "2")
    again = LlmJudgeRun.objects.latest("pk")
    assert (again.requests, again.cached, again.judged) == (0, len(system_turns), 1)
    assert Nugget.objects.filter(annotator=judge).count() == before
