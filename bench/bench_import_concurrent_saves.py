"""An annotator's saves while an organiser imports 30,000 conversations: how long each waits.

Generates bench_import.py's file (100 topics x N/100 runs, 4 turns, 3 graded nuggets each, an
ORIGIN membership on every third), then imports it twice with `manage.py import_conversations`
in a process of its own, each time into a new campaign: first with the code of --before (the
importer written as one transaction; read from git into a temporary directory), then with this
checkout's (staged in short transactions, published in one). During each import this process
saves as an annotator would, one save every --interval seconds on its own connection (the edit
service's `set_turn_label`, alternating o and x: one short transaction, like a workspace save),
and records how long each took and whether it failed. Also checks that the import landed whole
and that the staging area is gone.

    .venv/bin/python bench/bench_import_concurrent_saves.py [--conversations 30000] [--before 1437c62 | none]
    scripts/with-postgres.sh .venv/bin/python bench/bench_import_concurrent_saves.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_import import write_file  # noqa: E402
from bench.common import (  # noqa: E402
    PYTHON, ROOT, bench_database, checkout, database_label, machine, make_annotator, make_campaign_with, percentile,
    write_result,
)

BEFORE = "1437c62"  # main before issue 26: an import is one transaction


def saves_during(command: list[str], cwd: Path, turn, annotator, interval: float) -> dict:
    """Run the import command; save every `interval` s until it ends. Returns timings and failures."""
    from django.db import connection

    from annotator.judgments import edits
    from annotator.models import TurnLabel

    latencies: list[float] = []
    failures: list[str] = []
    stop = threading.Event()

    def saver() -> None:
        try:
            while not stop.is_set():
                current = TurnLabel.objects.filter(turn=turn, annotator=annotator).first()
                label = "x" if current is not None and current.label == "o" else "o"
                started = time.perf_counter()
                try:
                    edits.set_turn_label(turn, annotator=annotator, actor=annotator, label=label,
                                         expected_version=current.version if current else None)
                except Exception as error:  # a failed save is the finding, not a crash of the bench
                    failures.append(f"{type(error).__name__}: {error}"[:200])
                latencies.append(time.perf_counter() - started)
                stop.wait(interval)
        finally:
            connection.close()

    thread = threading.Thread(target=saver, daemon=True)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env={**os.environ, "LOG_LEVEL": "INFO"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    thread.start()
    out, err = process.communicate()
    seconds = time.perf_counter() - started
    stop.set()
    thread.join()
    staged = [line for line in err.splitlines() if "published in" in line]
    return {
        "import_s": round(seconds, 1), "import_ok": process.returncode == 0, "import_output": (out + err).strip()[-400:],
        "staging": staged[-1] if staged else "",
        "saves": len(latencies), "failed": len(failures), "failures": failures[:3],
        "p50_ms": round(percentile(latencies, 0.5) * 1000, 1), "p95_ms": round(percentile(latencies, 0.95) * 1000, 1),
        "max_ms": round(max(latencies, default=float("nan")) * 1000, 1),
        "over_1s": sum(1 for s in latencies if s > 1.0),
    }


def run(conversations: int, before: str | None, interval: float) -> dict:
    load_start = os.getloadavg()
    with bench_database() as tmp:
        from annotator.models import Campaign, Conversation, Nugget, Turn
        from bench.common import seed_conversation

        saves_campaign = make_campaign_with("saves")
        annotator = make_annotator("annotator")
        make_annotator("gold")
        conversation = seed_conversation(saves_campaign, annotator, nuggets=3, run="mine")
        turn = conversation.turns.filter(role="S").first()
        path = tmp / "conversations.jsonl"
        write_file(path, conversations)
        rounds = {}
        codes = ([("before", checkout(before, Path(tempfile.mkdtemp(prefix="gfrc-before-", dir=tmp))))] if before else [])
        codes.append(("after", ROOT))
        for name, tree in codes:
            make_campaign_with(name)
            command = [PYTHON, "manage.py", "import_conversations", "--campaign", name, "--annotator", "gold", str(path)]
            rounds[name] = saves_during(command, tree, turn, annotator, interval)
            rounds[name]["conversations_landed"] = Conversation.objects.filter(topic__campaign__slug=name).count()
            rounds[name]["nuggets_landed"] = Nugget.objects.filter(turn__conversation__topic__campaign__slug=name).count()
        staging_left = Campaign.objects.filter(staging_for__isnull=False).count()
        turns = Turn.objects.count()
    return {
        "machine": machine(), "database": database_label(), "conversations": conversations,
        "save_interval_s": interval, "before": before, "rounds": rounds, "staging_areas_left": staging_left,
        "turns": turns, "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=30_000)
    parser.add_argument("--before", default=BEFORE, help="the commit to compare with ('none': only this checkout)")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between two saves")
    args = parser.parse_args()
    result = run(args.conversations, None if args.before == "none" else args.before, args.interval)
    path = write_result("import-concurrent-saves-" + result["database"].split()[0].lower(), result)
    print(f"== saves during an import of {result['conversations']} conversations ({result['database']}), "
          f"load average {result['load_average_start']} -> {result['load_average_end']}")
    for name, r in result["rounds"].items():
        print(f"{name:>6}: import {r['import_s']} s (ok={r['import_ok']}, {r['conversations_landed']} conversations, "
              f"{r['nuggets_landed']} nuggets); {r['saves']} saves: p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, "
              f"max {r['max_ms']} ms, over 1 s: {r['over_1s']}, failed: {r['failed']} {r['failures'][:1]}")
        if r["staging"]:
            print(f"        {r['staging']}")
    print(f"staging areas left: {result['staging_areas_left']}")
    print(f"(raw: {path})")
    after = result["rounds"]["after"]
    if not (after["import_ok"] and after["failed"] == 0 and after["conversations_landed"] == result["conversations"]
            and result["staging_areas_left"] == 0):
        sys.exit(1)


if __name__ == "__main__":
    main()
