"""Load run on loopback: N simulated annotators (threads, one logged-in session each) make M
changes each on their own conversations, alternately a turn label (o -> x -> - -> o ...) and a
nugget created / deleted, through gunicorn (2 workers x 4 threads, gthread) on 127.0.0.1.

Reports throughput, p50/p95 latency, errors, and checks that every change is in the database
exactly once: AnnotationEvents per annotator == changes that annotator made, and the turn
labels' versions match the number of label changes. Bounded: --annotators, --changes and
--time-limit (clients stop early, the check still holds for what they did).

    .venv/bin/python bench/bench_load.py                      # SQLite (temporary file)
    scripts/with-postgres.sh .venv/bin/python bench/bench_load.py   # PostgreSQL on loopback
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    Browser, bench_database, database_label, gunicorn, machine, make_annotator, make_campaign_with,
    seed_conversation, spare_span, summary_ms, write_result,
)

LABELS = ["o", "x", "-"]


def run(annotators: int = 20, changes: int = 200, nuggets: int = 20, time_limit: float = 300,
        workers: int = 2, threads: int = 4) -> dict:
    with bench_database():
        from django.db import connections

        from annotator.models import AnnotationEvent, Nugget, TurnLabel

        label = database_label()
        campaign = make_campaign_with("load")
        people = []
        for i in range(annotators):
            user = make_annotator(f"load{i:02d}")
            conversation = seed_conversation(campaign, user, nuggets=nuggets, run=f"load-run-{i:02d}")
            turn, start, end = spare_span(conversation, nuggets)
            # Mark and unmark the spare line once, so its entity exists: every later create is one event.
            from annotator.judgments import edits

            nugget = edits.create_nugget(annotator=user, actor=user, turn=turn, start_word=start, end_word=end)
            edits.delete_nugget(nugget, actor=user, expected_version=nugget.version)
            label_turn = conversation.turns.filter(role="S").order_by("position").first()
            people.append((user, conversation, turn, start, end, label_turn))
        baseline = Counter(AnnotationEvent.objects.values_list("annotator__username", flat=True))

        latencies: list[float] = []
        errors: list[str] = []
        made = Counter()
        label_changes = Counter()
        lock = threading.Lock()
        deadline = time.monotonic() + time_limit
        barrier = threading.Barrier(annotators)

        def annotator_loop(user, conversation, turn, start, end, label_turn, port):
            browser = Browser(port)
            try:
                browser.login(user.username)
                base = f"/conversations/{conversation.pk}/"
                browser.request("GET", base)
                label_version = None
                nugget_id = nugget_version = None
                barrier.wait(timeout=120)
                for i in range(changes):
                    if time.monotonic() > deadline:
                        break
                    if i % 2 == 0:
                        new_label = LABELS[(i // 2) % 3]
                        data = {"label": new_label, "version": label_version or ""}
                        path = base + f"turns/{label_turn.pk}/label/"
                    elif nugget_id is None:
                        data = {"turn": turn.pk, "start": start, "end": end}
                        path = base + "nuggets/"
                    else:
                        data = {"version": nugget_version}
                        path = base + f"nuggets/{nugget_id}/delete/"
                    t0 = time.perf_counter()
                    try:
                        status, headers, _ = browser.request("POST", path, data, htmx=True)
                    except Exception as error:  # noqa: BLE001 - counted and reported
                        with lock:
                            errors.append(f"{user.username} change {i}: {type(error).__name__}: {error}")
                        continue
                    elapsed = time.perf_counter() - t0
                    with lock:
                        latencies.append(elapsed)
                        if status != 200:
                            errors.append(f"{user.username} change {i}: HTTP {status} on {path}")
                            continue
                        made[user.username] += 1
                        if i % 2 == 0:
                            label_changes[user.username] += 1
                    if i % 2 == 0:
                        label_version = (label_version or 0) + 1
                    elif nugget_id is None:
                        nugget = Nugget.objects.only("pk", "version").get(turn=turn, annotator=user, start_word=start)
                        nugget_id, nugget_version = nugget.pk, nugget.version
                    else:
                        nugget_id = nugget_version = None
            finally:
                browser.close()
                connections.close_all()

        with gunicorn(workers=workers, threads=threads) as port:
            started = time.perf_counter()
            pool = [threading.Thread(target=annotator_loop, args=(*person, port)) for person in people]
            for thread in pool:
                thread.start()
            for thread in pool:
                thread.join()
            wall = time.perf_counter() - started

        # Exactly once: the events recorded per annotator are the changes they made.
        events = Counter(AnnotationEvent.objects.values_list("annotator__username", flat=True))
        mismatches = []
        for user, conversation, turn, start, end, label_turn in people:
            recorded = events[user.username] - baseline[user.username]
            if recorded != made[user.username]:
                mismatches.append(f"{user.username}: {made[user.username]} changes, {recorded} events")
            current = TurnLabel.objects.filter(turn=label_turn, annotator=user).first()
            expected_version = label_changes[user.username]
            if expected_version and (current is None or current.version != expected_version):
                mismatches.append(f"{user.username}: label version {current and current.version}, expected {expected_version}")
            nuggets_now = Nugget.objects.filter(turn__conversation=conversation, annotator=user).count()
            creates = (made[user.username] - label_changes[user.username] + 1) // 2
            deletes = (made[user.username] - label_changes[user.username]) // 2
            if nuggets_now != nuggets + creates - deletes:
                mismatches.append(f"{user.username}: {nuggets_now} nuggets, expected {nuggets + creates - deletes}")
        total = sum(made.values())
        return {
            "machine": machine(),
            "database": label,
            "server": f"gunicorn {workers} workers x {threads} threads (gthread), 127.0.0.1",
            "annotators": annotators,
            "changes_per_annotator": changes,
            "changes_made": total,
            "wall_s": round(wall, 1),
            "changes_per_s": round(total / wall, 1) if wall else None,
            "latency": summary_ms(latencies),
            "errors": len(errors),
            "error_samples": errors[:10],
            "exactly_once": not mismatches,
            "mismatches": mismatches[:20],
            "stopped_by_time_limit": total < annotators * changes and not errors,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--nuggets", type=int, default=20, help="nuggets already in each conversation")
    parser.add_argument("--time-limit", type=float, default=300, help="seconds; clients stop after it")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    result = run(args.annotators, args.changes, args.nuggets, args.time_limit, args.workers, args.threads)
    path = write_result("load-" + result["database"].split()[0].lower(), result)
    lat = result["latency"]
    print(f"== load run ({result['database']}; {result['server']})")
    print(f"{result['annotators']} annotators x {result['changes_per_annotator']} changes: {result['changes_made']} made "
          f"in {result['wall_s']} s ({result['changes_per_s']}/s); latency p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms, "
          f"max {lat['max_ms']} ms; errors {result['errors']}; every change recorded exactly once: {result['exactly_once']}")
    for line in result["error_samples"] + result["mismatches"]:
        print("   ", line)
    if result["stopped_by_time_limit"]:
        print("   (stopped by the time limit before all changes were made)")
    print(f"(raw: {path})")
    if result["errors"] or not result["exactly_once"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
