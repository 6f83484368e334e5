"""Shared pieces of the benchmarks: a throwaway database with seeded campaigns, a gunicorn
server on 127.0.0.1, a keep-alive HTTP client that logs in like a browser (session cookie,
CSRF token, htmx headers), percentiles, and a description of the machine.

Everything runs on loopback and in temporary directories; nothing is left behind.
Database: DATABASE_URL when set (e.g. under scripts/with-postgres.sh), else a new SQLite file.
"""

from __future__ import annotations

import http.client
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
PASSWORD = "bench-password-1"


def checkout(revision: str, into: Path) -> Path:
    """The tree of `revision` (git archive) in `into`: older code to run beside this checkout's."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


# -- database -------------------------------------------------------------------------------


@contextmanager
def bench_database():
    """Point this process (and the servers it starts) at an empty, migrated database."""
    tmp = Path(tempfile.mkdtemp(prefix="gfrc-bench-"))
    try:
        if not os.environ.get("DATABASE_URL"):
            os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
            created_sqlite = True
        else:
            created_sqlite = False
            _reset_postgres()
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        os.environ["DEBUG"] = "0"
        os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production-0123456789")
        os.environ["ALLOWED_HOSTS"] = "127.0.0.1,localhost"
        # Plain HTTP on loopback: the README's trial settings (production is HTTPS behind a proxy).
        os.environ.update(SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0")
        os.environ["STATIC_ROOT"] = str(tmp / "static")  # collected when a server first starts
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
        _django_setup()
        yield tmp
    finally:
        if created_sqlite:
            os.environ.pop("DATABASE_URL", None)
        shutil.rmtree(tmp, ignore_errors=True)


def _reset_postgres() -> None:
    """Empty the benchmark's PostgreSQL database (a throwaway one: scripts/with-postgres.sh)."""
    import psycopg

    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


def _django_setup() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def database_label() -> str:
    from django.db import connection

    if connection.vendor == "sqlite":
        import sqlite3

        return f"SQLite {sqlite3.sqlite_version} (file, WAL)"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        return f"PostgreSQL {cursor.fetchone()[0].split()[0]} (loopback)"


# -- seeding --------------------------------------------------------------------------------


def movie_line(k: int) -> str:
    return f"Movie number {k} ({1950 + k % 70}): https://www.imdb.com/title/tt{1000000 + k}/ is worth a look."


WORDS_PER_LINE = len(movie_line(1).split())  # 9; the nugget is words 0..4 (title to URL)


def seed_conversation(campaign, annotator, *, nuggets: int, run: str, topic: str = "M002", spare: int = 1,
                      per_turn: int = 30):
    """A conversation with `nuggets` marked, graded nuggets (+ `spare` unmarked movie lines),
    built through the business rules like an annotator would."""
    from annotator.judgments import edits
    from annotator.models import AttributeSet, Grade
    from tests.factories import make_conversation

    total = nuggets + spare
    turns = []
    for t in range(0, max(total, 1), per_turn):
        turns.append(("U", f"Question {t // per_turn + 1}: more movies about time travel please, with links"))
        turns.append(("S", " ".join(movie_line(k) for k in range(t, min(t + per_turn, total)))))
    conversation = make_conversation(campaign, turns, topic=topic, run=run, annotators=[annotator])
    grades = list(Grade.objects.filter(campaign=campaign).order_by("level"))
    origin = AttributeSet.objects.get(topic_type=conversation.topic.topic_type, name="ORIGIN")
    system_turns = list(conversation.turns.filter(role="S").order_by("position"))
    for k in range(nuggets):
        turn = system_turns[k // per_turn]
        start = (k % per_turn) * WORDS_PER_LINE
        nugget = edits.create_nugget(annotator=annotator, actor=annotator, turn=turn,
                                           start_word=start, end_word=start + 4)
        entity = nugget.entity
        edits.update_entity(entity, actor=annotator, expected_version=entity.version, grade=grades[1 + k % 2])
        if k % 3 == 0:
            vector = [0.0] * 8
            vector[k % 8] = 1.0
            edits.set_membership(entity, origin, actor=annotator, expected_version=entity.version, vector=vector)
    return conversation


def seed_sizes(sizes) -> dict:
    """size -> (annotator, conversation): a campaign with one annotator and one conversation of
    `size` graded nuggets per size (seed_conversation)."""
    campaign = make_campaign_with("bench")
    seeded = {}
    for size in sizes:
        annotator = make_annotator(f"ann{size}")
        seeded[size] = (annotator, seed_conversation(campaign, annotator, nuggets=size, run=f"run-{size}"))
    return seeded


def spare_span(conversation, nuggets: int, per_turn: int = 30):
    """(turn, start, end) of the first unmarked movie line."""
    system_turns = list(conversation.turns.filter(role="S").order_by("position"))
    turn = system_turns[nuggets // per_turn]
    start = (nuggets % per_turn) * WORDS_PER_LINE
    return turn, start, start + 4


def make_campaign_with(slug: str):
    from tests.factories import make_campaign

    return make_campaign(slug=slug)


def make_annotator(username: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=PASSWORD)


# -- server ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SERVER_GROUPS: dict[int, int] = {}  # port -> the process group of the gunicorn serving it


def cpu_seconds(groups=(), commands=()) -> float:
    """CPU time (user + system) so far of the processes in these process groups and of those
    whose command is one of `commands` (e.g. "postgres"): the server side's work, not the clients'."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        command = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[2]) in groups or command in commands:
            # fields[2]: pgrp; [11], [12]: utime, stime; [13], [14]: of its children that have ended
            # (PostgreSQL's backends end with their connections: the postmaster keeps their time)
            total += sum(int(f) for f in fields[11:15])
    return total / tick


@contextmanager
def gunicorn(workers: int = 1, threads: int = 1, log: Path | None = None, nice: int = 0):
    """gunicorn serving config.wsgi on 127.0.0.1:<spare port>; yields the port. `nice`: its
    processes' CPU priority (the README's second pool, for the organisers' pages, runs at 10)."""
    if not (Path(os.environ["STATIC_ROOT"]) / "staticfiles.json").exists():
        # DEBUG=0 pages link the hashed files collectstatic writes (WhiteNoise's manifest).
        subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    port = free_port()
    command = [
        PYTHON, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers), "--threads", str(threads), "--worker-class", "gthread" if threads > 1 else "sync",
        "--backlog", "256", "--timeout", "120", "--log-level", "warning",
    ]
    env = dict(os.environ, DEBUG="0", PYTHONUNBUFFERED="1")
    out = open(log, "ab") if log else subprocess.DEVNULL
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True,
                               preexec_fn=(lambda: os.nice(nice)) if nice else None)
    if nice and Path(f"/proc/{process.pid}/autogroup").exists():
        # A new session is a scheduling group of its own (Linux autogroups): a process's nice
        # weighs only against its own group, so the group's weight is what gives the other
        # server's workers the CPU first (systemd's CPUWeight= does this for a unit's cgroup).
        Path(f"/proc/{process.pid}/autogroup").write_text(str(nice))
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("gunicorn did not start in 60 s")
                time.sleep(0.1)
        # The first request of a worker imports the URLconf (and everything views import): warm every worker.
        for _ in range(workers * 2):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            connection.request("GET", "/accounts/login/")
            connection.getresponse().read()
            connection.close()
        SERVER_GROUPS[port] = process.pid
        yield port
    finally:
        SERVER_GROUPS.pop(port, None)
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if log:
            out.close()


