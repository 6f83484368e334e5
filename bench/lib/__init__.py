"""What the benchmarks share (the scripts in bench/ are the benchmarks; this is their library):

- `database`: a throwaway, migrated database for one run (a new SQLite file, or the PostgreSQL
  of DATABASE_URL), and its label;
- `seeding`: a campaign, annotators and graded conversations built through the business rules;
- `generators`: seeded files to import: a campaign's JSONL conversations, a gold and a noisy
  judge over the same conversations;
- `server`: gunicorn on a spare port of 127.0.0.1, the CPU its processes used;
  `floor_settings` and `floor_urls`: the product's settings and URLs plus the floor's bare views;
- `client`: a keep-alive HTTP client that logs in and posts like htmx in a browser;
- `timing`: percentiles, best-of timings, the load average;
- `results`: the machine a run ran on, and where its raw numbers are written.

Everything runs on loopback and in temporary directories; nothing is left behind. The library
imports nothing from tests/, and neither do the scripts (tests/test_bench_layout.py).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
