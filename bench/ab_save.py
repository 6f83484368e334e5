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
middleware, SQL and templates, without gunicorn and the network. With `--over http`, through a
gunicorn of each checkout (one sync worker) and a keep-alive client logged in through the form,
as bench_http.py sends it. Also the conversation page, whose code the two may share: how far
its paired difference strays from zero is the resolution of the run.

    .venv/bin/python bench/ab_save.py [--before 1437c62 | a directory] [--nuggets 20 300] [--iterations 400]
                                      [--over client | http]

--before: a commit (its tree is read from git into a temporary directory) or a checkout's
directory; the default is main before issue 26, when a save wrote no stored figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
BEFORE = "1437c62"  # main before issue 26: a save stored no figures


def worker(root: Path, nuggets: int, over: str) -> None:
    """Serve timings of `root`'s save path: one line in ("save" or "page"), one time out (s).
    `over`: "client" (Django's test client in this process) or "http" (a gunicorn of `root`,
    one sync worker, and a keep-alive client that logged in through the form)."""
    sys.path.insert(0, str(root))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    from bench.common import (
        Browser, bench_database, gunicorn, make_annotator, make_campaign_with, seed_conversation, spare_span,
    )

    with bench_database(), contextlib.ExitStack() as stack:
        from django.core.management import call_command

        call_command("collectstatic", "--noinput", verbosity=0)  # the pages name the static files
        from annotator.models import Nugget

        campaign = make_campaign_with("bench")
        annotator = make_annotator("paired")
        conversation = seed_conversation(campaign, annotator, nuggets=nuggets, run="run-paired")
        base = f"/conversations/{conversation.pk}/"
        turn, start, end = spare_span(conversation, nuggets)
        span = {"turn": turn.pk, "start": start, "end": end}
        if over == "http":
            browser = Browser(stack.enter_context(gunicorn(workers=1, threads=1)))
            browser.login(annotator.username)

            def request(method: str, path: str, data: dict | None = None) -> int:
                return browser.request(method, path, data, htmx=method == "POST")[0]
        else:
            import config.wsgi  # noqa: F401  the garbage-collector settling gunicorn's workers get
            from django.test import Client

            client = Client(HTTP_HOST="127.0.0.1")
            client.force_login(annotator)

            def request(method: str, path: str, data: dict | None = None) -> int:
                if method == "POST":
                    return client.post(path, data, headers={"HX-Request": "true"}).status_code
                return client.get(path).status_code

        def timed(method: str, path: str, data: dict | None = None) -> float:
            began = time.perf_counter()
            status = request(method, path, data)
            took = time.perf_counter() - began
            if status != 200:
                raise SystemExit(f"{root}: {method} {path} answered {status}")
            return took

        def save() -> float:
            took = timed("POST", base + "nuggets/", span)
            Nugget.objects.filter(turn=turn, annotator=annotator, start_word=start).delete()  # untimed
            return took

        def page() -> float:
            return timed("GET", base)

        print("ready", flush=True)
        for line in sys.stdin:
            print(repr({"save": save, "page": page}[line.strip()]()), flush=True)


class _Worker:
    def __init__(self, root: Path, nuggets: int, over: str):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
        env.pop("DATABASE_URL", None)  # a new SQLite file each: two workers cannot share one database
        self.process = subprocess.Popen(
            [sys.executable, str(HERE), "--worker", str(root), "--nuggets", str(nuggets), "--over", over],
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


def paired(before: Path, after: Path, nuggets: int, iterations: int, warmup: int = 30, over: str = "client") -> dict:
    """Median times of each checkout and the median of their paired differences (after - before)."""
    a, b = _Worker(before, nuggets, over), _Worker(after, nuggets, over)
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
                "before_p95_ms": round(1000 * statistics.quantiles(times["before"], n=20)[-1], 2),
                "after_p95_ms": round(1000 * statistics.quantiles(times["after"], n=20)[-1], 2),
                "median_difference_ms": round(1000 * statistics.median(differences), 3),
                "after_slower_in": f"{sum(d > 0 for d in differences)} of {len(differences)} pairs",
            }
        return result
    finally:
        a.close()
        b.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help="a commit, or the directory of another checkout")
    parser.add_argument("--nuggets", type=int, nargs="+", default=[20, 300])
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=30, help="untimed pairs first (default 30)")
    parser.add_argument("--over", choices=["client", "http"], default="client",
                        help="Django's test client in the worker (default), or HTTP through a gunicorn of each checkout")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker.resolve(), args.nuggets[0], args.over)
        return
    sys.path.insert(0, str(HERE.parents[1]))
    from bench.common import ROOT, checkout, machine, write_result

    tmp = Path(tempfile.mkdtemp(prefix="gfrc-ab-"))
    try:
        before = Path(args.before) if Path(args.before).is_dir() else checkout(args.before, tmp)
        results = {"machine": machine(), "before": args.before, "over": args.over, "iterations": args.iterations,
                   "sizes": {}}
        for n in args.nuggets:
            results["sizes"][n] = paired(before.resolve(), ROOT, n, args.iterations, args.warmup, args.over)
            for what, r in results["sizes"][n].items():
                print(f"{n} nuggets, {what}: p50 before {r['before_p50_ms']} ms, after {r['after_p50_ms']} ms "
                      f"(p95 {r['before_p95_ms']} / {r['after_p95_ms']} ms); "
                      f"median paired difference {r['median_difference_ms']:+.3f} ms "
                      f"(after slower in {r['after_slower_in']})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"(raw: {write_result('ab_save', results)})")


if __name__ == "__main__":
    main()
