"""Nothing derived lives in one process's memory: with gunicorn running two workers (the README's
production shape, DEBUG=0), a save through one worker is in the scores read through either at
once. Both workers are made to read the campaign's scores before the save (a worker keeping
them in memory would answer the old figures after it), then every read after the save, each on
a new connection, must show the new figures."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DECIDED = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "STATIC_ROOT", "DJANGO_SETTINGS_MODULE",
           "SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER",
           "SECURE_HSTS_SECONDS", "CSRF_TRUSTED_ORIGINS")

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")), reason="builds its own SQLite database and server"
)


def _spare_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _call(url: str, method: str = "GET", data: dict | None = None, token: str | None = None):
    body = json.dumps(data).encode() if data is not None else None
    request = urllib.request.Request(url, data=body, method=method)
    request.add_header("Connection", "close")  # a new connection each time: either worker may answer
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"null")


@pytest.fixture
def two_workers(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in DECIDED}
    env.update(DEBUG="0", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="127.0.0.1",
               DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", STATIC_ROOT=str(tmp_path / "static"),
               SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0")
    for command in (("migrate", "--noinput"), ("load_demo",)):
        subprocess.run([str(BIN / "python"), "manage.py", *command], cwd=ROOT, env=env, check=True,
                       capture_output=True, timeout=300)
    port = _spare_port()
    log = (tmp_path / "gunicorn.log").open("w")
    server = subprocess.Popen([str(BIN / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2",
                               "--timeout", "60"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/campaigns/", timeout=5).read()
                break
            except urllib.error.HTTPError:  # an answer (401 without a token): the server is up
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError((tmp_path / "gunicorn.log").read_text()[-3000:]) from None
                time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_save_through_one_worker_is_in_the_report_read_through_the_other_at_once(two_workers):
    url = two_workers
    annotator = _call(f"{url}/api/token/", "POST", {"username": "annotator", "password": "annotator"})["token"]
    organiser = _call(f"{url}/api/token/", "POST", {"username": "organiser", "password": "organiser"})["token"]
    scores_url = f"{url}/api/campaigns/fairweb1/scores/"
    before = _call(scores_url, token=organiser)["conversations"]
    for _ in range(8):  # both workers read (and could keep) the figures before the save
        assert _call(scores_url, token=organiser)["conversations"] == before
    nugget = _call(f"{url}/api/nuggets/", token=annotator)["results"][0]
    saved = _call(f"{url}/api/nuggets/{nugget['id']}/?version={nugget['version']}", "DELETE", token=annotator)
    conversation = nugget["conversation"]
    old = next(row for row in before if row["conversation"] == conversation)
    assert saved["R"] < old["R"]
    for _ in range(8):
        after = _call(scores_url, token=organiser)["conversations"]
        row = next(row for row in after if row["conversation"] == conversation)
        assert row["R"] == pytest.approx(saved["R"], abs=1e-12) and row["GFRC"] == pytest.approx(saved["GFRC"], abs=1e-12)
