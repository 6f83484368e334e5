"""Screenshots of the organiser's console for the docs: docs/img/report.png, docs/img/grid.png and
docs/img/significance.png (the others go to a temporary directory, for a look).

Builds a demo-like campaign (several topics and runs, two annotators) from tests/console/demo.py
in a throw-away SQLite database, serves it with runserver and drives Debian's chromium with
Playwright:

    .venv/bin/python scripts/screenshots_console.py
"""

from __future__ import annotations

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="gfrc-shots-"))
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}", "DJANGO_SETTINGS_MODULE": "config.settings"}
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from tests.console.demo import build_demo

    campaign, organiser, _ = build_demo()
    first = campaign.topics.order_by("code").first().conversations.order_by("pk")
    side_by_side = ",".join(str(c.pk) for c in first[:2])  # read here: Playwright's loop refuses the ORM
    organiser.set_password("org-pw")
    organiser.save()
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

        OUT.mkdir(parents=True, exist_ok=True)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium"),
                args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
            )
            page = browser.new_page(viewport={"width": 1360, "height": 900})
            page.goto(f"{base}/accounts/login/")
            page.get_by_label("Username").fill("org")
            page.get_by_label("Password").fill("org-pw")
            page.get_by_role("button", name="Log in").click()
            page.wait_for_load_state("networkidle")
            for name, path in [("report", "report/"), ("grid", "grid/"), ("agreement", "agreement/"), ("settings", "settings/"),
                               ("progress", "progress/"), ("significance", "report/significance/?measure=GFRC&permutations=10000"),
                               ("trials", "report/trials/"), ("worst", "report/worst/"), ("conversations", f"conversations/{side_by_side}/")]:
                page.goto(f"{base}/console/{campaign.slug}/{path}")
                page.wait_for_load_state("networkidle")
                target = OUT / f"{name}.png" if name in ("report", "grid", "significance") else workdir / f"{name}.png"
                page.screenshot(path=str(target), full_page=True)
                print(target)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
