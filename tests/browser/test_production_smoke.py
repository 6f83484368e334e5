"""The production path, end to end, as the README's "Running it for a campaign" runs it:
collectstatic, migrate and the demo into a fresh database, gunicorn with DEBUG=0 on a spare
loopback port; in Chromium the demo annotator logs in, opens the demo conversation, every
static file the pages link is served (hashed and compressed by WhiteNoise), one grade changed
through the UI moves the score panel. gunicorn is stopped whatever happens.

It runs on plain HTTP, so the three HTTPS-only settings are turned off the way the README says
for a trial without TLS; everything else is the production configuration.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
HASHED = re.compile(r"\.[0-9a-f]{12}\.(css|js)$")  # ManifestStaticFilesStorage's names
SETTINGS_WE_DECIDE = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "STATIC_ROOT", "CSRF_TRUSTED_ORIGINS",
                      "SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER",
                      "SECURE_HSTS_SECONDS", "DJANGO_SETTINGS_MODULE", "AXES_ENABLED")

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="the production smoke test builds its own database; it runs in `make test-browser` on SQLite",
)


def spare_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(*args: str, env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(args, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def finished(process: subprocess.Popen, log: Path) -> None:
    assert process.wait(timeout=120) == 0, f"{' '.join(process.args)} failed:\n{log.read_text()[-3000:]}"


@pytest.fixture
def production(tmp_path):
    """The base URL of gunicorn serving the app with DEBUG=0 and collected static files."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_WE_DECIDE}
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        STATIC_ROOT=str(tmp_path / "static"),
        # plain HTTP on loopback: the README's trial settings
        SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0",
    )
    manage = (str(BIN / "python"), "manage.py")
    collect = run(*manage, "collectstatic", "--noinput", env=env, log=tmp_path / "collectstatic.log")
    migrate = run(*manage, "migrate", "--noinput", env=env, log=tmp_path / "migrate.log")
    finished(migrate, tmp_path / "migrate.log")
    demo = run(*manage, "load_demo", env=env, log=tmp_path / "load_demo.log")
    finished(collect, tmp_path / "collectstatic.log")
    finished(demo, tmp_path / "load_demo.log")

    port = spare_port()
    log = tmp_path / "gunicorn.log"
    server = run(str(BIN / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2",
                 "--timeout", "30", env=env, log=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, f"gunicorn exited:\n{log.read_text()[-3000:]}"
            try:
                with urllib.request.urlopen(f"{url}/accounts/login/", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


def linked_static_files(page) -> list[str]:
    return page.eval_on_selector_all(
        "link[href^='/static/'], script[src^='/static/']",
        "nodes => nodes.map(n => n.getAttribute('href') || n.getAttribute('src'))",
    )


def test_the_production_server_serves_every_static_file_and_saves_a_grade(page, production):
    failed = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    linked = set()

    page.goto(f"{production}/accounts/login/")
    linked.update(linked_static_files(page))
    page.get_by_label("Username").fill("annotator")
    page.get_by_label("Password").fill("annotator")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="My queue")).to_be_visible()
    linked.update(linked_static_files(page))

    page.get_by_role("link", name="Open M002 bing-trial1", exact=True).click()
    panel_r = page.locator("#score-panel [data-score=R]")
    expect(panel_r).to_have_text("0.0143")  # the paper's M002 Bing conversation, as annotated
    linked.update(linked_static_files(page))
    # htmx and annotate.js ran: the page's scripts are live, not just linked
    assert page.evaluate("typeof htmx") == "object"

    # One save through the UI: the first nugget (Back to the Future, L2) becomes L0.
    page.locator("#turns a.wc").first.click()
    expect(page.locator("#grade-2")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="Grade L0").click()
    expect(page.locator("#grade-0")).to_have_attribute("aria-pressed", "true")
    expect(panel_r).not_to_have_text("0.0143")

    for path in ("/api/token/mine/", "/api/docs/"):  # console.css; Swagger UI's own files
        page.goto(f"{production}{path}")
        linked.update(linked_static_files(page))
    expect(page.locator(".swagger-ui .info")).to_be_visible()

    app_files = {"css/app", "css/workspace", "css/console", "vendor/htmx-2.0.11.min", "js/annotate"}
    assert {re.sub(HASHED, "", path.removeprefix("/static/")) for path in linked if HASHED.search(path)} >= app_files
    assert any("swagger-ui-bundle" in path for path in linked)
    for path in sorted(linked):
        response = page.request.get(f"{production}{path}")
        assert response.status == 200, path
    htmx = next(path for path in linked if "htmx" in path)
    served = page.request.get(f"{production}{htmx}", headers={"Accept-Encoding": "br, gzip"})
    assert served.headers.get("content-encoding") in {"br", "gzip"}
    assert "immutable" in served.headers["cache-control"]
    assert failed == []
