"""Benchmark: Krippendorff's alpha and the run means' t intervals, before and after they moved
to the `krippendorff` package and scoring.intervals, in the same run.

    .venv/bin/python bench/bench_agreement.py [--units 1000 20000] [--coders 2 5] [--repeats 7]
                                              [--topics 50] [--runs 20] [--before fd32a84 | none]
                                              [--pairs-before 775e8c5 | none]

The console's agreement page (console.reports.campaign_agreement) computes alpha over every
(topic, entity) unit of the campaign, ordinal and nominal. Reliability data shaped like it:
grades 0-3 (mostly 1 and 2), each coder giving the unit's grade or a neighbouring one
(p = 0.3) and missing a third of the units. Timed: the current
`scoring.agreement.krippendorff_alpha` (the package behind our NaN rules), the hand-written
numpy coincidence matrix it replaced (read from git at --before, the last commit that had it)
and the plain-Python formulas of the oracle (scoring/reference/agreement.py). The
script checks all three agree to 1e-9 and prints a markdown table (best of the repeats).
`--before none` leaves the replaced code out (a checkout without that history, e.g. a shallow
clone: tests/test_benches_run.py runs it so).

Then a campaign (bench_compare_judges' generated files, topics x runs conversations of 10
films, imported for two human annotators, so every conversation is doubly annotated), timed
in-process: the agreement page's `campaign_agreement` with the package and with the
hand-written alpha swapped in, and with the three queries per annotator pair it made until
--pairs-before (its `campaign_agreement`, `conversation_agreement` and `_judgments` read from
git and run against today's models; the pages' figures are checked equal); `run_summary` (report.csv, the API's run means, the report
page) with scoring.intervals and with the per-run, per-column `mean_ci` loop it replaced (both
read from git at --before). Outputs are checked equal.
"""

from __future__ import annotations

import argparse
import ast
import io
import math
import platform
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.timing import best_time, load_average  # noqa: E402
from scoring.agreement import krippendorff_alpha  # noqa: E402
from scoring.reference import agreement as krippendorff_reference  # noqa: E402

HAND_WRITTEN_UNTIL = "fd32a84"  # the last commit whose scoring/agreement.py computed alpha by hand
PER_PAIR_QUERIES_UNTIL = "775e8c5"  # the last commit whose agreement page queried each annotator pair's judgments


def source_at(revision: str, path: str) -> str:
    return subprocess.run(["git", "show", f"{revision}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def hand_written(revision: str):
    """The replaced krippendorff_alpha, loaded from git (it is gone from the tree)."""
    module = types.ModuleType("agreement_before")
    sys.modules[module.__name__] = module  # its dataclasses look their module up
    exec(compile(source_at(revision, "scoring/agreement.py"), f"{revision}:scoring/agreement.py", "exec"), module.__dict__)
    return module.krippendorff_alpha


def run_summary_before(revision: str):
    """The replaced run_summary (one mean_ci per run and column), its two functions read from
    the console reports at `revision` and compiled alone."""
    source = source_at(revision, "annotator/console/reports.py")
    wanted = {"mean_ci", "run_summary"}
    functions = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name in wanted]
    assert {f.name for f in functions} == wanted, "--before must name a commit with mean_ci in console/reports.py"
    import pandas as pd

    from annotator.scores.campaign_tables import score_columns

    namespace = {"math": math, "np": np, "pd": pd, "score_columns": score_columns, "CONFIDENCE": 0.95}
    exec(compile(ast.Module(body=functions, type_ignores=[]), f"{revision}:annotator/console/reports.py", "exec"), namespace)
    return namespace["run_summary"]


def campaign_agreement_before(revision: str):
    """The agreement page's campaign_agreement as it was at `revision` (three queries per
    annotator pair), its functions read from git and compiled among today's console reports."""
    from annotator.console import reports

    source = source_at(revision, "annotator/console/reports.py")
    wanted = {"_judgments", "conversation_agreement", "campaign_agreement"}
    functions = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name in wanted]
    assert {f.name for f in functions} == wanted, "--pairs-before must name a commit with _judgments in console/reports.py"
    namespace = dict(vars(reports))
    exec(compile(ast.Module(body=functions, type_ignores=[]), f"{revision}:annotator/console/reports.py", "exec"), namespace)
    return namespace["campaign_agreement"]


