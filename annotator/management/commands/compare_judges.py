"""python manage.py compare_judges --campaign SLUG --judge USER [--gold USER|adjudicated] [--format csv|json]

CSV: the campaign-level figures, one row per measure (measure, runs, kendall_tau_b, tau_ap,
flips, mean_abs_error). JSON: everything the console's judges page shows, per conversation too.
For an LLM judge, what produced its judgments (model, server, prompt version, temperature, seed
of its latest run) is said on stderr beside the CSV, and as `produced_by` in the JSON.
"""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from annotator.evaluation.judge_comparison import ADJUDICATED, compare_judge
from annotator.management.commands._files import DataCommand
from annotator.models import Campaign


class Command(DataCommand):
    help = "Compare an automatic judge's annotation with the gold's, down to the run rankings per measure."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--judge", required=True, metavar="USER", help="the annotator compared (usually an automatic judge)")
        parser.add_argument("--gold", default=ADJUDICATED, metavar="USER|adjudicated",
                            help="a human annotator, or each conversation's adjudicated gold (default)")
        parser.add_argument("--format", choices=["csv", "json"], default="csv")

    def handle(self, *args, campaign, judge, gold, format, **options):
        campaign_obj = Campaign.objects.filter(slug=campaign).first()
        if campaign_obj is None:
            raise CommandError(f"no campaign {campaign!r}")
        users = get_user_model().objects
        judge_user = users.filter(username=judge).first()
        if judge_user is None:
            raise CommandError(f"no user named {judge!r}")
        gold_user = None
        if gold != ADJUDICATED:
            gold_user = users.filter(username=gold).first()
            if gold_user is None:
                raise CommandError(f"no user named {gold!r} (or give --gold {ADJUDICATED})")
        comparison = compare_judge(campaign_obj, judge_user, gold_user)
        if comparison.conversations.empty:
            self.stderr.write(f"{judge} shares no conversation of {campaign} with the gold {gold}: nothing to compare")
        if comparison.produced_by:
            self.stderr.write(f"{judge}: {comparison.produced_by}")
        if format == "json":
            self.stdout.write(json.dumps(comparison.as_dict(), indent=2))
        else:
            self.stdout.write(comparison.campaign_csv(), ending="")
