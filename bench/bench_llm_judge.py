"""An LLM judge on the demo campaign against a local server: its speed and its distance from the gold.

Loads the demo (`load_demo`) into a throwaway database, runs the LLM judge over its conversations
(annotator.llm_judge.runner, as `judge_with_llm` does), then runs it again, every answer now
read from the cache (the cost of everything but the model: prompts, reading the answers,
writing the judgments). Reports:

- conversations per second asking the server, and from the cache (same run, same machine: the
  ratio is what the model costs), completion tokens per second, the load average;
- the judge against the gold (annotator.evaluation.judge_comparison): Cohen's kappa on the grades
  of matched nuggets, exact-span F1, the mean membership JSD per attribute set, Kendall's tau_b
  of the run ranking by GFRC (undefined with one run).

    scripts/with-llama-server.sh .venv/bin/python bench/bench_llm_judge.py [--limit N] [--concurrency 1]
    .venv/bin/python bench/bench_llm_judge.py --base-url http://gpu-host:8000/v1 --model M --quotes free
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.database import bench_database  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default=os.environ.get("GFRC_LLM_BASE_URL"))
    parser.add_argument("--model", default=os.environ.get("GFRC_LLM_MODEL"))
    parser.add_argument("--limit", type=int, default=None, help="at most this many conversations (default: all)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--quotes", choices=["free", "lines"], default="lines")
    parser.add_argument("--response-format", choices=["json_object", "json_schema"], default="json_object")
    args = parser.parse_args()
    if not args.base_url or not args.model:
        raise SystemExit("no server: run through scripts/with-llama-server.sh, or give --base-url and --model")

    with bench_database():
        from django.core.management import call_command

        from annotator.evaluation.judge_comparison import compare_judge
        from annotator.llm_judge.client import ServerSettings
        from annotator.llm_judge.runner import execute, new_run
        from annotator.models import Campaign
        from scoring.agreement import cohen_kappa

        call_command("load_demo", stdout=io.StringIO())
        campaign = Campaign.objects.get(slug="fairweb1")
        settings = ServerSettings(base_url=args.base_url, model=args.model, max_tokens=args.max_tokens,
                                  timeout=args.timeout, retries=0, response_format=args.response_format)

        def timed_run():
            run = new_run(campaign, "llm-bench", settings, concurrency=args.concurrency, limit=args.limit,
                          quotes=args.quotes)
            load = os.getloadavg()[0]
            started = time.perf_counter()
            execute(run, settings=settings)  # a command line's own server, as judge_with_llm --base-url
            return run, time.perf_counter() - started, load

        asked, asked_seconds, load = timed_run()
        cached, cached_seconds, _ = timed_run()
        assert cached.requests == 0 and cached.judged == asked.judged, "the second run reads every answer from the cache"

        comparison = compare_judge(campaign, asked.judge)
        labels = comparison.grade_labels
        gold_grades, judge_grades = [], []
        for g, row in enumerate(comparison.confusion):
            for j, count in enumerate(row):
                if g < len(labels) and j < len(labels):
                    gold_grades += [labels[g]] * count
                    judge_grades += [labels[j]] * count
        kappa = cohen_kappa(gold_grades, judge_grades) if gold_grades else float("nan")
        gfrc = next((m for m in comparison.measures if m.measure == "GFRC"), None)
        result = {
            "machine": machine(), "load_average": load, "model": args.model, "quotes": args.quotes,
            "conversations": asked.conversations, "judged": asked.judged, "skipped": asked.failed,
            "requests": asked.requests, "completion_tokens": asked.completion_tokens, "prompt_tokens": asked.prompt_tokens,
            "seconds_asking": asked_seconds, "seconds_from_cache": cached_seconds,
            "conversations_per_second_asking": asked.conversations / asked_seconds,
            "conversations_per_second_from_cache": cached.conversations / cached_seconds,
            "completion_tokens_per_second": asked.completion_tokens / asked_seconds,
            "kappa_grades": kappa, "matched_grades": len(gold_grades),
            "span_f1_exact": comparison.exact.f1, "span_f1_overlap": comparison.overlap.f1,
            "membership_jsd": {name: d.mean_jsd for name, d in comparison.memberships.items()},
            "tau_b_gfrc": gfrc.ranking.tau_b if gfrc else float("nan"), "runs_ranked": gfrc.ranking.runs if gfrc else 0,
            "problems": [p["problem"] for p in asked.problems],
        }

    def f(value) -> str:
        return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"

    print(f"LLM judge {args.model} on the demo campaign (quotes: {args.quotes}), load average {load:.1f}:")
    print(f"  {result['judged']} of {result['conversations']} conversations judged, {result['skipped']} skipped; "
          f"{result['requests']} requests, {result['completion_tokens']} completion tokens")
    print(f"  asking the server: {asked_seconds:.1f} s = {result['conversations_per_second_asking']:.4f} conversations/s, "
          f"{result['completion_tokens_per_second']:.1f} completion tokens/s")
    print(f"  from the cache:    {cached_seconds:.2f} s = {result['conversations_per_second_from_cache']:.2f} conversations/s "
          f"(x{asked_seconds / cached_seconds:.0f} faster: the model is the cost)")
    print(f"  against the gold: kappa on grades {f(kappa)} ({len(gold_grades)} matched nuggets), span F1 exact "
          f"{f(comparison.exact.f1)} / overlap {f(comparison.overlap.f1)}, membership JSD "
          + (", ".join(f"{name} {f(v)}" for name, v in result["membership_jsd"].items()) or "– (no matched pair)")
          + f", tau_b of the GFRC run ranking {f(result['tau_b_gfrc'])} ({result['runs_ranked']} runs)")
    for problem in result["problems"]:
        print(f"    {problem}")
    print(f"raw numbers: {write_result('llm_judge', result)}")


if __name__ == "__main__":
    main()
