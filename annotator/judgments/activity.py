"""Time on task: how long an annotator actively worked on a conversation.

Each sign of work on an assignment (a save in the workspace, and a heartbeat the page sends
every HEARTBEAT_SECONDS while it is visible and the annotator has moved the pointer, scrolled or
typed within IDLE_SECONDS) adds the time since the previous sign, unless that gap is longer than
IDLE_SECONDS: then the annotator was away (another tab, a break, the page left open overnight)
and the gap is left out. Opening the page is a sign too, so the first minute is counted from it.

So an annotator who reads for two minutes, marks a nugget, reads on for ten minutes (heartbeats
every 30 s), then leaves the page open for an hour has 12 minutes: the hour's first gap after
the last heartbeat is over the limit and counts nothing.

One UPDATE per sign, computed by the database from the row itself (no read first): two tabs or
two signs at once never lose time, nor count it twice beyond the gap between them.
"""

from __future__ import annotations

import time

from django.db.models import Case, F, Value, When
from django.db.models.functions import Greatest

from annotator.models import Assignment

__all__ = ["IDLE_SECONDS", "HEARTBEAT_SECONDS", "record", "active_time"]

IDLE_SECONDS = 300.0  # a gap longer than this between two signs of work is time away
HEARTBEAT_SECONDS = 30  # how often a visible, used page says the annotator is still at it


def record(assignment_id: int, now: float | None = None) -> None:
    """A sign of work on the assignment, at `now` (seconds since the epoch; now by default)."""
    now = time.time() if now is None else now
    gap = Value(now) - F("last_active")
    Assignment.objects.filter(pk=assignment_id).update(
        active_seconds=Case(
            When(last_active__isnull=False, last_active__gte=now - IDLE_SECONDS,
                 then=F("active_seconds") + Greatest(gap, Value(0.0))),
            default=F("active_seconds"),
        ),
        # the later of the two: a sign that arrives late (two tabs) never moves it back
        last_active=Case(When(last_active__gt=now, then=F("last_active")), default=Value(now)),
    )


def active_time(signs: list[float]) -> float:
    """The time on task of a sequence of signs of work (seconds since the epoch): the oracle of
    `record`'s arithmetic, for tests and the docs' example."""
    total = 0.0
    ordered = sorted(signs)
    for before, after in zip(ordered, ordered[1:]):
        if after - before <= IDLE_SECONDS:
            total += after - before
    return total
