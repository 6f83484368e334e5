"""gunicorn serving the product (or `bench.lib.floor_settings`: the product plus the floor's
bare views) on 127.0.0.1 and a spare port, and the CPU time its processes used."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

from bench.lib import PYTHON, ROOT


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
        _wait_until_it_answers(process, port, workers)
        SERVER_GROUPS[port] = process.pid
        yield port
    finally:
        SERVER_GROUPS.pop(port, None)
        _stop(process)
        if log:
            out.close()


def _wait_until_it_answers(process: subprocess.Popen, port: int, workers: int) -> None:
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


def _stop(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
