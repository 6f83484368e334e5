"""A reader summing a run's totals again while a writer changes the run, in real threads with
their own connections: the writer's change is never lost from the kept totals. On PostgreSQL the
writer commits between the reader's sum and its store (the reader waits there); on SQLite it
waits for the reader's transaction. Either way the next reader sums the run with the change."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from annotator.models import Run, StaleRunTotals, StoredFigures
from annotator.scores.campaign_tables import measure_columns, score_table
from annotator.judgments import run_totals as totals_module
from annotator.judgments.run_totals import run_totals
from tests.concurrency.conftest import race

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_write_committed_while_a_reader_sums_its_run_is_in_the_next_readers_totals(world, monkeypatch, vendor):
    run_totals(world.campaign)
    row = StoredFigures.objects.get(conversation=world.conversation, annotator=None)
    StoredFigures.objects.filter(pk=row.pk).update(r=0.25)  # the run is stale: the reader sums it
    summed, original = threading.Event(), totals_module.summed
    finished: dict[str, float] = {}

    def summed_slowly(*args, **kwargs):
        result = original(*args, **kwargs)
        summed.set()
        time.sleep(0.5)  # the window between the sum and the store
        return result

    def reader():
        run_totals(world.campaign)
        finished["reader"] = time.monotonic()

    def writer():
        assert summed.wait(10)
        StoredFigures.objects.filter(pk=row.pk).update(r=0.75)
        finished["writer"] = time.monotonic()

    monkeypatch.setattr(totals_module, "summed", summed_slowly)
    outcomes = race(reader, writer)
    monkeypatch.setattr(totals_module, "summed", original)
    assert [o.error for o in outcomes] == [None, None]
    if vendor == "postgresql":
        assert finished["writer"] < finished["reader"]  # it committed inside the window
    assert StaleRunTotals.objects.filter(run_id=world.conversation.run_id).exists()
    totals = run_totals(world.campaign)
    table = score_table(world.campaign)
    assert table["R"].tolist() == [0.75]
    assert totals.runs == [Run.objects.get(pk=world.conversation.run_id).name]
    np.testing.assert_allclose(totals.sums, table[list(measure_columns(()))].to_numpy())
