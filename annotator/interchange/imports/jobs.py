"""Background imports: uploads too large to import within a request.

    if import_jobs.runs_in_background(files):
        job = import_jobs.start(campaign, files, run=None, replace=False, actor=user)

An upload holding more than GFRC_BACKGROUND_IMPORT_CONVERSATIONS conversations, or larger than
GFRC_BACKGROUND_IMPORT_BYTES (unzipped), becomes an
ImportJob (its files stored with it) and a django-tasks task on the database backend; the
worker (`manage.py db_worker`) runs `run_import_job`, which imports with annotator.interchange.imports.conversations
(all or nothing, errors by file:line) and records its progress on the job for the console's
job page. The files are deleted when the job ends; the job, its counts and errors stay.

A worker can die mid-import (kill -9, a crash, the machine restarting): its transaction rolls
back, so nothing is imported, but nothing would end the job either. django-tasks records which
worker claimed a task, not whether it still lives, so the job records its process (host, pid,
start time) and a heartbeat; `reap_abandoned` fails a running job whose process is gone (same
host) or whose heartbeat stopped (another host), deletes its files, and fails its task. The job
page and the upload page call it, so a dead job ends as soon as someone looks; the files can
then be uploaded again.

An organiser may cancel a job (`cancel`): a queued one never starts; a running one stops at its
next look (between two batches of reading, checking or staging) and publishes nothing. Once
publishing has begun (`ImportJob.published_at`, set first in the publishing transaction), it can
no longer be cancelled: the conversations are then visible.
"""

from __future__ import annotations

import socket
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone
from django_tasks import task
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from annotator.interchange.imports import conversations as importing, processes
from annotator.interchange.formats import count_conversations, unzipped, without_secrets
from annotator.models import Campaign, ImportJob, ImportJobFile

__all__ = ["runs_in_background", "start", "cancel", "run_import_job", "recent_jobs", "reap_abandoned"]

# The job page polls every second: more frequent progress writes would only cost.
PROGRESS_INTERVAL_SECONDS = 0.5
HEARTBEAT_SECONDS = 10
# A worker on another host is taken for dead after this long without a heartbeat. (On SQLite,
# one host, the process itself is checked: its heartbeat waits while the import's transaction
# holds the only writer.)
LEASE_SECONDS = 120


def runs_in_background(files: list[tuple[str, bytes]]) -> bool:
    """By size first (the work grows with the bytes: one conversation may hold 30,000 nuggets),
    a zip by what it holds; then by the number of conversations."""
    size = sum(len(unzipped(data, name)[0]) for name, data in files)
    if size > settings.GFRC_BACKGROUND_IMPORT_BYTES:
        return True
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
        ImportJobFile.objects.bulk_create([ImportJobFile(job=job, name=name, data=without_secrets(data)) for name, data in files])
        result = run_import_job.enqueue(job.pk)
        job.task_id = str(result.id)
        job.save(update_fields=["task_id"])
    return job


def recent_jobs(campaign: Campaign, count: int = 10):
    reap_abandoned(campaign.import_jobs.all())
    return campaign.import_jobs.select_related("created_by").defer("errors", "warnings")[:count]


# -- cancelling ---------------------------------------------------------------------------------

CANCEL_POLL_SECONDS = 0.5  # how often a running import looks whether it was cancelled


def cancel(job: ImportJob, user) -> str:
    """Cancel the job unless it has begun publishing; returns what happened, for the page."""
    now = timezone.now()
    with transaction.atomic():
        if ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.QUEUED).update(
            status=ImportJob.Status.CANCELLED, stage=ImportJob.Stage.FINISHED, cancel_requested_at=now,
            cancelled_by=user, finished_at=now,
            summary=f"Cancelled by {user.get_username()} before it started: nothing imported.",
        ):
            ImportJobFile.objects.filter(job_id=job.pk).delete()
            return "Cancelled before it started: nothing imported."
    if ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.RUNNING, cancel_requested_at__isnull=True,
                                published_at__isnull=True).update(cancel_requested_at=now, cancelled_by=user):
        return "Cancelling: the import stops at its next step and publishes nothing."
    job.refresh_from_db(fields=["status", "cancel_requested_at", "published_at"])
    if job.finished:
        return f"The import had already ended ({job.get_status_display()})."
    if job.published_at is not None:
        return "Too late to cancel: its conversations are published already."
    return "Already cancelling."


class _JobCancellation:
    """The worker's side of `cancel` (annotator.interchange.imports.staging.Cancellation)."""

    def __init__(self, job_id: int):
        self.job_id = job_id
        self.last = 0.0

    def check(self) -> None:
        now = time.monotonic()
        if now - self.last < CANCEL_POLL_SECONDS:
            return
        self.last = now
        if ImportJob.objects.filter(pk=self.job_id, cancel_requested_at__isnull=False).exists():
            raise importing.ImportCancelled()

    def before_publishing(self) -> None:
        # in the publishing transaction: a cancel either came first (nothing is published) or
        # finds published_at set and is refused
        if not ImportJob.objects.filter(pk=self.job_id, cancel_requested_at__isnull=True).update(published_at=timezone.now()):
            raise importing.ImportCancelled()


