"""The console's LLM judge runs: a background task (django-tasks, run by `manage.py db_worker`)
per run, its progress on the LlmJudgeRun row for the run's page.

    run = jobs.start(campaign, "gemma", settings, topics=[...], created_by=user)

A run whose worker died (killed, crashed, the machine restarted) would stay "running": the
run's page ends it as stopped when its process is gone (the import jobs' rule of
annotator.interchange.import_jobs: pid and start time on this host, a heartbeat elsewhere).
Nothing of it is lost: each conversation was written in its own transaction, and every answer
received is cached, so running it again resumes where it stopped.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django_tasks import task

from annotator.interchange.import_jobs import this_worker, worker_alive
from annotator.llm_judge import client as llm
from annotator.llm_judge.runner import execute, new_run
from annotator.models import Campaign, LlmJudgeRun

__all__ = ["start", "run_llm_judge", "recent_runs", "reap_abandoned"]


def start(campaign: Campaign, judge_name: str, settings: llm.ServerSettings, *, created_by, **options) -> LlmJudgeRun:
    """Record the run and queue it for the worker; returns at once (JudgeRefused if it cannot start)."""
    with transaction.atomic():
        run = new_run(campaign, judge_name, settings, created_by=created_by, **options)
        result = run_llm_judge.enqueue(run.pk)
        run.task_id = str(result.id)
        run.save(update_fields=["task_id"])
    return run


@task()
def run_llm_judge(run_id: int) -> str:
    """The worker's side: claim the run (a task delivered twice runs once) and run it."""
    claimed = LlmJudgeRun.objects.filter(pk=run_id, status=LlmJudgeRun.Status.QUEUED).update(
        status=LlmJudgeRun.Status.RUNNING, worker=this_worker(), heartbeat_at=timezone.now(),
    )
    run = LlmJudgeRun.objects.select_related("campaign", "judge", "created_by").get(pk=run_id)
    if not claimed:
        return run.status
    try:
        execute(run)
    except Exception as error:
        run.status, run.finished_at = LlmJudgeRun.Status.FAILED, timezone.now()
        run.summary = (f"Stopped on an internal error ({type(error).__name__}). The answers received are cached: "
                       "run it again to resume.")
        run.save(update_fields=["status", "finished_at", "summary"])
        raise
    return run.status


def recent_runs(campaign: Campaign, count: int = 10):
    reap_abandoned(campaign.llm_runs.all())
    return campaign.llm_runs.select_related("judge", "created_by")[:count]


def reap_abandoned(runs) -> int:
    """End the running runs among `runs` whose worker is gone (as import jobs are ended)."""
    now = timezone.now()
    reaped = 0
    for run in runs.filter(status=LlmJudgeRun.Status.RUNNING).only("pk", "worker", "heartbeat_at", "started_at"):
        if not run.worker or worker_alive(run, now):
            continue
        reaped += LlmJudgeRun.objects.filter(pk=run.pk, status=LlmJudgeRun.Status.RUNNING).update(
            status=LlmJudgeRun.Status.FAILED, finished_at=now,
            summary="The worker running this stopped. What it wrote stays (one transaction per conversation) and the "
                    "answers received are cached: run it again to resume.",
        )
    return reaped
