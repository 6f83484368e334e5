"""annotator.background.processes: a job's or a staging area's process recorded as ``host pid
start``, and whether it still runs: exactly on this host (a pid reused by a later process is not
it), by a recent sign of life elsewhere."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import timedelta

from django.utils import timezone

from annotator.background import processes

LEASE = timedelta(seconds=120)


def gone_process() -> str:
    """The record of a process of this host that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    record = f"{socket.gethostname()} {child.pid} {processes.process_started(child.pid)}"
    child.wait()
    return record


def test_this_process_is_recorded_by_its_host_pid_and_start_time():
    host, pid, started = processes.this_process().split()
    assert (host, int(pid), started) == (socket.gethostname(), os.getpid(), processes.process_started(os.getpid()))


def test_a_process_of_this_host_runs_only_while_its_pid_has_the_same_start_time():
    host, pid, started = processes.this_process().split()
    assert processes.runs_here(processes.this_process()) is True
    assert processes.runs_here(f"{host} {pid} {int(started) + 1}") is False  # the pid, reused by a later process
    assert processes.runs_here(gone_process()) is False


def test_a_process_of_another_host_is_not_judged_by_its_pid():
    assert processes.runs_here(f"elsewhere {os.getpid()} 1") is None
    assert not processes.on_this_host("elsewhere 1 2") and processes.on_this_host(processes.this_process())


def test_a_process_of_this_host_is_alive_whatever_its_signs_of_life_say():
    long_ago = timezone.now() - timedelta(days=1)
    assert processes.alive(processes.this_process(), None, LEASE)
    assert not processes.alive(gone_process(), timezone.now(), LEASE)
    assert processes.alive(processes.this_process(), long_ago, LEASE)


def test_a_process_of_another_host_is_alive_while_its_last_sign_of_life_is_within_the_lease():
    now = timezone.now()
    assert processes.alive("elsewhere 1 2", now - LEASE + timedelta(seconds=1), LEASE, now)
    assert not processes.alive("elsewhere 1 2", now - LEASE, LEASE, now)
    assert not processes.alive("elsewhere 1 2", None, LEASE, now)  # never seen
