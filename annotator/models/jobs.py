"""Work in the background: import jobs with their files, LLM judge runs and their answer cache."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotator.models.background_jobs import BackgroundJob, status_known
from annotator.models.campaigns import Campaign


class ImportJob(BackgroundJob):
    """A conversation upload too large to import within a request: the background worker
    (`manage.py db_worker`) imports it with annotator.interchange.imports.conversations, all or nothing, and records
    its progress here for the console's job page."""

    class Status(models.TextChoices):
        """The five of every background job, in an import's words: all or nothing, how it ended
        says what it left."""

        QUEUED = "queued", "waiting for the worker"
        RUNNING = "running", "running"
        DONE = "done", "imported"
        FAILED = "failed", "nothing imported"
        CANCELLED = "cancelled", "cancelled: nothing imported"

    class Stage(models.TextChoices):
        WAITING = "waiting", "Waiting for the worker"
        PARSING = "parsing", "Reading the files"
        CHECKING = "checking", "Checking against the campaign"
        WRITING = "writing", "Writing"
        FINISHED = "finished", "Finished"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="Whose judgments the files hold; empty: the uploader",
    )
    status = models.CharField(max_length=9, choices=Status, default=Status.QUEUED)
    stage = models.CharField(max_length=8, choices=Stage, default=Stage.WAITING)
    run = models.CharField(max_length=100, blank=True, help_text="The run of every conversation; empty: from the files")
    topic = models.CharField(
        max_length=32, blank=True, help_text="The topic of the harvested conversations (files with topics keep theirs)"
    )
    replace = models.BooleanField(default=False)
    file_names = models.JSONField(default=list)
    conversations = models.PositiveIntegerField(default=0, help_text="Conversations in the files (counted before parsing)")
    parsed = models.PositiveIntegerField(default=0)
    checked = models.PositiveIntegerField(default=0)
    written = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="file:line: reason, when nothing was imported")
    warnings = models.JSONField(default=list, blank=True)
    # BackgroundJob's, with the help texts this table had before it shared them (no migration)
    task_id = models.CharField(max_length=64, blank=True, help_text="The django-tasks result running this job")
    worker = models.CharField(
        max_length=300, blank=True, help_text="The process running it: host, pid and start time (annotator.interchange.imports.jobs)"
    )
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life of that process")
    cancel_requested_at = models.DateTimeField(
        null=True, blank=True, help_text="An organiser asked to cancel it: the worker stops before publishing anything")
    published_at = models.DateTimeField(
        null=True, blank=True, help_text="When its conversations became visible: from then on it can no longer be cancelled")

    class Meta(BackgroundJob.Meta):
        constraints = [
            status_known("import_job_status_valid"),
            models.CheckConstraint(
                condition=Q(parsed__lte=F("conversations")) & Q(checked__lte=F("conversations"))
                & Q(written__lte=F("conversations")),
                name="import_job_counts_within_total",
            ),
        ]

    def __str__(self) -> str:
        return f"import {self.pk} into {self.campaign_id}: {self.status}"

    @property
    def cancellable(self) -> bool:
        return super().cancellable and self.published_at is None

    @property
    def percent(self) -> int:
        """Each conversation is parsed, checked and written: three steps of the bar."""
        if self.status == self.Status.DONE:
            return 100
        steps = 3 * max(self.conversations, 1)
        return min(100, round(100 * (self.parsed + self.checked + self.written) / steps))


