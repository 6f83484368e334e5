"""The job page of a background import: the worker imports, the page follows its progress."""

from __future__ import annotations

import signal
import socket

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from annotator.background import jobs as background, processes
from annotator.interchange.formats import parse_paper, write_jsonl
from annotator.models import Conversation, ImportJob, ImportJobFile
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.test_console_upload import EXAMPLE

# The worker runs in this process, with its own transactions: the tests commit for real.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def small_threshold(settings):
    settings.GFRC_BACKGROUND_IMPORT_CONVERSATIONS = 3


def jsonl(n: int, tag: str = "bg") -> SimpleUploadedFile:
    """n conversations (the paper's example, with its 10 nuggets) on topics M001..M006, runs tag-0, tag-1..."""
    lines = []
    for i in range(n):
        conversation = parse_paper(EXAMPLE.read_text(), "x").conversations[0]
        conversation.topic, conversation.run = f"M{i % 6 + 1:03d}", f"{tag}-{i // 6}"
        lines.append(write_jsonl([conversation]))
    return SimpleUploadedFile(f"{tag}.jsonl", "".join(lines).encode(), content_type="application/jsonl")


def upload(client, campaign, *files):
    return client.post(reverse("console:upload", kwargs={"slug": campaign.slug}), {"files": list(files)})


def job_url(job: ImportJob) -> str:
    return reverse("console:import_job", kwargs={"slug": job.campaign.slug, "job": job.pk})


def run_worker() -> None:
    """The real worker command, in this process, until the queue is empty."""
    # it installs its own shutdown handlers: give pytest its own back
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)}
    try:
        call_command("db_worker", "--batch", "--no-startup-delay", verbosity=0)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def test_a_large_upload_answers_at_once_with_the_job_page_and_the_worker_imports_it(organiser, campaign):
    before = Conversation.objects.count()
    response = upload(organiser, campaign, jsonl(8))
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == job_url(job)
    assert job.status == "queued" and job.conversations == 8 and job.percent == 0
    assert Conversation.objects.count() == before  # nothing written within the request
    assert DBTaskResult.objects.get(id=job.task_id).status == "READY"
    waiting = organiser.get(job_url(job)).content.decode()
    assert "manage.py db_worker" in waiting and 'hx-trigger="every 1s"' in waiting

    run_worker()

    job.refresh_from_db()
    assert job.status == "done" and job.percent == 100
    assert (job.parsed, job.checked, job.written) == (8, 8, 8)
    assert Conversation.objects.count() == before + 8
    assert not ImportJobFile.objects.exists()  # the files go once imported
    assert DBTaskResult.objects.get(id=job.task_id).status == "SUCCESSFUL"
    page = organiser.get(job_url(job)).content.decode()
    assert "8 conversation(s) imported" in page and "hx-trigger" not in page


def test_a_bad_file_imports_nothing_and_the_job_lists_its_errors_by_file_and_line(organiser, campaign):
    before = Conversation.objects.count()
    bad = jsonl(5, tag="bad")
    bad = SimpleUploadedFile("bad.jsonl", bad.read() + b'{"topic": "M001", "run": "bad-9", "turns": "none"}\n')
    upload(organiser, campaign, jsonl(4, tag="good"), bad)
    run_worker()
    job = ImportJob.objects.get()
    assert job.status == "failed" and Conversation.objects.count() == before  # the good file neither
    assert job.errors and all(e.startswith("bad.jsonl:6:") for e in job.errors)
    page = organiser.get(job_url(job)).content.decode()
    assert "Nothing was imported" in page and "bad.jsonl:6:" in page and "hx-trigger" not in page


def test_polling_gets_the_progress_fragment_until_the_job_ends(organiser, campaign):
    upload(organiser, campaign, jsonl(4))
    job = ImportJob.objects.get()
    running = organiser.get(job_url(job), headers={"HX-Request": "true"}).content.decode()
    assert running.lstrip().startswith('<section id="job-progress"') and "<html" not in running
    assert 'hx-trigger="every 1s"' in running and f'href="{job_url(job)}"' in running  # a real link too
    run_worker()
    finished = organiser.get(job_url(job), headers={"HX-Request": "true"}).content.decode()
    assert "hx-trigger" not in finished and 'value="100"' in finished


