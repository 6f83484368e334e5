"""Each database keeps the stored figures as its updates and reads want them (migration 0027):
SQLite with the index of the summed columns its runs' sums read alone; PostgreSQL with no index
holding a figure and half-empty pages, so that a new L or alpha updates rows in place, and such
an update is then mostly heap-only."""

from __future__ import annotations

import pytest
from django.db import connection

from annotator.models import StoredFigures
from annotator.scores.stored import writes
from tests.factories import make_campaign, make_conversation, make_user, mark

pytestmark = pytest.mark.django_db

TABLE = StoredFigures._meta.db_table
SUMMED = ["conversation_id", "annotator_id", "r", "gf", "gfrc"]


def indexed_columns() -> dict[str, list[str]]:
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, TABLE)
    return {name: spec["columns"] for name, spec in found.items() if spec["index"]}


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's index")
def test_on_sqlite_the_runs_sums_read_an_index_of_the_summed_columns():
    assert indexed_columns().get("stored_figures_sums_idx") == SUMMED


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's storage")
def test_on_postgresql_no_index_holds_a_figure_and_pages_keep_room_for_new_versions():
    figures = {"r", "gf", "gfrc", "gf_sets", "lowest_distr_sim"}
    assert not [name for name, columns in indexed_columns().items() if figures & set(columns)]
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [TABLE])
        assert "fillfactor=50" in cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's storage")
def test_on_postgresql_a_new_alpha_updates_the_stored_rows_in_place():
    campaign = make_campaign()
    annotator = make_user("ann")
    for topic in ("M001", "M002", "M003"):
        conversation = make_conversation(campaign, [("U", "Films?"), ("S", "Primer https://www.imdb.com/title/tt0390384/")],
                                         topic=topic, annotators=[annotator])
        mark(conversation, annotator, 2, 1, 1, grade="L2", memberships={"RATINGS": [0, 0, 1, 0]})
    campaign.alpha = 0.3
    campaign.save(update_fields=["alpha"])
    rows = writes.recombine_alpha(campaign)
    assert rows == StoredFigures.objects.filter(campaign=campaign).count() >= 3
    with connection.cursor() as cursor:
        # this transaction's own updates: heap-only ones leave the indexes alone
        cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = %s", [TABLE])
        updated, heap_only = cursor.fetchone()
    assert updated >= rows and heap_only >= rows
