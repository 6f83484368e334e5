"""The floor under bench_http.py: the same HTTP stack doing (almost) nothing.

Same gunicorn (one sync worker), same login session, CSRF header and htmx headers, same
client as bench_http.py, but the POST updates one row and answers "saved" and the GET runs one query and answers a number: no scoring, no HTML. What this
takes is what any save round trip of this stack (Django, a database session, two requests)
costs before it does its own work.

    .venv/bin/python bench/bench_floor.py [--iterations 300] [--threads 1] [--warmup 30]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.client import Browser  # noqa: E402
from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.seeding import make_annotator, make_campaign, seed_conversation  # noqa: E402
from bench.lib.server import gunicorn  # noqa: E402
from bench.lib.timing import summary_ms  # noqa: E402


def run(iterations: int = 300, warmup: int = 30, threads: int = 1) -> dict:
    results = {"machine": machine(), "iterations": iterations, "threads": threads}
    with bench_database():
        from annotator.models import Nugget

        results["database"] = database_label()
        annotator = make_annotator("floor")
        seed_conversation(make_campaign("floor"), annotator, nuggets=20, run="floor")
        nugget = Nugget.objects.filter(annotator=annotator).first()
        os.environ["DJANGO_SETTINGS_MODULE"] = "bench.lib.floor_settings"
        try:
            with gunicorn(workers=1, threads=threads) as port:
                browser = Browser(port)
                browser.login(annotator.username)
                write, read, trip, home = [], [], [], []
                for i in range(warmup + iterations):
                    t0 = time.perf_counter()
                    status, headers, _ = browser.request("POST", "/floor/write/", {"nugget": nugget.pk}, htmx=True)
                    t1 = time.perf_counter()
                    assert status == 200, f"write: {status}"
                    status, _, _ = browser.request("GET", "/floor/read/", htmx=True)
                    t2 = time.perf_counter()
                    assert status == 200, f"read: {status}"
                    status, _, _ = browser.request("GET", "/")
                    t3 = time.perf_counter()
                    if i >= warmup:
                        write.append(t1 - t0)
                        read.append(t2 - t1)
                        trip.append(t2 - t0)
                        home.append(t3 - t2)
                browser.close()
        finally:
            os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        results.update(
            bare_write=summary_ms(write), bare_read=summary_ms(read), bare_round_trip=summary_ms(trip),
            home_redirect=summary_ms(home),
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1, help="gunicorn threads (more than 1: gthread, keep-alive)")
    parser.add_argument("--warmup", type=int, default=30, help="unmeasured iterations first")
    args = parser.parse_args()
    r = run(args.iterations, args.warmup, threads=args.threads)
    path = write_result("floor-" + r["database"].split()[0].lower(), r)
    print(f"== the floor of a save round trip ({r['database']}; gunicorn 1 worker, {'sync' if args.threads == 1 else f'gthread x {args.threads}'}; {args.iterations} iterations)")
    print(f"bare POST (1 UPDATE, committed) p50 {r['bare_write']['p50_ms']} ms p95 {r['bare_write']['p95_ms']} ms | "
          f"bare GET (1 SELECT) p50 {r['bare_read']['p50_ms']} ms p95 {r['bare_read']['p95_ms']} ms | "
          f"round trip p50 {r['bare_round_trip']['p50_ms']} ms p95 {r['bare_round_trip']['p95_ms']} ms | "
          f"home redirect p50 {r['home_redirect']['p50_ms']} ms")
    print(f"(raw: {path})")


if __name__ == "__main__":
    main()
