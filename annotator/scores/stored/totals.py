"""What a page about one conversation needs of the rest of its campaign, without reading the
rest's rows: each run's sums and counts of R, GF and GFRC over its conversations' judges'
stored figures, summed by the database (`summed`: one GROUP BY, for the runs asked; kept per
run by annotator.judgments.run_totals), and the figures of just the conversations the page can
change (`judge_rows`).

Whose row counts for a conversation is decided as `reads` decides it (its gold, else its first
human assignee: `per_conversation.judge_of_conversation`, else the row with no annotator).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.db import connection

from annotator.models import Campaign, Conversation, StoredFigures
from annotator.scores.per_conversation import judge_of_conversation
from annotator.scores.stored.sql import chunks
from annotator.scores.stored.writes import store_missing

__all__ = ["COLUMNS", "Summed", "summed", "judge_rows"]

COLUMNS = ("r", "gf", "gfrc")  # the stored figures summed, in this order (campaign_tables names them)


@dataclass
class Summed:
    """A run's conversations, and the sum and count of each of `COLUMNS` over its conversations'
    judges' rows (a NULL is not counted)."""

    conversations: int
    sums: list[float]
    counts: list[int]


def _judged_conversations(campaign: Campaign, run_ids: list[int] | None):
    """The campaign's conversations (of these runs) with whose judgments count in each (`judge`)."""
    conversations = Conversation.objects.filter(topic__campaign=campaign)
    if run_ids is not None:
        conversations = conversations.filter(run_id__in=run_ids)
    return conversations.annotate(judge=judge_of_conversation()).order_by().values("id", "run_id", "judge")


def summed(campaign: Campaign, run_ids: list[int] | None = None) -> tuple[dict[int, Summed], list[int]]:
    """run id -> its totals, summed now by one GROUP BY over the campaign's conversations (of
    `run_ids`; every one of them has its totals, with no conversation: zeros), each joined to
    its judge's stored row and to its row with no annotator (the judge's when it has one); and
    the conversations with no stored row (every one has a row with no annotator once stored)."""
    quote = connection.ops.quote_name
    inner, params = _judged_conversations(campaign, run_ids).query.sql_with_params()
    stored = quote(StoredFigures._meta.db_table)
    figure = {c: f"COALESCE(j.{quote(c)}, e.{quote(c)})" for c in COLUMNS}
    sql = (f"SELECT c.{quote('run_id')}, COUNT(*), COUNT(*) - COUNT(e.{quote('id')}), "
           + ", ".join(f"SUM({figure[c]}), COUNT({figure[c]})" for c in COLUMNS)
           + f" FROM ({inner}) AS c"
           f" LEFT JOIN {stored} AS j ON j.{quote('conversation_id')} = c.{quote('id')}"
           f" AND j.{quote('annotator_id')} = c.{quote('judge')}"
           f" LEFT JOIN {stored} AS e ON e.{quote('conversation_id')} = c.{quote('id')}"
           f" AND e.{quote('annotator_id')} IS NULL"
           f" GROUP BY c.{quote('run_id')}")
    totals = {pk: Summed(0, [0.0] * len(COLUMNS), [0] * len(COLUMNS)) for pk in run_ids or ()}
    unstored_count = 0
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for run_id, conversations, without_row, *values in cursor.fetchall():
            unstored_count += without_row
            totals[run_id] = Summed(conversations, [values[2 * m] or 0.0 for m in range(len(COLUMNS))],
                                     [values[2 * m + 1] for m in range(len(COLUMNS))])
    if not unstored_count:
        return totals, []
    unstored = (_judged_conversations(campaign, run_ids).values("id")
                .exclude(pk__in=StoredFigures.objects.filter(annotator__isnull=True).values("conversation_id")))
    return totals, list(unstored.values_list("id", flat=True))


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
