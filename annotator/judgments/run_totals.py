"""What each run holds, kept (`StoredRunTotals`, one row a run): its conversations, those nobody
is assigned, its people's assignments and those done, its people's and its automatic judges'
nuggets, and its judges' R, GF and
GFRC summed (annotator.scores.stored.totals). The overview adds the runs' counts up, and the
adjudication page reads the runs' sums (`run_totals`), without reading a campaign's rows.

A run is counted and summed again only when a write has made it stale since. The database names
those (`StaleRunTotals`): triggers on every table counted (migration 0028), so no write path can
forget it. The reader that finds a run stale counts it again, by one GROUP BY a count over that
run's conversations, and keeps the result:

1. it takes the run's `StoredRunTotals` row (created if new) FOR UPDATE, so two readers of one
   run take turns (PostgreSQL; SQLite's writers take turns already);
2. it reads which `StaleRunTotals` rows name the run, then counts the run in later statements,
   which see at least what those writers committed;
3. it deletes just those rows and stores the counts. A writer that commits after step 2 added
   its own row, which step 3 does not delete: the run stays stale, and the next reader counts it.

A write of every row of a campaign (a new L, alpha, grades) names the campaign once instead
(`scores.stored.sql.campaign_named`): every run of it is stale, and the stored figures' triggers
name no run one by one while it re-writes them (200,000 lookups a re-score spared).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q

from annotator.judgments.completion import people_assignments
from annotator.models import AnnotatorProfile, Campaign, Conversation, Nugget, Run, StaleRunTotals, StoredRunTotals
from annotator.scores.stored.sql import chunks
from annotator.scores.stored.totals import COLUMNS, summed
from annotator.scores.stored.writes import store_missing

__all__ = ["Counts", "RunTotals", "run_totals", "campaign_counts"]

FIGURES = tuple(f"{c}_{part}" for c in COLUMNS for part in ("sum", "count"))  # StoredRunTotals' figure columns


@dataclass
class Counts:
    """A run's counts (or a campaign's: the sum of its runs')."""

    conversations: int = 0
    unassigned: int = 0  # conversations nobody is assigned
    assignments: int = 0  # people's (`completion.people_assignments`): automatic judges' are not
    done: int = 0  # of those, said done
    nuggets: int = 0  # people's: what the progress page counts
    judges_nuggets: int = 0  # automatic judges' (the judges page compares them with the gold)


COUNTS = tuple(f.name for f in fields(Counts))


@dataclass
class RunTotals:
    """Each run's sum and count of every stored figure of `COLUMNS` (a NULL is not counted)."""

    runs: list[str]  # run names, sorted; runs with no conversation left out
    sums: np.ndarray  # (runs, measures)
    counts: np.ndarray  # (runs, measures)


def run_totals(campaign: Campaign) -> RunTotals:
    """Each run's sums and counts of its judges' R, GF and GFRC."""
    names = dict(Run.objects.filter(campaign=campaign).values_list("pk", "name"))
    kept = _kept(campaign, names)
    runs = sorted((names[pk], pk) for pk, (counts, _sums, _n) in kept.items() if counts.conversations)
    sums = np.array([kept[pk][1] for _name, pk in runs], dtype=float).reshape(len(runs), len(COLUMNS))
    counts = np.array([kept[pk][2] for _name, pk in runs], dtype=float).reshape(len(runs), len(COLUMNS))
    return RunTotals([name for name, _pk in runs], sums, counts)


def campaign_counts(campaign: Campaign) -> Counts:
    """The campaign's conversations, unassigned, people's assignments, done and nuggets: its
    runs' counts added up."""
    kept = _kept(campaign, dict(Run.objects.filter(campaign=campaign).values_list("pk", "name")))
    return Counts(**{name: sum(getattr(counts, name) for counts, _s, _n in kept.values()) for name in COUNTS})


