"""python manage.py load_demo: the FairWeb-1 campaign, two demo users and the paper's example,
with a baseline automatic judge (annotator.evaluation.baseline_judge) to compare with the gold.

Idempotent: running it again changes nothing (an existing demo conversation is left as it is,
with whatever the demo annotator did to it).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotator.evaluation import baseline_judge
from annotator.interchange.campaign_file import CampaignFileError, load_campaign_file
from annotator.interchange.importing import import_files
from annotator.models import AnnotatorProfile, Conversation, Nugget

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
CAMPAIGN_FILE = FIXTURES / "fairweb-campaign.json"
DEMO_CONVERSATIONS = [
    # (file, topic, run): the paper's Figure 5 (left), New Bing, trial 1, judged by the paper's author
    (FIXTURES / "demo" / "M002-bing-trial1.txt", "M002", "bing-trial1"),
]
USERS = [
    # username, password, role
    ("organiser", "organiser", "organiser of the campaign"),
    ("annotator", "annotator", "gold annotator of the demo conversations"),
]
BASELINE_JUDGE = "baseline"  # an automatic judge (no login): the workspace's own suggestions


class Command(BaseCommand):
    help = "Load the demo: the FairWeb-1 campaign, an organiser and an annotator, and the paper's annotated M002 conversation."

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

        for path, topic, run in DEMO_CONVERSATIONS:
            if Conversation.objects.filter(topic__campaign=campaign, topic__code=topic, run__name=run).exists():
                self.stdout.write(f"{topic} / {run}: already loaded")
                continue
            result = import_files(campaign, [(path.name, path.read_bytes())], run=run, annotator=users["annotator"])
            if result.errors:
                raise CommandError("\n".join(str(e) for e in result.errors))
            self.stdout.write(f"{topic} / {run}: {result.summary()}")
        self.load_baseline_judge(campaign)

        self.stdout.write(f"{report.summary()}.")
        self.stdout.write("Demo logins (user / password):")
        for username, password, role in USERS:
            self.stdout.write(f"  {username} / {password}   ({role})")

    def load_baseline_judge(self, campaign) -> None:
        User = get_user_model()
        judge = User.objects.filter(username=BASELINE_JUDGE).first()
        if judge is None:
            judge = User(username=BASELINE_JUDGE)
            judge.set_unusable_password()
            judge.save()
            AnnotatorProfile.mark(judge, description=baseline_judge.DESCRIPTION)
        for conversation in Conversation.objects.filter(topic__campaign=campaign).select_related("topic__campaign", "run"):
            if Nugget.objects.filter(annotator=judge, turn__conversation=conversation).exists():
                continue
            written = baseline_judge.judge_conversation(conversation, judge)
            self.stdout.write(f"{conversation}: the baseline judge marked {written.nuggets} nuggets")
        self.stdout.write(f"Automatic judge {BASELINE_JUDGE} (a baseline): compare it at /console/{campaign.slug}/judges/")