def test_the_upload_page_lists_the_campaigns_recent_imports(organiser, campaign):
    upload(organiser, campaign, jsonl(4))
    job = ImportJob.objects.get()
    page = organiser.get(reverse("console:upload", kwargs={"slug": campaign.slug})).content.decode()
    assert "Recent background imports" in page and f'href="{job_url(job)}"' in page and "bg.jsonl" in page


def test_an_upload_at_the_threshold_is_still_imported_within_the_request(organiser, campaign):
    before = Conversation.objects.count()
    response = upload(organiser, campaign, jsonl(3))
    assert response.status_code == 302 and response["Location"].endswith("/upload/")
    assert Conversation.objects.count() == before + 3 and not ImportJob.objects.exists()


def test_only_the_campaigns_organisers_see_its_imports(client_as, organiser, campaign):
    upload(organiser, campaign, jsonl(4))
    job = ImportJob.objects.get()
    assert_only_the_organiser_gets_in(client_as, job_url(job))
    other_campaign = reverse("console:import_job", kwargs={"slug": "other", "job": job.pk})
    assert client_as("other organiser").get(other_campaign).status_code == 404


def test_a_job_is_run_once_even_if_its_task_is_delivered_twice(organiser, campaign):
    from annotator.interchange.imports.jobs import run_import_job

    upload(organiser, campaign, jsonl(4))
    run_worker()
    job = ImportJob.objects.get()
    assert run_import_job.call(job.pk) == "done"
    assert Conversation.objects.filter(run__name="bg-0").count() == 4


def test_the_page_sees_the_progress_while_the_worker_is_still_importing(organiser, campaign, monkeypatch):
    from annotator.interchange.imports import conversations as importing

    seen = []
    write = importing.write_import

    def observed_write(plan, cancellation):
        # what the job page reads (another connection would see the same rows) as writing begins
        seen.append(organiser.get(job_url(ImportJob.objects.get())).content.decode())
        return write(plan, cancellation)

    monkeypatch.setattr(importing, "write_import", observed_write)
    upload(organiser, campaign, jsonl(6))
    run_worker()
    assert len(seen) == 1
    assert "Writing" in seen[0] and "6 read, 6 checked, 0 written" in seen[0]
    assert 'data-percent="67"' in seen[0]  # read and checked; the transaction's progress cannot be seen


def test_every_organiser_of_the_campaign_sees_an_import_another_one_started(organiser, campaign, client):
    from tests.factories import make_user

    upload(organiser, campaign, jsonl(4))
    job = ImportJob.objects.get()
    colleague = make_user("co-organiser")
    campaign.organisers.add(colleague)
    client.force_login(colleague)
    assert client.get(job_url(job)).status_code == 200
    assert f'href="{job_url(job)}"' in client.get(reverse("console:upload", kwargs={"slug": campaign.slug})).content.decode()


def test_an_import_that_crashes_fails_its_job_with_the_reason_and_the_task_too(organiser, campaign, monkeypatch):
    from annotator.interchange.imports import conversations as importing

    def crash(*args, **kwargs):
        raise MemoryError("out of memory")  # what a worker may meet; nothing of the import was written

    before = Conversation.objects.count()
    upload(organiser, campaign, jsonl(4))
    monkeypatch.setattr(importing, "import_files", crash)
    run_worker()
    job = ImportJob.objects.get()
    assert job.status == "failed" and job.errors == ["internal error: MemoryError: out of memory"]
    assert Conversation.objects.count() == before and not ImportJobFile.objects.exists()
    assert DBTaskResult.objects.get(id=job.task_id).status == "FAILED"
    assert "hx-trigger" not in organiser.get(job_url(job)).content.decode()


