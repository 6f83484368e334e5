"""Save-a-nugget round trip through the real HTTP stack.

gunicorn (one sync worker) on 127.0.0.1; the annotator logs in through the login form, then
like the browser's htmx does: POST the nugget (HX-Request, CSRF header, session cookie) and GET
the refreshed score panel that the HX-Trigger asks for. Nuggets are created and deleted
alternately on a spare movie line, so the conversation keeps N (20, then 300) nuggets.
Also the whole conversation page. Prints p50/p95 in milliseconds.

    .venv/bin/python bench/bench_http.py [--iterations 200]
    DATABASE_URL=postgres://... .venv/bin/python bench/bench_http.py   (or under scripts/with-postgres.sh)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    Browser, bench_database, database_label, gunicorn, machine, make_annotator, make_campaign_with,
    seed_conversation, spare_span, summary_ms, write_result,
)

TARGETS = {"save_p50_ms": 10, "save_p95_ms": 25, "page_p50_ms": 25}


def run(sizes=(20, 300), iterations: int = 200, warmup: int = 20) -> dict:
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
                create_post, create_panel, delete_post, delete_panel, page = [], [], [], [], []
                create_trip, delete_trip = [], []
                for i in range(warmup + iterations):
                    measured = i >= warmup
                    # save: POST the span, then the score panel the HX-Trigger asks for
                    t0 = time.perf_counter()
                    status, headers, _ = browser.request(
                        "POST", base + "nuggets/", {"turn": turn.pk, "start": start, "end": end}, htmx=True)
                    t1 = time.perf_counter()
                    assert status == 200 and "hx-trigger" in headers, f"create: {status}"
                    status, _, _ = browser.request("GET", base + "score/", htmx=True)
                    t2 = time.perf_counter()
                    assert status == 200, f"score panel: {status}"
                    nugget = Nugget.objects.only("pk", "version").get(turn=turn, annotator=annotator, start_word=start)
                    t3 = time.perf_counter()
                    status, headers, _ = browser.request(
                        "POST", base + f"nuggets/{nugget.pk}/delete/", {"version": nugget.version}, htmx=True)
                    t4 = time.perf_counter()
                    assert status == 200, f"delete: {status}"
                    status, _, _ = browser.request("GET", base + "score/", htmx=True)
                    t5 = time.perf_counter()
                    if measured:
                        create_post.append(t1 - t0)
                        create_panel.append(t2 - t1)
                        create_trip.append(t2 - t0)
                        delete_post.append(t4 - t3)
                        delete_panel.append(t5 - t4)
                        delete_trip.append(t5 - t3)
                for i in range(warmup + iterations // 2):
                    t0 = time.perf_counter()
                    status, _, body = browser.request("GET", base)
                    if i >= warmup:
                        page.append(time.perf_counter() - t0)
                assert Nugget.objects.filter(annotator=annotator).count() == size
                browser.close()
                results["sizes"][size] = {
                    "save_post": summary_ms(create_post),
                    "save_score_panel": summary_ms(create_panel),
                    "save_round_trip": summary_ms(create_trip),
                    "delete_post": summary_ms(delete_post),
                    "delete_round_trip": summary_ms(delete_trip),
                    "conversation_page": summary_ms(page),
                    "page_bytes": len(body),
                }
    big = results["sizes"].get(300)
    if big:
        results["targets"] = {
            "save_p50_ms": (big["save_round_trip"]["p50_ms"], TARGETS["save_p50_ms"]),
            "save_p95_ms": (big["save_round_trip"]["p95_ms"], TARGETS["save_p95_ms"]),
            "page_p50_ms": (big["conversation_page"]["p50_ms"], TARGETS["page_p50_ms"]),
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 300])
    args = parser.parse_args()
    results = run(tuple(args.sizes), args.iterations)
    path = write_result("http-" + results["database"].split()[0].lower(), results)
    print(f"== save-a-nugget over HTTP ({results['database']}; gunicorn 1 worker; {args.iterations} iterations)")
    for size, r in results["sizes"].items():
        print(f"{size:>4} nuggets: save POST p50 {r['save_post']['p50_ms']} ms p95 {r['save_post']['p95_ms']} ms | "
              f"+score panel = round trip p50 {r['save_round_trip']['p50_ms']} ms p95 {r['save_round_trip']['p95_ms']} ms | "
              f"delete round trip p50 {r['delete_round_trip']['p50_ms']} ms p95 {r['delete_round_trip']['p95_ms']} ms | "
              f"page p50 {r['conversation_page']['p50_ms']} ms p95 {r['conversation_page']['p95_ms']} ms")
    for name, (measured, target) in results.get("targets", {}).items():
        print(f"   target {name}: measured {measured} ms, target <= {target} ms: {'met' if measured <= target else 'MISSED'}")
    print(f"(raw: {path})")
    json.dumps(results)


if __name__ == "__main__":
    main()
