"""annotator.background.jobs: the life every background job shares (queued with its task,
claimed once, its progress and heartbeat, cancelled, ended, failed once its worker died), on the
tables built on it; and each kind of job (imports, LLM judge runs, harvests) living through it."""

from __future__ import annotations

import socket
import time
import uuid
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks_db.models import DBTaskResult

from annotator.background import jobs as background
from annotator.harvesting import jobs as harvest_jobs
from annotator.interchange.imports import jobs as import_jobs
from annotator.llm_judge import jobs as llm_jobs
from annotator.models import HarvestRun, ImportJob, LlmJudgeRun
from tests.factories import make_campaign, make_user

pytestmark = pytest.mark.django_db

DEAD_HERE = f"{socket.gethostname()} 999999999 12345"  # no such pid on this host
ELSEWHERE = "elsewhere 123 456"


@pytest.fixture
def campaign():
    return make_campaign("bg", organiser=make_user("org"))


@pytest.fixture
def organiser(campaign):
    return campaign.organisers.get()


def harvest(campaign, **fields) -> HarvestRun:
    return HarvestRun.objects.create(campaign=campaign, system="gpt", server="fake", model="m", **fields)


class QueueingTask:
    """Stands for a django-tasks task: keeps what it was queued with."""

    def __init__(self):
        self.queued = []

    def enqueue(self, *args):
        self.queued.append(args)
        return SimpleNamespace(id=uuid.uuid4())


class RefusingTask:
    def enqueue(self, *args):
        raise RuntimeError("the queue is down")


# -- queued, claimed, running -------------------------------------------------------------------


def test_a_job_started_is_queued_with_its_id_and_records_its_task(campaign):
    task = QueueingTask()
    job = background.start(lambda: harvest(campaign), task)
    job.refresh_from_db()
    assert task.queued == [(job.pk,)] and job.task_id and job.status == "queued"


def test_a_job_whose_task_cannot_be_queued_is_not_recorded(campaign):
    with pytest.raises(RuntimeError):
        background.start(lambda: harvest(campaign), RefusingTask())
    assert not HarvestRun.objects.exists()


def test_a_job_is_claimed_once_even_when_its_task_is_delivered_twice(campaign):
    job = harvest(campaign)
    first, claimed = background.claim(HarvestRun, job.pk, related=("campaign",), started_at=timezone.now())
    _, claimed_again = background.claim(HarvestRun, job.pk)
    assert (claimed, claimed_again) == (True, False)
    assert first.status == "running" and first.worker == background.this_worker()
    assert first.heartbeat_at is not None and first.started_at is not None  # `also`: the kind's own fields


def test_a_job_claimed_runs_its_work_once_and_returns_how_it_ended(campaign):
    job = harvest(campaign)
    worked = []

    def work(claimed: HarvestRun) -> None:
        worked.append(claimed.pk)
        background.finish(claimed, "done", "All done.")

    assert background.run_claimed(HarvestRun, job.pk, work, on_error=pytest.fail) == "done"
    assert background.run_claimed(HarvestRun, job.pk, work, on_error=pytest.fail) == "done"  # delivered again
    assert worked == [job.pk]


def test_an_error_in_the_work_ends_the_job_as_its_kind_says_and_goes_on_up_to_django_tasks(campaign):
    job = harvest(campaign)

    def work(claimed: HarvestRun) -> None:
        raise ValueError("broken")

    def on_error(claimed: HarvestRun, error: Exception) -> None:
        background.finish(claimed, "failed", f"Stopped on {type(error).__name__}.")

    with pytest.raises(ValueError):
        background.run_claimed(HarvestRun, job.pk, work, on_error=on_error)
    job.refresh_from_db()
    assert (job.status, job.summary) == ("failed", "Stopped on ValueError.") and job.finished_at is not None


def test_a_job_begun_by_a_command_records_this_process_and_its_start(campaign):
    job = harvest(campaign, finished_at=timezone.now(), harvested=5)
    job.harvested = 0
    background.begin(job, counts=["harvested"])
    job.refresh_from_db()
    assert (job.status, job.worker, job.harvested, job.finished_at) == ("running", background.this_worker(), 0, None)
    assert job.started_at is not None


def test_progress_is_written_at_most_so_often_and_every_write_is_a_sign_of_life(campaign, monkeypatch):
    monkeypatch.setattr(background, "PROGRESS_INTERVAL_SECONDS", 3600)
    job = harvest(campaign, status="running")
    writer = background.ProgressWriter(job, ["harvested"])
    job.harvested = 1
    writer.save()  # the first write is never held back
    job.harvested = 2
    writer.save()  # within the interval: held back
    stored = HarvestRun.objects.get(pk=job.pk)
    assert stored.harvested == 1 and stored.heartbeat_at is not None
    writer.save(force=True)
    assert HarvestRun.objects.get(pk=job.pk).harvested == 2


