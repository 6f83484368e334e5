"""python manage.py compare_runs --campaign SLUG [--measure GFRC ...] [--permutations B] [--seed S]
[--standardise] [--format csv|json]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.http import QueryDict

from annotator.evaluation import run_comparison
from annotator.console.forms import ComparisonForm
from annotator.models import Campaign
from scoring import significance


class Command(BaseCommand):
    help = (
        "Every pair of runs per measure: means, difference, randomised Tukey HSD and paired t-test "
        "p-values, effect size (difference / sqrt(V_E)) and the number of topics compared."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--measure", action="append", metavar="MEASURE",
                            help="R, GF, GF_<attribute set> or GFRC (conversation runs); ERR, iRBU or a GFR variant such "
                                 "as GFR-ERR+RNOD+JSD (ranked-list runs); repeat for several (default: all)")
        parser.add_argument("--permutations", type=int, default=significance.DEFAULT_PERMUTATIONS, metavar="B")
        parser.add_argument("--seed", type=int, default=0, metavar="S")
        parser.add_argument("--standardise", action="store_true", help="compare standardised scores")
        parser.add_argument("--format", choices=["csv", "json"], default="csv")

    def handle(self, *args, campaign, measure, permutations, seed, standardise, format, **options):
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
        comparisons = run_comparison.compare(table, measure, form.cleaned_data["permutations"], form.cleaned_data["seed"],
                                       form.cleaned_data["standardise"])
        for c in comparisons:
            if c.result is None:
                self.stderr.write(f"{c.measure}: not compared ({c.reason})")
            for run, topics in c.matrix.missing.items():
                self.stderr.write(f"{c.measure}: {run} lacks {len(topics)} topic(s) ({', '.join(topics)}): left out")
        self.stdout.write(run_comparison.pairs_csv(comparisons) if format == "csv" else run_comparison.pairs_json(comparisons),
                          ending="" if format == "csv" else "\n")
