"""Background imports: uploads too large to import within a request.

    if import_jobs.runs_in_background(files):
        job = import_jobs.start(campaign, files, run=None, replace=False, actor=user)

An upload holding more than GFRC_BACKGROUND_IMPORT_CONVERSATIONS conversations becomes an
ImportJob (its files stored with it) and a django-tasks task on the database backend; the
worker (`manage.py db_worker`) runs `run_import_job`, which imports with annotator.interchange.importing
(all or nothing, errors by file:line) and records its progress on the job for the console's
job page. The files are deleted when the job ends; the job, its counts and errors stay.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from annotator.interchange import importing
from annotator.interchange.formats import count_conversations
from annotator.models import Campaign, ImportJob, ImportJobFile

__all__ = ["runs_in_background", "start", "run_import_job", "recent_jobs"]

# The job page polls every second: more frequent progress writes would only cost.
PROGRESS_INTERVAL_SECONDS = 0.5


def runs_in_background(files: list[tuple[str, bytes]]) -> bool:
    total = sum(count_conversations(data, name) for name, data in files)
    return total > settings.GFRC_BACKGROUND_IMPORT_CONVERSATIONS


def start(campaign: Campaign, files: list[tuple[str, bytes]], *, run: str | None, replace: bool, actor,
          annotator=None, topic: str | None = None) -> ImportJob:
    """Store the files as a job and enqueue it for the worker; returns at once."""
    with transaction.atomic():
        job = ImportJob.objects.create(
            campaign=campaign, created_by=actor, annotator=annotator, run=run or "", topic=topic or "", replace=replace,
            file_names=[name for name, _ in files],
            conversations=sum(count_conversations(data, name) for name, data in files),
        )
        ImportJobFile.objects.bulk_create([ImportJobFile(job=job, name=name, data=data) for name, data in files])
        result = run_import_job.enqueue(job.pk)
        job.task_id = str(result.id)
        job.save(update_fields=["task_id"])
    return job


def recent_jobs(campaign: Campaign, count: int = 10):
    return campaign.import_jobs.select_related("created_by").defer("errors", "warnings")[:count]


class _JobProgress:
    """The importer's progress callback: writes the counts on the job row, at most every
    PROGRESS_INTERVAL_SECONDS, outside the import's transaction (so the page sees them)."""

    def __init__(self, job: ImportJob):
        self.job = job
        self.last = 0.0

    def __call__(self, stage: str, done: int) -> None:
        job = self.job
        if stage == "parsing":
            job.parsed = done
            job.conversations = max(job.conversations, done)  # the count before parsing may be short
        elif stage == "checking":
            if done == job.parsed:
                job.conversations = done  # everything is parsed: the exact number
            job.checked = done
        elif stage == "written":
            job.written = done
        job.stage = stage if stage in ImportJob.Stage.values else job.stage
        now = time.monotonic()
        if stage in ("writing", "written") or now - self.last >= PROGRESS_INTERVAL_SECONDS:
            self.last = now
            job.save(update_fields=["stage", "conversations", "parsed", "checked", "written"])


@task()
def run_import_job(job_id: int) -> str:
    """The worker's side: import the job's files into its campaign (all or nothing)."""
    # Claimed by one conditional update: a task delivered twice does not import twice.
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, stage=ImportJob.Stage.PARSING, started_at=timezone.now()
    )
    job = ImportJob.objects.select_related("campaign", "created_by", "annotator").get(pk=job_id)
    if not claimed:
        return job.status
    files = [(f.name, bytes(f.data)) for f in job.files.all()]
    try:
        result = importing.import_files(
            job.campaign, files, run=job.run or None, topic=job.topic or None, replace=job.replace, annotator=job.annotator, actor=job.created_by,
            progress=_JobProgress(job),
        )
    except Exception as error:
        _finish(job, ImportJob.Status.FAILED, "Nothing imported: the import stopped on an internal error.",
                errors=[f"internal error: {type(error).__name__}: {error}"])
        raise
    if result.errors:
        _finish(job, ImportJob.Status.FAILED, result.summary(), errors=[str(e) for e in result.errors],
                warnings=[str(w) for w in result.warnings])
    else:
        job.written = job.conversations = result.conversations
        job.parsed = job.checked = result.conversations
        _finish(job, ImportJob.Status.DONE, " ".join([*(f"{said}." for said in result.read), result.summary()]),
                warnings=[str(w) for w in result.warnings])
    return job.status


def _finish(job: ImportJob, status: str, summary: str, *, errors=(), warnings=()) -> None:
    with transaction.atomic():
        job.status, job.stage, job.summary = status, ImportJob.Stage.FINISHED, summary
        job.errors, job.warnings, job.finished_at = list(errors), list(warnings), timezone.now()
        job.save()
        job.files.all().delete()  # the data is imported (or refused): the files are not kept
