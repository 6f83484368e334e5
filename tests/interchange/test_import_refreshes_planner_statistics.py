"""After an import, SQLite has statistics of the judgments' tables: without them it took any
index for selective and, at 100,000 conversations, read a conversation's nuggets by walking
every nugget of the annotator (0.07 s a read; bench_campaign_pages, docs/benchmarks.md), so an
import refreshes them (annotator.interchange.imports.statistics)."""

from __future__ import annotations

import pytest
from django.db import connection

from annotator.models import Membership, Nugget
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL's autovacuum keeps its statistics")


def test_an_import_leaves_statistics_of_the_judgments_tables(sqlite_only):
    run("load_demo")
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT tbl FROM sqlite_stat1")
        analysed = {row[0] for row in cursor.fetchall()}
    assert {Nugget._meta.db_table, Membership._meta.db_table, "annotator_storedfigures"} <= analysed


def test_the_statistics_are_gathered_again_only_when_the_turns_have_more_than_doubled(sqlite_only):
    from annotator.interchange.imports import statistics

    run("load_demo")  # its imports gathered them
    assert not statistics.refresh()  # nothing grew since
    with connection.cursor() as cursor:
        cursor.execute("UPDATE sqlite_stat1 SET stat = '1 1' WHERE tbl = 'annotator_turn'")  # counted when there was one turn
    assert statistics.refresh()
    assert not statistics.refresh()
