"""The console's harvests: a background task (django-tasks, run by `manage.py db_worker`) per
harvest, its progress on the HarvestRun row for the harvest's page.

    harvest = jobs.start(campaign, "gemma", server="local", model="gemma-3", trials=2, created_by=user)
    jobs.cancel(harvest, user)

A harvest names one of the deployment's listed servers (annotator.llm_judge.servers) and a model
it offers; the worker takes the server's address and key from the listing when it starts. It is
queued, claimed, cancelled and ended as every background job is (annotator.background.jobs); a
harvest whose worker died is ended as stopped when someone looks (runner.reap_abandoned); what
it stored stays, and running it again goes on.
"""

from __future__ import annotations

from django_tasks import task

from annotator.background import jobs as background
from annotator.harvesting.runner import HarvestRefused, execute, new_harvest, reap_abandoned
from annotator.models import Campaign, HarvestRun

__all__ = ["start", "again", "cancel", "run_harvest", "recent_harvests", "reap_abandoned", "HarvestRefused"]


def start(campaign: Campaign, system: str, *, created_by, **options) -> HarvestRun:
    """Record the harvest (annotator.harvesting.runner.new_harvest: HarvestRefused) and queue
    it for the worker; returns at once."""
    return background.start(lambda: new_harvest(campaign, system, created_by=created_by, **options), run_harvest)


def again(harvest: HarvestRun, user) -> HarvestRun:
    """The same harvest anew (a new row): what the first stored is kept, the rest asked."""
    fields = ("system", "server", "model", "user_server", "user_model", "temperature", "seed", "max_tokens", "timeout",
              "retries", "trials", "topics", "follow_ups", "concurrency", "system_message")
    return background.start(lambda: HarvestRun.objects.create(
        campaign=harvest.campaign, created_by=user, base_url=harvest.base_url, **{f: getattr(harvest, f) for f in fields},
    ), run_harvest)


def cancel(harvest: HarvestRun, user) -> str:
    """Stop the harvest: a queued one never starts; a running one begins no new conversation and
    abandons those in flight. What was stored stays. Returns what happened, for the page."""
    return background.cancel(
        harvest, user, what="harvest", nothing_done="nothing was asked or stored",
        stopping="Cancelling: no new conversation is begun. The conversations stored stay.",
    )


@task()
def run_harvest(harvest_id: int) -> str:
    """The worker's side: claim the harvest (a task delivered twice runs once) and run it."""
    return background.run_claimed(HarvestRun, harvest_id, execute, related=("campaign", "created_by"),
                                  on_error=background.failed_saying("Stopped on an internal error ({error}). What was "
                                                                    "stored stays: run it again to go on."))


def recent_harvests(campaign: Campaign, count: int = 10):
    reap_abandoned(campaign.harvests.all())
    return campaign.harvests.select_related("created_by")[:count]
