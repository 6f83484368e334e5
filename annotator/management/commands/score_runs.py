"""python manage.py score_runs --campaign SLUG [--cutoff 20] [--format tsv|csv|json] [--annotator USER]

GFR of every ranked-list run, as NTCIREVAL computes it: one row per run, topic, attribute set
and measure (run topic attribute_set measure value), values at full precision.
"""

from __future__ import annotations

import json

from django.core.management.base import CommandError

from annotator.interchange.csvsafe import frame_csv
from annotator.management.commands._files import CampaignCommand
from annotator.scores.ranked_lists import LONG_COLUMNS, score_ranked_lists


class Command(CampaignCommand):
    help = (
        "GFR of the ranked-list runs: ERR, iRBU, GF-JSD/NMD/RNOD per attribute set and the GFR variants "
        "(GFR-ERR+NMD+JSD, GFR-ERR+RNOD+JSD, GFR-iRBU+NMD+JSD, GFR-iRBU+RNOD+JSD; without +JSD for types with no "
        "nominal set), one row per run, topic, attribute set and measure."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--cutoff", type=int, metavar="L", help="ranks read per list (default: the campaign's, FairWeb-1: 20)")
        parser.add_argument("--format", choices=["tsv", "csv", "json"], default="tsv")
        parser.add_argument("--annotator", metavar="USERNAME",
                            help="score from this annotator's judgments (default: each topic's document judge)")

    def handle(self, *args, campaign, cutoff, format, annotator, **options):
        campaign_obj = self.campaign(campaign)
        if cutoff is not None and cutoff < 1:
            raise CommandError("--cutoff: at least 1 rank")
        judge = self.user(annotator) if annotator is not None else None
        figures = score_ranked_lists(campaign_obj, cutoff, judge).figures[LONG_COLUMNS]
        if figures.empty:
            self.stderr.write(f"{campaign}: no ranked-list run scored (import runs with import_runs, judgments with import_ntcireval)")
        if format == "json":
            self.stdout.write(json.dumps(figures.to_dict(orient="records"), indent=1))
        else:
            self.stdout.write(frame_csv(figures, sep="\t" if format == "tsv" else ","), ending="")
