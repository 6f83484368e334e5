"""What every background job records, whatever it does: an import job, an LLM judge run, a
harvest (annotator.models.jobs, annotator.models.harvests). Its life (queued, running, then done,
failed or cancelled, with a summary), its django-tasks result, the process running it and that
process's last sign of life, and an organiser's request to cancel it. annotator.background.jobs
writes these fields; each kind adds what it does and counts.

The columns, choices and help texts are those the three tables had before they shared them (the
organisers' scripts and the API read them): a kind whose labels or help texts say more declares
its own field of the same name (an import, its own Status: its labels say what it left), and
no migration was needed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class BackgroundJob(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for the worker"
        RUNNING = "running", "running"
        DONE = "done", "finished"
        FAILED = "failed", "stopped"
        CANCELLED = "cancelled", "cancelled"

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=9, choices=Status, default=Status.QUEUED)
    summary = models.TextField(blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    worker = models.CharField(max_length=300, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    cancel_requested_at = models.DateTimeField(null=True, blank=True)
    cancelled_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="+")

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED, self.Status.CANCELLED)

    @property
    def cancellable(self) -> bool:
        return not self.finished and self.cancel_requested_at is None

    @property
    def seconds(self) -> float | None:
        """How long it has run (until now while it runs); None before it starts."""
        if self.started_at is None:
            return None
        return ((self.finished_at or timezone.now()) - self.started_at).total_seconds()


def status_known(name: str) -> models.CheckConstraint:
    """The database's check that a job's status is one of the five every kind has (each kind's
    Meta names its own)."""
    return models.CheckConstraint(condition=Q(status__in=BackgroundJob.Status.values), name=name)