# -- client ---------------------------------------------------------------------------------


class Browser:
    """One annotator's tab: keep-alive connection, session and CSRF cookies, htmx headers."""

    def __init__(self, port: int):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, data: dict | None = None, htmx: bool = False,
                files: dict[str, tuple[str, bytes]] | None = None) -> tuple[int, dict, bytes]:
        """`files`: field -> (file name, content), sent as multipart/form-data with `data`."""
        headers = {"Host": f"127.0.0.1:{self.port}", "Connection": "keep-alive"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if method == "POST":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            headers["Referer"] = f"http://127.0.0.1:{self.port}{path}"
            headers["Origin"] = f"http://127.0.0.1:{self.port}"
            body = urlencode(data or {})
            if files:
                headers["Content-Type"], body = _multipart(data or {}, files)
        if htmx:
            headers["HX-Request"] = "true"
            headers["HX-Current-URL"] = f"http://127.0.0.1:{self.port}{path}"
        for attempt in (1, 2):
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                content = response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                if attempt == 2:
                    raise
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, {k.lower(): v for k, v in response.getheaders()}, content

    def login(self, username: str, password: str = PASSWORD) -> None:
        status, _, page = self.request("GET", "/accounts/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert status == 200 and token, "no login form"
        status, headers, _ = self.request(
            "POST", "/accounts/login/",
            {"csrfmiddlewaretoken": token.group(1).decode(), "username": username, "password": password},
        )
        assert status == 302 and "sessionid" in self.cookies, f"login failed for {username}: {status}"

    def close(self) -> None:
        self.connection.close()


def _multipart(data: dict, files: dict[str, tuple[str, bytes]]) -> tuple[str, bytes]:
    boundary = "gfrc-bench-boundary-7d1c9a"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in data.items()]
    for field, (name, content) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
                     f"Content-Type: application/octet-stream\r\n\r\n".encode() + content + b"\r\n")
    return f"multipart/form-data; boundary={boundary}", b"".join(parts) + f"--{boundary}--\r\n".encode()


# -- numbers --------------------------------------------------------------------------------


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    index = (len(ordered) - 1) * q
    low, high = int(index), min(int(index) + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (index - low)


def summary_ms(samples: list[float]) -> dict:
    return {
        "n": len(samples),
        "p50_ms": round(percentile(samples, 0.50) * 1000, 2),
        "p95_ms": round(percentile(samples, 0.95) * 1000, 2),
        "max_ms": round(max(samples) * 1000, 2) if samples else None,
    }


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    import django

    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram": ram,
        "python": platform.python_version(),
        "django": django.get_version(),
        "os": platform.platform(),
    }


def write_result(name: str, result: dict) -> Path:
    """Keep the raw numbers (GFRC_BENCH_OUT, default /tmp/gfrc-bench-results/<name>.json)."""
    out = Path(os.environ.get("GFRC_BENCH_OUT") or Path(tempfile.gettempdir()) / "gfrc-bench-results")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    return path
