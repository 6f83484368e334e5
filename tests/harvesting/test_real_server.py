"""A harvest from a real LLM server: llama.cpp's OpenAI-compatible server with Gemma 3 270M
(scripts/with-llama-server.sh starts it and lists it for the deployment as "local"; `make
test-llm`). Two topics by two trials, the command killed (SIGKILL) once the first conversation
is stored, then run again: nothing stored is asked again, all four conversations are there,
each with its provenance. Skipped with a notice without a server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from annotator.models import Conversation, HarvestedAnswer, HarvestRun
from tests.commands.helpers import run
from tests.commands.test_db_worker_command import worker_environment

pytestmark = [pytest.mark.llm, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
MODEL = os.environ.get("GFRC_LLM_MODEL", "")
# --system-message on its way through the command to a real server (the server speaks Gemma's turn
# markers: scripts/with-llama-server.sh; with Llama 2's fallback this model answered a lone user turn with nothing)
SYSTEM_MESSAGE = "You are a helpful search assistant."


@pytest.fixture(autouse=True)
def llm_server(settings) -> None:
    if not os.environ.get("GFRC_LLM_SERVERS"):
        if os.environ.get("GFRC_REQUIRE_LLM") == "1":
            pytest.fail("GFRC_REQUIRE_LLM=1 but no GFRC_LLM_SERVERS: run through scripts/with-llama-server.sh")
        pytest.skip("*** No local LLM server (GFRC_LLM_SERVERS): run `make test-llm` for the real-server test ***")
    settings.GFRC_LLM_SERVERS = json.loads(os.environ["GFRC_LLM_SERVERS"])


def harvest_command() -> list[str]:
    return [sys.executable, "manage.py", "harvest", "--campaign", "fw", "--system", "gemma", "--server", "local",
            "--model", MODEL, "--trials", "2", "--max-tokens", "96", "--timeout", "600", "--seed", "1", "--system-message", SYSTEM_MESSAGE]


def test_a_harvest_of_two_topics_by_two_trials_killed_after_the_first_resumes_without_asking_again(campaign, settings):
    process = subprocess.Popen(harvest_command(), cwd=ROOT, env=worker_environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 900
    while not Conversation.objects.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)  # no goodbye: the harvest stays "running" until its process is found gone
    process.wait()
    stored_before = set(Conversation.objects.values_list("topic__code", "run__name"))
    assert stored_before, process.stdout.read().decode()
    run("harvest", campaign="fw", system="gemma", server="local", model=MODEL, trials=2, max_tokens=96, timeout=600,
        seed=1, system_message=SYSTEM_MESSAGE)
    assert Conversation.objects.count() == 4
    last = HarvestRun.objects.order_by("pk").last()
    assert last.kept == len(stored_before) and last.harvested == 4 - len(stored_before)
    assert HarvestRun.objects.order_by("pk").first().status == "failed"  # the killed one, found gone
    for conversation in Conversation.objects.all():
        answers = HarvestedAnswer.objects.filter(conversation=conversation, role="S")
        assert answers.count() == 2 and all(a.server == "local" and a.model == MODEL for a in answers)
    assert not HarvestedAnswer.objects.filter(conversation__isnull=True).exists()