@pytest.mark.django_db(transaction=True)  # the heartbeat writes from its own thread and connection
def test_a_job_beats_from_a_thread_while_its_work_runs_and_stops_beating_after(campaign, monkeypatch):
    monkeypatch.setattr(background, "HEARTBEAT_SECONDS", 0.02)
    job = harvest(campaign, status="running")

    def beat() -> object:
        return HarvestRun.objects.get(pk=job.pk).heartbeat_at

    with background.beating(job):
        deadline = time.monotonic() + 10
        while beat() is None and time.monotonic() < deadline:
            time.sleep(0.02)
    last = beat()
    time.sleep(0.1)
    assert last is not None and beat() == last


# -- cancelled, ended ---------------------------------------------------------------------------


def test_a_cancel_request_is_seen_at_the_workers_next_look_and_names_who_asked(campaign, organiser):
    job = harvest(campaign, status="running")
    hourly = background.CancelWatch(job, every=3600)
    assert not hourly.requested()  # the first call looks: nobody asked yet
    HarvestRun.objects.filter(pk=job.pk).update(cancel_requested_at=timezone.now(), cancelled_by=organiser)
    assert not hourly.requested()  # no look before the hour is up
    assert background.CancelWatch(job, every=0).requested()
    assert job.cancel_requested_at is not None and job.cancelled_by_id == organiser.pk


def cancel(job, user, **kind) -> str:
    return background.cancel(job, user, what="harvest", nothing_done="nothing was asked", stopping="Stopping.", **kind)


def test_a_queued_job_cancelled_never_starts_and_drops_what_it_kept_for_running(campaign, organiser):
    job = ImportJob.objects.create(campaign=campaign)
    dropped = []
    said = cancel(job, organiser, when_queued={"stage": "finished"}, discard=dropped.append)
    assert said == "Cancelled before it started: nothing was asked."
    job.refresh_from_db()
    assert (job.status, job.stage, job.cancelled_by) == ("cancelled", "finished", organiser) and dropped == [job]
    assert job.summary == "Cancelled by org before it started: nothing was asked." and job.finished_at is not None
    assert background.claim(ImportJob, job.pk)[1] is False  # its task, delivered, runs nothing


def test_a_running_job_is_asked_to_stop_and_a_second_request_is_told_it_is_cancelling(campaign, organiser):
    job = harvest(campaign, status="running")
    assert cancel(job, organiser) == "Stopping."
    job.refresh_from_db()
    assert job.status == "running" and job.cancel_requested_at is not None and job.cancelled_by == organiser
    assert cancel(job, organiser) == "Already cancelling."


def test_a_finished_job_cannot_be_cancelled_and_says_how_it_ended(campaign, organiser):
    job = harvest(campaign, status="done")
    assert cancel(job, organiser) == "The harvest had already ended (finished)."
    assert HarvestRun.objects.get(pk=job.pk).cancel_requested_at is None


def test_a_running_job_past_its_point_of_no_return_says_why_it_cannot_be_cancelled(campaign, organiser):
    job = ImportJob.objects.create(campaign=campaign, status="running", published_at=timezone.now())
    said = cancel(job, organiser, while_running={"published_at__isnull": True}, too_late="Too late: published.")
    assert said == "Too late: published." and ImportJob.objects.get(pk=job.pk).cancel_requested_at is None


def test_a_job_ended_keeps_a_cancel_request_that_came_after_the_workers_last_look(campaign, organiser):
    job = harvest(campaign, status="running")
    HarvestRun.objects.filter(pk=job.pk).update(cancel_requested_at=timezone.now(), cancelled_by=organiser)
    job.harvested, dropped = 3, []
    background.finish(job, "done", "3 harvested.", counts=["harvested"], discard=dropped.append)
    job.refresh_from_db()
    assert (job.status, job.summary, job.harvested) == ("done", "3 harvested.", 3) and job.finished_at is not None
    assert job.cancel_requested_at is not None and job.cancelled_by == organiser and dropped == [job]


# -- workers that died --------------------------------------------------------------------------


def ending(job, why: str) -> dict:
    return {"summary": f"Stopped: {why}."}


def running(campaign, worker: str, **fields) -> HarvestRun:
    return harvest(campaign, status="running", worker=worker, started_at=timezone.now() - timedelta(hours=1), **fields)


def test_a_job_whose_worker_stopped_beating_is_marked_failed_with_why(campaign):
    job = running(campaign, ELSEWHERE, heartbeat_at=timezone.now() - timedelta(seconds=background.LEASE_SECONDS + 1))
    assert background.reap_abandoned(HarvestRun.objects.all(), ending) == 1
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert job.summary == f"Stopped: no sign of life for {background.LEASE_SECONDS} s."


