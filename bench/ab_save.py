"""Is a save as fast as it was? The save path of two checkouts, measured in pairs.

A difference of a millisecond in a 12 ms save is below what separate runs can show here (one
run's median moves by 1-2 ms from the next on this shared machine). So each checkout runs in a
worker process of its own (its own code, its own throwaway database, the same seeded
conversation as profile_save.py and bench_http.py, the production settings and the
garbage-collector settling of config/wsgi.py), and the two take turns: one save in A, one in B,
and so on, each timed inside its worker. Neighbouring requests share the machine's moment, so
the median of the paired differences is steady where the medians themselves are not.

The request is the htmx save of a nugget (create it on a spare movie line; deleted again,
untimed, so the conversation keeps N nuggets) through Django's test client: the whole view,
middleware, SQL and templates, without gunicorn and the network, which both checkouts share.

    .venv/bin/python bench/ab_save.py --before ../old-checkout [--nuggets 20 300] [--iterations 400]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()


def worker(root: Path, nuggets: int) -> None:
    """Serve timings of `root`'s save path: one line in ("save" or "page"), one time out (s)."""
    sys.path.insert(0, str(root))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    from bench.common import bench_database, make_annotator, make_campaign_with, seed_conversation, spare_span

    with bench_database():
        from django.core.management import call_command

        call_command("collectstatic", "--noinput", verbosity=0)  # the pages name the static files
        import config.wsgi  # noqa: F401  the garbage-collector settling gunicorn's workers get
        from django.test import Client

        from annotator.models import Nugget

        campaign = make_campaign_with("bench")
        annotator = make_annotator("paired")
        conversation = seed_conversation(campaign, annotator, nuggets=nuggets, run="run-paired")
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(annotator)
        base = f"/conversations/{conversation.pk}/"
        turn, start, end = spare_span(conversation, nuggets)
        htmx = {"HX-Request": "true"}

        def save() -> float:
            began = time.perf_counter()
            response = client.post(base + "nuggets/", {"turn": turn.pk, "start": start, "end": end}, headers=htmx)
            took = time.perf_counter() - began
            if response.status_code != 200:
                raise SystemExit(f"{root}: the save answered {response.status_code}")
            Nugget.objects.filter(turn=turn, annotator=annotator, start_word=start).delete()
            return took

        def page() -> float:
            began = time.perf_counter()
            response = client.get(base)
            took = time.perf_counter() - began
            if response.status_code != 200:
                raise SystemExit(f"{root}: the page answered {response.status_code}")
            return took

        print("ready", flush=True)
        for line in sys.stdin:
            print(repr({"save": save, "page": page}[line.strip()]()), flush=True)


class _Worker:
    def __init__(self, root: Path, nuggets: int):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
        env.pop("DATABASE_URL", None)  # a new SQLite file each: two workers cannot share one database
        self.process = subprocess.Popen(
            [sys.executable, str(HERE), "--worker", str(root), "--nuggets", str(nuggets)],
            cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )
        if self.process.stdout.readline().strip() != "ready":
            raise SystemExit(f"the worker for {root} did not start")

    def time(self, what: str) -> float:
        self.process.stdin.write(what + "\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def paired(before: Path, after: Path, nuggets: int, iterations: int, warmup: int = 30) -> dict:
    a, b = _Worker(before, nuggets), _Worker(after, nuggets)
    try:
        result = {}
        for what in ("save", "page"):
            times: dict[str, list[float]] = {"before": [], "after": []}
            for i in range(warmup + iterations):
                # ABBA order: neither checkout always goes second (a warmer cache, a later moment)
                order = ((a, "before"), (b, "after")) if i % 2 == 0 else ((b, "after"), (a, "before"))
                pair = {label: worker.time(what) for worker, label in order}
                if i >= warmup:
                    for label, took in pair.items():
                        times[label].append(took)
            differences = [y - x for x, y in zip(times["before"], times["after"])]
            result[what] = {
                "before_p50_ms": round(1000 * statistics.median(times["before"]), 2),
                "after_p50_ms": round(1000 * statistics.median(times["after"]), 2),
                "median_difference_ms": round(1000 * statistics.median(differences), 3),
                "after_slower_in": f"{sum(d > 0 for d in differences)} of {len(differences)} pairs",
            }
        return result
    finally:
        a.close()
        b.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the other checkout (e.g. a git worktree of the older commit)")
    parser.add_argument("--after", type=Path, default=HERE.parents[1], help="default: this checkout")
    parser.add_argument("--nuggets", type=int, nargs="+", default=[20, 300])
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker.resolve(), args.nuggets[0])
        return
    if args.before is None:
        parser.error("--before is required")
    results = {}
    for n in args.nuggets:
        results[n] = paired(args.before.resolve(), args.after.resolve(), n, args.iterations)
        for what, r in results[n].items():
            print(f"{n} nuggets, {what}: before {r['before_p50_ms']} ms, after {r['after_p50_ms']} ms; "
                  f"median paired difference {r['median_difference_ms']:+.3f} ms (after slower in {r['after_slower_in']})")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
