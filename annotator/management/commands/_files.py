"""What the campaign commands share: no system checks at start; the campaign and user by
name; and for the importing ones the files' bytes and the report (warnings, then every file:line problem, or the summary)."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotator.models import Campaign


class FileContents(Sequence[tuple[str, bytes]]):
    """The (name, bytes) of the named files, each read when the importer comes to it: a hundred
    run files (5,000,000 lines) are never in memory at once."""

    def __init__(self, names: list[str]):
        self.names = list(names)

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self.names[index], _read(self.names[index])


def _read(name: str, size: int = -1) -> bytes:
    try:
        with open(name, "rb") as file:
            return file.read(size)
    except OSError as error:
        raise CommandError(f"{name}: {error.strerror or error}") from None


class DataCommand(BaseCommand):
    """A command that reads or writes a campaign's data (organisers' scripts call these in a row).

    Django's system checks import the URLconf (the console, DRF, the API schema, the LLM client)
    before `handle`: much of a data command's start, paid again by each command of an
    organiser's script (docs/benchmarks-history.md, "Ranked-list runs"). They run in `manage.py
    check`, `runserver`, `migrate` and the tests; data commands skip them."""
    requires_system_checks: list[str] = []


class CampaignCommand(DataCommand):
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

    def read(self, names: list[str]) -> FileContents:
        for name in names:  # every file readable before anything is imported
            _read(name, size=0)
        return FileContents(names)

    def report(self, result) -> None:
        for warning in result.warnings:
            self.stderr.write(f"warning: {warning}")
        if result.errors:
            for error in result.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(result.errors)} problem(s): nothing was imported")
        self.stdout.write(result.summary())