def test_a_job_whose_process_is_gone_from_this_host_is_failed_at_once_and_its_task_too(campaign):
    result = harvest_jobs.run_harvest.enqueue(0)
    DBTaskResult.objects.filter(id=result.id).update(status="RUNNING")
    job = running(campaign, DEAD_HERE, heartbeat_at=timezone.now(), task_id=str(result.id))  # beat a moment ago, yet gone
    dropped = []
    assert background.reap_abandoned(HarvestRun.objects.all(), ending, discard=dropped.append) == 1
    job.refresh_from_db()
    assert (job.status, job.summary) == ("failed", "Stopped: its process is gone.") and [d.pk for d in dropped] == [job.pk]
    task = DBTaskResult.objects.get(id=result.id)
    assert task.status == "FAILED" and "its process is gone" in task.traceback
    assert import_string(task.exception_class_path) is background.WorkerDied  # django-tasks can read it back


def test_a_job_whose_worker_still_runs_or_still_beats_is_left_running(campaign):
    running(campaign, background.this_worker())
    running(campaign, ELSEWHERE, heartbeat_at=timezone.now())
    running(campaign, "")  # records no worker: nothing says which process to look for
    assert background.reap_abandoned(HarvestRun.objects.all(), ending) == 0
    assert set(HarvestRun.objects.values_list("status", flat=True)) == {"running"}


def test_a_job_whose_worker_ends_it_meanwhile_keeps_its_own_ending(campaign):
    job = running(campaign, DEAD_HERE)

    def ended_meanwhile(dead, why: str) -> dict:
        HarvestRun.objects.filter(pk=dead.pk).update(status="done", summary="Done by its worker.")
        return ending(dead, why)

    assert background.reap_abandoned(HarvestRun.objects.all(), ended_meanwhile) == 0
    job.refresh_from_db()
    assert (job.status, job.summary) == ("done", "Done by its worker.")


# -- each kind of job lives through it ----------------------------------------------------------


def start_import(campaign, organiser) -> ImportJob:
    return import_jobs.start(campaign, [("empty.jsonl", b"")], run=None, replace=False, actor=organiser)


def start_llm_run(campaign, organiser) -> LlmJudgeRun:
    return llm_jobs.start(campaign, "llm", server="fake", model="m", created_by=organiser)


def start_harvest(campaign, organiser) -> HarvestRun:
    return harvest_jobs.start(campaign, "gpt", server="fake", model="m", created_by=organiser)


KINDS = {
    "import job": (import_jobs, import_jobs.run_import_job, ImportJob, start_import),
    "LLM judge run": (llm_jobs, llm_jobs.run_llm_judge, LlmJudgeRun, start_llm_run),
    "harvest": (harvest_jobs, harvest_jobs.run_harvest, HarvestRun, start_harvest),
}


@pytest.fixture
def shared_calls(monkeypatch, settings) -> list[str]:
    """The names of the shared plumbing's functions as the job kinds call them (each still does
    its work), on a listed server nothing is asked of."""
    settings.GFRC_LLM_SERVERS = {"fake": {"base_url": "http://127.0.0.1:9/v1"}}
    calls = []
    for name in ("start", "run_claimed", "begin", "cancel", "finish", "reap_abandoned"):

        def spy(*args, _name=name, _shared=getattr(background, name), **kwargs):
            calls.append(_name)
            return _shared(*args, **kwargs)

        monkeypatch.setattr(background, name, spy)
    return calls


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_job_is_queued_run_cancelled_ended_and_reaped_by_the_shared_plumbing(
    kind, campaign, organiser, shared_calls,
):
    module, task, model, start = KINDS[kind]
    job = start(campaign, organiser)
    assert shared_calls == ["start"] and job.task_id
    shared_calls.clear()
    assert module.cancel(job, organiser).startswith("Cancelled before it started: nothing")
    assert shared_calls == ["cancel"]
    shared_calls.clear()
    assert task.call(job.pk) == "cancelled"  # a job cancelled while queued never starts
    assert shared_calls == ["run_claimed"]

    shared_calls.clear()
    task.call(start(campaign, organiser).pk)  # nothing to ask or import: it ends at once
    assert {"run_claimed", "finish"} <= set(shared_calls)

    dead = start(campaign, organiser)
    model.objects.filter(pk=dead.pk).update(status="running", worker=DEAD_HERE)
    shared_calls.clear()
    assert module.reap_abandoned(model.objects.filter(pk=dead.pk)) == 1
    assert shared_calls == ["reap_abandoned"]
    dead.refresh_from_db()
    assert dead.status == "failed" and dead.summary
