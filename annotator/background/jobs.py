"""The life of a background job, the same for every kind: import jobs
(annotator.interchange.imports.jobs), LLM judge runs (annotator.llm_judge.jobs) and harvests
(annotator.harvesting.jobs), each a table built on annotator.models.BackgroundJob. What a kind
does, what it counts and what its summaries say stay in its own module; how a job is queued,
claimed, kept alive, cancelled, ended and, once its worker died, failed, is here.

    job = jobs.start(lambda: Harvest.objects.create(...), run_harvest)  # its row and its task, together
    jobs.run_claimed(Harvest, harvest_id, execute, on_error=...)         # the task: claimed once, run
    progress = jobs.ProgressWriter(job, COUNTS); progress.save()         # its counts, a sign of life
    jobs.CancelWatch(job, every=0.5).requested()                         # the worker's side of `cancel`
    said = jobs.cancel(job, user, what="harvest", ...)                   # the organiser's side
    jobs.reap_abandoned(Harvest.objects.all(), ending)                   # fail those whose worker died

A worker can die mid-job (kill -9, a crash, the machine restarting), and nothing would end its
job: django-tasks records which worker claimed a task, not whether it still lives. So a job
records its process (`this_worker`: host, pid and start time) and signs of life (`heartbeat_at`:
each progress write, or a `beating` thread while its work holds the database); `reap_abandoned`
fails a running job whose process is gone (this host: exact) or whose last sign of life is older
than LEASE_SECONDS (another host), and its django-tasks result, which would stay "running". The
job pages, the API and `manage.py db_worker` call it: a dead job ends as soon as anyone looks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from datetime import timedelta
from typing import TypeVar

from django.db import DatabaseError, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django_tasks.base import Task, TaskResultStatus
from django_tasks_db.models import DBTaskResult

from annotator.background import processes
from annotator.models import BackgroundJob

__all__ = ["start", "claim", "run_claimed", "failed_saying", "begin", "ProgressWriter", "beating", "CancelWatch",
           "cancel", "finish", "reap_abandoned", "this_worker", "worker_alive", "why_dead", "WorkerDied",
           "HEARTBEAT_SECONDS", "LEASE_SECONDS", "PROGRESS_INTERVAL_SECONDS"]

Job = TypeVar("Job", bound=BackgroundJob)
Status = BackgroundJob.Status  # the values every kind's own Status has

PROGRESS_INTERVAL_SECONDS = 0.5  # the job pages poll every second: more frequent progress writes would only cost
HEARTBEAT_SECONDS = 10
# A worker on another host is taken for dead after this long without a sign of life. (On SQLite,
# one host, the process itself is checked: a heartbeat waits while a transaction holds the only
# writer.)
LEASE_SECONDS = 120


class WorkerDied(Exception):
    """The failure a reaped job's django-tasks result records (its `exception_class_path`): a
    real class, so that django-tasks can import the path when it reads the result back."""


# -- whose process runs a job ------------------------------------------------------------------


def this_worker() -> str:
    """The running process, as a job records it: ``host pid start``."""
    return processes.this_process()


def worker_alive(job: BackgroundJob, now=None) -> bool:
    """Whether the process recorded on a running job still runs it: on this host by its pid
    and start time, elsewhere by a sign of life within LEASE_SECONDS."""
    return processes.alive(job.worker, job.heartbeat_at or job.started_at, timedelta(seconds=LEASE_SECONDS), now)


def why_dead(job: BackgroundJob) -> str:
    """Why a job's worker is taken for dead, as its summary says it."""
    return "its process is gone" if processes.on_this_host(job.worker) else f"no sign of life for {LEASE_SECONDS} s"


# -- queued, claimed, running -------------------------------------------------------------------


def start(record: Callable[[], Job], task: Task) -> Job:
    """Record the job (`record()` writes its row, queued) and queue its task with the job's id,
    in one transaction: no row without its task, no task without its row. Returns at once."""
    with transaction.atomic():
        job = record()
        result = task.enqueue(job.pk)
        job.task_id = str(result.id)
        job.save(update_fields=["task_id"])
    return job


