"""Which process holds a background job or a staging area: ``host pid start`` records, and
whether such a process still runs (a pid alone could be reused by a later one)."""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta
from pathlib import Path

from django.utils import timezone


def process_started(pid: int) -> str | None:
    """When the process started (clock ticks since boot, from /proc), None if there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, counted after the command name


def this_process() -> str:
    """The running process, as a job or a staging area records it: ``host pid start``."""
    pid = os.getpid()
    return f"{socket.gethostname()} {pid} {process_started(pid) or 0}"


def runs_here(record: str) -> bool | None:
    """Whether the recorded process still runs, when it is on this host; None for another host
    (the caller judges those by a sign of life)."""
    host, _, rest = record.partition(" ")
    if host != socket.gethostname() or not rest:
        return None
    pid, _, started = rest.partition(" ")
    return pid.isdigit() and process_started(int(pid)) == started


def on_this_host(record: str) -> bool:
    return record.partition(" ")[0] == socket.gethostname()


def alive(record: str, last_seen: datetime | None, lease: timedelta, now: datetime | None = None) -> bool:
    """Whether the recorded process still runs: on this host by its pid and start time (exact,
    whatever its signs of life), elsewhere by a sign of life within `lease`."""
    here = runs_here(record)
    if here is not None:
        return here
    return last_seen is not None and (now or timezone.now()) - last_seen < lease
