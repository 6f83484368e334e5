"""A real `manage.py db_worker` process (the command, in its own process) whose import stops
for a long while once it has reached "writing": the tests kill it there with SIGKILL, as a crash
or `kill -9` would. It prints "writing" (and flushes) when it gets there.

    DATABASE_URL=... python tests/commands/worker_that_stops_while_writing.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from annotator.interchange.imports import jobs as import_jobs  # noqa: E402

report_progress = import_jobs._JobProgress.__call__


def stop_once_writing(self, stage: str, done: int) -> None:
    report_progress(self, stage, done)  # the job row says "writing", as the page would show it
    if stage == "writing":
        print("writing", flush=True)
        time.sleep(600)


import_jobs._JobProgress.__call__ = stop_once_writing
call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", verbosity=0)