# -- workers that died --------------------------------------------------------------------------


def this_worker() -> str:
    """The running process, as a job records it: ``host pid start``."""
    return processes.this_process()


def worker_alive(job: ImportJob, now=None) -> bool:
    """Whether the process recorded on a running job still runs it: on this host by its pid
    and start time, elsewhere by a heartbeat within LEASE_SECONDS."""
    here = processes.runs_here(job.worker)
    if here is not None:
        return here
    seen = job.heartbeat_at or job.started_at
    return seen is not None and (now or timezone.now()) - seen < timedelta(seconds=LEASE_SECONDS)


ABANDONED = ("Nothing imported: the worker running this import stopped ({}) while {}. "
             "The import is all or nothing, so nothing of it was written; upload the files again to start it again.")


def reap_abandoned(jobs) -> int:
    """Fail the running jobs among `jobs` whose worker died, delete their files and fail their
    django-tasks result (which would stay "running"); returns how many."""
    now = timezone.now()
    reaped = 0
    for job in jobs.filter(status=ImportJob.Status.RUNNING).only("pk", "worker", "heartbeat_at", "started_at", "stage", "task_id"):
        if worker_alive(job, now):
            continue
        why = "its process is gone" if job.worker.partition(" ")[0] == socket.gethostname() else (
            f"no sign of life for {LEASE_SECONDS} s")
        stage = ImportJob.Stage(job.stage).label.lower()
        with transaction.atomic():
            # conditional: a worker that finishes meanwhile keeps its own ending
            if not ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.RUNNING).update(
                status=ImportJob.Status.FAILED, stage=ImportJob.Stage.FINISHED, finished_at=now,
                summary=ABANDONED.format(why, stage),
                errors=[f"the worker running this import stopped ({why}) while {stage}"],
            ):
                continue
            ImportJobFile.objects.filter(job_id=job.pk).delete()
            if job.task_id:
                DBTaskResult.objects.filter(id=job.task_id, status=TaskResultStatus.RUNNING).update(
                    status=TaskResultStatus.FAILED, finished_at=now, exception_class_path="annotator.interchange.imports.jobs.WorkerDied",
                    traceback=f"The worker stopped ({why}); found by annotator.interchange.imports.jobs.reap_abandoned.",
                )
        reaped += 1
    return reaped


class _Heartbeat(threading.Thread):
    """Marks the job alive every HEARTBEAT_SECONDS from its own connection, until stopped."""

    def __init__(self, job_id: int):
        super().__init__(name=f"import-job-{job_id}-heartbeat", daemon=True)
        self.job_id = job_id
        self.stopped = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopped.wait(HEARTBEAT_SECONDS):
                try:
                    ImportJob.objects.filter(pk=self.job_id, status=ImportJob.Status.RUNNING).update(heartbeat_at=timezone.now())
                except DatabaseError:
                    pass  # SQLite: the import's transaction holds the writer; the pid tells instead
        finally:
            connection.close()


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
    now = timezone.now()
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, stage=ImportJob.Stage.PARSING, started_at=now, worker=this_worker(),
        heartbeat_at=now,
    )
    job = ImportJob.objects.select_related("campaign", "created_by", "annotator").get(pk=job_id)
    if not claimed:
        return job.status
    files = [(f.name, bytes(f.data)) for f in job.files.all()]
    heartbeat = _Heartbeat(job.pk)
    heartbeat.start()
    try:
        result = importing.import_files(
            job.campaign, files, run=job.run or None, topic=job.topic or None, replace=job.replace, annotator=job.annotator, actor=job.created_by,
            progress=_JobProgress(job), cancellation=_JobCancellation(job.pk),
        )
    except importing.ImportCancelled:
        job.refresh_from_db(fields=["cancelled_by"])
        who = job.cancelled_by.get_username() if job.cancelled_by else "an organiser"
        _finish(job, ImportJob.Status.CANCELLED, f"Cancelled by {who}: nothing imported (an import is all or nothing).")
        return job.status
    except Exception as error:
        _finish(job, ImportJob.Status.FAILED, "Nothing imported: the import stopped on an internal error.",
                errors=[f"internal error: {type(error).__name__}: {error}"])
        raise
    finally:
        heartbeat.stopped.set()
        heartbeat.join()
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
        # never the cancel and publishing fields: the page and `cancel` wrote those
        job.save(update_fields=["status", "stage", "summary", "errors", "warnings", "finished_at", "conversations",
                                "parsed", "checked", "written"])
        job.files.all().delete()  # the data is imported (or refused): the files are not kept
