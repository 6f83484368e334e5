"""bench/bench_llm_judge.py still runs (whether, never how fast), here against the tiny local
server answering every URL line; the real model's figures are in docs/benchmarks.md."""

from __future__ import annotations

import json

from tests.llm_judge.fake_server import FakeServer
from tests.llm_judge.test_runner import scripted
from tests.test_benches_run import _run


def test_the_llm_judge_benchmark_runs_and_measures_the_judge_against_the_gold(tmp_path):
    with FakeServer(scripted) as server:
        completed = _run(tmp_path, "bench/bench_llm_judge.py", "--base-url", server.base_url, "--model", "scripted")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads((tmp_path / "llm_judge.json").read_text())
    assert result["judged"] == result["conversations"] >= 1 and result["requests"] >= 2
    # the demo's gold marks URL lines among others, as this judge proposes every URL line: some match, not all
    assert 0 < result["span_f1_exact"] < 1
    assert "from the cache" in completed.stdout and "kappa on grades" in completed.stdout