def same_figures(page: dict, other: dict) -> bool:
    """Two agreement pages show the same figures (NaN equals NaN)."""
    def figures(p):
        return ([(r.conversation.pk, r.first.pk, r.second.pk, r.spans, r.grade_pairs, r.disagreements) for r in p["pairs"]],
                [(k["pair"], k["n"], round(k["kappa"], 12)) for k in p["kappas"] if not math.isnan(k["kappa"])],
                p["units"], p["membership"].pairs)
    close = all(math.isclose(page[k], other[k], abs_tol=1e-12) or (math.isnan(page[k]) and math.isnan(other[k]))
                for k in ("alpha_ordinal", "alpha_nominal", "span_exact_f1", "span_word_dice"))
    return close and figures(page) == figures(other)


def campaign_section(topics: int, runs: int, repeats: int, before_alpha, revision: str, pairs_revision: str | None) -> dict:
    from bench.lib.database import bench_database, database_label
    from bench.lib.generators import write_gold_and_judge_files

    with bench_database() as tmp:
        from django.core.management import call_command

        from annotator.console import reports
        from annotator.models import Campaign
        from annotator.scores.campaign_tables import score_table
        from bench.lib.seeding import make_annotator, make_campaign
        from scoring import agreement

        make_campaign("bench")
        for path, who in zip(write_gold_and_judge_files(tmp, topics, runs), ("ann", "bob")):
            make_annotator(who)
            call_command("import_conversations", str(path), campaign="bench", annotator=who, stdout=io.StringIO())
        campaign = Campaign.objects.get(slug="bench")
        reports.campaign_agreement(campaign)  # warm-up: imports and first queries
        package = agreement.krippendorff_alpha
        inside = {}  # seconds spent in the alpha calls of one page, per alpha

        def timed_alpha(name, alpha):
            def call(data, metric="nominal"):
                started = time.perf_counter()
                try:
                    return alpha(data, metric)
                finally:
                    inside[name] = inside.get(name, 0.0) + time.perf_counter() - started
            return call

        def page_with(name, alpha):
            agreement.krippendorff_alpha = alpha
            try:
                started = time.perf_counter()
                page = reports.campaign_agreement(campaign)
                return time.perf_counter() - started, page
            finally:
                agreement.krippendorff_alpha = package

        # interleaved, best of the repeats: the machine is shared, a slow spell hits both alike
        alphas = (("package", package),) + ((("hand-written", before_alpha),) if before_alpha else ())
        best, pages = {"package": float("inf"), "hand-written": float("inf") if before_alpha else float("nan")}, {}
        for _ in range(repeats):
            for name, alpha in alphas:
                seconds, pages[name] = page_with(name, alpha)
                best[name] = min(best[name], seconds)
        page_s, page_before_s = best["package"], best["hand-written"]
        page = pages["package"]
        inside["hand-written"] = float("nan")
        for name, alpha in alphas:
            inside[name] = 0.0
            page_with(name, timed_alpha(name, alpha))  # once more, the alpha calls timed
        if before_alpha:
            assert abs(page["alpha_ordinal"] - pages["hand-written"]["alpha_ordinal"]) < 1e-9
        units = page["units"]
        pairs_before_s = float("inf") if pairs_revision else float("nan")
        if pairs_revision:
            per_pair = campaign_agreement_before(pairs_revision)
            for _ in range(repeats):  # interleaved with today's page, as above
                started = time.perf_counter()
                page_per_pair = per_pair(campaign)
                pairs_before_s = min(pairs_before_s, time.perf_counter() - started)
                page_s = min(page_s, page_with("package", package)[0])
            assert same_figures(page, page_per_pair), "the agreement page's figures changed"

        table = score_table(campaign)
        summary_s, summary = best_time(lambda: reports.run_summary(table), repeats * 3)
        summary_before_s = float("nan")
        if revision:
            old_summary = run_summary_before(revision)
            summary_before_s, summary_before = best_time(lambda: old_summary(table), repeats * 3)
            assert summary.equals(summary_before), "run_summary's output changed"
        return {"database": database_label(), "conversations": len(table), "units": units, "pairs": len(page["pairs"]),
                "alpha_ordinal": page["alpha_ordinal"], "agreement_page_s": page_s, "agreement_page_before_s": page_before_s,
                "agreement_page_per_pair_queries_s": pairs_before_s,
                "alpha_in_page_ms": inside["package"] * 1e3, "alpha_in_page_before_ms": inside["hand-written"] * 1e3,
                "run_summary_ms": summary_s * 1e3, "run_summary_before_ms": summary_before_s * 1e3,
                "runs": int(table["run"].nunique()), "columns": len(summary.columns)}


