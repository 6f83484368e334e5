"""What the campaign commands share: the campaign and user by name; and for the importing
ones the files' bytes and the report (warnings, then every file:line problem, or the summary)."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotator.models import Campaign


class CampaignCommand(BaseCommand):
    def campaign(self, slug: str) -> Campaign:
        campaign = Campaign.objects.filter(slug=slug).first()
        if campaign is None:
            raise CommandError(f"no campaign {slug!r} (load one with load_campaign)")
        return campaign

    def user(self, username: str):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        return user


class FileCommand(CampaignCommand):
    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--campaign", required=True, metavar="SLUG")

    def read(self, names: list[str]) -> list[tuple[str, bytes]]:
        contents = []
        for name in names:
            try:
                contents.append((name, Path(name).read_bytes()))
            except OSError as error:
                raise CommandError(f"{name}: {error.strerror or error}") from None
        return contents

    def report(self, result) -> None:
        for warning in result.warnings:
            self.stderr.write(f"warning: {warning}")
        if result.errors:
            for error in result.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(result.errors)} problem(s): nothing was imported")
        self.stdout.write(result.summary())
