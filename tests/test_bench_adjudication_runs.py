"""The adjudication benchmark still runs against the product as it is (its decision had been
refused by the form unnoticed): smallest size, one repeat; whether it runs, never how fast."""

from __future__ import annotations

import json

from tests.test_benches_run import _run


def test_the_adjudication_benchmark_runs_and_its_decision_is_taken(tmp_path):
    completed = _run(tmp_path, "bench/bench_adjudication.py", "--topics", "3", "--runs", "3", "--repeats", "1")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads((tmp_path / "adjudication-sqlite.json").read_text())
    assert result["conversations"] == 9 and result["effects_s"] > 0