def reliability_data(coders: int, units: int, seed: int = 20240611) -> list[list]:
    """Coders x units grades as the page builds them: Python ints, None where a coder did not grade."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(4, size=units, p=[0.1, 0.4, 0.4, 0.1])
    # a coder gives the unit's grade, or with probability 0.3 a neighbouring one
    grades = np.clip(truth + rng.choice([-1, 0, 1], size=(coders, units), p=[0.15, 0.7, 0.15]), 0, 3)
    missing = rng.random((coders, units)) < 0.33
    return [[None if gone else int(g) for g, gone in zip(row, gaps)] for row, gaps in zip(grades, missing)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--coders", type=int, nargs="+", default=[2, 5])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--skip-campaign", action="store_true", help="the maths alone, no database")
    parser.add_argument("--before", default=HAND_WRITTEN_UNTIL)
    parser.add_argument("--pairs-before", default=None,
                        help=f"the page's per-pair queries from git (default {PER_PAIR_QUERIES_UNTIL}, none with --before none)")
    args = parser.parse_args()
    revision = None if args.before == "none" else args.before
    pairs_revision = args.pairs_before or (None if revision is None else PER_PAIR_QUERIES_UNTIL)
    pairs_revision = None if pairs_revision == "none" else pairs_revision
    before = hand_written(revision) if revision else None
    rows = []
    print(f"Machine: {platform.platform()}, load average {load_average()}")
    print("| coders x units | metric | krippendorff package (ms) | hand-written numpy (ms) | hand-written / package "
          "| plain-Python formulas (ms) | alpha |")
    print("|---|---|---|---|---|---|---|")
    for coders in args.coders:
        for units in args.units:
            data = reliability_data(coders, units)
            for metric in ("ordinal", "nominal"):
                after_s, after = best_time(lambda: krippendorff_alpha(data, metric), args.repeats)
                before_s, was = best_time(lambda: before(data, metric), args.repeats) if before else (float("nan"), after)
                plain_s, plain = best_time(lambda: krippendorff_reference.alpha(data, metric), max(1, args.repeats // 3))
                assert abs(after - was) < 1e-9 and abs(after - plain) < 1e-9, (after, was, plain)
                row = {"coders": coders, "units": units, "metric": metric, "package_ms": after_s * 1e3,
                       "hand_written_ms": before_s * 1e3, "plain_python_ms": plain_s * 1e3, "alpha": after}
                rows.append(row)
                print(f"| {coders} x {units:,} | {metric} | {row['package_ms']:.2f} | {row['hand_written_ms']:.2f} | "
                      f"{before_s / after_s:.2f}x | {row['plain_python_ms']:.1f} | {after:.4f} |")
    result = {"machine": machine(), "rows": rows}
    if not args.skip_campaign:
        c = result["campaign"] = campaign_section(args.topics, args.runs, args.repeats, before, revision, pairs_revision)
        print(f"\nCampaign ({c['database']}): {c['conversations']} conversations, {c['pairs']} annotator pairs, "
              f"{c['units']} alpha units (alpha ordinal {c['alpha_ordinal']:.4f}), best of {args.repeats}")
        print("| what | now | before | before / now |")
        print("|---|---|---|---|")
        print(f"| agreement page's campaign_agreement (s) | {c['agreement_page_s']:.3f} | {c['agreement_page_before_s']:.3f} "
              f"| {c['agreement_page_before_s'] / c['agreement_page_s']:.2f}x |")
        print(f"| agreement page, queries per annotator pair ({pairs_revision}) vs one set per campaign (s) "
              f"| {c['agreement_page_s']:.3f} | {c['agreement_page_per_pair_queries_s']:.3f} "
              f"| {c['agreement_page_per_pair_queries_s'] / c['agreement_page_s']:.2f}x |")
        print(f"| its two alpha calls (ordinal, nominal) (ms) | {c['alpha_in_page_ms']:.1f} | {c['alpha_in_page_before_ms']:.1f} "
              f"| {c['alpha_in_page_before_ms'] / c['alpha_in_page_ms']:.2f}x |")
        print(f"| run_summary, {c['runs']} runs (ms) | {c['run_summary_ms']:.2f} | {c['run_summary_before_ms']:.2f} "
              f"| {c['run_summary_before_ms'] / c['run_summary_ms']:.2f}x |")
    path = write_result("bench_agreement", result)
    print(f"raw numbers: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