def claim(model: type[Job], job_id: int, *, related: Iterable[str] = (), **also) -> tuple[Job, bool]:
    """The worker's side of `start`: the job, and whether this worker took it. One conditional
    update takes it, so a task delivered twice runs once. `also`: more fields the claim writes."""
    claimed = model.objects.filter(pk=job_id, status=Status.QUEUED).update(
        status=Status.RUNNING, worker=this_worker(), heartbeat_at=timezone.now(), **also)
    return model.objects.select_related(*related).get(pk=job_id), bool(claimed)


def run_claimed(model: type[Job], job_id: int, work: Callable[[Job], object], *,
                on_error: Callable[[Job, Exception], None], related: Iterable[str] = (), **also) -> str:
    """A job's task: claim it and, when this worker took it, do `work(job)`; returns the job's
    status. An error ends it (`on_error(job, error)` writes how) and goes on up, for django-tasks
    to record the task as failed."""
    job, claimed = claim(model, job_id, related=related, **also)
    if claimed:
        try:
            work(job)
        except Exception as error:
            on_error(job, error)
            raise
    return job.status


def failed_saying(summary: str) -> Callable[[BackgroundJob, Exception], None]:
    """An `on_error` for `run_claimed`: the job ends failed, its summary `summary` with the
    error's type for ``{error}`` (the error itself goes to django-tasks' record, not the page)."""

    def end_failed(job: BackgroundJob, error: Exception) -> None:
        finish(job, Status.FAILED, summary.format(error=type(error).__name__))

    return end_failed


def begin(job: BackgroundJob, *, counts: Iterable[str] = ()) -> None:
    """Mark the job running in this process from now, whoever runs it (a worker, or a command
    run by hand): a job whose process dies is then reaped. `counts`: the kind's progress fields,
    reset by the caller, written with it."""
    job.status, job.started_at, job.finished_at = Status.RUNNING, timezone.now(), None
    job.worker = this_worker()
    job.save(update_fields=["status", "started_at", "finished_at", "worker", *counts])


