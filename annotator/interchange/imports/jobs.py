"""Background imports: uploads too large to import within a request.

    if import_jobs.runs_in_background(files):
        job = import_jobs.start(campaign, files, run=None, replace=False, actor=user)

An upload holding more than GFRC_BACKGROUND_IMPORT_CONVERSATIONS conversations, or larger than
GFRC_BACKGROUND_IMPORT_BYTES (unzipped), becomes an
ImportJob (its files stored with it) and a django-tasks task on the database backend; the
worker (`manage.py db_worker`) runs `run_import_job`, which imports with annotator.interchange.imports.conversations
(all or nothing, errors by file:line) and records its progress on the job for the console's
job page. The files are deleted when the job ends; the job, its counts and errors stay.

Queueing, claiming, the heartbeat, cancelling and failing a job whose worker died are every
background job's (annotator.background.jobs); what is an import's is here. A worker can die
mid-import (kill -9, a crash, the machine restarting): its transaction rolls back, so nothing is
imported, and `reap_abandoned` fails the job saying at which stage it stopped, and deletes its
files. The job page and the upload page call it, so a dead job ends as soon as someone looks;
the files can then be uploaded again.

An organiser may cancel a job (`cancel`): a queued one never starts; a running one stops at its
next look (between two batches of reading, checking or staging) and publishes nothing. Once
publishing has begun (`ImportJob.published_at`, set first in the publishing transaction), it can
no longer be cancelled: the conversations are then visible.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone
from django_tasks import task

from annotator.background import jobs as background
from annotator.interchange.imports import conversations as importing
from annotator.interchange.formats import count_conversations, unzipped, without_secrets
from annotator.models import Campaign, ImportJob, ImportJobFile

__all__ = ["runs_in_background", "start", "cancel", "run_import_job", "recent_jobs", "reap_abandoned"]

# Where a job is and what it has counted (its page shows them), written with each progress write.
PROGRESS = ("stage", "conversations", "parsed", "checked", "written")


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

    def record() -> ImportJob:
        job = ImportJob.objects.create(
            campaign=campaign, created_by=actor, annotator=annotator, run=run or "", topic=topic or "", replace=replace,
            file_names=[name for name, _ in files],
            conversations=sum(count_conversations(data, name) for name, data in files),
        )
        ImportJobFile.objects.bulk_create([ImportJobFile(job=job, name=name, data=without_secrets(data)) for name, data in files])
        return job

    return background.start(record, run_import_job)


def _drop_files(job: ImportJob) -> None:
    """A job's files are kept only until it ends: imported (or refused), they are not kept."""
    ImportJobFile.objects.filter(job_id=job.pk).delete()


def recent_jobs(campaign: Campaign, count: int = 10):
    reap_abandoned(campaign.import_jobs.all())
    return campaign.import_jobs.select_related("created_by").defer("errors", "warnings")[:count]


# -- cancelling ---------------------------------------------------------------------------------

CANCEL_POLL_SECONDS = 0.5  # how often a running import looks whether it was cancelled


def cancel(job: ImportJob, user) -> str:
    """Cancel the job unless it has begun publishing; returns what happened, for the page."""
    return background.cancel(
        job, user, what="import", nothing_done="nothing imported",
        stopping="Cancelling: the import stops at its next step and publishes nothing.",
        when_queued={"stage": ImportJob.Stage.FINISHED}, discard=_drop_files,
        while_running={"published_at__isnull": True},
        too_late="Too late to cancel: its conversations are published already.",
    )


class _JobCancellation:
    """The worker's side of `cancel` (annotator.interchange.imports.staging.Cancellation)."""

    def __init__(self, job: ImportJob):
        self.job = job
        self.watch = background.CancelWatch(job, every=CANCEL_POLL_SECONDS)

    def check(self) -> None:
        if self.watch.requested():
            raise importing.ImportCancelled()

    def before_publishing(self) -> None:
        # in the publishing transaction: a cancel either came first (nothing is published) or
        # finds published_at set and is refused
        if not ImportJob.objects.filter(pk=self.job.pk, cancel_requested_at__isnull=True).update(published_at=timezone.now()):
            raise importing.ImportCancelled()


# -- workers that died --------------------------------------------------------------------------

ABANDONED = ("Nothing imported: the worker running this import stopped ({}) while {}. "
             "The import is all or nothing, so nothing of it was written; upload the files again to start it again.")


def reap_abandoned(jobs) -> int:
    """Fail the running jobs among `jobs` whose worker died, saying at which stage, delete their
    files and fail their django-tasks result; returns how many."""
    return background.reap_abandoned(jobs, _abandoned, reads=("stage",), discard=_drop_files)


def _abandoned(job: ImportJob, why: str) -> dict:
    stage = ImportJob.Stage(job.stage).label.lower()
    return {"stage": ImportJob.Stage.FINISHED, "summary": ABANDONED.format(why, stage),
            "errors": [f"the worker running this import stopped ({why}) while {stage}"]}


class _JobProgress:
    """The importer's progress callback: writes the counts on the job row (annotator.background.jobs.ProgressWriter:
    at most so often, each a sign of life), outside the import's transaction (so the page sees them)."""

    def __init__(self, job: ImportJob):
        self.job = job
        self.writer = background.ProgressWriter(job, PROGRESS)

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
        self.writer.save(force=stage in ("writing", "written"))


@task()
def run_import_job(job_id: int) -> str:
    """The worker's side: import the job's files into its campaign (all or nothing)."""
    return background.run_claimed(ImportJob, job_id, _import, on_error=_failed_on_error,
                                  related=("campaign", "created_by", "annotator"),
                                  stage=ImportJob.Stage.PARSING, started_at=timezone.now())


def _import(job: ImportJob) -> None:
    files = [(f.name, bytes(f.data)) for f in job.files.all()]
    try:
        # publishing is one transaction that can outlast the lease: a thread beats meanwhile
        with background.beating(job):
            result = importing.import_files(
                job.campaign, files, run=job.run or None, topic=job.topic or None, replace=job.replace,
                annotator=job.annotator, actor=job.created_by, progress=_JobProgress(job), cancellation=_JobCancellation(job),
            )
    except importing.ImportCancelled:
        job.refresh_from_db(fields=["cancelled_by"])
        who = job.cancelled_by.get_username() if job.cancelled_by else "an organiser"
        _finish(job, ImportJob.Status.CANCELLED, f"Cancelled by {who}: nothing imported (an import is all or nothing).")
        return
    if result.errors:
        _finish(job, ImportJob.Status.FAILED, result.summary(), errors=[str(e) for e in result.errors],
                warnings=[str(w) for w in result.warnings])
    else:
        job.written = job.conversations = result.conversations
        job.parsed = job.checked = result.conversations
        _finish(job, ImportJob.Status.DONE, " ".join([*(f"{said}." for said in result.read), result.summary()]),
                warnings=[str(w) for w in result.warnings])


def _failed_on_error(job: ImportJob, error: Exception) -> None:
    _finish(job, ImportJob.Status.FAILED, "Nothing imported: the import stopped on an internal error.",
            errors=[f"internal error: {type(error).__name__}: {error}"])


def _finish(job: ImportJob, status: str, summary: str, *, errors=(), warnings=()) -> None:
    job.stage, job.errors, job.warnings = ImportJob.Stage.FINISHED, list(errors), list(warnings)
    # never the publishing field: the publishing transaction wrote it (nor the cancel fields: see finish)
    background.finish(job, status, summary, counts=(*PROGRESS, "errors", "warnings"), discard=_drop_files)
