"""python manage.py export_scores --campaign SLUG [--format csv|json|nuggets-csv|turns-csv] [--output FILE]"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from annotator.interchange.exports.catalogue import command_formats, stream, write_chunks
from annotator.management.commands._files import DataCommand
from annotator.models import Campaign

KINDS = command_formats("export_scores")  # --format -> the catalogue's kind


class Command(DataCommand):
    help = (
        "GFRC scores: one row per conversation (topic, run, R, GF_<attribute set>..., GF, GFRC) and per-run "
        "means over topics; or how they were built, the paper's Table 1 (nuggets-csv: per nugget WC, pw, g) "
        "and Table 2 (turns-csv: per system turn and attribute set, achieved distribution, DistrSim)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--format", choices=list(KINDS), default="csv")
        parser.add_argument("--output", metavar="FILE", help="default: standard output")

    def handle(self, *args, campaign, format, output, **options):
        campaign_obj = Campaign.objects.filter(slug=campaign).first()
        if campaign_obj is None:
            raise CommandError(f"no campaign {campaign!r}")
        chunks = stream(campaign_obj, KINDS[format])
        if output is None:
            for chunk in chunks:
                self.stdout.write(chunk, ending="")
            return
        with Path(output).open("wb") as handle:
            write_chunks(chunks, handle)
        self.stderr.write(f"wrote {output}")
