"""The console's and the API's LLM judge runs: a background task (django-tasks, run by
`manage.py db_worker`) per run, its progress on the LlmJudgeRun row for the run's page.

    run = jobs.start(campaign, "gemma", server="local", model="gemma-3", parameters={...},
                     topics=[...], created_by=user)
    jobs.cancel(run, user)

A run names one of the deployment's listed servers (annotator.llm_judge.servers) and a model
it offers; the worker takes the server's address and key from the listing when it starts.

Queued, claimed, cancelled and ended as every background job is (annotator.background.jobs). A
run whose worker died (killed, crashed, the machine restarted) would stay "running": the run's
page, the API and a worker that starts end it as stopped (annotator.background.jobs.reap_abandoned:
pid and start time on this host, a heartbeat elsewhere). Nothing of it is lost: each
conversation was written in its own transaction, and every answer received is cached, so
running it again resumes where it stopped.
"""

from __future__ import annotations

from django_tasks import task

from annotator.background import jobs as background
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
    return background.start(lambda: new_run(campaign, judge_name, settings, created_by=created_by, **options),
                            run_llm_judge)


def cancel(run: LlmJudgeRun, user) -> str:
    """Stop the run: a queued one never starts; a running one sends no more requests (its worker
    looks every CANCEL_POLL_SECONDS). What was written stays, the answers received stay cached.
    Returns what happened, for the page."""
    return background.cancel(
        run, user, what="run", nothing_done="nothing was asked or written",
        stopping="Cancelling: no new request is sent. The conversations written stay, and the answers received stay "
                 "cached.",
    )


@task()
def run_llm_judge(run_id: int) -> str:
    """The worker's side: claim the run (a task delivered twice runs once) and run it."""
    return background.run_claimed(LlmJudgeRun, run_id, execute, related=("campaign", "judge", "created_by"),
                                  on_error=background.failed_saying("Stopped on an internal error ({error}). The "
                                                                    "answers received are cached: run it again to resume."))


def recent_runs(campaign: Campaign, count: int = 10):
    reap_abandoned(campaign.llm_runs.all())
    return campaign.llm_runs.select_related("judge", "created_by")[:count]


def reap_abandoned(runs) -> int:
    """End the running runs among `runs` whose worker is gone; what they wrote stays."""
    return background.reap_abandoned(runs, _abandoned)


def _abandoned(run: LlmJudgeRun, why: str) -> dict:
    return {"summary": "The worker running this stopped. What it wrote stays (one transaction per conversation) and "
                       "the answers received are cached: run it again to resume."}
