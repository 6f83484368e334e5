"""Imports as the campaign grows: the first annotator's import of N conversations, then a second
annotator's judgments on the same 1,000 of them, for each N (issue 44: "imports stay linear").

For each size, in a fresh database: bench.lib.generators' campaign (`N / --runs` topics x
`--runs` runs: 2 user + 2 system turns, 3 graded nuggets each, an ORIGIN membership on every
third) imported by "gold" with `import_files` in this process, then its first `--second` lines
imported by "second" (`annotator=`: judgments added to conversations already there), as
bench_campaign_pages.py's `build` does. Each import is timed stage by stage: parsing, checking
(the plan), staging (new rows written where nobody looks), publishing, the pauses between
batches (a passive WAL checkpoint, and the wait for annotators' saves: none when nobody
saves), the stored figures, the rest (marking judgments done); with the queries each stage
ran. The second import's file is the same at every size: its time should not grow with the
campaign, and the first import's time per conversation should stay flat.

    .venv/bin/python bench/bench_import_scaling.py [--sizes 5000 20000] [--runs 20] [--second 1000] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib import PYTHON, ROOT  # noqa: E402
from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.generators import conversation_line  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.seeding import make_annotator, make_campaign  # noqa: E402

STAGES = ("parsing", "checking", "staging", "publishing", "pauses", "figures", "rest")


class Stages:
    """Seconds and queries per stage of one import: the import's own progress reports mark
    parsing and checking; staging, publishing, the pauses and the figures are timed by wrapping
    the functions that do them (the rest of writing is "rest")."""

    def __init__(self):
        self.seconds = dict.fromkeys(STAGES, 0.0)
        self.queries = dict.fromkeys(STAGES, 0)
        self.current = "parsing"
        self.mark = time.perf_counter()

    def switch(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[self.current] += now - self.mark
        self.current, self.mark = stage, now

    def progress(self, stage: str, _done: int) -> None:
        if stage in ("parsing", "checking"):
            self.switch(stage)
        elif stage == "writing":
            self.switch("rest")

    def query(self, execute, sql, params, many, context):
        self.queries[self.current] += 1
        return execute(sql, params, many, context)

    @contextmanager
    def within(self, stage: str):
        before = self.current
        self.switch(stage)
        try:
            yield
        finally:
            self.switch(before)


@contextmanager
def instrumented(stages: Stages):
    """The import's staging, publishing, pauses and figures timed into `stages` (restored after)."""
    from annotator.interchange.imports import conversation_writing, staging
    from annotator.scores.stored import invalidation

    originals = {
        (conversation_writing._Writer, "stage"): conversation_writing._Writer.stage,
        (staging.StagingArea, "publish"): staging.StagingArea.publish,
        (staging.StagingArea, "_pause"): staging.StagingArea._pause,
        (invalidation, "conversations_written"): invalidation.conversations_written,
    }
    names = {"stage": "staging", "publish": "publishing", "_pause": "pauses", "conversations_written": "figures"}

    def timed(function, stage):
        def wrapper(*args, **kwargs):
            with stages.within(stage):
                return function(*args, **kwargs)
        return wrapper

    for (owner, name), function in originals.items():
        setattr(owner, name, timed(function, names[name]))
    try:
        yield
    finally:
        for (owner, name), function in originals.items():
            setattr(owner, name, function)


def timed_import(campaign, name: str, lines: list[str], annotator, profile: bool) -> dict:
    from django.db import connection

    from annotator.interchange.imports.conversations import import_files

    stages = Stages()
    profiler = cProfile.Profile() if profile else None
    data = "\n".join(lines).encode()
    started = time.perf_counter()
    stages.mark = started
    with instrumented(stages), connection.execute_wrapper(stages.query):
        if profiler:
            profiler.enable()
        result = import_files(campaign, [(name, data)], annotator=annotator, progress=stages.progress)
        if profiler:
            profiler.disable()
    stages.switch("rest")
    seconds = time.perf_counter() - started
    assert result.ok, result.errors[:3]
    figures = {
        "conversations": len(lines),
        "seconds": round(seconds, 2),
        "ms_per_conversation": round(seconds / len(lines) * 1e3, 3),
        "stages_s": {stage: round(s, 2) for stage, s in stages.seconds.items()},
        "queries": dict(stages.queries),
        "load": os.getloadavg()[0],
    }
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
        figures["profile"] = out.getvalue()
    return figures


def one_size(size: int, runs: int, second: int, profile: bool) -> dict:
    with bench_database():
        topics = max(1, size // runs)
        campaign = make_campaign("bench")
        gold, other = make_annotator("gold"), make_annotator("second")
        rng = random.Random(20231121)
        lines = [json.dumps(conversation_line(i, topics, rng)) for i in range(topics * runs)]
        first = timed_import(campaign, "campaign.jsonl", lines, gold, profile)
        again = timed_import(campaign, "second.jsonl", lines[:second], other, profile)
        return {"conversations": len(lines), "topics": topics, "runs": runs, "first": first, "second": again,
                "database": database_label()}


def in_a_process(size: int, args) -> dict:
    """One size in a process of its own: Django connects to one database a process, and each
    size gets a fresh one."""
    command = [PYTHON, __file__, "--one", str(size), "--runs", str(args.runs), "--second", str(args.second)]
    completed = subprocess.run(command + (["--profile"] if args.profile else []), cwd=ROOT, capture_output=True,
                               text=True, env=dict(os.environ))
    if completed.returncode:
        sys.exit(f"size {size} failed:\n{completed.stdout[-3000:]}{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000], help="conversations of the campaign")
    parser.add_argument("--runs", type=int, default=20, help="runs (the topics are size / runs)")
    parser.add_argument("--second", type=int, default=1000, help="conversations the second annotator judges")
    parser.add_argument("--profile", action="store_true", help="print each import's cProfile (40 costliest calls)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # one size, its result as JSON (in_a_process)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one, args.runs, min(args.second, args.one), args.profile)))
        return
    result = {"load_start": os.getloadavg(), "sizes": {}}
    for size in args.sizes:
        result["sizes"][size] = in_a_process(size, args)
    result["database"] = result["sizes"][args.sizes[0]]["database"]
    result["machine"] = machine()
    result["load_end"] = os.getloadavg()
    profiles = {(size, which): r[which].pop("profile") for size, r in result["sizes"].items()
                for which in ("first", "second") if "profile" in r[which]}
    path = write_result("import_scaling-" + result["database"].split()[0].lower(), result)
    print(f"== imports as the campaign grows ({result['database']}; runs {args.runs}, second annotator on {args.second})")
    print("| campaign | import | conversations | s | ms / conversation | " + " | ".join(STAGES) + " | queries | load |")
    print("|---|---|---|---|---|" + "---|" * len(STAGES) + "---|---|")
    for size, r in result["sizes"].items():
        for which in ("first", "second"):
            f = r[which]
            print(f"| {r['conversations']} | {which} | {f['conversations']} | {f['seconds']} | {f['ms_per_conversation']} | "
                  + " | ".join(str(f["stages_s"][s]) for s in STAGES)
                  + f" | {sum(f['queries'].values())} | {f['load']:.1f} |")
    for (size, which), text in profiles.items():
        print(f"\n== profile: campaign of {size}, {which} import\n{text}")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in result['load_end'])}")
    print(f"(raw: {path})")


if __name__ == "__main__":
    main()
