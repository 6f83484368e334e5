"""python manage.py load_demo: the demo campaign (fixtures/demo/, README.md there), loaded as an
organiser would load it, through the importers, in a few seconds:

- the campaign file (fixtures/demo/campaign.json): FairWeb-1's topic types M, R, Y, T, invented
  topics, three systems with two trials each, and the FairWeb-1 pilot pack's topics;
- the paper's annotated M002 Bing conversation (Sakai, EVIA 2023), judged by `annotator`;
- the systems' harvested conversations (ShareGPT, OpenAI Chat Completions and Perplexity files,
  invented), whose citations become the `citations` judge's proposals;
- three human annotators' judgments (invented), with disagreements left for adjudication and
  unfinished work in `annotator`'s queue;
- the pilot pack's qrels and memberships (import_ntcireval) and its web runs (import_runs),
  scored with GFR;
- the `baseline` automatic judge (annotator.evaluation.baseline_judge) on each system's first trial;
- the campaign's guidelines (fixtures/demo/guidelines*.md); the organiser may start campaigns.

The files are written by scripts/make_demo_fixtures.py (deterministic). Idempotent: running it
again changes nothing (what is loaded is left as it is, with whatever the users did to it).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotator.accounts import account_without_password
from annotator.evaluation import baseline_judge
from annotator.interchange.imports.campaign_file import CampaignFileError, load_campaign_file
from annotator.interchange.imports.conversations import import_files
from annotator.interchange.imports.ntcireval import import_ntcireval
from annotator.interchange.imports.ranked_runs import import_runs
from annotator.judgments import guidelines
from annotator.models import AnnotatorProfile, Assignment, Conversation, Guidelines, Run

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
DEMO = FIXTURES / "demo"
CAMPAIGN_FILE = DEMO / "campaign.json"
PAPER_CONVERSATION = (DEMO / "M002-bing-trial1.txt", "M002", "bing-trial1")  # the paper's Figure 5 (left)
HARVESTS = DEMO / "harvests"  # <TOPIC>-<system>.<ext>: each system's trials of a topic, as harvested
PILOT = FIXTURES / "fairweb1-pilot"
USERS = [
    # username, password, role
    ("organiser", "organiser", "organiser of the campaign"),
    ("annotator", "annotator", "gold annotator of the demo conversations"),
    ("bea", "bea", "gold annotator of topics Y; second annotator of some of annotator's"),
    ("carl", "carl", "gold annotator of T001-T002; third annotator of two conversations"),
]
JUDGES = ["annotator", "bea", "carl"]  # whose judgments fixtures/demo/judgments-<name>.jsonl hold, in this order
PILOT_ASSESSORS = "pilot-assessors"  # whose judgments the pilot pack's qrels are (no login)
BASELINE_JUDGE = "baseline"  # an automatic judge (no login): the workspace's own suggestions


class Command(BaseCommand):
    help = ("Load the demo campaign: FairWeb-1 topic types, harvested conversations of three systems, three "
            "annotators, the paper's M002 conversation, the FairWeb-1 pilot's web runs and two automatic judges.")

    @transaction.atomic
    def handle(self, *args, **options):
        try:
            report = load_campaign_file(CAMPAIGN_FILE)
        except CampaignFileError as error:
            raise CommandError(str(error)) from None
        campaign = report.campaign
        User = get_user_model()
        users = {}
        for username, password, _ in USERS:
            user, created = User.objects.get_or_create(username=username)
            if created or not user.check_password(password):
                user.set_password(password)
                user.save()
            users[username] = user
        campaign.organisers.add(users["organiser"])

        path, topic, run = PAPER_CONVERSATION
        if Conversation.objects.filter(topic__campaign=campaign, topic__code=topic, run__name=run).exists():
            self.stdout.write(f"{topic} / {run}: already loaded")
        else:
            self.imported(f"{topic} / {run}", import_files(campaign, [(path.name, path.read_bytes())], run=run,
                                                            annotator=users["annotator"]))
        self.load_guidelines(campaign, users["organiser"])
        self.load_harvests(campaign, users)
        self.load_pilot(campaign)
        self.load_baseline_judge(campaign)
        # the demo's organiser may start campaigns of their own (console -> New campaign)
        users["organiser"].user_permissions.add(
            Permission.objects.get(codename="add_campaign", content_type__app_label="annotator"))

        self.stdout.write(f"{report.summary()}.")
        self.stdout.write("Demo logins (user / password):")
        for username, password, role in USERS:
            self.stdout.write(f"  {username} / {password}   ({role})")

    def imported(self, what: str, result) -> None:
        if result.errors:
            raise CommandError("\n".join(str(e) for e in result.errors))
        self.stdout.write(f"{what}: {result.summary()}")

    def load_guidelines(self, campaign, organiser) -> None:
        """The campaign's guidelines (fixtures/demo/guidelines.md) and a note per topic type
        (guidelines-<TYPE>.md), as its organiser would write them in the console."""
        if Guidelines.objects.filter(campaign=campaign).exists():
            self.stdout.write("Guidelines: already there")
            return
        notes = {path.stem.removeprefix("guidelines-"): path.read_text() for path in sorted(DEMO.glob("guidelines-*.md"))}
        version = guidelines.write(campaign, text=(DEMO / "guidelines.md").read_text(), notes=notes, author=organiser)
        self.stdout.write(f"Guidelines: version {version.version}, with notes for topic types {', '.join(sorted(notes))}")

    def load_harvests(self, campaign, users) -> None:
        """Each topic's harvests in one import (the file names give the runs, two conversations
        of a run its trials), then each annotator's judgments added to them."""
        if Conversation.objects.filter(topic__campaign=campaign).exclude(topic__code="M002").exists():
            self.stdout.write("Harvested conversations and judgments: already loaded")
            return
        by_topic: dict[str, list[Path]] = {}
        for path in sorted(HARVESTS.iterdir()):
            by_topic.setdefault(path.name.split("-", 1)[0], []).append(path)
        for topic, paths in by_topic.items():
            self.imported(f"{topic} harvests", import_files(campaign, [(p.name, p.read_bytes()) for p in paths], topic=topic))
        for username in JUDGES:
            path = DEMO / f"judgments-{username}.jsonl"
            self.imported(f"{username}'s judgments", import_files(campaign, [(path.name, path.read_bytes())],
                                                                  annotator=users[username]))

    def load_pilot(self, campaign) -> None:
        """The FairWeb-1 pilot pack: its qrels and memberships, then its web runs (GFR)."""
        if Run.objects.filter(campaign=campaign, kind=Run.Kind.RANKED_LISTS).exists():
            self.stdout.write("FairWeb-1 pilot web runs: already loaded")
            return
        assessors = account_without_password(PILOT_ASSESSORS)
        files = [PILOT / "fairweb1pilot.qrels", *sorted(PILOT.glob("*.gmemb"))]
        judged = import_ntcireval(campaign, [(p.name, p.read_bytes()) for p in files], annotator=assessors)
        self.imported("FairWeb-1 pilot judgments", judged)
        run_files = [PILOT / name for name in (PILOT / "runlist").read_text().split()]
        run_files = [p if p.exists() else next(PILOT.glob(p.name + "*")) for p in run_files]
        self.imported("FairWeb-1 pilot web runs", import_runs(campaign, [(p.name, p.read_bytes()) for p in run_files]))

    def load_baseline_judge(self, campaign) -> None:
        judge = get_user_model().objects.filter(username=BASELINE_JUDGE).first()
        if judge is None:
            judge = account_without_password(BASELINE_JUDGE)
            AnnotatorProfile.mark(judge, description=baseline_judge.DESCRIPTION, campaign=campaign)
        judged = Assignment.objects.filter(annotator=judge).values("conversation_id")  # judge_conversation assigns it
        # the first trial of each system: enough for the judges page (three runs, every topic), and
        # the load stays short (the baseline writes each conversation through the edit service)
        for conversation in (Conversation.objects.filter(topic__campaign=campaign, run__trial=1).exclude(pk__in=judged)
                             .select_related("topic__campaign", "run").order_by("topic__code", "run__name")):
            written = baseline_judge.judge_conversation(conversation, judge)
            if (conversation.topic.code, conversation.run.name) == PAPER_CONVERSATION[1:]:
                self.stdout.write(f"{conversation}: the baseline judge marked {written.nuggets} nuggets")
        self.stdout.write(f"Automatic judge {BASELINE_JUDGE} (a baseline): compare it at /console/{campaign.slug}/judges/")
