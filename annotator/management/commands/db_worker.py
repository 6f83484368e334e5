"""python manage.py db_worker [django-tasks-db's options]

django-tasks-db's worker, which first fails the import jobs whose worker died: a job left
`running` by a worker killed mid-import (kill -9, a crash, the machine restarting) whose process
is gone (same host: its pid and start time) or whose heartbeat stopped LEASE_SECONDS ago (another
host) becomes `failed` with the reason, its files deleted and its task failed
(`annotator.interchange.imports.jobs.reap_abandoned`). So the database tells the truth as soon as
a worker starts again, to the console, the API and the command line alike, not only once
someone opens the job's page.

This command takes the name of django-tasks-db's own (the `annotator` app comes before
`django_tasks_db` in INSTALLED_APPS) and keeps all its options.
"""

from __future__ import annotations

from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand

from annotator.interchange.imports import jobs as import_jobs
from annotator.models import ImportJob


class Command(DatabaseWorkerCommand):
    help = "Run a database background worker; first fail the import jobs whose worker died."

    def handle(self, *args, **options) -> None:
        # Every worker start checks (with --reload, the watching parent too: a second check
        # finds nothing left to fail, the updates being conditional on `running`).
        reaped = import_jobs.reap_abandoned(ImportJob.objects.all())
        if reaped and options.get("verbosity", 1) > 0:
            self.stdout.write(f"{reaped} import job(s) whose worker had died marked failed (nothing of them was imported).")
        super().handle(*args, **options)
