"""The product in pictures (docs/tour.md): screenshots of both sides, the annotator's and the
organiser's, taken from the demo (`manage.py load_demo`, what `make run` serves).

Loads the demo into a throw-away SQLite database, serves it with runserver and drives Debian's
chromium with Playwright at 1360x900:

    .venv/bin/python scripts/screenshots_console.py            # docs/img/tour-*.png (+ report, grid, significance)
    .venv/bin/python scripts/screenshots_console.py --out DIR  # elsewhere, for a look

docs/img/report.png, grid.png and significance.png (README, docs/console.md) are the tour's
pictures of those pages under their old names. docs/img/workspace.png is the browser test
tests/browser/test_workspace_screenshot.py's (GFRC_SCREENSHOTS=1).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img"
# (file name, who, path or a key of `places`, what to do on the page, full page?) in tour order
SHOTS = [
    ("tour-queue", "annotator", "/queue/", None, False),
    ("tour-workspace", "annotator", "paper_nugget", None, False),
    ("tour-workspace-citations", "annotator", "cited", None, False),
    ("tour-workspace-guidelines", "annotator", "guidelines", None, False),
    ("tour-console", "organiser", "/console/fairweb1/", None, False),
    ("tour-new-campaign", "organiser", "/console/new/", None, False),
    ("tour-topics", "organiser", "/console/fairweb1/topics/", None, False),
    ("tour-people", "organiser", "people_added", None, False),
    ("tour-guidelines", "organiser", "/console/fairweb1/guidelines/", None, False),
    ("tour-settings", "organiser", "/console/fairweb1/settings/", None, False),
    ("tour-upload", "organiser", "/console/fairweb1/upload/", None, False),
    ("tour-progress", "organiser", "/console/fairweb1/progress/", None, False),
    ("grid", "organiser", "/console/fairweb1/grid/", None, True),
    ("tour-agreement", "organiser", "/console/fairweb1/agreement/", None, False),
    ("tour-adjudication", "organiser", "three", None, False),
    ("report", "organiser", "/console/fairweb1/report/", None, True),
    ("significance", "organiser", "/console/fairweb1/report/significance/?measure=GFRC&permutations=10000", None, True),
    ("tour-trials", "organiser", "/console/fairweb1/report/trials/", None, False),
    ("tour-worst", "organiser", "/console/fairweb1/report/worst/", None, False),
    ("tour-side-by-side", "organiser", "side_by_side", None, False),
    ("tour-judges", "organiser", "/console/fairweb1/judges/", None, False),
    ("tour-llm-judge", "organiser", "/console/fairweb1/llm-judge/", None, False),
    ("tour-exports", "organiser", "/console/fairweb1/exports/", None, False),
    ("tour-api-docs", "organiser", "/api/docs/", ".swagger-ui .info", False),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    out = parser.parse_args().out
    workdir = Path(tempfile.mkdtemp(prefix="gfrc-shots-"))
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}", "DJANGO_SETTINGS_MODULE": "config.settings"}
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_demo", stdout=open(os.devnull, "w"))
    from annotator.models import Conversation, Nugget

    # read here: Playwright's loop refuses the ORM
    paper = Conversation.objects.get(topic__code="M002", run__name="bing-trial1")
    terminator = Nugget.objects.filter(turn__conversation=paper, annotator__username="annotator").order_by(
        "turn__position", "start_word")[1]
    cited = Conversation.objects.get(topic__code="T003", run__name="perplexity-trial1")  # annotator's, not begun
    trials = Conversation.objects.filter(topic__code="M001", run__name__startswith="bing").order_by("run__trial")
    places = {
        "paper_nugget": f"/conversations/{paper.pk}/?nugget={terminator.pk}",
        "cited": f"/conversations/{cited.pk}/",
        "three": f"/console/fairweb1/adjudicate/{Conversation.objects.get(topic__code='M001', run__name='chatgpt-trial1').pk}/",
        "side_by_side": "/console/fairweb1/conversations/" + ",".join(str(c.pk) for c in trials) + "/",
        "guidelines": f"/conversations/{cited.pk}/",
        "people_added": "/console/fairweb1/accounts/",
    }
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        from playwright.sync_api import sync_playwright

        out.mkdir(parents=True, exist_ok=True)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium"),
                args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
            )
            pages = {}
            for who in ("annotator", "organiser"):
                page = browser.new_context(viewport={"width": 1360, "height": 900}).new_page()
                page.goto(f"{base}/accounts/login/")
                page.get_by_label("Username").fill(who)
                page.get_by_label("Password").fill(who)
                page.get_by_role("button", name="Log in").click()
                page.wait_for_load_state("networkidle")
                pages[who] = page
            for name, who, where, wait_for, full in SHOTS:
                page = pages[who]
                page.goto(base + places.get(where, where))
                page.wait_for_load_state("networkidle")
                if wait_for:
                    page.locator(wait_for).first.wait_for()
                if where == "paper_nugget":
                    page.locator(f"#badge-{terminator.pk}").focus()
                if where == "guidelines":  # the guidelines beside the text: key g
                    page.locator("#turns .w").first.focus()
                    page.keyboard.press("g")
                if where == "people_added":  # two new people: their links, shown once
                    page.get_by_label("People, one a line").fill("dana,Dana Ruiz,dana@example.org\neli")
                    page.get_by_role("button", name="Add them").click()
                    page.wait_for_load_state("networkidle")
                target = out / f"{name}.png"
                page.screenshot(path=str(target), full_page=full)
                print(target)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
