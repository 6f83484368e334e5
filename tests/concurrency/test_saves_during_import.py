"""An annotator saves while an organiser imports a large file: every save answers within a second
and none fails (on SQLite the import holds the only writer only for short batches and one short
publishing transaction; annotator.interchange.imports.staging). Real threads, each with its own
connection, on whichever database the suite runs on."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connections

from annotator.interchange.imports.conversations import import_files
from annotator.interchange.imports.staging import StagingArea
from annotator.judgments import edits
from annotator.models import Conversation, TurnLabel
from tests.factories import make_user
from tests.interchange.test_importing_staged import jsonl

pytestmark = pytest.mark.django_db(transaction=True)

CONVERSATIONS = 1500  # ~30,000 rows: with the import in one transaction, a save waited seconds here


def test_saves_during_a_large_import_each_answer_within_a_second_and_none_fails(world, monkeypatch):
    gold = make_user("gold")
    data = jsonl(CONVERSATIONS)
    turn = world.turn(2)
    areas: list[StagingArea] = []
    publish = StagingArea.publish

    def counted_publish(area, then=lambda: None):
        areas.append(area)
        publish(area, then)

    monkeypatch.setattr(StagingArea, "publish", counted_publish)
    outcome: dict = {}
    importing = threading.Event()

    def organiser() -> None:
        try:
            importing.set()
            outcome["result"] = import_files(world.campaign, [("large.jsonl", data)], annotator=gold)
        except BaseException as error:  # reported to the test
            outcome["error"] = error
        finally:
            connections.close_all()

    thread = threading.Thread(target=organiser, daemon=True)
    thread.start()
    importing.wait()
    latencies, failures = [], []
    version = None
    while thread.is_alive():
        label = "x" if len(latencies) % 2 else "o"
        started = time.perf_counter()
        try:
            version = edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label=label,
                                           expected_version=version).version
        except Exception as error:  # the finding, not a crash of the test
            failures.append(f"{type(error).__name__}: {error}")
            version = getattr(TurnLabel.objects.filter(turn=turn, annotator=world.alice).first(), "version", None)
        latencies.append(time.perf_counter() - started)
        time.sleep(0.05)
    thread.join()
    connections.close_all()

    assert "error" not in outcome, outcome.get("error")
    result = outcome["result"]
    assert result.ok and result.conversations == CONVERSATIONS
    assert Conversation.objects.filter(topic__campaign=world.campaign).count() == CONVERSATIONS + 1
    assert areas and areas[0].transactions > 20  # written in many short transactions
    assert len(latencies) >= 10, "the import ended before the saves could meet it"
    assert not failures, failures[:3]
    assert max(latencies) < 1.0, f"slowest save {max(latencies):.2f} s of {len(latencies)}"