class ImportJobFile(models.Model):
    """An uploaded file waiting for its job; deleted when the job ends."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=500)
    data = models.BinaryField()

    class Meta:
        ordering = ["pk"]


class LlmAnswer(models.Model):
    """An LLM server's answer to one request, kept so that a run asks nothing twice: an
    interrupted run resumes from here, and running again with the same prompt, model and
    parameters reads the same answers (annotator.llm_judge.client). The key is the SHA-256 of
    the request (messages, schema, model, temperature, seed, token limit) with the server (its
    name and address) and the campaign that asked: one campaign's run never reads another's
    answers, nor one server's answers for another's. No API key is in it."""

    key = models.CharField(max_length=64, unique=True)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, null=True, blank=True, related_name="+",
                                 help_text="The campaign whose run asked (part of the key: a cache never crosses campaigns)")
    server = models.CharField(max_length=64, blank=True,
                              help_text="The listed server's name (GFRC_LLM_SERVERS); empty: a command line's --base-url")
    base_url = models.CharField(max_length=500, blank=True, help_text="The address asked (part of the key too)")
    model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=50)
    text = models.TextField(help_text="The answer's content, as the server sent it")
    finish_reason = models.CharField(max_length=20, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0.0, help_text="How long the server took")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.model} answer {self.key[:12]}"


class LlmJudgeRun(BackgroundJob):
    """One run of an LLM judge over (part of) a campaign, from `judge_with_llm` or the console's
    background job: what produced the judge's judgments (server, model, prompt version,
    temperature, seed), its progress, time, tokens and what failed. Never the API key: only the
    name of the environment variable holding it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="llm_runs")
    judge = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    server = models.CharField(max_length=64, blank=True,
                              help_text="The deployment's listed server (GFRC_LLM_SERVERS) it runs on; empty: a command "
                                        "line's --base-url (never run by the worker)")
    base_url = models.CharField("server address", max_length=500,
                                help_text="For the record: the worker asks the address listed for `server` when it runs")
    model = models.CharField(max_length=200)
    key_variable = models.CharField(max_length=100, default="OPENAI_API_KEY",
                                    help_text="For the record: the environment variable holding the API key (the key "
                                              "itself is never stored; the worker reads the variable listed for `server`)")
    prompt_version = models.CharField(max_length=50)
    temperature = models.FloatField(default=0.0)
    seed = models.BigIntegerField(null=True, blank=True)
    max_tokens = models.PositiveIntegerField(default=1024)
    timeout = models.FloatField(default=120.0, help_text="Seconds per request")
    retries = models.PositiveSmallIntegerField(default=2, help_text="More attempts after a failed request (with backoff)")
    response_format = models.CharField(max_length=12, default="json_object",
                                       help_text="json_object (llama.cpp) or json_schema (vLLM, Ollama, vendors)")
    quotes = models.CharField(max_length=8, default="free",
                              help_text="free: any words of the turn; lines: one of its lines (small models)")
    concurrency = models.PositiveSmallIntegerField(default=1)
    limit = models.PositiveIntegerField(null=True, blank=True, help_text="At most this many conversations")
    topics = models.JSONField(default=list, blank=True)
    runs = models.JSONField(default=list, blank=True)
    conversations = models.PositiveIntegerField(default=0, help_text="Conversations chosen")
    judged = models.PositiveIntegerField(default=0, help_text="Conversations whose judgments were written")
    failed = models.PositiveIntegerField(default=0, help_text="Conversations skipped: nothing written")
    requests = models.PositiveIntegerField(default=0, help_text="Requests sent to the server")
    cached = models.PositiveIntegerField(default=0, help_text="Answers read from the cache instead")
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    problems = models.JSONField(default=list, blank=True, help_text="What went wrong, per conversation")
    cancel_requested_at = models.DateTimeField(null=True, blank=True,
                                               help_text="An organiser asked to stop it: no new request is sent")

    class Meta(BackgroundJob.Meta):
        constraints = [status_known("llm_judge_run_status_valid")]

    def __str__(self) -> str:
        return f"LLM run {self.pk} ({self.model}) in {self.campaign_id}: {self.status}"

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        return min(100, round(100 * (self.judged + self.failed) / max(self.conversations, 1)))

    def describe(self) -> str:
        """What produced the judgments: the line the judge's description and reports carry."""
        seed = "none" if self.seed is None else str(self.seed)
        where = f"server {self.server} ({self.base_url})" if self.server else self.base_url
        return (f"LLM judge: model {self.model} at {where}, prompt {self.prompt_version} (quotes: {self.quotes}), "
                f"temperature {self.temperature:g}, seed {seed}, at most {self.max_tokens} tokens an answer "
                f"(run {self.pk}, {self.created_at:%Y-%m-%d %H:%M} UTC)")
