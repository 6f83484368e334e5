"""The assignments export: one row per assignment of a person (automatic judges apart, as on the
overview and the progress page), with "done" as annotator.judgments.completion writes it, the
time on task (annotator.judgments.activity) and the guidelines version in force when it was
done, and the counts of annotator.judgments.progress.

    annotator,topic,run,done_at,active_seconds,guidelines_version,assigned_at,system_turns,
    turns_labelled,nuggets,nuggets_graded,entities,entities_complete

Times are ISO 8601 in UTC; active_seconds to the tenth of a second. Cells a spreadsheet would
run as a formula are written as text (annotator.interchange.csvsafe).
"""

from __future__ import annotations

from collections.abc import Iterator

from annotator.interchange.csvsafe import csv_text
from annotator.judgments.completion import people_assignments
from annotator.judgments.progress import campaign_progress
from annotator.models import Campaign

__all__ = ["COLUMNS", "assignment_rows", "iter_assignments_csv"]

COLUMNS = ("annotator", "topic", "run", "done_at", "active_seconds", "guidelines_version", "assigned_at", "system_turns",
           "turns_labelled", "nuggets", "nuggets_graded", "entities", "entities_complete")
BATCH = 2000


def _when(value) -> str:
    return value.isoformat().replace("+00:00", "Z") if value is not None else ""


def assignment_rows(campaign: Campaign) -> list[list]:
    """The export's rows (COLUMNS), for the CSV and the API alike."""
    rows = list(people_assignments(campaign).order_by("conversation__topic__code", "conversation__run__name",
                                                      "annotator__username").values_list(
        "annotator_id", "conversation_id", "annotator__username", "conversation__topic__code", "conversation__run__name",
        "assigned_at", "done_at", "active_seconds", "guidelines_version"))
    states = campaign_progress(campaign, [(a, c) for a, c, *_rest in rows])
    out = []
    for annotator_id, conversation_id, username, topic, run, assigned_at, done_at, seconds, version in rows:
        p = states[(annotator_id, conversation_id)]
        out.append([username, topic, run, _when(done_at), round(seconds, 1), version, _when(assigned_at),
                    p.system_turns, p.turns_labelled, p.nuggets, p.nuggets_graded, p.entities, p.entities_complete])
    return out


def iter_assignments_csv(campaign: Campaign) -> Iterator[str]:
    rows = assignment_rows(campaign)
    yield csv_text([COLUMNS])
    for i in range(0, len(rows), BATCH):
        yield csv_text([["" if v is None else v for v in row] for row in rows[i:i + BATCH]])
