"""python manage.py import_runs --campaign SLUG [--name NAME] FILE...

TREC run files (``topic Q0 doc rank score tag``) as ranked-list runs, all or nothing; each
topic's list in the file's order (as NTCIREVAL scores it), with a warning where ranks or
scores disagree with it. Re-importing a run replaces it.
"""

from __future__ import annotations

from annotator.interchange.imports.ranked_runs import import_runs
from annotator.management.commands._files import FileCommand


class Command(FileCommand):
    help = "Import TREC run files (topic Q0 doc rank score tag) as ranked-list runs, all or nothing; a run imported again is replaced."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--name", metavar="NAME", help="the run's name (one file; default: the file's run tag)")

    def handle(self, *args, files, campaign, name, **options):
        self.report(import_runs(self.campaign(campaign), self.read(files), name=name))
