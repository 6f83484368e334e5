"""A 12,000-conversation upload through the console, in the request and in the background.

The same seeded JSONL file as bench_import.py (about 7.5 MB for 12,000 conversations) is
uploaded by an organiser to the console's upload page of a gunicorn server (one sync worker;
the benchmark's gunicorn allows 120 s a request so that the in-request import can be timed):

1. with the background threshold above the file (the import runs within the request: what
   every upload did before background imports), timing the request;
2. with the default threshold (2,000): timing the request, which answers with the job page,
   then a `manage.py db_worker` process imports it while the benchmark polls the job page like
   the browser does (htmx, every second), recording each poll's time and the progress shown.

    .venv/bin/python bench/bench_background_import.py [--conversations 12000] [--background-from 2000]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib import PYTHON, ROOT  # noqa: E402
from bench.lib.client import Browser  # noqa: E402
from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.generators import write_campaign_file  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.seeding import make_annotator, make_campaign  # noqa: E402
from bench.lib.server import gunicorn  # noqa: E402
from bench.lib.timing import summary_ms  # noqa: E402


def upload(port: int, slug: str, name: str, data: bytes) -> tuple[float, int, str]:
    browser = Browser(port)
    browser.login("org")
    status, _, page = browser.request("GET", f"/console/{slug}/upload/")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
    started = time.perf_counter()
    status, headers, _ = browser.request("POST", f"/console/{slug}/upload/", {"csrfmiddlewaretoken": token},
                                         files={"files": (name, data)})
    seconds = time.perf_counter() - started
    browser.close()
    return seconds, status, headers.get("location", "")


def run(conversations: int, background_from: int = 2000) -> dict:
    with bench_database() as tmp:
        from annotator.models import Conversation, ImportJob

        organiser = make_annotator("org")
        for slug in ("in-request", "background"):
            make_campaign(slug).organisers.add(organiser)
        path = tmp / "conversations.jsonl"
        size = write_campaign_file(path, conversations)
        data = path.read_bytes()
        result = {"machine": machine(), "database": database_label(), "conversations": conversations,
                  "file_mb": round(size / 1e6, 2)}

        os.environ["GFRC_BACKGROUND_IMPORT_CONVERSATIONS"] = str(conversations + 1)
        os.environ["GFRC_BACKGROUND_IMPORT_BYTES"] = str(len(data) + 1)  # in the request: by neither count
        with gunicorn() as port:
            seconds, status, _ = upload(port, "in-request", path.name, data)
        result["in_request"] = {"request_s": round(seconds, 2), "status": status,
                                "conversations_written": Conversation.objects.filter(topic__campaign__slug="in-request").count()}

        os.environ["GFRC_BACKGROUND_IMPORT_CONVERSATIONS"] = str(background_from)
        os.environ.pop("GFRC_BACKGROUND_IMPORT_BYTES")
        with gunicorn() as port:
            seconds, status, location = upload(port, "background", path.name, data)
            job = ImportJob.objects.get()
            background = {"request_s": round(seconds, 2), "status": status, "answer": location,
                          "written_when_answered": Conversation.objects.filter(topic__campaign__slug="background").count()}
            worker = subprocess.Popen([PYTHON, "manage.py", "db_worker", "--batch", "--no-startup-delay", "--no-reload"],
                                      cwd=ROOT, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started = time.perf_counter()
            browser = Browser(port)
            browser.login("org")
            polls, progress = [], []
            while True:
                poll_started = time.perf_counter()
                status, _, page = browser.request("GET", location, htmx=True)
                polls.append(time.perf_counter() - poll_started)
                percent = int(re.search(rb'<progress max="100" (?:value|aria-label="Import progress" data-percent)="(\d+)"', page).group(1))
                if not progress or progress[-1][1] != percent:
                    progress.append((round(time.perf_counter() - started, 1), percent))
                if b"hx-trigger" not in page:
                    break
                time.sleep(1)
            background["job_done_s"] = round(time.perf_counter() - started, 1)
            worker.wait(timeout=120)
            browser.close()
        job.refresh_from_db()
        background.update({
            "job_status": job.status, "job_summary": job.summary[:300],
            "job_import_s": round((job.finished_at - job.started_at).total_seconds(), 1),
            "conversations_written": Conversation.objects.filter(topic__campaign__slug="background").count(),
            "polls": summary_ms(polls), "progress_seen": progress,
        })
        result["background"] = background
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=12_000)
    parser.add_argument("--background-from", type=int, default=2000,
                        help="an upload of more conversations than this is imported in the background (the default threshold)")
    args = parser.parse_args()
    result = run(args.conversations, args.background_from)
    path = write_result("background-import-" + result["database"].split()[0].lower(), result)
    inline, background = result["in_request"], result["background"]
    print(f"== a {result['conversations']}-conversation upload ({result['file_mb']} MB JSONL, {result['database']})")
    print(f"in the request: {inline['request_s']} s (HTTP {inline['status']}), {inline['conversations_written']} written")
    print(f"background: answered in {background['request_s']} s (HTTP {background['status']} -> {background['answer']}), "
          f"{background['written_when_answered']} written then; job {background['job_status']} after "
          f"{background['job_done_s']} s (import {background['job_import_s']} s), {background['conversations_written']} written")
    print(f"   job page polls while importing: {background['polls']}; progress (s, %): {background['progress_seen']}")
    print(f"(raw: {path})")
    if background["job_status"] != "done" or background["conversations_written"] != result["conversations"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