def _kept(campaign: Campaign, names: dict[int, str]) -> dict[int, tuple[Counts, list[float], list[int]]]:
    """run id -> (its counts, its figures' sums, their counts), as kept where no write has made
    them stale since, else counted again (and kept)."""
    stale = set(Run.objects.filter(campaign=campaign).filter(
        Exists(StaleRunTotals.objects.filter(run_id=OuterRef("pk")))
        | Exists(StaleRunTotals.objects.filter(campaign_id=OuterRef("campaign_id")))).values_list("pk", flat=True))
    kept = {}
    for run_id, *values in StoredRunTotals.objects.filter(run__campaign=campaign).values_list("run_id", *COUNTS, *FIGURES):
        if run_id not in stale:
            figures = values[len(COUNTS):]
            kept[run_id] = (Counts(*values[:len(COUNTS)]), list(figures[0::2]), list(figures[1::2]))
    if again := sorted(set(names) - set(kept)):
        kept.update(_counted_again(campaign, again))
    return kept


def _counted_again(campaign: Campaign, run_ids: list[int]) -> dict[int, tuple[Counts, list[float], list[int]]]:
    """Count these runs again and keep the counts (steps 1-3 of the module's docstring).
    Conversations with no stored figures are stored first, as every read of the figures does."""
    for attempt in range(2):
        with transaction.atomic():
            StoredRunTotals.objects.bulk_create(  # step 1; in run order, so readers lock in one order
                [StoredRunTotals(run_id=pk, **{c: 0 for c in (*COUNTS[1:], *FIGURES)}, conversations=0)
                 for pk in run_ids], ignore_conflicts=True)
            list(StoredRunTotals.objects.select_for_update(no_key=True).filter(run_id__in=run_ids)
                 .order_by("run_id").values_list("run_id", flat=True))
            seen = list(StaleRunTotals.objects.filter(  # step 2; the campaign named whole: all its runs are here
                Q(run_id__in=run_ids) | Q(campaign_id=campaign.pk)).values_list("pk", flat=True))
            figures, missing = summed(campaign, run_ids)
            if not missing or attempt:
                counts = _counted(campaign, run_ids, {pk: figures[pk].conversations for pk in run_ids})
                counted = {pk: (counts[pk], figures[pk].sums, figures[pk].counts) for pk in run_ids}
                if missing:  # rows a reader could not store: counted, not kept
                    transaction.set_rollback(True)
                    return counted
                for chunk in chunks(seen):  # step 3
                    StaleRunTotals.objects.filter(pk__in=chunk).delete()
                StoredRunTotals.objects.bulk_create(
                    [StoredRunTotals(run_id=pk, **vars(counts), **{
                        f"{c}_{part}": v for c, s, n in zip(COLUMNS, sums, ns) for part, v in (("sum", s), ("count", n))})
                     for pk, (counts, sums, ns) in counted.items()],
                    update_conflicts=True, unique_fields=["run"], update_fields=[*COUNTS, *FIGURES])
                return counted
            transaction.set_rollback(True)  # nothing kept: stored first (below), then counted again
        store_missing(campaign, missing)
    raise AssertionError("unreachable: the second attempt returns")


def _counted(campaign: Campaign, run_ids: list[int], conversations: dict[int, int]) -> dict[int, Counts]:
    """Each run's counts, a GROUP BY each (the conversations come with the figures' sums)."""
    counts = {pk: Counts(conversations=conversations[pk]) for pk in run_ids}
    for run_id, unassigned in (Conversation.objects.filter(topic__campaign=campaign, run_id__in=run_ids,
                                                           assignments__isnull=True)
                               .order_by().values("run_id").annotate(n=Count("pk")).values_list("run_id", "n")):
        counts[run_id].unassigned = unassigned
    for run_id, assignments, done in (people_assignments(campaign).filter(conversation__run_id__in=run_ids).order_by()
                                      .values("conversation__run_id")
                                      .annotate(n=Count("pk"), done=Count("pk", filter=Q(done_at__isnull=False)))
                                      .values_list("conversation__run_id", "n", "done")):
        counts[run_id].assignments, counts[run_id].done = assignments, done
    for run_id, nuggets, judges in (Nugget.objects.filter(turn__conversation__topic__campaign=campaign,
                                                          turn__conversation__run_id__in=run_ids)
                                    .order_by().values("turn__conversation__run_id")
                                    .annotate(n=Count("pk"), judges=Count("pk", filter=AnnotatorProfile.automatic("annotator__")))
                                    .values_list("turn__conversation__run_id", "n", "judges")):
        counts[run_id].nuggets, counts[run_id].judges_nuggets = nuggets - judges, judges
    return counts
