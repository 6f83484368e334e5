"""Comparing 30 runs over 50 topics: the randomised Tukey HSD with B = 10,000 and the rest.

1. The maths alone: `scoring.significance.compare_runs` (ANOVA, randomised Tukey HSD, paired
   t-tests, effect sizes) on a generated 50 x 30 score matrix, best of the repeats; beside it
   the plain-Python twin (scoring/reference/significance.py) per
   permutation, the floor the vectorised version is measured against.
2. End to end: a generated 1,500-conversation campaign (50 topics x 30 runs, bench.lib.generators'
   conversations) imported into a fresh database, then `manage.py compare_runs` over every
   measure (R, GF_ORIGIN, GF_RATINGS, GF, GFRC) timed in-process, and the console's run
   comparison page for GFRC.
3. With --against-old: `compare_runs` now and as it was before issue 44 (`rng.permuted` on
   chunks of copies of the matrix, kept below as `old_randomised_tukey_hsd`), interleaved round
   by round on the same matrix, with the load average, the ratio of the two in the same run, the
   time of each part (ANOVA, Tukey HSD, paired t-tests, effect sizes) and how far the two
   implementations' figures lie apart (the HSD's in Monte-Carlo standard errors: their random
   streams differ). The issue's size: --topics 2000 --runs 50 --against-old --no-end-to-end.

    .venv/bin/python bench/bench_compare_runs.py [--topics 50] [--runs 30] [--permutations 10000]
        [--against-old [--rounds 3]] [--no-end-to-end]
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.generators import conversation_line  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.timing import best_time  # noqa: E402
from scoring import significance  # noqa: E402
from scoring.reference.significance import plain_tukey_hsd  # noqa: E402


def score_matrix(topics: int, runs: int, seed: int = 20231212) -> np.ndarray:
    """Topic difficulty + run effect + noise, clipped to [0, 1], like GFRC scores."""
    rng = np.random.default_rng(seed)
    return np.clip(rng.uniform(0.1, 0.7, (topics, 1)) + rng.normal(0, 0.05, (1, runs)) + rng.normal(0, 0.1, (topics, runs)), 0, 1)


def old_randomised_tukey_hsd(scores: np.ndarray, permutations: int, seed: int | None = None) -> np.ndarray:
    """scoring.significance.randomised_tukey_hsd as it was before issue 44 (commit aef4c38)."""
    x = np.asarray(scores, dtype=float)
    n, m = x.shape
    rng = np.random.default_rng(seed)
    spreads = np.empty(permutations)
    chunk = max(1, 2_000_000 // max(n * m, 1))
    for start in range(0, permutations, chunk):
        size = min(chunk, permutations - start)
        shuffled = rng.permuted(np.broadcast_to(x, (size, n, m)), axis=2)
        means = shuffled.mean(axis=1)
        spreads[start:start + size] = means.max(axis=1) - means.min(axis=1)
    observed = np.abs(x.mean(axis=0)[:, None] - x.mean(axis=0)[None, :])
    spreads.sort()
    reached = permutations - np.searchsorted(spreads, observed - 1e-12, side="left")
    return reached / permutations


def old_compare_runs(x: np.ndarray, runs, permutations: int, seed: int) -> significance.Comparison:
    """compare_runs before issue 44: only its Tukey HSD differs (the other parts are unchanged)."""
    order = np.argsort(-x.mean(axis=0), kind="stable")
    x = x[:, order]
    table = significance.anova(x)
    return significance.Comparison(
        runs=tuple(runs[i] for i in order), means=x.mean(axis=0), topics=x.shape[0], anova=table,
        p_tukey_hsd=old_randomised_tukey_hsd(x, permutations, seed), p_paired_t=significance.paired_t_pvalues(x),
        effect_size=significance.effect_sizes(x, table.V_E),
    )


def against_old(topics: int, runs: int, permutations: int, rounds: int) -> dict:
    """Old and new compare_runs interleaved, `rounds` times each; every figure compared."""
    x = score_matrix(topics, runs)
    names = [f"run-{j:03d}" for j in range(runs)]
    significance.compare_runs(x[:3, :3], names[:3], 10, seed=1)  # scipy imported before timing
    loads, old_s, new_s = [os.getloadavg()[0]], [], []
    for _ in range(rounds):
        started = time.perf_counter()
        old = old_compare_runs(x, names, permutations, seed=1)
        old_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        new = significance.compare_runs(x, names, permutations, seed=1)
        new_s.append(time.perf_counter() - started)
        loads.append(os.getloadavg()[0])
    same_elsewhere = (old.runs == new.runs and old.anova == new.anova and np.array_equal(old.means, new.means)
                      and np.array_equal(old.p_paired_t, new.p_paired_t, equal_nan=True)
                      and np.array_equal(old.effect_size, new.effect_size, equal_nan=True))
    p = (old.p_tukey_hsd + new.p_tukey_hsd) / 2
    error = np.sqrt(np.maximum(p * (1 - p), 1 / permutations) * 2 / permutations)
    return {
        "topics": topics, "runs": runs, "permutations": permutations, "rounds": rounds,
        "old_compare_runs_s": [round(t, 2) for t in old_s], "new_compare_runs_s": [round(t, 2) for t in new_s],
        "old_over_new_best": round(min(old_s) / min(new_s), 2),
        "old_over_new_per_round": [round(o / n, 2) for o, n in zip(old_s, new_s)],
        "workers": significance._WORKERS,
        "parts_s": parts(x, permutations),
        "anova_t_tests_effect_sizes_identical": bool(same_elsewhere),
        "tukey_hsd_largest_difference": float(np.abs(old.p_tukey_hsd - new.p_tukey_hsd).max()),
        "tukey_hsd_largest_difference_in_standard_errors": round(float((np.abs(old.p_tukey_hsd - new.p_tukey_hsd) / error).max()), 2),
        "load_1min": [round(v, 2) for v in loads],
    }


def parts(x: np.ndarray, permutations: int) -> dict:
    """Each part of compare_runs alone, once (the Tukey HSD on one thread and on all)."""
    def timed(function) -> float:
        started = time.perf_counter()
        function()
        return round(time.perf_counter() - started, 3)

    table = significance.anova(x)
    workers = significance._WORKERS
    result = {"anova": timed(lambda: significance.anova(x)),
              "paired_t_all_pairs": timed(lambda: significance.paired_t_pvalues(x)),
              "effect_sizes": timed(lambda: significance.effect_sizes(x, table.V_E)),
              f"tukey_hsd_{workers}_threads": timed(lambda: significance.randomised_tukey_hsd(x, permutations, seed=1))}
    significance._WORKERS = 1
    try:
        result["tukey_hsd_1_thread"] = timed(lambda: significance.randomised_tukey_hsd(x, permutations, seed=1))
    finally:
        significance._WORKERS = workers
    result["old_tukey_hsd"] = timed(lambda: old_randomised_tukey_hsd(x, permutations, seed=1))
    return result


def maths(topics: int, runs: int, permutations: int, repeats: int) -> dict:
    x = score_matrix(topics, runs)
    names = [f"run-{j:03d}" for j in range(runs)]
    compare_s, _ = best_time(lambda: significance.compare_runs(x, names, permutations, seed=1), repeats)
    tukey_s, _ = best_time(lambda: significance.randomised_tukey_hsd(x, permutations, seed=1), repeats)
    plain_permutations = max(5, min(200, math.ceil(300_000 / (topics * runs))))
    plain_s, _ = best_time(lambda: plain_tukey_hsd(x.tolist(), plain_permutations, seed=1), 1)
    per_permutation_fast = tukey_s / permutations
    per_permutation_plain = plain_s / plain_permutations
    return {
        "topics": topics, "runs": runs, "permutations": permutations,
        "compare_runs_s": round(compare_s, 3),
        "tukey_hsd_s": round(tukey_s, 3),
        "plain_python_per_permutation_ms": round(per_permutation_plain * 1e3, 3),
        "vectorised_per_permutation_ms": round(per_permutation_fast * 1e3, 4),
        "speed_up_over_plain_python": round(per_permutation_plain / per_permutation_fast, 1),
    }


def end_to_end(topics: int, runs: int, permutations: int) -> dict:
    with bench_database() as tmp:
        from django.core.management import call_command
        from django.test import Client
        from django.urls import reverse

        from bench.lib.seeding import make_annotator, make_campaign

        campaign = make_campaign("bench")
        make_annotator("gold")
        organiser = make_annotator("organiser")
        campaign.organisers.add(organiser)
        rng = random.Random(20231121)
        path = tmp / "campaign.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for index in range(topics * runs):
                out.write(json.dumps(conversation_line(index, topics, rng)) + "\n")
        call_command("import_conversations", str(path), campaign="bench", annotator="gold", stdout=io.StringIO(), stderr=io.StringIO())

        out = io.StringIO()
        started = time.perf_counter()
        call_command("compare_runs", campaign="bench", permutations=permutations, seed=1, stdout=out, stderr=io.StringIO())
        command_s = time.perf_counter() - started
        rows = out.getvalue().count("\n") - 1

        call_command("collectstatic", "--noinput", verbosity=0)  # DEBUG=0: pages name hashed static files
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(organiser)
        started = time.perf_counter()
        response = client.get(reverse("console:significance", kwargs={"slug": "bench"}), {"permutations": permutations})
        page_s = time.perf_counter() - started
        assert response.status_code == 200, response.status_code
        return {"database": database_label(), "conversations": topics * runs, "compare_runs_all_measures_s": round(command_s, 2),
                "csv_rows": rows, "significance_page_gfrc_s": round(page_s, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--permutations", type=int, default=significance.DEFAULT_PERMUTATIONS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--against-old", action="store_true", help="time compare_runs beside its code before issue 44")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of old and new (--against-old)")
    parser.add_argument("--no-end-to-end", action="store_true", help="the maths only: no campaign, command or page")
    args = parser.parse_args()
    result = {"load_start": os.getloadavg()}
    if args.against_old:
        result["against_old"] = against_old(args.topics, args.runs, args.permutations, args.rounds)
    result["maths"] = maths(args.topics, args.runs, args.permutations, args.repeats)
    if not args.no_end_to_end:
        result["end_to_end"] = end_to_end(args.topics, args.runs, args.permutations)
    result["machine"] = machine()
    print(json.dumps(result, indent=2))
    print(f"raw numbers: {write_result('compare_runs', result)}")


if __name__ == "__main__":
    main()
