"""An import pauses between its short transactions only while someone waits for SQLite's one
writer (annotator.writers): a connection waiting in BEGIN is seen, and seen no more once it has
the lock; an import nobody waits for never sleeps; one somebody waits for lets them in. Real
transactions and threads, each thread with its own connection; SQLite only (PostgreSQL's writers
of different rows do not wait for each other: no pauses there)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections, transaction

from annotator import writers
from annotator.interchange.imports import staging
from annotator.interchange.imports.conversations import import_files
from annotator.interchange.imports.staging import StagingArea
from annotator.models import Campaign
from tests.factories import make_user
from tests.interchange.test_importing_staged import jsonl

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's one writer"),
]


def eventually(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def test_a_connection_waiting_for_the_writers_lock_is_seen_and_no_longer_once_it_has_it(world):
    holding, release, wrote = threading.Event(), threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with transaction.atomic():  # BEGIN IMMEDIATE: the writer's lock until the commit
                Campaign.objects.filter(pk=world.campaign.pk).update(name="held")
                holding.set()
                release.wait(10)
        finally:
            connections.close_all()

    def saver() -> None:
        try:
            with transaction.atomic():  # waits in BEGIN for the holder's commit
                Campaign.objects.filter(pk=world.campaign.pk).update(name="saved")
            wrote.set()
        finally:
            connections.close_all()

    first = threading.Thread(target=holder, daemon=True)
    first.start()
    assert holding.wait(10)
    assert writers.someone_waits(connection) is False  # the holder has the lock: it waits for nothing
    second = threading.Thread(target=saver, daemon=True)
    second.start()
    assert eventually(lambda: writers.someone_waits(connection)), "the waiting save was not seen"
    release.set()
    first.join(10)
    second.join(10)
    assert wrote.is_set()
    assert writers.someone_waits(connection) is False
    assert Campaign.objects.get(pk=world.campaign.pk).name == "saved"


def _recorded(monkeypatch) -> tuple[list[float], list[float | None], list[StagingArea]]:
    """The importer's sleeps, its pauses between batches (seconds, None: it could not tell
    whether someone waits) and its staging areas, recorded."""
    sleeps: list[float] = []
    pauses: list[float | None] = []
    areas: list[StagingArea] = []
    real_sleep, publish, pause = time.sleep, StagingArea.publish, writers.while_someone_waits

    def paused(*args) -> float | None:
        pauses.append(pause(*args))
        return pauses[-1]

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        real_sleep(seconds)

    def counted_publish(area, then=lambda: None):
        areas.append(area)
        publish(area, then)

    monkeypatch.setattr(writers.time, "sleep", sleep)  # the module `time`, shared: every sleep of the process
    monkeypatch.setattr(writers, "while_someone_waits", paused)
    monkeypatch.setattr(StagingArea, "publish", counted_publish)
    return sleeps, pauses, areas


def test_an_import_nobody_waits_for_never_pauses(world, monkeypatch):
    sleeps, pauses, areas = _recorded(monkeypatch)
    result = import_files(world.campaign, [("many.jsonl", jsonl(300))], annotator=make_user("gold"))
    assert result.ok and result.conversations == 300
    assert areas and areas[0].transactions > 5  # written in short transactions, each followed by a look
    assert len(pauses) == areas[0].transactions and None not in pauses  # this database can tell
    assert sleeps == []


def test_an_import_someone_waits_for_stays_off_the_lock_after_each_batch(world, monkeypatch):
    sleeps, pauses, areas = _recorded(monkeypatch)
    with writers.waiting(connection):  # as a save waiting in BEGIN says it, all the import long
        result = import_files(world.campaign, [("few.jsonl", jsonl(60))], annotator=make_user("gold"))
    assert result.ok and result.conversations == 60
    assert areas and len(pauses) == areas[0].transactions > 1
    # after each batch: until the waiting one has the lock (never, here), at most as long as the
    # busy handler's longest sleep or the batch, whichever is longer; looking every POLL
    assert all(paused >= staging.LONGEST_POLL for paused in pauses)
    assert sleeps and max(sleeps) == writers.POLL
