"""Where a run's raw numbers go, with a description of the machine they were measured on."""

from __future__ import annotations

import json
import os
import platform
import tempfile
from pathlib import Path


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
    """Keep the raw numbers (GFRC_BENCH_OUT, default <the temporary directory>/gfrc-bench-results/<name>.json)."""
    out = Path(os.environ.get("GFRC_BENCH_OUT") or Path(tempfile.gettempdir()) / "gfrc-bench-results")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    return path
