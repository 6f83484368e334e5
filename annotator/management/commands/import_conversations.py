"""python manage.py import_conversations --campaign SLUG [--run RUN] [--topic TOPIC] [--annotator USER] [--replace] FILE...

All files are imported together or not at all: any problem, and nothing is written; every
problem is printed as file:line: reason. Declared wc= positions that disagree with the text
are printed as warnings. Each file's format is told by its content, and said
("conversations.json: read as ChatGPT export: 12 conversations, 31 citations").
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotator.interchange.importing import import_files
from annotator.models import Campaign


class Command(BaseCommand):
    help = (
        "Import conversation files into a campaign, all or nothing: the paper's annotated text format, JSONL, or "
        "harvested chats (ChatGPT export, OpenAI, Gemini, Perplexity, Anthropic, ShareGPT, LMSYS/WildChat rows), "
        "each file's format told by its content; the systems' citations become nuggets of the judge 'citations'."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--campaign", required=True, metavar="SLUG")
        parser.add_argument("--run", metavar="RUN", help="the run of every conversation (default: the file's run=, else the file name)")
        parser.add_argument("--topic", metavar="TOPIC",
                            help="the topic of harvested conversations (a harvest carries none); files with topics keep theirs")
        parser.add_argument("--annotator", metavar="USERNAME",
                            help="whose judgments the files hold (default: the campaign's first organiser, else the user 'gold')")
        parser.add_argument("--replace", action="store_true", help="replace conversations already imported (with every judgment on them)")

    def handle(self, *args, files, campaign, run, topic, annotator, replace, **options):
        campaign_obj = Campaign.objects.filter(slug=campaign).first()
        if campaign_obj is None:
            raise CommandError(f"no campaign {campaign!r} (load one with load_campaign)")
        user = None
        if annotator is not None:
            user = get_user_model().objects.filter(username=annotator).first()
            if user is None:
                raise CommandError(f"no user named {annotator!r}")
        contents = []
        for name in files:
            try:
                contents.append((name, Path(name).read_bytes()))
            except OSError as error:
                raise CommandError(f"{name}: {error.strerror or error}") from None
        result = import_files(campaign_obj, contents, run=run, topic=topic, annotator=user, replace=replace)
        for said in result.read:
            self.stdout.write(said)
        for warning in result.warnings:
            self.stderr.write(f"warning: {warning}")
        if result.errors:
            for error in result.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{len(result.errors)} problem(s): nothing was imported")
        self.stdout.write(result.summary())