def test_a_background_import_for_a_new_automatic_judge_gives_it_the_judgments(organiser, campaign):
    from django.contrib.auth import get_user_model

    from annotator.models import Nugget

    organiser.post(reverse("console:upload", kwargs={"slug": campaign.slug}), {"files": [jsonl(4)], "new_judge": "second-judge"})
    judge = get_user_model().objects.get(username="second-judge")
    assert judge.annotator_profile.is_automatic and judge.annotator_profile.campaign == campaign
    run_worker()
    job = ImportJob.objects.get()
    assert job.status == "done" and job.annotator == judge
    assert Nugget.objects.filter(turn__conversation__run__name="bg-0").exclude(annotator=judge).count() == 0
    assert Nugget.objects.filter(turn__conversation__run__name="bg-0", annotator=judge).count() == 40


def test_a_huge_job_id_is_a_404(organiser, campaign):
    url = reverse("console:import_job", kwargs={"slug": campaign.slug, "job": 1}).replace("/1/", "/99999999999999999999/")
    assert organiser.get(url).status_code == 404


def test_a_background_import_keeps_the_topic_for_the_harvests_and_says_what_it_read(organiser, campaign):
    response = organiser.post(reverse("console:upload", kwargs={"slug": campaign.slug}),
                              {"files": [jsonl(4)], "topic": "M009"})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and job.topic == "M009"
    assert "harvests into topic M009" in organiser.get(job_url(job)).content.decode()
    run_worker()
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.errors
    assert job.summary.startswith("bg.jsonl: read as JSONL: 4 conversations. 4 conversation(s) imported")


def test_a_large_chatgpt_export_goes_to_the_background_counted_by_its_conversations(organiser, campaign, settings):
    from pathlib import Path

    settings.GFRC_BACKGROUND_IMPORT_CONVERSATIONS = 1
    data = (Path(__file__).resolve().parents[1] / "interchange" / "data" / "harvest" / "chatgpt-conversations.json").read_bytes()
    export = SimpleUploadedFile("conversations.json", data, content_type="application/json")
    organiser.post(reverse("console:upload", kwargs={"slug": campaign.slug}), {"files": [export], "run": "chatgpt", "topic": "M010"})
    job = ImportJob.objects.get()
    assert (job.conversations, job.topic) == (3, "M010")  # counted before parsing: its empty third one too
    run_worker()
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.errors
    assert job.summary.startswith("conversations.json: read as ChatGPT export: 2 conversations, 6 citations. 2 conversation(s)")
    assert Conversation.objects.filter(topic__code="M010").count() == job.conversations == 2


def claim_as(job: ImportJob, worker: str, stage: str = "writing", **fields) -> None:
    """The job as a worker left it when it claimed the task and reached `stage`."""
    from django.utils import timezone

    DBTaskResult.objects.filter(id=job.task_id).update(status="RUNNING", started_at=timezone.now())
    ImportJob.objects.filter(pk=job.pk).update(status="running", stage=stage, started_at=timezone.now(),
                                               worker=worker, **fields)


