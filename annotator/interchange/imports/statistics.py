"""The query planner's statistics, refreshed after an import (SQLite).

SQLite plans without statistics until ANALYZE gathers them, and then guesses that an index on
any column is selective: a read of one conversation's nuggets by one annotator walked the
annotator's index, every nugget that annotator has in every campaign (0.07 s a read at 100,000
conversations, three reads a page), instead of the conversation's turns. An import is what
changes the tables' sizes by orders of magnitude, so it refreshes them, on a sample
(`analysis_limit`: milliseconds at any size). PostgreSQL's autovacuum analyses on its own.
"""

from __future__ import annotations

from django.db import connection

ROWS_SAMPLED = 1000  # per index: enough for the planner to tell a selective index from another


def refresh() -> None:
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA analysis_limit = {ROWS_SAMPLED}")
        cursor.execute("ANALYZE")
