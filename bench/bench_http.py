"""Save-a-nugget round trip through the real HTTP stack, and its ratio to the stack's floor.

gunicorn (one sync worker) on 127.0.0.1; the annotator logs in through the login form, then
like the browser's htmx does: POST the nugget (HX-Request, CSRF header, session cookie). The
answer carries everything the edit changed (turns, editor, counts, score panel: out of band),
so the save round trip is that one request. Nuggets are created and deleted alternately on a
spare movie line, so the conversation keeps N (20, then 300) nuggets. Also the whole
conversation page. The same server answers bench_floor.py's bare POST and GET (the product's
URLs plus /floor/, bench.lib.floor_settings), each measured just before the request it is the
floor of: the targets are ratios to them, measured under the same load. p50/p95 in ms.

    .venv/bin/python bench/bench_http.py [--iterations 200] [--sizes 20 300] [--warmup 20]
    DATABASE_URL=postgres://... .venv/bin/python bench/bench_http.py   (or under scripts/with-postgres.sh)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.client import Browser  # noqa: E402
from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.seeding import seed_sizes, spare_span  # noqa: E402
from bench.lib.server import gunicorn  # noqa: E402
from bench.lib.timing import summary_ms  # noqa: E402

# Ratios to the floor measured in the same run (issue 12): they hold on any machine.
TARGETS = {"save_p50": 5, "save_p95": 5, "page_p50": 4}


def _timed(browser, method: str, path: str, data=None, **kwargs) -> tuple[float, int, dict, bytes]:
    t0 = time.perf_counter()
    status, headers, body = browser.request(method, path, data, **kwargs)
    return time.perf_counter() - t0, status, headers, body


def run(sizes=(20, 300), iterations: int = 200, warmup: int = 20) -> dict:
    """The server also answers bench_floor.py's bare views (bench.lib.floor_settings: the product's
    URLs plus /floor/); each measured request follows its floor request, so both are measured
    at the same moment of a shared machine's load."""
    results = {"machine": machine(), "iterations": iterations, "sizes": {}}
    with bench_database():
        results["database"] = database_label()
        seeded = seed_sizes(sizes)
        os.environ["DJANGO_SETTINGS_MODULE"] = "bench.lib.floor_settings"
        try:
            server = gunicorn(workers=1, threads=1)
            port = server.__enter__()
        finally:
            os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        try:
            for size, (annotator, conversation) in seeded.items():
                results["sizes"][size] = _measure(port, annotator, conversation, size, iterations, warmup)
        finally:
            server.__exit__(None, None, None)
    big = results["sizes"].get(300)
    if big:
        ratios = {
            "save_p50": big["save_round_trip"]["p50_ms"] / big["bare_post"]["p50_ms"],
            "save_p95": big["save_round_trip"]["p95_ms"] / big["bare_post"]["p95_ms"],
            "page_p50": big["conversation_page"]["p50_ms"] / big["bare_get"]["p50_ms"],
        }
        results["targets"] = {name: (round(value, 2), TARGETS[name]) for name, value in ratios.items()}
    return results


def _measure(port, annotator, conversation, size, iterations, warmup) -> dict:
    from annotator.models import Nugget

    turn, start, end = spare_span(conversation, size)
    # any nugget but the one the saves create and delete (with few nuggets, all share its turn)
    floor_nugget = Nugget.objects.filter(annotator=annotator).exclude(turn=turn, start_word__lte=end, end_word__gte=start).first()
    browser = Browser(port)
    browser.login(annotator.username)
    base = f"/conversations/{conversation.pk}/"
    status, _, _ = browser.request("GET", base)
    assert status == 200, f"conversation page: {status}"
    bare_post, bare_get, create_trip, delete_trip, page, answer = [], [], [], [], [], []
    for i in range(warmup + iterations):
        floor_took, status, headers, _ = _timed(browser, "POST", "/floor/write/", {"nugget": floor_nugget.pk}, htmx=True)
        assert status == 200, f"bare POST: {status}"
        # save: POST the span; its answer carries the new scores (no second request)
        took, status, headers, body = _timed(
            browser, "POST", base + "nuggets/", {"turn": turn.pk, "start": start, "end": end}, htmx=True)
        assert status == 200 and "hx-trigger" not in headers, f"create: {status}"  # one request: no event for a second
        assert b'<div id="score-figures" hx-swap-oob="morph">' in body, "the save's answer carries the new scores"
        nugget = Nugget.objects.only("pk", "version").get(turn=turn, annotator=annotator, start_word=start)
        delete_took, status, _, _ = _timed(
            browser, "POST", base + f"nuggets/{nugget.pk}/delete/", {"version": nugget.version}, htmx=True)
        assert status == 200, f"delete: {status}"
        if i >= warmup:
            bare_post.append(floor_took)
            create_trip.append(took)
            delete_trip.append(delete_took)
            answer.append(len(body))
    for i in range(warmup + iterations // 2):
        floor_took, status, _, _ = _timed(browser, "GET", "/floor/read/", htmx=True)
        assert status == 200, f"bare GET: {status}"
        took, status, _, body = _timed(browser, "GET", base)
        assert status == 200, f"page: {status}"
        if i >= warmup:
            bare_get.append(floor_took)
            page.append(took)
    assert Nugget.objects.filter(annotator=annotator).count() == size
    browser.close()
    return {
        "bare_post": summary_ms(bare_post),
        "bare_get": summary_ms(bare_get),
        "save_post": summary_ms(create_trip),  # the round trip is this one POST
        "save_round_trip": summary_ms(create_trip),
        "delete_post": summary_ms(delete_trip),
        "delete_round_trip": summary_ms(delete_trip),
        "save_answer_bytes": max(answer),
        "conversation_page": summary_ms(page),
        "page_bytes": len(body),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 300])
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured iterations first")
    args = parser.parse_args()
    results = run(tuple(args.sizes), args.iterations, args.warmup)
    path = write_result("http-" + results["database"].split()[0].lower(), results)
    print(f"== save-a-nugget over HTTP ({results['database']}; gunicorn 1 worker; {args.iterations} iterations)")
    for size, r in results["sizes"].items():
        print(f"{size:>4} nuggets: the floor, interleaved: bare POST p50 {r['bare_post']['p50_ms']} ms "
              f"p95 {r['bare_post']['p95_ms']} ms | bare GET p50 {r['bare_get']['p50_ms']} ms")
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
