"""python manage.py score_runs --campaign SLUG [--cutoff 20 [--cutoff 100 ...]] [--as-ntcireval] [--format tsv|csv|json] [--annotator USER]

GFR of every ranked-list run, as NTCIREVAL computes it: one row per run, topic, attribute set
and measure (run topic attribute_set measure value), values at full precision. Several
cutoffs are scored in one pass; each row then also says its cutoff (a last column, `cutoff`).
The figures are the stored ones where nothing they depend on changed (scores.ranked_lists).
"""

from __future__ import annotations

import json

import numpy as np
from django.core.management.base import CommandError

from annotator.interchange.csvsafe import columns_csv
from annotator.management.commands._files import CampaignCommand
from annotator.scores.ranked_lists import LONG_COLUMNS, score_ranked_lists_at


class Command(CampaignCommand):
    help = (
        "GFR of the ranked-list runs: ERR, iRBU, GF-JSD/NMD/RNOD per attribute set and the GFR variants "
        "(GFR-ERR+NMD+JSD, GFR-ERR+RNOD+JSD, GFR-iRBU+NMD+JSD, GFR-iRBU+RNOD+JSD; without +JSD for types with no "
        "nominal set), one row per run, topic, attribute set and measure."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--cutoff", type=int, metavar="L", action="append",
                            help="ranks read per list (default: the campaign's, FairWeb-1: 20); give it again for "
                                 "more cutoffs, scored in one pass (the rows then end with a cutoff column)")
        parser.add_argument("--as-ntcireval", action="store_true",
                            help="uniform memberships (unjudged documents, missing vectors) as NTCIREVAL writes them, "
                                 "six decimals (1/3 -> 0.333333), so figures equal NTCIREVAL's to the last digit")
        parser.add_argument("--format", choices=["tsv", "csv", "json"], default="tsv")
        parser.add_argument("--annotator", metavar="USERNAME",
                            help="score from this annotator's judgments (default: each topic's document judge)")

    def handle(self, *args, campaign, cutoff, as_ntcireval, format, annotator, **options):
        campaign_obj = self.campaign(campaign)
        if cutoff is not None and min(cutoff) < 1:
            raise CommandError("--cutoff: at least 1 rank")
        cutoffs = list(dict.fromkeys(cutoff or [campaign_obj.ranked_list_cutoff]))
        judge = self.user(annotator) if annotator is not None else None
        scored = score_ranked_lists_at(campaign_obj, cutoffs, judge, as_ntcireval)
        figures = {name: np.concatenate([scored[c].long.get(name, np.zeros(0, dtype=object)) for c in cutoffs])
                   for name in LONG_COLUMNS}
        if len(cutoffs) > 1:
            figures["cutoff"] = np.repeat(np.array(cutoffs, dtype=np.int64), [len(scored[c].long.get("run", ())) for c in cutoffs])
        if not figures["run"].size:
            self.stderr.write(f"{campaign}: no ranked-list run scored (import runs with import_runs, judgments with import_ntcireval)")
        if format == "json":
            records = [dict(zip(figures, row)) for row in zip(*(column.tolist() for column in figures.values()))]
            self.stdout.write(json.dumps(records, indent=1))
        else:
            self.stdout.write(columns_csv(figures, sep="\t" if format == "tsv" else ","), ending="")
