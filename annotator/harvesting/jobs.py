"""The console's harvests: a background task (django-tasks, run by `manage.py db_worker`) per
harvest, its progress on the HarvestRun row for the harvest's page.

    harvest = jobs.start(campaign, "gemma", server="local", model="gemma-3", trials=2, created_by=user)
    jobs.cancel(harvest, user)

A harvest names one of the deployment's listed servers (annotator.llm_judge.servers) and a model
it offers; the worker takes the server's address and key from the listing when it starts. A
harvest whose worker died is ended as stopped when someone looks (the import jobs' rule,
annotator.interchange.imports.jobs); what it stored stays, and running it again goes on.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django_tasks import task

from annotator.harvesting.runner import HarvestRefused, execute, new_harvest, reap_abandoned
from annotator.interchange.imports.jobs import this_worker
from annotator.models import Campaign, HarvestRun

__all__ = ["start", "again", "cancel", "run_harvest", "recent_harvests", "reap_abandoned", "HarvestRefused"]


def start(campaign: Campaign, system: str, *, created_by, **options) -> HarvestRun:
    """Record the harvest (annotator.harvesting.runner.new_harvest: HarvestRefused) and queue
    it for the worker; returns at once."""
    with transaction.atomic():
        harvest = new_harvest(campaign, system, created_by=created_by, **options)
        _enqueue(harvest)
    return harvest


def again(harvest: HarvestRun, user) -> HarvestRun:
    """The same harvest anew (a new row): what the first stored is kept, the rest asked."""
    fields = ("system", "server", "model", "user_server", "user_model", "temperature", "seed", "max_tokens", "timeout",
              "retries", "trials", "topics", "follow_ups", "concurrency", "system_message")
    with transaction.atomic():
        new = HarvestRun.objects.create(campaign=harvest.campaign, created_by=user, base_url=harvest.base_url,
                                        **{f: getattr(harvest, f) for f in fields})
        _enqueue(new)
    return new


def _enqueue(harvest: HarvestRun) -> None:
    result = run_harvest.enqueue(harvest.pk)
    harvest.task_id = str(result.id)
    harvest.save(update_fields=["task_id"])


def cancel(harvest: HarvestRun, user) -> str:
    """Stop the harvest: a queued one never starts; a running one begins no new conversation and
    abandons those in flight. What was stored stays. Returns what happened, for the page."""
    now = timezone.now()
    if HarvestRun.objects.filter(pk=harvest.pk, status=HarvestRun.Status.QUEUED).update(
        status=HarvestRun.Status.CANCELLED, cancel_requested_at=now, cancelled_by=user, finished_at=now,
        summary=f"Cancelled by {user.get_username()} before it started: nothing was asked or stored.",
    ):
        return "Cancelled before it started: nothing was asked or stored."
    if HarvestRun.objects.filter(pk=harvest.pk, status=HarvestRun.Status.RUNNING, cancel_requested_at__isnull=True).update(
        cancel_requested_at=now, cancelled_by=user,
    ):
        return "Cancelling: no new conversation is begun. The conversations stored stay."
    harvest.refresh_from_db(fields=["status", "cancel_requested_at"])
    if harvest.cancel_requested_at is not None and not harvest.finished:
        return "Already cancelling."
    return f"The harvest had already ended ({harvest.get_status_display()})."


@task()
def run_harvest(harvest_id: int) -> str:
    """The worker's side: claim the harvest (a task delivered twice runs once) and run it."""
    claimed = HarvestRun.objects.filter(pk=harvest_id, status=HarvestRun.Status.QUEUED).update(
        status=HarvestRun.Status.RUNNING, worker=this_worker(), heartbeat_at=timezone.now(),
    )
    harvest = HarvestRun.objects.select_related("campaign", "created_by").get(pk=harvest_id)
    if not claimed:
        return harvest.status
    try:
        execute(harvest)
    except Exception as error:
        harvest.status, harvest.finished_at = HarvestRun.Status.FAILED, timezone.now()
        harvest.summary = (f"Stopped on an internal error ({type(error).__name__}). What was stored stays: run it again "
                           "to go on.")
        harvest.save(update_fields=["status", "finished_at", "summary"])
        raise
    return harvest.status


def recent_harvests(campaign: Campaign, count: int = 10):
    reap_abandoned(campaign.harvests.all())
    return campaign.harvests.select_related("created_by")[:count]