def killed_worker() -> str:
    """The record of a worker process on this host that was killed (kill -9) and is gone."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        worker = f"{socket.gethostname()} {process.pid} {processes.process_started(process.pid)}"
    finally:
        process.kill()
        process.wait()
    return worker


def test_a_job_whose_worker_was_killed_fails_with_why_drops_its_files_and_can_be_uploaded_again(organiser, campaign):
    upload(organiser, campaign, jsonl(4))
    job = ImportJob.objects.get()
    claim_as(job, killed_worker())
    before = Conversation.objects.count()
    page = organiser.get(job_url(job), headers={"HX-Request": "true"}).content.decode()
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert "stopped (its process is gone) while writing" in job.errors[0]
    assert "hx-trigger" not in page and "the worker running this import stopped" in page  # the polling ends
    assert not ImportJobFile.objects.exists()
    assert DBTaskResult.objects.get(id=job.task_id).status == "FAILED"
    # started again: the same files, uploaded again, are imported by a worker
    upload(organiser, campaign, jsonl(4))
    run_worker()
    assert ImportJob.objects.latest("pk").status == "done" and Conversation.objects.count() == before + 4


def test_a_job_whose_worker_still_runs_is_left_running(organiser, campaign):
    upload(organiser, campaign, jsonl(4))
    job = ImportJob.objects.get()
    claim_as(job, background.this_worker())  # this test process: alive
    organiser.get(job_url(job))
    job.refresh_from_db()
    assert job.status == "running" and ImportJobFile.objects.filter(job=job).exists()


def test_a_worker_on_another_host_is_dead_once_its_heartbeat_is_older_than_the_lease(organiser, campaign):
    from datetime import timedelta

    from django.utils import timezone

    upload(organiser, campaign, jsonl(4))
    job = ImportJob.objects.get()
    fresh = timezone.now() - timedelta(seconds=background.LEASE_SECONDS - 30)
    claim_as(job, "elsewhere 123 456", heartbeat_at=fresh)
    organiser.get(reverse("console:upload", kwargs={"slug": campaign.slug}))
    assert ImportJob.objects.get().status == "running"
    ImportJob.objects.filter(pk=job.pk).update(heartbeat_at=fresh - timedelta(seconds=60))
    organiser.get(reverse("console:upload", kwargs={"slug": campaign.slug}))
    job.refresh_from_db()
    assert job.status == "failed" and f"no sign of life for {background.LEASE_SECONDS} s" in job.errors[0]


def test_a_capture_waiting_for_the_worker_is_kept_without_its_headers_cookies_or_urls(organiser, campaign):
    from tests.console.test_console_upload import HARVESTS

    data = (HARVESTS / "capture.har").read_bytes()
    secrets = ("sk-proj-SECRET0123456789", "COOKIE0123456789", "AIzaSyGKEY0123456789")
    assert all(secret.encode() in data for secret in secrets)
    capture = SimpleUploadedFile("capture.har", data, content_type="application/json")
    response = organiser.post(reverse("console:upload", kwargs={"slug": campaign.slug}),
                              {"files": [capture], "run": "sys", "topic": "M010"})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and job.conversations == 6  # its entries: more than it holds, so in the background
    kept = bytes(ImportJobFile.objects.get(job=job).data)
    assert [secret for secret in secrets if secret.encode() in kept] == []

    run_worker()

    job.refresh_from_db()
    assert job.status == "done", job.errors
    assert "capture.har: read as HAR capture: 3 conversations, 3 citations." in job.summary
    assert Conversation.objects.filter(topic__code="M010").count() == 3


def test_one_conversation_of_30000_nuggets_goes_to_the_worker_by_its_size_and_the_page_answers_at_once(organiser, campaign):
    import json
    import time

    words = [f"w{i}" for i in range(30_000)]
    line = {"topic": "M002", "run": "dense-trial1",
            "turns": [{"role": "user", "text": "Name everything"}, {"role": "system", "text": " ".join(words)}],
            "nuggets": [{"turn": 2, "start": i, "end": i, "grade": "L1"} for i in range(30_000)]}
    data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
    assert 1_000_000 < len(data) < 2_000_000  # 1.5 MB: one conversation, below the threshold counted in conversations
    target = reverse("console:upload", kwargs={"slug": campaign.slug})
    assert organiser.get(target).status_code == 200  # the page's code loaded before the clock starts
    started = time.perf_counter()
    response = organiser.post(target, {"files": [SimpleUploadedFile("dense.jsonl", data)]})
    seconds = time.perf_counter() - started
    job = ImportJob.objects.get()  # before: imported within the request, 20 s and more
    assert response.status_code == 302 and response["Location"] == job_url(job)
    assert job.conversations == 1 and job.status == ImportJob.Status.QUEUED
    assert seconds < 5.0


def test_a_small_zip_that_holds_a_large_export_goes_to_the_worker_by_its_unzipped_size(settings):
    from annotator.interchange.imports.jobs import runs_in_background
    from tests.interchange.harvest_helpers import DATA, zipped

    export = (DATA / "claude-ai-conversations.json").read_bytes()
    settings.GFRC_BACKGROUND_IMPORT_BYTES = len(export) - 1
    small = zipped({"conversations.json": export})
    assert len(small) < len(export) and runs_in_background([("export.zip", small)])
    settings.GFRC_BACKGROUND_IMPORT_BYTES = len(export)
    assert not runs_in_background([("export.zip", small)])
