"""An organiser uploads a file above the background threshold, watches the job page, and sees
the import complete when a real worker process (`manage.py db_worker`) runs the job."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import expect
from django.db import connection

from annotator.interchange.formats import parse_paper, write_jsonl
from annotator.models import Conversation
from tests.console.demo import build_demo
from tests.console.test_console_upload import EXAMPLE

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def test_database_url() -> str:
    """DATABASE_URL of the test database, for a worker in another process."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    credentials = quote(db["USER"] or "") + (":" + quote(db["PASSWORD"]) if db["PASSWORD"] else "")
    return f"postgres://{credentials}@{db['HOST'] or ''}:{db['PORT'] or 5432}/{db['NAME']}"


test_database_url.__test__ = False  # a helper, not a test


def test_a_large_upload_shows_its_progress_and_completes_when_the_worker_runs_it(page, live_server, login, settings, tmp_path):
    settings.GFRC_BACKGROUND_IMPORT_CONVERSATIONS = 3
    campaign = build_demo(n_topics=1)[0]
    lines = []
    for i in range(12):
        conversation = parse_paper(EXAMPLE.read_text(), "x").conversations[0]
        conversation.topic, conversation.run = f"M{i % 6 + 1:03d}", f"big-{i // 6}"
        lines.append(write_jsonl([conversation]))
    upload = tmp_path / "big.jsonl"
    upload.write_text("".join(lines))
    before = Conversation.objects.filter(topic__campaign=campaign).count()

    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/upload/")
    page.get_by_label("Conversation files").set_input_files(str(upload))
    page.get_by_role("button", name="Import").click()
    page.get_by_role("heading", name="Import").wait_for()
    expect(page.get_by_text("Waiting for the worker")).to_be_visible()
    assert page.locator("#job-progress progress").get_attribute("value") == "0"

    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay", "--no-reload"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": test_database_url()},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        # htmx polls the progress fragment every second: no reload of the page
        page.get_by_text("12 conversation(s) imported").wait_for(timeout=90_000)
    finally:
        output = worker.communicate(timeout=60)[0]
    assert worker.returncode == 0, output
    assert page.locator("#job-progress progress").get_attribute("value") == "100"
    expect(page.get_by_text("12 read, 12 checked, 12 written")).to_be_visible()
    assert Conversation.objects.filter(topic__campaign=campaign).count() == before + 12

    page.get_by_role("navigation", name="Campaign").get_by_role("link", name="Upload").click()
    assert page.get_by_role("cell", name="big.jsonl").is_visible()
