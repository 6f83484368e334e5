"""Comparing 30 runs over 50 topics: the randomised Tukey HSD with B = 10,000 and the rest.

1. The maths alone: `scoring.significance.compare_runs` (ANOVA, randomised Tukey HSD, paired
   t-tests, effect sizes) on a generated 50 x 30 score matrix, best of the repeats; beside it
   the plain-Python twin (scoring/reference/significance.py) per
   permutation, the floor the vectorised version is measured against.
2. End to end: a generated 1,500-conversation campaign (50 topics x 30 runs, bench.lib.generators'
   conversations) imported into a fresh database, then `manage.py compare_runs` over every
   measure (R, GF_ORIGIN, GF_RATINGS, GF, GFRC) timed in-process, and the console's run
   comparison page for GFRC.

    .venv/bin/python bench/bench_compare_runs.py [--topics 50] [--runs 30] [--permutations 10000]
"""

from __future__ import annotations

import argparse
import io
import json
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


def maths(topics: int, runs: int, permutations: int, repeats: int) -> dict:
    x = score_matrix(topics, runs)
    names = [f"run-{j:03d}" for j in range(runs)]
    compare_s, _ = best_time(lambda: significance.compare_runs(x, names, permutations, seed=1), repeats)
    tukey_s, _ = best_time(lambda: significance.randomised_tukey_hsd(x, permutations, seed=1), repeats)
    plain_permutations = 200
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
    args = parser.parse_args()
    result = {"maths": maths(args.topics, args.runs, args.permutations, args.repeats)}
    result["end_to_end"] = end_to_end(args.topics, args.runs, args.permutations)
    result["machine"] = machine()
    print(json.dumps(result, indent=2))
    print(f"raw numbers: {write_result('compare_runs', result)}")


if __name__ == "__main__":
    main()
