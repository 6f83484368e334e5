"""`manage.py db_worker` (django-tasks-db's worker, through annotator's command of the same
name): a worker that starts fails the background jobs (imports, LLM judge runs, harvests) whose
worker died, without anyone opening a page, so the database tells the truth to the API and the
command line too."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from io import StringIO
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.db import connection
from django_tasks_db.models import DBTaskResult

from annotator.background.jobs import this_worker
from annotator.interchange.imports import jobs as import_jobs
from annotator.interchange.formats import parse_paper, write_jsonl
from annotator.models import Conversation, HarvestRun, ImportJob, ImportJobFile, LlmJudgeRun
from tests.commands.helpers import EXAMPLE, ROOT
from tests.console.demo import build_demo
from tests.factories import make_campaign, make_user

# Worker processes share the test database: the tests commit for real.
pytestmark = pytest.mark.django_db(transaction=True)


def worker_environment() -> dict[str, str]:
    """The environment of a worker process on the test database."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        url = f"sqlite:///{db['NAME']}"
    else:
        credentials = quote(db["USER"] or "") + (":" + quote(db["PASSWORD"]) if db["PASSWORD"] else "")
        url = f"postgres://{credentials}@{db['HOST'] or ''}:{db['PORT'] or 5432}/{db['NAME']}"
    return {**os.environ, "DATABASE_URL": url}


def conversations(n: int) -> list[tuple[str, bytes]]:
    lines = []
    for i in range(n):
        conversation = parse_paper(EXAMPLE.read_text(), "x").conversations[0]
        conversation.topic, conversation.run = f"M{i % 6 + 1:03d}", f"bg-{i // 6}"
        lines.append(write_jsonl([conversation]))
    return [("bg.jsonl", "".join(lines).encode())]


def test_a_worker_that_starts_fails_the_job_of_a_worker_killed_while_writing():
    campaign, organiser, _ = build_demo(n_topics=1)
    before = Conversation.objects.count()
    job = import_jobs.start(campaign, conversations(12), run=None, replace=False, actor=organiser)

    first = subprocess.Popen([sys.executable, str(ROOT / "tests" / "commands" / "worker_that_stops_while_writing.py")],
                             cwd=ROOT, env=worker_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        said = []
        for line in first.stdout:  # until the import is writing (or the worker ended)
            said.append(line)
            if line == "writing\n":
                break
        assert said[-1:] == ["writing\n"], "".join(said)
        job.refresh_from_db()
        assert (job.status, job.stage, job.worker.split()[1]) == ("running", "writing", str(first.pid))
        first.send_signal(signal.SIGKILL)
    finally:
        first.kill()
        first.wait(timeout=60)
    assert first.returncode == -signal.SIGKILL
    job.refresh_from_db()
    assert job.status == "running"  # nobody has looked: the dead worker's job still says running

    second = subprocess.run([sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay", "--no-reload"],
                            cwd=ROOT, env=worker_environment(), capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "1 import job(s) whose worker had died marked failed" in second.stdout

    job.refresh_from_db()  # no page opened: the new worker failed the job itself
    assert job.status == "failed" and job.finished_at is not None
    assert job.errors == ["the worker running this import stopped (its process is gone) while writing"]
    assert not ImportJobFile.objects.filter(job=job).exists()
    assert DBTaskResult.objects.get(id=job.task_id).status == "FAILED"
    assert Conversation.objects.count() == before  # all or nothing: nothing of it written


def test_a_worker_that_starts_leaves_the_job_of_a_live_worker_running():
    campaign, organiser, _ = build_demo(n_topics=1)
    job = import_jobs.start(campaign, conversations(4), run=None, replace=False, actor=organiser)
    DBTaskResult.objects.filter(id=job.task_id).update(status="RUNNING")
    ImportJob.objects.filter(pk=job.pk).update(status="running", stage="writing", worker=this_worker())  # this process: alive

    worker = subprocess.run([sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay", "--no-reload"],
                            cwd=ROOT, env=worker_environment(), capture_output=True, text=True, timeout=300)
    assert worker.returncode == 0, worker.stdout + worker.stderr
    job.refresh_from_db()
    assert job.status == "running" and ImportJobFile.objects.filter(job=job).exists()


def test_a_worker_that_starts_fails_the_llm_runs_and_harvests_whose_process_died_too():
    campaign, gone = make_campaign(), f"{socket.gethostname()} 999999999 12345"  # no such pid here
    run = LlmJudgeRun.objects.create(campaign=campaign, judge=make_user("llm"), base_url="http://x/v1", model="m",
                                     prompt_version="v", status="running", worker=gone)
    harvest = HarvestRun.objects.create(campaign=campaign, system="gpt", server="s", model="m", status="running",
                                        worker=gone)
    said = StringIO()
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)}
    try:  # the worker, in this process: it installs its own shutdown handlers, pytest gets its own back
        call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", stdout=said)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    assert "1 LLM judge run(s) whose worker had died marked failed" in said.getvalue()
    assert "1 harvest(s) whose process had died marked failed" in said.getvalue()
    run.refresh_from_db()
    harvest.refresh_from_db()
    assert (run.status, harvest.status) == ("failed", "failed")
    assert "run it again to resume" in run.summary and "run it again to go on" in harvest.summary
