"""The benchmarks still run against the product as it is, at their smallest sizes: whether they
run, never how fast (speed is the benchmarks' own business). The save benchmark had been
failing since edits stopped sending HX-Trigger, and no test noticed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path, *args) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env["GFRC_BENCH_OUT"] = str(tmp_path)
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_the_save_benchmark_runs_with_its_floor_requests_beside_it(tmp_path):
    size = 20  # a turn holds them all: the floor's nugget is found beside the saved span
    completed = _run(tmp_path, "bench/bench_http.py", "--iterations", "1", "--sizes", str(size))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert f"{size} nuggets: save (one POST)" in completed.stdout
    result = json.loads((tmp_path / "http-sqlite.json").read_text())
    assert result["sizes"][str(size)]["save_round_trip"]["n"] == 1


def test_the_harvest_reading_benchmark_runs_on_a_har_capture(tmp_path):
    completed = _run(tmp_path, "bench/bench_harvest_read.py", "--format", "har", "--conversations", "2", "--repeat", "1")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads((tmp_path / "harvest_read_har.json").read_text())
    assert (result["format"], result["conversations"], result["citations"]) == ("HAR capture", 2, 48)


def test_the_agreement_benchmark_runs_without_the_replaced_code_from_git(tmp_path):
    completed = _run(tmp_path, "bench/bench_agreement.py", "--units", "60", "--coders", "2", "--repeats", "1",
                     "--topics", "2", "--runs", "2", "--before", "none")  # no git history needed (CI may clone shallow)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "| 2 x 60 | ordinal |" in completed.stdout and "agreement page's campaign_agreement" in completed.stdout
    result = json.loads((tmp_path / "bench_agreement.json").read_text())
    assert result["campaign"]["conversations"] == 4 and result["campaign"]["units"] > 0


def test_the_ranked_lists_benchmark_imports_and_scores_a_pack_beside_the_numpy_script_with_equal_figures(tmp_path):
    completed = _run(tmp_path, "bench/bench_ranked_lists.py", "--runs", "2", "--topics", "4", "--documents", "8")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads((tmp_path / "bench_ranked_lists.json").read_text())
    assert set(result["app"]) == {"load_campaign", "import_ntcireval", "import_runs", "score_runs"}
    for agreement in (result["agreement"], result["agreement_as_ntcireval"]):
        assert agreement["figures"] > 0 and agreement["keys_not_in_both"] == 0 and agreement["max_abs_difference"] < 1e-12
    assert result["edit"]["lists_changed"] >= 1


def test_the_saves_during_an_import_benchmark_runs_and_the_import_lands_whole(tmp_path):
    completed = _run(tmp_path, "bench/bench_import_concurrent_saves.py", "--conversations", "200", "--before", "none",
                     "--interval", "0.05")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads((tmp_path / "import-concurrent-saves-sqlite.json").read_text())
    after = result["rounds"]["after"]
    assert after["import_ok"] and after["conversations_landed"] == 200 and after["nuggets_landed"] == 600
    assert after["failed"] == 0 and result["staging_areas_left"] == 0 and "published in" in after["staging"]


def test_the_campaign_pages_benchmark_times_every_console_page_beside_its_floor(tmp_path):
    completed = _run(tmp_path, "bench/bench_campaign_pages.py", "--topics", "3", "--runs", "2", "--second", "2",
                     "--repeats", "1")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "| score report |" in completed.stdout and "settings change: new L re-scores in" in completed.stdout
    result = json.loads((tmp_path / "campaign_pages-sqlite.json").read_text())
    assert result["conversations"] == 6 and result["floor_s"] > 0
    assert {p["status"] for p in result["pages"].values()} == {200}


def test_the_load_benchmark_compares_the_annotators_alone_with_organisers_reloading_the_report(tmp_path):
    completed = _run(tmp_path, "bench/bench_load.py", "--annotators", "2", "--changes", "1000", "--organisers", "1",
                     "--campaign-conversations", "40", "--phase-seconds", "2", "--rounds", "1", "--workers", "1",
                     "--threads", "2", "--console-workers", "1")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "annotators' throughput kept while the organisers reload:" in completed.stdout
    result = json.loads((tmp_path / "load-sqlite-organisers.json").read_text())
    assert result["exactly_once"] and result["errors"] == 0 and result["campaign_conversations"] == 42
    loaded = result["phases"]["annotators while 1 organisers reload the report"]
    assert loaded["changes_made"] > 0 and loaded["report_loads"]["n"] > 0 and result["throughput_kept"] > 0


def test_the_paired_save_benchmark_runs_a_checkout_against_itself(tmp_path):
    completed = _run(tmp_path, "bench/ab_save.py", "--before", str(ROOT), "--nuggets", "20", "--iterations", "2",
                     "--warmup", "1")  # a directory, not a commit: CI may clone shallow
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "20 nuggets, save: p50 before" in completed.stdout and "20 nuggets, page: p50 before" in completed.stdout
    result = json.loads((tmp_path / "ab_save.json").read_text())
    assert result["sizes"]["20"]["save"]["after_slower_in"].endswith("of 2 pairs")
