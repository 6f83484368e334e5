"""python manage.py import_conversations --campaign SLUG [--run RUN] [--topic TOPIC] [--annotator USER] [--replace] FILE...

All files are imported together or not at all: any problem, and nothing is written; every
problem is printed as file:line: reason. Declared wc= positions that disagree with the text
are printed as warnings. Each file's format is told by its content, and said
("conversations.json: read as ChatGPT export: 12 conversations, 31 citations").
"""

from __future__ import annotations

from annotator.interchange.imports.conversations import import_files
from annotator.management.commands._files import FileCommand


class Command(FileCommand):
    help = (
        "Import conversation files into a campaign, all or nothing: the paper's annotated text format, JSONL, or "
        "harvested chats (ChatGPT and Claude.ai exports, OpenAI, Gemini, Gemini Takeout, Perplexity, Anthropic, ShareGPT, "
        "LMSYS/WildChat rows, HAR captures, streamed answers), "
        "each file's format told by its content; the systems' citations become nuggets of the judge 'citations'."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--run", metavar="RUN", help="the run of every conversation (default: the file's run=, else the file name)")
        parser.add_argument("--topic", metavar="TOPIC",
                            help="the topic of harvested conversations (a harvest carries none); files with topics keep theirs")
        parser.add_argument("--annotator", metavar="USERNAME",
                            help="whose judgments the files hold (default: the campaign's first organiser, else the user 'gold')")
        parser.add_argument("--replace", action="store_true", help="replace conversations already imported (with every judgment on them)")

    def handle(self, *args, files, campaign, run, topic, annotator, replace, **options):
        campaign_obj = self.campaign(campaign)
        user = self.user(annotator) if annotator is not None else None
        result = import_files(campaign_obj, self.read(files), run=run, topic=topic, annotator=user, replace=replace)
        for said in result.read:
            self.stdout.write(said)
        self.report(result)
