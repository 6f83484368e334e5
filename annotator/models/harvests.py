"""Harvests: the systems asked from inside the app (annotator.harvesting), and where each
harvested turn came from.

A `HarvestRun` is one `manage.py harvest` or one console job: a system (its runs are
`<system>-trial<k>`), a listed server and model, the trials and topics asked, its progress,
tokens, time and failures. A `HarvestedAnswer` is one turn a model wrote: a system's answer (the
raw response JSON as the server sent it) or a simulated user's follow-up, with the server, the
model asked and the model that answered, the parameters, the request and answer times and the
tokens. Never an API key: only the server's listed name.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models.background_jobs import BackgroundJob, status_known
from annotator.models.campaigns import Campaign
from annotator.models.conversations import Conversation


class HarvestRun(BackgroundJob):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="harvests")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    system = models.CharField(max_length=80, help_text="The system harvested: its runs are <system>-trial<k>")
    server = models.CharField(max_length=64, help_text="The deployment's listed server (GFRC_LLM_SERVERS) asked")
    base_url = models.CharField("server address", max_length=500, blank=True,
                                help_text="For the record: the worker asks the address listed for `server` when it runs")
    model = models.CharField(max_length=200)
    user_server = models.CharField(max_length=64, blank=True, help_text="A simulated user's listed server; empty: none")
    user_model = models.CharField(max_length=200, blank=True)
    temperature = models.FloatField(default=0.0)
    seed = models.BigIntegerField(null=True, blank=True)
    max_tokens = models.PositiveIntegerField(default=2048)
    timeout = models.FloatField(default=120.0, help_text="Seconds per request")
    retries = models.PositiveSmallIntegerField(default=3, help_text="More attempts after a failed request (with backoff)")
    trials = models.PositiveSmallIntegerField(default=2)
    topics = models.JSONField(default=list, blank=True, help_text="Topic codes; empty: every topic of the campaign")
    system_message = models.TextField(blank=True, help_text="Sent first as the system message of every request; empty: none")
    follow_ups = models.JSONField(default=list, blank=True,
                                  help_text="The follow-ups asked (or, with a simulated user, how many it writes)")
    concurrency = models.PositiveSmallIntegerField(default=1, help_text="Conversations in flight at once")
    replace = models.BooleanField(default=False, help_text="Conversations already there are harvested anew")
    conversations = models.PositiveIntegerField(default=0, help_text="Conversations chosen (topics x trials)")
    harvested = models.PositiveIntegerField(default=0, help_text="Conversations asked and stored")
    kept = models.PositiveIntegerField(default=0, help_text="Conversations already there: not asked again")
    failed = models.PositiveIntegerField(default=0, help_text="Conversations whose system failed: nothing stored")
    requests = models.PositiveIntegerField(default=0, help_text="Answers received")
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    failures = models.JSONField(default=list, blank=True, help_text="What failed: topic, run and why")
    cancel_requested_at = models.DateTimeField(null=True, blank=True,
                                               help_text="An organiser asked to stop it: no new conversation is begun")

    class Meta(BackgroundJob.Meta):
        constraints = [
            status_known("harvest_run_status_valid"),
            models.CheckConstraint(condition=Q(trials__gte=1) & Q(concurrency__gte=1), name="harvest_run_counts_positive"),
        ]

    def __str__(self) -> str:
        return f"harvest {self.pk} of {self.system} in {self.campaign_id}: {self.status}"

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        return min(100, round(100 * (self.harvested + self.kept + self.failed) / max(self.conversations, 1)))

    def describe(self) -> str:
        seed = "none" if self.seed is None else str(self.seed)
        user = f"; follow-ups by a simulated user, {self.user_model} on {self.user_server}" if self.user_server else ""
        return (f"{self.system}: model {self.model} on server {self.server}, temperature {self.temperature:g}, seed {seed}, "
                f"at most {self.max_tokens} tokens an answer, {self.trials} trial{'s' if self.trials != 1 else ''}{user}")


class HarvestedAnswer(models.Model):
    """One turn a model wrote in a harvest: a system's answer (role S) or a simulated user's
    follow-up (role U). Written before its conversation is imported (`conversation` empty),
    then tied to it; a row left untied by a killed harvest is tied or dropped when the harvest
    resumes (annotator.harvesting.runner)."""

    class Role(models.TextChoices):
        SYSTEM = "S", "the system's answer"
        SIMULATED_USER = "U", "a simulated user's follow-up"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    harvest = models.ForeignKey(HarvestRun, on_delete=models.SET_NULL, null=True, blank=True, related_name="answers")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, null=True, blank=True,
                                     related_name="harvested_answers")
    topic = models.CharField(max_length=32, help_text="The topic's code")
    run = models.CharField(max_length=100, help_text="The run's name, <system>-trial<k>")
    role = models.CharField(max_length=1, choices=Role)
    number = models.PositiveSmallIntegerField(help_text="The turn: S1, S2... or U2, U3...")
    server = models.CharField(max_length=64, help_text="The listed server asked")
    model = models.CharField(max_length=200, help_text="The model asked")
    model_answered = models.CharField(max_length=200, blank=True, help_text="The model the server said answered")
    parameters = models.JSONField(default=dict, blank=True, help_text="temperature, seed, max_tokens")
    requested_at = models.DateTimeField()
    answered_at = models.DateTimeField()
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    raw = models.TextField(help_text="The response body as the server sent it (JSON); shown nowhere, downloadable")

    class Meta:
        ordering = ["conversation_id", "number", "role"]
        constraints = [
            models.CheckConstraint(condition=Q(role__in=["S", "U"]), name="harvested_answer_role_valid"),
            models.UniqueConstraint(fields=["conversation", "role", "number"], condition=Q(conversation__isnull=False),
                                    name="harvested_answer_one_per_turn"),
        ]
        indexes = [models.Index(fields=["campaign", "topic", "run"], name="harvested_answer_place")]

    def __str__(self) -> str:
        return f"{self.topic} / {self.run} {self.role}{self.number} by {self.model_answered or self.model}"

    @property
    def turn(self) -> str:
        return f"{self.role}{self.number}"
