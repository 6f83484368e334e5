"""Reading timings: percentiles of samples, the best of repeated runs, the load average (on a
shared machine absolute times move with it; the best of several runs, and ratios measured in
the same run, move less)."""

from __future__ import annotations

import os
import time


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


def best_time(function, repeats: int) -> tuple[float, object]:
    """(the shortest of `repeats` calls of `function` in seconds, what the last call returned)."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def load_average() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
