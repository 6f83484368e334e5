"""python manage.py compare_runs --campaign SLUG [--measure GFRC ...] [--run RUN ...] [--topic TOPIC ...]
[--permutations B] [--seed S] [--standardise] [--format csv|json]"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.core.management.base import CommandError
from django.http import QueryDict

from annotator.evaluation import run_comparison
from annotator.console.forms import ComparisonForm
from annotator.management.commands._files import DataCommand
from annotator.models import Campaign
from scoring import significance


PROGRESS_AFTER_S = 2.0  # a measure's Tukey HSD says how far it is once it has taken this long
PROGRESS_EVERY_S = 1.0


class TrialProgress:
    """Lines on standard error about a measure's randomised Tukey HSD trials ("GFRC: randomised
    Tukey HSD, 4,000 of 10,000 trials"): none for a measure done within PROGRESS_AFTER_S, then
    at most one a PROGRESS_EVERY_S, and the last trial's line."""

    def __init__(self, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.write, self.clock = write, clock
        self.measure: str | None = None
        self.started = self.said = 0.0

    def __call__(self, measure: str, done: int, total: int) -> None:
        now = self.clock()
        if measure != self.measure:
            self.measure, self.started, self.said = measure, now, -float("inf")
        if now - self.started < PROGRESS_AFTER_S or (now - self.said < PROGRESS_EVERY_S and done < total):
            return
        self.said = now
        self.write(f"{measure}: randomised Tukey HSD, {done:,} of {total:,} trials")


class Command(DataCommand):
    help = (
        "Every pair of runs per measure: means, difference, randomised Tukey HSD and paired t-test "
        "p-values, effect size (difference / sqrt(V_E)) and the number of topics compared."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--measure", action="append", metavar="MEASURE",
                            help="R, GF, GF_<attribute set> or GFRC (conversation runs); ERR, iRBU or a GFR variant such "
                                 "as GFR-ERR+RNOD+JSD (ranked-list runs); repeat for several (default: all)")
        parser.add_argument("--run", action="append", metavar="RUN", dest="runs",
                            help="compare these runs, on the topics they share; repeat (default: every run that has every topic)")
        parser.add_argument("--topic", action="append", metavar="TOPIC", dest="topics",
                            help="only these topics; repeat (default: every topic the compared runs share)")
        parser.add_argument("--permutations", type=int, default=significance.DEFAULT_PERMUTATIONS, metavar="B")
        parser.add_argument("--seed", type=int, default=0, metavar="S")
        parser.add_argument("--standardise", action="store_true", help="compare standardised scores")
        parser.add_argument("--format", choices=["csv", "json"], default="csv")

    def handle(self, *args, campaign, measure, runs, topics, permutations, seed, standardise, format, **options):
        campaign_obj = Campaign.objects.filter(slug=campaign).first()
        if campaign_obj is None:
            raise CommandError(f"no campaign {campaign!r}")
        query = QueryDict(mutable=True)
        query.update({"permutations": permutations, "seed": seed})
        if standardise:
            query["standardise"] = "on"
        form = ComparisonForm.from_query(query)
        if not form.is_valid():
            raise CommandError("; ".join(f"--{name}: {' '.join(errors)}" for name, errors in form.errors.items()))
        table = run_comparison.run_tables(campaign_obj)
        known = table.measures()
        unknown = [m for m in measure or [] if m not in known]
        if unknown:
            raise CommandError(f"no measure {', '.join(unknown)} in {campaign}: choose from {', '.join(known)}")
        every = [t for t in (table.conversations, table.ranked_lists) if not t.empty]
        for name, asked, column in (("run", runs, "run"), ("topic", topics, "topic")):
            unknown = [value for value in asked or [] if not any(value in set(t[column]) for t in every)]
            if unknown:
                raise CommandError(f"no {name} {', '.join(unknown)} in {campaign}")
        selected, selections = run_comparison.select_tables(table, runs, topics)
        comparisons = run_comparison.compare(selected, measure or known, form.cleaned_data["permutations"],
                                             form.cleaned_data["seed"], form.cleaned_data["standardise"],
                                             TrialProgress(self.stderr.write))
        for kind, selection in selections.items():
            runs_of = "ranked-list run(s)" if kind == "ranked_lists" else "run(s)"
            self.stderr.write(f"compared {len(selection.runs)} {runs_of} on {len(selection.topics)} topic(s)")
            for run, lacking in selection.left_out.items():
                self.stderr.write(f"{run} lacks {len(lacking)} topic(s) ({', '.join(lacking)}): left out")
            if selection.topics_left_out:
                self.stderr.write(f"topics a compared run lacks, left out: {', '.join(selection.topics_left_out)}")
        for c in comparisons:
            if c.result is None:
                self.stderr.write(f"{c.measure}: not compared ({c.reason})")
        self.stdout.write(run_comparison.pairs_csv(comparisons) if format == "csv" else run_comparison.pairs_json(comparisons),
                          ending="" if format == "csv" else "\n")
