"""Importing 10,000 conversations from JSON Lines with `manage.py import_conversations`.

Generates a seeded JSONL file (bench.lib.generators: 100 topics x 100 runs; 2 user + 2 system turns, 3 graded nuggets
per conversation, every third with an ORIGIN membership), runs the real command in a new
process against a fresh database, times it, and checks what landed. Then imports the same file
with one broken line at the end and checks that nothing at all was written (all or nothing).

    .venv/bin/python bench/bench_import.py [--conversations 10000]
    scripts/with-postgres.sh .venv/bin/python bench/bench_import.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib import PYTHON, ROOT  # noqa: E402
from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.generators import write_campaign_file  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402


def import_command(path: Path) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    process = subprocess.run(
        [PYTHON, "manage.py", "import_conversations", "--campaign", "bench", "--annotator", "gold", str(path)],
        cwd=ROOT, env=dict(os.environ), capture_output=True, text=True,
    )
    return time.perf_counter() - started, process


def counts() -> dict:
    from annotator.models import AnnotationEvent, Conversation, Entity, Membership, Nugget, Topic, Turn, TurnLabel

    return {model.__name__: model.objects.count()
            for model in (Topic, Conversation, Turn, Nugget, Entity, Membership, TurnLabel, AnnotationEvent)}


def run(conversations: int) -> dict:
    with bench_database() as tmp:
        from bench.lib.seeding import make_annotator, make_campaign

        label = database_label()
        make_campaign("bench")
        make_annotator("gold")
        path = tmp / "conversations.jsonl"
        size = write_campaign_file(path, conversations)
        # Python's start-up and Django's set-up (manage.py check), for reference.
        startup_started = time.perf_counter()
        subprocess.run([PYTHON, "manage.py", "check", "-v", "0"], cwd=ROOT, capture_output=True)
        startup = time.perf_counter() - startup_started

        broken = tmp / "broken.jsonl"
        write_campaign_file(broken, conversations, broken_last=True)
        before = counts()
        broken_seconds, broken_process = import_command(broken)
        after_broken = counts()

        # The import itself, timed in this process (Django already set up): call_command runs the
        # same command; the separate process above shows the start-up cost on its own.
        import io

        from django.core.management import call_command

        out = io.StringIO()
        started = time.perf_counter()
        try:
            call_command("import_conversations", str(path), campaign="bench", annotator="gold", stdout=out, stderr=out)
        except Exception as error:
            raise SystemExit(f"import failed: {error}\n{out.getvalue()[-3000:]}") from error
        seconds = time.perf_counter() - started
        landed = counts()
    return {
        "machine": machine(),
        "database": label,
        "conversations": conversations,
        "file_mb": round(size / 1e6, 2),
        "import_s": round(seconds, 2),
        "conversations_per_s": round(conversations / seconds),
        "django_startup_s": round(startup, 2),
        "rows": landed,
        "command_output": out.getvalue().strip()[-500:],
        "broken_file": {
            "refused": broken_process.returncode != 0,
            "seconds": round(broken_seconds, 2),
            "nothing_written": after_broken == before,
            "message": (broken_process.stderr.strip().splitlines() or [""])[-1][:300],
            "first_problem": (broken_process.stderr.strip().splitlines() or [""])[0][:300],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10_000)
    args = parser.parse_args()
    result = run(args.conversations)
    path = write_result("import-" + result["database"].split()[0].lower(), result)
    print(f"== import_conversations ({result['database']})")
    print(f"{result['conversations']} conversations ({result['file_mb']} MB JSONL): {result['import_s']} s "
          f"({result['conversations_per_s']}/s, in-process; a new manage.py process adds {result['django_startup_s']} s start-up)")
    print(f"   rows: {result['rows']}")
    broken = result["broken_file"]
    print(f"   same file, last line broken: refused={broken['refused']}, nothing written={broken['nothing_written']}, "
          f"{broken['seconds']} s; {broken['first_problem']}")
    print(f"(raw: {path})")
    if not (broken["refused"] and broken["nothing_written"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
