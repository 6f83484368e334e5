"""python manage.py db_worker [django-tasks-db's options]

django-tasks-db's worker, which first fails the background jobs whose worker died: an import
job, an LLM judge run or a harvest left `running` by a worker killed mid-job (kill -9, a crash,
the machine restarting) whose process is gone (same host: its pid and start time) or whose
heartbeat stopped LEASE_SECONDS ago (another host) becomes `failed` with the reason, and its task
failed (annotator.background.jobs.reap_abandoned, through each kind's `reap_abandoned`: an import
job's files are deleted). So the database tells the truth as soon as a worker starts again, to
the console, the API and the command line alike, not only once someone opens the job's page.

This command takes the name of django-tasks-db's own (the `annotator` app comes before
`django_tasks_db` in INSTALLED_APPS) and keeps all its options.
"""

from __future__ import annotations

from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand

from annotator.harvesting import jobs as harvests
from annotator.interchange.imports import jobs as import_jobs
from annotator.llm_judge import jobs as llm_runs
from annotator.models import HarvestRun, ImportJob, LlmJudgeRun

# Each kind: how its dead jobs are failed, and what the worker says of them.
REAPED = (
    (import_jobs.reap_abandoned, ImportJob, "import job(s) whose worker had died marked failed (nothing of them was "
                                            "imported)."),
    (llm_runs.reap_abandoned, LlmJudgeRun, "LLM judge run(s) whose worker had died marked failed (what they wrote "
                                           "stays: run them again to resume)."),
    (harvests.reap_abandoned, HarvestRun, "harvest(s) whose process had died marked failed (what they stored stays: "
                                          "run them again to go on)."),
)


class Command(DatabaseWorkerCommand):
    help = "Run a database background worker; first fail the background jobs whose worker died."

    def handle(self, *args, **options) -> None:
        # Every worker start checks (with --reload, the watching parent too: a second check
        # finds nothing left to fail, the updates being conditional on `running`).
        for reap, model, said in REAPED:
            reaped = reap(model.objects.all())
            if reaped and options.get("verbosity", 1) > 0:
                self.stdout.write(f"{reaped} {said}")
        super().handle(*args, **options)
