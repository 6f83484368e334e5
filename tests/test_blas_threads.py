"""numpy's OpenBLAS runs one thread in every process the app starts (config/__init__.py): the
app's parallelism is its worker processes, and OpenBLAS's spinning threads took 2 s of CPU from
them in a FairWeb-size `score_runs` for no gain in wall time (docs/benchmarks.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# What OpenBLAS itself says, from the library numpy loaded (found in the process's memory map:
# numpy's wheels bundle scipy-openblas, whose symbols carry a prefix and a suffix).
THREADS_IN_EFFECT = """
import ctypes, numpy
path = next(line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line.lower())
library = ctypes.CDLL(path)
names = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads")
print(next(getattr(library, name)() for name in names if hasattr(library, name)))
"""


def threads_in(start: str, **env) -> int:
    """OpenBLAS's thread count in a fresh process that runs `start` first, as it starts."""
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    environment.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    out = subprocess.run([sys.executable, "-c", f"{start}\n{THREADS_IN_EFFECT}"], cwd=ROOT, env=environment,
                         capture_output=True, text=True, check=True, timeout=60)
    return int(out.stdout.split()[-1])


def test_without_the_app_openblas_would_start_a_thread_per_core():
    # what the setting is for, and a check that the probe reads the count in effect
    if len(os.sched_getaffinity(0)) > 1:
        assert threads_in("pass") > 1


def test_the_server_and_the_commands_run_openblas_on_one_thread():
    assert threads_in("import config.wsgi") == 1  # gunicorn's and runserver's entry
    assert threads_in("import django; django.setup()") == 1  # manage.py's commands, the import worker


def test_an_operators_own_thread_count_is_kept():
    assert threads_in("import config.wsgi", OPENBLAS_NUM_THREADS="2") == 2
