"""The console's and the API's LLM judge runs: a background task (django-tasks, run by
`manage.py db_worker`) per run, its progress on the LlmJudgeRun row for the run's page.

    run = jobs.start(campaign, "gemma", server="local", model="gemma-3", parameters={...},
                     topics=[...], created_by=user)
    jobs.cancel(run, user)

A run names one of the deployment's listed servers (annotator.llm_judge.servers) and a model
it offers; the worker takes the server's address and key from the listing when it starts.

A run whose worker died (killed, crashed, the machine restarted) would stay "running": the
run's page ends it as stopped when its process is gone (the import jobs' rule of
annotator.interchange.imports.jobs: pid and start time on this host, a heartbeat elsewhere).
Nothing of it is lost: each conversation was written in its own transaction, and every answer
received is cached, so running it again resumes where it stopped.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django_tasks import task

from annotator.interchange.imports.jobs import this_worker, worker_alive
from annotator.llm_judge import servers
from annotator.llm_judge.runner import JudgeRefused, execute, new_run
from annotator.models import Campaign, LlmJudgeRun

__all__ = ["start", "cancel", "run_llm_judge", "recent_runs", "reap_abandoned"]


def start(campaign: Campaign, judge_name: str, *, server: str, model: str, parameters: dict | None = None,
          created_by, **options) -> LlmJudgeRun:
    """Record the run on the listed `server` and queue it for the worker; returns at once
    (JudgeRefused if it cannot start: a server or model not listed, a judge name refused...).
    `parameters`: temperature, seed, max_tokens, timeout, retries, response_format."""
    try:
        settings = servers.listed(server, model).settings_for(model, **(parameters or {}))
    except servers.ServerNotListed as refused:
        raise JudgeRefused(str(refused)) from None
    with transaction.atomic():
        run = new_run(campaign, judge_name, settings, created_by=created_by, **options)
        result = run_llm_judge.enqueue(run.pk)
        run.task_id = str(result.id)
        run.save(update_fields=["task_id"])
    return run


def cancel(run: LlmJudgeRun, user) -> str:
    """Stop the run: a queued one never starts; a running one sends no more requests (its worker
    looks every CANCEL_POLL_SECONDS). What was written stays, the answers received stay cached.
    Returns what happened, for the page."""
    now = timezone.now()
    if LlmJudgeRun.objects.filter(pk=run.pk, status=LlmJudgeRun.Status.QUEUED).update(
        status=LlmJudgeRun.Status.CANCELLED, cancel_requested_at=now, cancelled_by=user, finished_at=now,
        summary=f"Cancelled by {user.get_username()} before it started: nothing was asked or written.",
    ):
        return "Cancelled before it started: nothing was asked or written."
    if LlmJudgeRun.objects.filter(pk=run.pk, status=LlmJudgeRun.Status.RUNNING, cancel_requested_at__isnull=True).update(
        cancel_requested_at=now, cancelled_by=user,
    ):
        return ("Cancelling: no new request is sent. The conversations written stay, and the answers received stay "
                "cached.")
    run.refresh_from_db(fields=["status", "cancel_requested_at"])
    if run.cancel_requested_at is not None and not run.finished:
        return "Already cancelling."
    return f"The run had already ended ({run.get_status_display()})."


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
