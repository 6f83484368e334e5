"""python manage.py import_ntcireval --campaign SLUG [--annotator USER] FILE...

NTCIREVAL's judgment files (a qrels file, ``<prefix>.<TYPE>-<ATTR>.gmemb`` membership files)
become one annotator's entity judgments, all or nothing; every problem printed as file:line.
"""

from __future__ import annotations

from annotator.interchange.imports.ntcireval import import_ntcireval
from annotator.management.commands._files import FileCommand


class Command(FileCommand):
    help = (
        "Import NTCIREVAL judgments (qrels `topic doc Lk`, <prefix>.<TYPE>-<ATTR>.gmemb `topic doc p1..pK`) as "
        "graded entities with their memberships, all or nothing."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--annotator", metavar="USERNAME",
                            help="whose judgments the files hold (default: the campaign's first organiser, else the user 'gold')")

    def handle(self, *args, files, campaign, annotator, **options):
        campaign_obj = self.campaign(campaign)
        user = self.user(annotator) if annotator is not None else None
        self.report(import_ntcireval(campaign_obj, self.read(files), annotator=user))
