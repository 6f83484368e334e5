"""Importing one conversation with very many nuggets: linear, not quadratic.

Generates one JSONL conversation whose system turn has N words and N one-word nuggets (each
naming its own entity, graded), imports it with annotator.interchange.imports.conversations.import_files into a fresh
SQLite database (or the throwaway PostgreSQL of scripts/with-postgres.sh), and reports the
parse/check time and the whole import per size. A linear importer keeps the time per nugget
flat across sizes; the quadratic one (every nugget compared with every earlier span of its
turn, the turn re-read per nugget) took 32 s at 20,000 and 218 s at 40,000.

    .venv/bin/python bench/bench_nugget_import.py [--sizes 12500 25000 50000]
    scripts/with-postgres.sh .venv/bin/python bench/bench_nugget_import.py
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib import ROOT  # noqa: E402
from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402

CAMPAIGN_FILE = ROOT / "fixtures" / "fairweb-campaign.json"


def conversation(nuggets: int, topic: str) -> bytes:
    words = [f"w{i}" for i in range(nuggets)]
    line = {
        "topic": topic,
        "run": "many-trial1",
        "turns": [{"role": "user", "text": "Name everything please"},
                  {"role": "system", "text": " ".join(words), "label": "o"}],
        "nuggets": [{"turn": 2, "start": i, "end": i, "grade": "L1", "entity": {"key": f"name:w{i}", "name": f"w{i}"}}
                    for i in range(nuggets)],
    }
    return (json.dumps(line) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[12_500, 25_000, 50_000])
    args = parser.parse_args()
    with bench_database():
        from django.core.management import call_command

        from annotator.interchange.formats import parse_file
        from annotator.interchange.imports.conversations import import_files
        from annotator.models import Campaign, Nugget

        call_command("load_campaign", str(CAMPAIGN_FILE), verbosity=0)
        campaign = Campaign.objects.get(slug="fairweb1")
        rows = []
        for index, size in enumerate(args.sizes):
            data = conversation(size, f"M{900 + index}")
            started = time.perf_counter()
            parsed = parse_file(data, "many.jsonl")
            parse_s = time.perf_counter() - started
            assert parsed.ok, parsed.errors[:3]
            started = time.perf_counter()
            result = import_files(campaign, [("many.jsonl", data)])
            import_s = time.perf_counter() - started
            assert result.ok, result.errors[:3]
            assert Nugget.objects.filter(turn__conversation__topic__code=f"M{900 + index}").count() == size
            rows.append({"nuggets": size, "file_mb": round(len(data) / 1e6, 2), "parse_s": round(parse_s, 2),
                         "import_s": round(import_s, 2), "us_per_nugget": round(1e6 * import_s / size)})
            print(f"{size:>7,} nuggets ({len(data) / 1e6:.1f} MB): parse {parse_s:.2f} s, "
                  f"import {import_s:.2f} s, {1e6 * import_s / size:.0f} us a nugget", flush=True)
        write_result("nugget_import", {"database": database_label(), "machine": machine(), "rows": rows})


if __name__ == "__main__":
    main()
