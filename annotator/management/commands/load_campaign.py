"""python manage.py load_campaign FILE: create or update a campaign from its JSON file."""

from __future__ import annotations

from django.core.management.base import CommandError

from annotator.interchange.imports.campaign_file import CampaignFileError, load_campaign_file
from annotator.management.commands._files import DataCommand


class Command(DataCommand):
    help = "Create or update (idempotently, in one transaction) the campaign a campaign file describes (docs/formats.md)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="campaign file (JSON), e.g. fixtures/fairweb-campaign.json")

    def handle(self, *args, file: str, **options):
        try:
            report = load_campaign_file(file)
        except FileNotFoundError:
            raise CommandError(f"{file}: no such file") from None
        except CampaignFileError as error:
            for problem in error.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{len(error.problems)} problem(s): nothing was loaded") from None
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
        if options["verbosity"] > 1:
            for change in report.changes:
                self.stdout.write(f"  {change}")
        self.stdout.write(report.summary() + ".")
