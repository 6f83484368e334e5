"""python manage.py design_study --campaign SLUG [--measure GFRC ...] [--format csv|json]"""

from __future__ import annotations

from django.core.management.base import CommandError

from annotator.evaluation import design_study
from annotator.management.commands._files import CampaignCommand
from annotator.scores.campaign_tables import score_table


class Command(CampaignCommand):
    help = (
        "How many topics and trials: the generalizability-theory design study of the campaign's scores "
        "(systems x topics, trials nested in each system-topic cell): the variance components of systems, "
        "topics, system x topic and trials within cells, and the D study (E rho^2 and Phi) over 1-100 topics "
        "x 1-10 trials. CSV: the components table, a blank line, the D study table; JSON adds the fewest "
        "topics reaching 0.8 and 0.9 and what was left out. Both are also written to standard error."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--measure", action="append", metavar="MEASURE",
                            help="R, GF, GF_<attribute set> or GFRC; repeat for several (default: GFRC)")
        parser.add_argument("--format", choices=["csv", "json"], default="csv")

    def handle(self, *args, campaign, measure, format, **options):
        campaign_obj = self.campaign(campaign)
        table = score_table(campaign_obj)
        known = design_study.known_measures(campaign_obj, table)
        unknown = [m for m in measure or [] if m not in known]
        if unknown:
            raise CommandError(f"no measure {', '.join(unknown)} in {campaign}: choose from {', '.join(known)}")
        studies = design_study.campaign_studies(campaign_obj, list(dict.fromkeys(measure or [])) or None, table)
        for s in studies:
            self.stderr.write(self._summary(s))
        self.stdout.write(design_study.as_csv(studies) if format == "csv" else design_study.as_json(studies),
                          ending="" if format == "csv" else "\n")

    @staticmethod
    def _summary(s: design_study.MeasureStudy) -> str:
        b = s.study.balanced
        lines = [f"{s.measure}: {len(b.systems)} system(s) x {len(b.topics)} topic(s) x {b.left_out.trials} "
                 "trial(s) per system and topic"]
        lines += [f"  {note}" for note in design_study.notes(s)]
        for row in s.study.fewest_topics():
            lines.append(f"  fewest topics with {row['trials']} trial(s) for {row['target']}: "
                         f"E_rho2 {_topics(row['E_rho2'])}, Phi {_topics(row['Phi'])}")
        return "\n".join(lines)


def _topics(n: int | None) -> str:
    return "not reachable" if n is None else str(n)
