"""The query planner's statistics, refreshed after an import that grew the judgments (SQLite).

SQLite plans without statistics until ANALYZE gathers them, and then guesses that an index on
any column is selective: a read of one conversation's nuggets by one annotator walked the
annotator's index, every nugget that annotator has in every campaign (0.07 s a read at 100,000
conversations, three reads a page), instead of the conversation's turns. An import is what
changes the tables' sizes by orders of magnitude, so after one that left the turns at more than
twice what the statistics last counted (or with none yet), they are gathered again, on a sample
(`analysis_limit`: milliseconds at any size). An import that adds a little to a large campaign
leaves them: its cost follows its file. PostgreSQL's autovacuum analyses on its own.
"""

from __future__ import annotations

from django.db import connection

from annotator.models import Turn

ROWS_SAMPLED = 1000  # per index: enough for the planner to tell a selective index from another
GROWTH = 2.0  # the turns counted now against those the statistics counted


def refresh() -> bool:
    """Gather the statistics again if the turns have grown past GROWTH times what they counted
    (True: gathered)."""
    if connection.vendor != "sqlite":
        return False
    table = Turn._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")
        counted = None
        if cursor.fetchone():
            cursor.execute("SELECT stat FROM sqlite_stat1 WHERE tbl = %s LIMIT 1", [table])
            row = cursor.fetchone()
            counted = int(row[0].split()[0]) if row else None
        cursor.execute(f"SELECT max(rowid) FROM {connection.ops.quote_name(table)}")  # an upper bound, read off the index
        now = cursor.fetchone()[0] or 0
        if counted is not None and now <= GROWTH * max(counted, 1):
            return False
        cursor.execute(f"PRAGMA analysis_limit = {ROWS_SAMPLED}")
        cursor.execute("ANALYZE")
        return True
