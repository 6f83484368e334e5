"""Save-a-nugget round trip through the real HTTP stack, and its ratio to the stack's floor.

gunicorn (one sync worker) on 127.0.0.1; the annotator logs in through the login form, then
like the browser's htmx does: POST the nugget (HX-Request, CSRF header, session cookie). The
answer carries everything the edit changed (turns, editor, counts, score panel: out of band),
so the save round trip is that one request. Nuggets are created and deleted alternately on a
spare movie line, so the conversation keeps N (20, then 300) nuggets. Also the whole
conversation page. First, in the same run, bench_floor.py measures the bare POST and GET of
this stack; the targets are ratios to them. Prints p50/p95 in milliseconds.

    .venv/bin/python bench/bench_http.py [--iterations 200]
    DATABASE_URL=postgres://... .venv/bin/python bench/bench_http.py   (or under scripts/with-postgres.sh)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    Browser, bench_database, database_label, gunicorn, machine, make_annotator, make_campaign_with,
    seed_conversation, spare_span, summary_ms, write_result,
)

# Ratios to the floor measured in the same run (issue 12): they hold on any machine.
TARGETS = {"save_p50": 5, "save_p95": 5, "page_p50": 4}


def run(sizes=(20, 300), iterations: int = 200, warmup: int = 20, floor: dict | None = None) -> dict:
    results = {"machine": machine(), "iterations": iterations, "sizes": {}}
    with bench_database():
        from annotator.models import Nugget

        results["database"] = database_label()
        campaign = make_campaign_with("bench")
        seeded = {}
        for size in sizes:
            annotator = make_annotator(f"ann{size}")
            conversation = seed_conversation(campaign, annotator, nuggets=size, run=f"run-{size}")
            seeded[size] = (annotator, conversation)
        with gunicorn(workers=1, threads=1) as port:
            for size, (annotator, conversation) in seeded.items():
                turn, start, end = spare_span(conversation, size)
                browser = Browser(port)
                browser.login(annotator.username)
                base = f"/conversations/{conversation.pk}/"
                status, _, _ = browser.request("GET", base)
                assert status == 200, f"conversation page: {status}"
                create_trip, delete_trip, page, answer = [], [], [], []
                for i in range(warmup + iterations):
                    measured = i >= warmup
                    # save: POST the span; its answer carries the score panel (no second request)
                    t0 = time.perf_counter()
                    status, headers, body = browser.request(
                        "POST", base + "nuggets/", {"turn": turn.pk, "start": start, "end": end}, htmx=True)
                    t1 = time.perf_counter()
                    assert status == 200 and "hx-trigger" in headers, f"create: {status}"
                    assert b'id="score-panel"' in body, "the save's answer carries the score panel"
                    nugget = Nugget.objects.only("pk", "version").get(turn=turn, annotator=annotator, start_word=start)
                    t2 = time.perf_counter()
                    status, headers, _ = browser.request(
                        "POST", base + f"nuggets/{nugget.pk}/delete/", {"version": nugget.version}, htmx=True)
                    t3 = time.perf_counter()
                    assert status == 200, f"delete: {status}"
                    if measured:
                        create_trip.append(t1 - t0)
                        delete_trip.append(t3 - t2)
                        answer.append(len(body))
                for i in range(warmup + iterations // 2):
                    t0 = time.perf_counter()
                    status, _, body = browser.request("GET", base)
                    if i >= warmup:
                        page.append(time.perf_counter() - t0)
                assert Nugget.objects.filter(annotator=annotator).count() == size
                browser.close()
                results["sizes"][size] = {
                    "save_post": summary_ms(create_trip),  # the round trip is this one POST
                    "save_round_trip": summary_ms(create_trip),
                    "delete_post": summary_ms(delete_trip),
                    "delete_round_trip": summary_ms(delete_trip),
                    "save_answer_bytes": max(answer),
                    "conversation_page": summary_ms(page),
                    "page_bytes": len(body),
                }
    big = results["sizes"].get(300)
    if big and floor:
        results["floor"] = {k: floor[k] for k in ("bare_write", "bare_read", "bare_round_trip")}
        ratios = {
            "save_p50": big["save_round_trip"]["p50_ms"] / floor["bare_write"]["p50_ms"],
            "save_p95": big["save_round_trip"]["p95_ms"] / floor["bare_write"]["p95_ms"],
            "page_p50": big["conversation_page"]["p50_ms"] / floor["bare_read"]["p50_ms"],
        }
        results["targets"] = {name: (round(value, 2), TARGETS[name]) for name, value in ratios.items()}
    return results


def measure_floor() -> dict:
    """bench_floor.py in its own process (it serves other settings), just before this run."""
    out = Path(tempfile.mkdtemp(prefix="gfrc-floor-"))
    subprocess.run([sys.executable, str(Path(__file__).with_name("bench_floor.py")), "--iterations", "200"],
                   check=True, env={**os.environ, "GFRC_BENCH_OUT": str(out)}, stdout=subprocess.DEVNULL)
    (result,) = out.glob("floor-*.json")
    return json.loads(result.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 300])
    parser.add_argument("--no-floor", action="store_true", help="skip the floor (no ratios)")
    args = parser.parse_args()
    floor = None if args.no_floor else measure_floor()
    results = run(tuple(args.sizes), args.iterations, floor=floor)
    path = write_result("http-" + results["database"].split()[0].lower(), results)
    print(f"== save-a-nugget over HTTP ({results['database']}; gunicorn 1 worker; {args.iterations} iterations)")
    if floor:
        print(f"floor: bare POST p50 {floor['bare_write']['p50_ms']} ms p95 {floor['bare_write']['p95_ms']} ms | "
              f"bare GET p50 {floor['bare_read']['p50_ms']} ms")
    for size, r in results["sizes"].items():
        print(f"{size:>4} nuggets: save (one POST) p50 {r['save_round_trip']['p50_ms']} ms p95 {r['save_round_trip']['p95_ms']} ms "
              f"({r['save_answer_bytes'] // 1024} KB) | delete p50 {r['delete_round_trip']['p50_ms']} ms "
              f"p95 {r['delete_round_trip']['p95_ms']} ms | page p50 {r['conversation_page']['p50_ms']} ms "
              f"p95 {r['conversation_page']['p95_ms']} ms ({r['page_bytes'] // 1024} KB)")
    for name, (measured, target) in results.get("targets", {}).items():
        print(f"   target {name}: {measured}x the floor, target <= {target}x: {'met' if measured <= target else 'MISSED'}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"(raw: {path})")
    json.dumps(results)


if __name__ == "__main__":
    main()
