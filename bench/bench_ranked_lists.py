"""Benchmark: ranked-list runs scored with GFR, end to end and the maths alone.

    .venv/bin/python bench/bench_ranked_lists.py [--runs 100] [--topics 50] [--documents 1000] [--repeats 3]

End to end: generates seeded NTCIREVAL files for one topic type with two attribute sets
(HINDEX, 4 ordinal bands, uniform target; GENDER, 3 nominal groups, FairWeb's 0.333333
target): a qrels file judging --documents pages per topic (70% L0, 20% L1, 10% L2), their
two .gmemb files (one-hot or uniform vectors), and --runs TREC run files ranking --documents
pages per topic (drawn from the judged pages and 20% more unjudged ones). In a fresh database
(SQLite file, or DATABASE_URL), times `load_campaign`, `import_ntcireval`, `import_runs` (every
file in one all-or-nothing call) and `score_runs` (TSV of every figure), in-process.

The maths alone: `scoring.gfr.score` on runs x topics padded arrays (cutoff 20) beside the
plain-Python twin of the tests (tests/scoring/gfr_reference.py, one list at a time), checked
to agree; best of --repeats, time.perf_counter, in the same run (the ratio is what to read).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_scoring import best_time, load_average  # noqa: E402
from bench.common import bench_database, database_label, machine, write_result  # noqa: E402
from scoring import gfr  # noqa: E402
from tests.scoring.gfr_reference import list_scores  # noqa: E402

CUTOFF = 20
HINDEX, GENDER = 4, 3
GENDER_TARGET = [0.333333] * 3


def campaign_file(topics: int) -> dict:
    return {
        "slug": "bench-gfr",
        "topic_types": [{"code": "R", "name": "Researchers", "attribute_sets": [
            {"name": "HINDEX", "kind": "ordinal", "groups": ["<10", "10-30", "30-50", ">=50"], "divergence": "rnod"},
            {"name": "GENDER", "kind": "nominal", "groups": ["female", "male", "other"], "target": GENDER_TARGET},
        ]}],
        "topics": [f"R{t:03d}" for t in range(topics)],
    }


def _vector(rng: random.Random, k: int) -> str:
    if rng.random() < 0.3:
        return " ".join([repr(1 / k)] * k)
    hot = rng.randrange(k)
    return " ".join("1.0" if g == hot else "0.0" for g in range(k))


def write_files(directory: Path, runs: int, topics: int, documents: int) -> tuple[list[Path], list[Path]]:
    """(judgment files, run files)."""
    rng = random.Random(20261123)
    qrels, hindex, gender = (directory / name for name in ("bench.qrels", "bench.R-HINDEX.gmemb", "bench.R-GENDER.gmemb"))
    with qrels.open("w") as q, hindex.open("w") as h, gender.open("w") as g:
        for t in range(topics):
            for d in range(documents):
                doc = f"R{t:03d}-doc{d:05d}"
                q.write(f"R{t:03d} {doc} {rng.choices(['L0', 'L1', 'L2'], [0.7, 0.2, 0.1])[0]}\n")
                h.write(f"R{t:03d} {doc} {_vector(rng, HINDEX)}\n")
                g.write(f"R{t:03d} {doc} {_vector(rng, GENDER)}\n")
    pool = int(documents * 1.2)  # a fifth of the candidates are unjudged
    run_files = []
    for r in range(runs):
        path = directory / f"run.{r:03d}"
        with path.open("w") as out:
            for t in range(topics):
                ranked = rng.sample(range(pool), documents)
                out.writelines(f"R{t:03d} Q0 R{t:03d}-doc{d:05d} {rank} {documents - rank} run{r:03d}\n"
                               for rank, d in enumerate(ranked, 1))
        run_files.append(path)
    return [qrels, hindex, gender], run_files


def end_to_end(runs: int, topics: int, documents: int, repeats: int) -> dict:
    with bench_database() as tmp:
        from django.core.management import call_command

        campaign_path = tmp / "campaign.json"
        campaign_path.write_text(json.dumps(campaign_file(topics)))
        started = time.perf_counter()
        judgments, run_files = write_files(tmp, runs, topics, documents)
        generated = time.perf_counter() - started
        timings = {"generate_files_s": round(generated, 2)}

        def timed(name: str, *args) -> str:
            out = io.StringIO()
            started = time.perf_counter()
            call_command(*args, stdout=out, stderr=out)
            timings[name] = round(time.perf_counter() - started, 3)
            return out.getvalue()

        timed("load_campaign_s", "load_campaign", str(campaign_path))
        imported = timed("import_ntcireval_s", "import_ntcireval", "--campaign", "bench-gfr", *map(str, judgments))
        loaded = timed("import_runs_s", "import_runs", "--campaign", "bench-gfr", *map(str, run_files))

        def score() -> str:
            out = io.StringIO()
            call_command("score_runs", "--campaign", "bench-gfr", stdout=out)
            return out.getvalue()

        score()  # warm-up: the first call imports pandas paths and warms the page cache
        seconds, tsv = best_time(score, repeats)
        from annotator.models import Campaign
        from annotator.scores.ranked_lists import score_ranked_lists

        campaign = Campaign.objects.get(slug="bench-gfr")
        scoring_seconds, _ = best_time(lambda: score_ranked_lists(campaign), repeats)
        label = database_label()
    return {
        "database": label,
        **timings,
        "import_ntcireval_output": imported.strip()[-200:],
        "import_runs_output_chars": len(loaded),
        "score_runs_s": round(seconds, 3),
        "score_ranked_lists_s": round(scoring_seconds, 3),
        "figures": tsv.count("\n") - 1,
    }


def synthetic_lists(runs: int, topics: int, seed: int = 20261123):
    """Padded arrays of runs x topics lists at the cutoff: gains L0/L1/L2 -> 0/1/3, one-hot or
    uniform memberships in HINDEX and GENDER."""
    rng = np.random.default_rng(seed)
    n = runs * topics
    gains = rng.choice([0.0, 1.0, 3.0], size=(n, CUTOFF), p=[0.7, 0.2, 0.1])
    memberships = []
    for k in (HINDEX, GENDER):
        vectors = np.eye(k)[rng.integers(0, k, size=(n, CUTOFF))]
        uniform = rng.random((n, CUTOFF)) < 0.3
        vectors[uniform] = 1.0 / k
        memberships.append(vectors)
    specs = [gfr.GroupSet("HINDEX", False, np.full(HINDEX, 0.25)), gfr.GroupSet("GENDER", True, np.array(GENDER_TARGET))]
    return gains, memberships, specs


def maths(runs: int, topics: int, repeats: int) -> dict:
    gains, memberships, specs = synthetic_lists(runs, topics)
    vectorised_s, scores = best_time(lambda: gfr.score(gains, memberships, specs, 3.0, CUTOFF), repeats)
    plain_gains = gains.tolist()
    plain_memberships = {s.name: m.tolist() for s, m in zip(specs, memberships)}
    targets = {s.name: s.target.tolist() for s in specs}
    nominal = {s.name: s.nominal for s in specs}

    def plain_loop():
        return [list_scores(plain_gains[i], {name: m[i] for name, m in plain_memberships.items()}, targets, nominal, 3.0, CUTOFF)
                for i in range(len(plain_gains))]

    loop_s, twin = best_time(plain_loop, max(1, repeats // 3))
    difference = max(
        max(abs(float(scores.GFR[name][i]) - row[name]) for name in scores.GFR) for i, row in enumerate(twin)
    )
    return {"lists": len(plain_gains), "vectorised_s": vectorised_s, "plain_loop_s": loop_s,
            "speed_up": loop_s / vectorised_s, "max_abs_difference": difference}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--maths-only", action="store_true")
    args = parser.parse_args()
    result = {"machine": machine(), "runs": args.runs, "topics": args.topics, "documents": args.documents,
              "maths": maths(args.runs, args.topics, max(args.repeats, 5))}
    if not args.maths_only:
        result["end_to_end"] = end_to_end(args.runs, args.topics, args.documents, args.repeats)
    result["load_average"] = load_average()
    path = write_result("bench_ranked_lists", result)
    m = result["maths"]
    print(f"{args.runs} runs x {args.topics} topics x {args.documents} documents, cutoff {CUTOFF}, HINDEX (4, ordinal) + GENDER (3, nominal)\n")
    print("| the maths alone | time | speed-up | max abs difference |\n|---|---:|---:|---:|")
    print(f"| `scoring.gfr.score`, {m['lists']:,} lists | {m['vectorised_s'] * 1000:.1f} ms | {m['speed_up']:.0f}x | {m['max_abs_difference']:.1e} |")
    print(f"| plain-Python twin, one list at a time | {m['plain_loop_s']:.2f} s | 1x | |")
    if "end_to_end" in result:
        e = result["end_to_end"]
        print(f"\nEnd to end ({e['database']}):\n\n| step | seconds |\n|---|---:|")
        for step in ("generate_files_s", "load_campaign_s", "import_ntcireval_s", "import_runs_s", "score_runs_s", "score_ranked_lists_s"):
            print(f"| {step.removesuffix('_s')} | {e[step]} |")
        print(f"\nscore_runs wrote {e['figures']:,} figures. {e['import_ntcireval_output']}")
    print(f"\nLoad average {result['load_average']}. Raw numbers: {path}")


if __name__ == "__main__":
    main()
