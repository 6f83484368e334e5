"""What a page about one conversation needs of the rest of its campaign, without reading the
rest's rows: each run's sums and counts of R, GF and GFRC over its conversations' judges'
stored figures, summed by the database (one GROUP BY), and the figures of just the
conversations the page can change (`judge_rows`).

Whose row counts for a conversation is decided as `reads` decides it (its gold, else its first
human assignee: `per_conversation.judge_of_conversation`, else the row with no annotator).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from django.db import connection

from annotator.models import Campaign, Conversation, Run, StoredFigures
from annotator.scores.per_conversation import judge_of_conversation
from annotator.scores.stored.sql import chunks
from annotator.scores.stored.writes import store_missing

__all__ = ["COLUMNS", "RunTotals", "run_totals", "judge_rows"]

COLUMNS = ("r", "gf", "gfrc")  # the stored figures summed, in this order (campaign_tables names them)


@dataclass
class RunTotals:
    """Each run's sum and count of every stored figure of `COLUMNS` (a NULL is not counted)."""

    runs: list[str]  # run names, sorted
    sums: np.ndarray  # (runs, measures)
    counts: np.ndarray  # (runs, measures)


def _judged_conversations(campaign: Campaign):
    """The campaign's conversations with whose judgments count in each (`judge`)."""
    return (Conversation.objects.filter(topic__campaign=campaign).annotate(judge=judge_of_conversation())
            .order_by().values("id", "run_id", "judge"))


def run_totals(campaign: Campaign) -> RunTotals:
    """One GROUP BY over the campaign's conversations, each joined to its judge's stored row and
    to its row with no annotator (the judge's when it has one). Conversations with no stored
    row at all are stored first, as every read of the figures does."""
    for attempt in range(2):
        rows, missing = _summed(campaign)
        if not missing or attempt:
            break
        store_missing(campaign, missing)
    runs = sorted(rows)
    sums = np.array([rows[run][0] for run in runs], dtype=float).reshape(len(runs), len(COLUMNS))
    counts = np.array([rows[run][1] for run in runs], dtype=float).reshape(len(runs), len(COLUMNS))
    return RunTotals(runs, sums, counts)


def _summed(campaign: Campaign) -> tuple[dict[str, tuple[list, list]], list[int]]:
    quote = connection.ops.quote_name
    inner, params = _judged_conversations(campaign).query.sql_with_params()
    stored, run = quote(StoredFigures._meta.db_table), quote(Run._meta.db_table)
    figure = {c: f"COALESCE(j.{quote(c)}, e.{quote(c)})" for c in COLUMNS}
    sql = (f"SELECT run.{quote('name')}, COUNT(*) - COUNT(e.{quote('id')}), "
           + ", ".join(f"SUM({figure[c]}), COUNT({figure[c]})" for c in COLUMNS)
           + f" FROM ({inner}) AS c JOIN {run} AS run ON run.{quote('id')} = c.{quote('run_id')}"
           f" LEFT JOIN {stored} AS j ON j.{quote('conversation_id')} = c.{quote('id')}"
           f" AND j.{quote('annotator_id')} = c.{quote('judge')}"
           f" LEFT JOIN {stored} AS e ON e.{quote('conversation_id')} = c.{quote('id')}"
           f" AND e.{quote('annotator_id')} IS NULL"
           f" GROUP BY run.{quote('name')}")
    # every conversation has a row with no annotator once stored: those without one are missing
    unstored = (Conversation.objects.filter(topic__campaign=campaign).order_by()
                .exclude(pk__in=StoredFigures.objects.filter(annotator__isnull=True).values("conversation_id")))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows, unstored_count = {}, 0
        for name, without_row, *values in cursor.fetchall():
            unstored_count += without_row
            rows[name] = ([values[2 * m] or 0.0 for m in range(len(COLUMNS))],
                          [values[2 * m + 1] for m in range(len(COLUMNS))])
    return rows, list(unstored.values_list("pk", flat=True)) if unstored_count else []


def judge_rows(campaign: Campaign, judge_of: Mapping[int, int | None]) -> dict[int, tuple[str, list[float]]]:
    """conversation id -> (its run's name, its judge's R, GF and GFRC), for just these
    conversations (`judge_of`: conversation id -> whose judgments count, as `reads` decides)."""
    wanted = sorted(judge_of)
    judges = {j for j in judge_of.values() if j is not None}
    run_of = {pk: name for chunk in chunks(wanted)
              for pk, name in Conversation.objects.filter(pk__in=chunk).values_list("pk", "run__name")}
    for attempt in range(2):
        found: dict[tuple, list[float]] = {}
        for chunk in chunks(wanted):
            for conversation_id, annotator_id, *values in (
                    StoredFigures.objects.filter(conversation_id__in=chunk, campaign=campaign)
                    .values_list("conversation_id", "annotator_id", *COLUMNS)):
                if annotator_id is None or annotator_id in judges:
                    found[(conversation_id, annotator_id)] = values
        missing = [c for c in wanted if (c, None) not in found]
        if not missing or attempt:
            break
        store_missing(campaign, missing)
    return {c: (run_of[c], found.get((c, judge_of[c])) or found[(c, None)]) for c in wanted}
