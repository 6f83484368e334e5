"""`manage.py compare_judges` on a generated 1,000-conversation campaign.

Generates two seeded JSONL files over the same conversations (bench.lib.generators: 50 topics x
20 runs; 2 user + 2 system turns, 10 listed films per conversation): the gold's judgments (runs differ in quality,
so the ranking means something) and a noisy automatic judge's (misses 10% of the nuggets, cuts
10% of the spans a word short, regrades 20%, moves 20% of the ORIGIN memberships). Imports the
gold's file, then the judge's with `--annotator` (the additive path: same text, judgments
added), marks the judge automatic, and times, in-process (Django already set up):

- `compare_judges` (campaign CSV, and JSON with every conversation), best of --repeats;
- `score_table` of the campaign alone (what the score export costs), the reference ratio:
  `compare_judges` scores the campaign twice (gold, judge) and matches every nugget.

    .venv/bin/python bench/bench_compare_judges.py [--topics 50] [--runs 20] [--repeats 5]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.generators import write_gold_and_judge_files  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.timing import best_time  # noqa: E402


def run(topics: int, runs: int, repeats: int) -> dict:
    with bench_database() as tmp:
        from django.core.management import call_command

        from annotator.models import AnnotatorProfile, Campaign
        from annotator.scores.campaign_tables import score_table
        from bench.lib.seeding import make_annotator, make_campaign

        label = database_label()
        make_campaign("bench")
        make_annotator("gold")
        robot = make_annotator("robot")
        AnnotatorProfile.mark(robot, description="bench: a noisy copy of the gold")
        gold_file, judge_file = write_gold_and_judge_files(tmp, topics, runs)
        imported = {}
        for path, who in ((gold_file, "gold"), (judge_file, "robot")):
            out = io.StringIO()
            started = time.perf_counter()
            call_command("import_conversations", str(path), campaign="bench", annotator=who, stdout=out, stderr=out)
            imported[who] = {"seconds": round(time.perf_counter() - started, 2), "output": out.getvalue().strip()[-300:]}

        def compare(fmt: str) -> str:
            out = io.StringIO()
            call_command("compare_judges", campaign="bench", judge="robot", format=fmt, stdout=out)
            return out.getvalue()

        campaign = Campaign.objects.get(slug="bench")
        compare("csv")  # warm-up: imports (pandas, scipy) and first queries are not the comparison
        csv_seconds, csv_text = best_time(lambda: compare("csv"), repeats)
        json_seconds, json_text = best_time(lambda: compare("json"), repeats)
        table_seconds, table = best_time(lambda: score_table(campaign), repeats)
        summary = json.loads(json_text)
    return {
        "machine": machine(),
        "database": label,
        "conversations": len(table),
        "nuggets_gold": summary["nuggets"]["exact"]["gold"],
        "nuggets_judge": summary["nuggets"]["exact"]["judge"],
        "imports": imported,
        "compare_judges_csv_s": round(csv_seconds, 3),
        "compare_judges_json_s": round(json_seconds, 3),
        "score_table_s": round(table_seconds, 3),
        "ratio_csv_to_score_table": round(csv_seconds / table_seconds, 2),
        "repeats": repeats,
        "campaign_csv": csv_text,
        "nuggets": summary["nuggets"],
        "grade_alpha": summary["grades"]["krippendorff_alpha_ordinal"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    result = run(args.topics, args.runs, args.repeats)
    path = write_result("compare-judges-" + result["database"].split()[0].lower(), result)
    print(f"== compare_judges ({result['database']}): {result['conversations']} conversations, "
          f"{result['nuggets_gold']} gold and {result['nuggets_judge']} judge nuggets")
    print(f"   imports: gold {result['imports']['gold']['seconds']} s, judge (added to the same conversations) "
          f"{result['imports']['robot']['seconds']} s")
    print(f"   compare_judges CSV {result['compare_judges_csv_s']} s, JSON {result['compare_judges_json_s']} s; "
          f"score_table alone {result['score_table_s']} s (ratio {result['ratio_csv_to_score_table']}); "
          f"best of {result['repeats']}")
    print(result["campaign_csv"])
    print(f"(raw: {path})")


if __name__ == "__main__":
    main()
