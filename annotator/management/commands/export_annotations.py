"""python manage.py export_annotations --campaign SLUG --format paper|jsonl|nuggets-tsv|qrels [--output PATH] [--annotator USER]"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from annotator.interchange.exports.catalogue import EXPORTS, command_formats, stream, unwritable_ids, write_chunks
from annotator.interchange.exports.qrels import iter_qrels_zip, qrels_files
from annotator.management.commands._files import DataCommand
from annotator.models import Campaign

KINDS = command_formats("export_annotations")  # --format -> the catalogue's kind


class Command(DataCommand):
    help = "Export a campaign's judgments (each conversation's judge's, or one annotator's)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--format", required=True, choices=list(KINDS))
        parser.add_argument("--output", metavar="PATH",
                            help="a file, or a folder (gets <campaign>.<ext>); qrels: a folder, or a .zip file. Default: standard output (qrels: the folder <campaign>-qrels)")
        parser.add_argument("--annotator", metavar="USERNAME", help="export this annotator's judgments instead of each conversation's judge's")

    def handle(self, *args, campaign, format, output, annotator, **options):
        campaign_obj = Campaign.objects.filter(slug=campaign).first()
        if campaign_obj is None:
            raise CommandError(f"no campaign {campaign!r}")
        user = None
        if annotator is not None:
            user = get_user_model().objects.filter(username=annotator).first()
            if user is None:
                raise CommandError(f"no user named {annotator!r}")
        problems = unwritable_ids(campaign_obj)
        if problems:
            raise CommandError(f"campaign {campaign_obj.slug} cannot be exported: " + "; ".join(problems[:10]))
        if format == "qrels":
            self.qrels(campaign_obj, user, output)
            return
        chunks = stream(campaign_obj, KINDS[format], user)
        if output is None:
            for chunk in chunks:
                self.stdout.write(chunk, ending="")
            return
        path = Path(output)
        if path.is_dir():
            path = path / f"{campaign_obj.slug}.{EXPORTS[KINDS[format]].suffix}"
        with path.open("wb") as handle:
            write_chunks(chunks, handle)
        self.stderr.write(f"wrote {path}")

    def qrels(self, campaign, user, output):
        path = Path(output or f"{campaign.slug}-qrels")
        if path.suffix == ".zip":
            with path.open("wb") as handle:
                write_chunks(iter_qrels_zip(campaign, user), handle)
            self.stderr.write(f"wrote {path}")
            return
        path.mkdir(parents=True, exist_ok=True)
        for name, chunks in qrels_files(campaign, user):
            with (path / name).open("wb") as handle:
                write_chunks(chunks, handle)
            self.stderr.write(f"wrote {path / name}")