class ProgressWriter:
    """A running job's counts (`counts`: the kind's fields) written on its row at most every
    PROGRESS_INTERVAL_SECONDS; each write is a sign of life too."""

    def __init__(self, job: BackgroundJob, counts: Iterable[str]):
        self.job, self.counts = job, list(counts)
        self.last_write = float("-inf")  # the first write is never held back

    def save(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last_write >= PROGRESS_INTERVAL_SECONDS:
            self.last_write = now
            self.job.heartbeat_at = timezone.now()
            self.job.save(update_fields=[*self.counts, "heartbeat_at"])


class _Heartbeat(threading.Thread):
    """Marks a running job alive every HEARTBEAT_SECONDS from its own connection, until stopped."""

    def __init__(self, job: BackgroundJob):
        super().__init__(name=f"{job._meta.model_name}-{job.pk}-heartbeat", daemon=True)
        self.model, self.job_id = type(job), job.pk
        self.stopped = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopped.wait(HEARTBEAT_SECONDS):
                try:
                    self.model.objects.filter(pk=self.job_id, status=Status.RUNNING).update(heartbeat_at=timezone.now())
                except DatabaseError:
                    pass  # SQLite: the work's transaction holds the writer; the pid tells instead
        finally:
            connection.close()


@contextmanager
def beating(job: BackgroundJob):
    """The job marked alive while the block runs, from a thread: for work that may hold the
    database longer than the lease between two progress writes (an import's publishing)."""
    heart = _Heartbeat(job)
    heart.start()
    try:
        yield
    finally:
        heart.stopped.set()
        heart.join()


# -- cancelled, ended ---------------------------------------------------------------------------


class CancelWatch:
    """The worker's side of `cancel`: whether an organiser asked to cancel the job, read from
    its row at most every `every` seconds (between two looks, what the last one saw). A request
    seen is copied onto the job: its summary names who cancelled, and threads read the job."""

    def __init__(self, job: BackgroundJob, every: float):
        self.job, self.every = job, every
        self.last_look, self.seen = float("-inf"), False  # the first call looks

    def requested(self) -> bool:
        now = time.monotonic()
        if self.seen or now - self.last_look < self.every:
            return self.seen
        self.last_look = now
        row = type(self.job).objects.filter(pk=self.job.pk).values("cancel_requested_at", "cancelled_by_id").first()
        if row is not None and row["cancel_requested_at"] is not None:
            self.job.cancel_requested_at, self.job.cancelled_by_id = row["cancel_requested_at"], row["cancelled_by_id"]
            self.seen = True
        return self.seen


def cancel(job: BackgroundJob, user, *, what: str, nothing_done: str, stopping: str, when_queued: dict | None = None,
           while_running: dict | None = None, too_late: str | None = None,
           discard: Callable[[BackgroundJob], object] | None = None) -> str:
    """An organiser's request to cancel the job; returns what happened, for the page. A queued
    job is cancelled at once and never starts (`nothing_done`: what it did, "nothing imported";
    `when_queued`: more fields its cancelling writes; `discard`: what it kept for running, deleted).
    A running one is asked to stop (`stopping`: what it does then) while `while_running` holds
    of its row (else `too_late` says why not); its worker looks (CancelWatch) and ends it.
    `what`: the job, as the page names it ("the import had already ended")."""
    model, now = type(job), timezone.now()
    with transaction.atomic():
        if model.objects.filter(pk=job.pk, status=Status.QUEUED).update(
            status=Status.CANCELLED, cancel_requested_at=now, cancelled_by=user, finished_at=now,
            summary=f"Cancelled by {user.get_username()} before it started: {nothing_done}.", **(when_queued or {}),
        ):
            if discard is not None:
                discard(job)
            return f"Cancelled before it started: {nothing_done}."
    # conditional too: a worker that ends meanwhile, or begins publishing, keeps its way
    if model.objects.filter(pk=job.pk, status=Status.RUNNING, cancel_requested_at__isnull=True,
                            **(while_running or {})).update(cancel_requested_at=now, cancelled_by=user):
        return stopping
    job.refresh_from_db(fields=["status", "cancel_requested_at"])
    if job.finished:
        return f"The {what} had already ended ({job.get_status_display()})."
    if job.cancel_requested_at is not None or too_late is None:
        return "Already cancelling."
    return too_late


def finish(job: BackgroundJob, status: str, summary: str, *, counts: Iterable[str] = (),
           discard: Callable[[BackgroundJob], object] | None = None) -> None:
    """End the job: its status, summary and end time, with the kind's `counts` as they are now,
    and `discard` what it kept for running, in one transaction. Never the cancel fields: a
    request that came after the worker's last look stays recorded."""
    with transaction.atomic():
        job.status, job.summary, job.finished_at = status, summary, timezone.now()
        job.save(update_fields=["status", "summary", "finished_at", *counts])
        if discard is not None:
            discard(job)


# -- workers that died --------------------------------------------------------------------------


def reap_abandoned(jobs: QuerySet, ending: Callable[[BackgroundJob, str], dict], *, reads: Iterable[str] = (),
                   discard: Callable[[BackgroundJob], object] | None = None) -> int:
    """Fail the running jobs among `jobs` whose worker died, writing the fields `ending(job,
    why)` gives (its summary at least; `reads`: the fields of the job it needs), `discard` what
    they kept for running and fail their django-tasks result; returns how many. A running job
    that records no worker is left alone: nothing says which process to look for."""
    model, now, reaped = jobs.model, timezone.now(), 0
    running = jobs.filter(status=Status.RUNNING).exclude(worker="")
    for job in running.only("pk", "worker", "heartbeat_at", "started_at", "task_id", *reads):
        if worker_alive(job, now):
            continue
        why = why_dead(job)
        with transaction.atomic():
            # conditional: a worker that finishes meanwhile keeps its own ending
            if not model.objects.filter(pk=job.pk, status=Status.RUNNING).update(
                status=Status.FAILED, finished_at=now, **ending(job, why),
            ):
                continue
            if discard is not None:
                discard(job)
            if job.task_id:
                DBTaskResult.objects.filter(id=job.task_id, status=TaskResultStatus.RUNNING).update(
                    status=TaskResultStatus.FAILED, finished_at=now,
                    exception_class_path=f"{WorkerDied.__module__}.{WorkerDied.__qualname__}",
                    traceback=f"The worker stopped ({why}); found by {__name__}.reap_abandoned.",
                )
        reaped += 1
    return reaped
