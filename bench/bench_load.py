"""Load run on loopback: N simulated annotators (threads, one logged-in session each) make
changes on their own conversations, alternately a turn label (o -> x -> - -> o ...) and a
nugget created / deleted, through gunicorn on 127.0.0.1 (default 2 workers x 4 threads,
gthread; `--workers 5 --threads 1` is the README's production shape, sync workers).

Reports throughput, p50/p95 latency, errors, and checks that every change is in the database
exactly once: AnnotationEvents per annotator == changes that annotator made, and the turn
labels' versions match the number of label changes. Bounded: --annotators, --changes and
--time-limit (clients stop early, the check still holds for what they did).

With `--organisers K` (issue 26: do the organisers' pages hurt the annotators?) the run has
timed phases of `--phase-seconds` each on the same server, alternated `--rounds` times: the
annotators alone, then the same annotators while K organisers each reload the campaign's score
report (the whole page, then `--report-pause` seconds, again), and it reports the annotators' throughput in each phase, its
ratio (the target: at least 0.8) and the report's answer times; `--console-workers N` serves the
organisers from a second gunicorn of N sync workers at `--console-nice` (the README's second
pool for /console/). `--campaign-conversations N`
first imports bench_import's generated campaign of N conversations (N/20 topics x 20 runs,
3 graded nuggets each, ORIGIN memberships on a third) into the annotators' campaign, so the
report is that of a campaign of that size.

    .venv/bin/python bench/bench_load.py                      # SQLite (temporary file)
    scripts/with-postgres.sh .venv/bin/python bench/bench_load.py   # PostgreSQL on loopback
    GFRC_PG_DURABLE=1 scripts/with-postgres.sh .venv/bin/python bench/bench_load.py \
        --campaign-conversations 10000 --organisers 3 --workers 5 --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.client import Browser  # noqa: E402
from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.generators import conversation_line  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.seeding import make_annotator, make_campaign, seed_conversation, spare_span  # noqa: E402
from bench.lib.server import SERVER_GROUPS, cpu_seconds, gunicorn  # noqa: E402
from bench.lib.timing import summary_ms  # noqa: E402

LABELS = ["o", "x", "-"]
RUNS_PER_TOPIC = 20  # the generated campaign's shape: N / 20 topics x 20 runs
SEED_TOPIC = "M999"  # the annotators' own topic: the generator's are M000 ... M(N/20 - 1)


@dataclass
class Annotator:
    """One simulated annotator and where their changes stand, kept across the phases."""

    user: object
    conversation: object
    turn: object
    start: int
    end: int
    label_turn: object
    browser: Browser | None = None
    step: int = 0
    label_version: int | None = None
    nugget_id: int | None = None
    nugget_version: int | None = None


@dataclass
class Phase:
    """What happened in one phase: the annotators' changes and the organisers' report loads."""

    name: str
    latencies: list[float] = field(default_factory=list)
    report_latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    made: Counter = field(default_factory=Counter)
    wall: float = 0.0
    server_cpu: float = 0.0  # CPU seconds of the app's workers (and the console pool's) in the phase
    database_cpu: float = 0.0  # of the PostgreSQL server's processes (0 on SQLite: it is in the workers)
    client_cpu: float = 0.0  # of this process: the simulated browsers

    def summary(self) -> dict:
        total = sum(self.made.values())
        return {
            "changes_made": total,
            "wall_s": round(self.wall, 1),
            "changes_per_s": round(total / self.wall, 2) if self.wall else None,
            "latency": summary_ms(self.latencies),
            "report_loads": summary_ms(self.report_latencies) if self.report_latencies else None,
            "server_cpu_s": round(self.server_cpu, 1),
            "database_cpu_s": round(self.database_cpu, 1),
            "client_cpu_s": round(self.client_cpu, 1),
            "machine_cpu_share": round((self.server_cpu + self.database_cpu) / (self.wall * (os.cpu_count() or 1)), 2)
                                 if self.wall else None,
            "errors": len(self.errors),
            "error_samples": self.errors[:10],
        }


def _merged(phases: list[Phase]) -> Phase:
    """Phases of one kind as one: their changes, times and errors added up."""
    merged = Phase(phases[0].name)
    for phase in phases:
        merged.latencies += phase.latencies
        merged.report_latencies += phase.report_latencies
        merged.errors += phase.errors
        merged.made += phase.made
        merged.wall += phase.wall
        merged.server_cpu += phase.server_cpu
        merged.database_cpu += phase.database_cpu
        merged.client_cpu += phase.client_cpu
    return merged


def import_campaign(campaign, conversations: int) -> float:
    """bench_import's generated conversations (judged by a user "gold") into `campaign`."""
    from annotator.interchange.imports.conversations import import_files

    gold = make_annotator("gold")
    topics = max(1, conversations // RUNS_PER_TOPIC)
    rng = random.Random(20231121)
    lines = [json.dumps(conversation_line(i, topics, rng)) for i in range(conversations)]
    started = time.perf_counter()
    result = import_files(campaign, [("campaign.jsonl", "\n".join(lines).encode())], annotator=gold)
    assert result.ok, result.errors[:3]
    return time.perf_counter() - started


def change(person: Annotator, phase: Phase, lock: threading.Lock, label_changes: Counter) -> None:
    """The annotator's next change: a label, a nugget created, or that nugget deleted."""
    from annotator.models import Nugget

    base = f"/conversations/{person.conversation.pk}/"
    i = person.step
    if i % 2 == 0:
        data = {"label": LABELS[(i // 2) % 3], "version": person.label_version or ""}
        path = base + f"turns/{person.label_turn.pk}/label/"
    elif person.nugget_id is None:
        data = {"turn": person.turn.pk, "start": person.start, "end": person.end}
        path = base + "nuggets/"
    else:
        data = {"version": person.nugget_version}
        path = base + f"nuggets/{person.nugget_id}/delete/"
    t0 = time.perf_counter()
    try:
        status, _headers, _ = person.browser.request("POST", path, data, htmx=True)
    except Exception as error:  # noqa: BLE001 - counted and reported
        with lock:
            phase.errors.append(f"{person.user.username} change {i}: {type(error).__name__}: {error}")
        return
    elapsed = time.perf_counter() - t0
    with lock:
        phase.latencies.append(elapsed)
        if status != 200:
            phase.errors.append(f"{person.user.username} change {i}: HTTP {status} on {path}")
            return
        phase.made[person.user.username] += 1
        if i % 2 == 0:
            label_changes[person.user.username] += 1
    person.step += 1
    if i % 2 == 0:
        person.label_version = (person.label_version or 0) + 1
    elif person.nugget_id is None:
        nugget = Nugget.objects.only("pk", "version").get(turn=person.turn, annotator=person.user, start_word=person.start)
        person.nugget_id, person.nugget_version = nugget.pk, nugget.version
    else:
        person.nugget_id = person.nugget_version = None


def run_phase(phase: Phase, people: list[Annotator], organisers: list[Browser], slug: str, *, changes: int,
              seconds: float, report_pause: float, label_changes: Counter, servers: tuple[int, ...] = ()) -> None:
    """Every annotator changes until `changes` are made or `seconds` pass, while each organiser
    browser reloads the score report (and pauses) until the annotators are done."""
    from django.db import connections

    lock = threading.Lock()
    barrier = threading.Barrier(len(people) + len(organisers) + 1)  # and this thread, which starts the clock
    done = threading.Event()
    deadline: list[float] = []

    def annotator_loop(person: Annotator) -> None:
        try:
            barrier.wait(timeout=120)
            for _ in range(changes):
                if time.monotonic() > deadline[0]:
                    break
                change(person, phase, lock, label_changes)
        finally:
            connections.close_all()

    def organiser_loop(browser: Browser) -> None:
        barrier.wait(timeout=120)
        while not done.is_set():
            t0 = time.perf_counter()
            try:
                status, _headers, _body = browser.request("GET", f"/console/{slug}/report/")
            except Exception as error:  # noqa: BLE001 - counted and reported
                with lock:
                    phase.errors.append(f"organiser: report: {type(error).__name__}: {error}")
                continue
            with lock:
                phase.report_latencies.append(time.perf_counter() - t0)
                if status != 200:
                    phase.errors.append(f"organiser: report answered HTTP {status}")
            done.wait(report_pause)

    annotator_threads = [threading.Thread(target=annotator_loop, args=(p,)) for p in people]
    organiser_threads = [threading.Thread(target=organiser_loop, args=(b,)) for b in organisers]
    deadline.append(time.monotonic() + seconds + 120)  # set again once every thread is at the barrier
    for thread in organiser_threads + annotator_threads:
        thread.start()
    barrier.wait(timeout=120)
    started = time.perf_counter()
    deadline[0] = time.monotonic() + seconds
    server_cpu, database_cpu = cpu_seconds(servers), cpu_seconds(commands=("postgres",))
    client_cpu = time.process_time()
    for thread in annotator_threads:
        thread.join()
    phase.wall = time.perf_counter() - started
    phase.server_cpu = cpu_seconds(servers) - server_cpu
    phase.database_cpu = cpu_seconds(commands=("postgres",)) - database_cpu
    phase.client_cpu = time.process_time() - client_cpu
    done.set()
    for thread in organiser_threads:
        thread.join()


def run(annotators: int = 20, changes: int = 200, nuggets: int = 20, time_limit: float = 300,
        workers: int = 2, threads: int = 4, organisers: int = 0, campaign_conversations: int = 0,
        phase_seconds: float = 60, report_pause: float = 0.0, rounds: int = 2, console_workers: int = 0,
        console_nice: int = 10) -> dict:
    with bench_database():
        from django.contrib.auth import get_user_model

        from annotator.judgments import edits
        from annotator.models import AnnotationEvent, Nugget, TurnLabel

        label = database_label()
        campaign = make_campaign("load")
        imported = import_campaign(campaign, campaign_conversations) if campaign_conversations else None
        people = []
        for i in range(annotators):
            user = make_annotator(f"load{i:02d}")
            conversation = seed_conversation(campaign, user, nuggets=nuggets, run=f"load-run-{i:02d}", topic=SEED_TOPIC)
            turn, start, end = spare_span(conversation, nuggets)
            # Mark and unmark the spare line once, so its entity exists: every later create is one event.
            nugget = edits.create_nugget(annotator=user, actor=user, turn=turn, start_word=start, end_word=end)
            edits.delete_nugget(nugget, actor=user, expected_version=nugget.version)
            label_turn = conversation.turns.filter(role="S").order_by("position").first()
            people.append(Annotator(user, conversation, turn, start, end, label_turn))
        for k in range(organisers):
            organiser = get_user_model().objects.create_user(username=f"organiser{k}", password="organiser-pw")
            campaign.organisers.add(organiser)
        baseline = Counter(AnnotationEvent.objects.values_list("annotator__username", flat=True))

        label_changes: Counter = Counter()
        alone_name = "annotators alone"
        loaded_name = f"annotators while {organisers} organisers reload the report"
        # Alternated (alone, loaded, alone, loaded...): a machine whose load drifts during the run
        # weighs on both kinds of phase alike.
        phases = [Phase(name) for _ in range(rounds if organisers else 1)
                  for name in ([alone_name, loaded_name] if organisers else [alone_name])]
        with gunicorn(workers=workers, threads=threads) as port, ExitStack() as console:
            # the README's second pool: the organisers' pages on workers of their own, at a lower
            # CPU priority (what a proxy's `location /console/` sends there)
            console_port = (console.enter_context(gunicorn(workers=console_workers, nice=console_nice))
                            if console_workers and organisers else port)
            for person in people:
                person.browser = Browser(port)
                person.browser.login(person.user.username)
                person.browser.request("GET", f"/conversations/{person.conversation.pk}/")
            readers = []
            for k in range(organisers):
                browser = Browser(console_port)
                browser.login(f"organiser{k}", "organiser-pw")
                readers.append(browser)
            for phase in phases:
                timed = bool(organisers)  # two phases compare changes per second over the same time
                run_phase(phase, people, readers if phase.name == loaded_name else [], campaign.slug,
                          changes=10**9 if timed else changes, seconds=phase_seconds if timed else time_limit,
                          report_pause=report_pause, label_changes=label_changes,
                          servers=tuple(SERVER_GROUPS.values()))
            for browser in [p.browser for p in people] + readers:
                browser.close()

        # Exactly once: the events recorded per annotator are the changes they made.
        made = sum((phase.made for phase in phases), Counter())
        events = Counter(AnnotationEvent.objects.values_list("annotator__username", flat=True))
        mismatches = []
        for person in people:
            name = person.user.username
            recorded = events[name] - baseline[name]
            if recorded != made[name]:
                mismatches.append(f"{name}: {made[name]} changes, {recorded} events")
            current = TurnLabel.objects.filter(turn=person.label_turn, annotator=person.user).first()
            expected_version = label_changes[name]
            if expected_version and (current is None or current.version != expected_version):
                mismatches.append(f"{name}: label version {current and current.version}, expected {expected_version}")
            nuggets_now = Nugget.objects.filter(turn__conversation=person.conversation, annotator=person.user).count()
            creates = (made[name] - label_changes[name] + 1) // 2
            deletes = (made[name] - label_changes[name]) // 2
            if nuggets_now != nuggets + creates - deletes:
                mismatches.append(f"{name}: {nuggets_now} nuggets, expected {nuggets + creates - deletes}")
        total = sum(made.values())
        by_kind = {name: _merged([phase for phase in phases if phase.name == name])
                   for name in dict.fromkeys(phase.name for phase in phases)}
        alone = by_kind[alone_name].summary()
        result = {
            "machine": machine(),
            "database": label,
            "server": f"gunicorn {workers} workers x {threads} threads ({'gthread' if threads > 1 else 'sync'}), 127.0.0.1"
                      + (f"; the organisers' pages on a second gunicorn, {console_workers} sync workers at nice {console_nice}"
                         if console_workers and organisers else ""),
            "annotators": annotators,
            "organisers": organisers,
            "campaign_conversations": campaign_conversations + annotators,
            "import_s": round(imported, 1) if imported is not None else None,
            "changes_per_annotator": changes,
            "changes_made": total,
            "wall_s": alone["wall_s"],
            "changes_per_s": alone["changes_per_s"],
            "latency": alone["latency"],
            "rounds": rounds if organisers else 1,
            "phase_seconds": phase_seconds if organisers else None,
            "report_pause_s": report_pause if organisers else None,
            "phases": {name: phase.summary() for name, phase in by_kind.items()},
            "each_phase": [dict(phase.summary(), name=phase.name) for phase in phases],
            "errors": sum(len(phase.errors) for phase in phases),
            "error_samples": [e for phase in phases for e in phase.errors][:10],
            "exactly_once": not mismatches,
            "mismatches": mismatches[:20],
            "stopped_by_time_limit": not organisers and total < annotators * changes
                                     and not any(phase.errors for phase in phases),
        }
        if organisers:
            loaded = by_kind[loaded_name].summary()
            result["throughput_kept"] = (round(loaded["changes_per_s"] / alone["changes_per_s"], 3)
                                         if alone["changes_per_s"] else None)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--nuggets", type=int, default=20, help="nuggets already in each conversation")
    parser.add_argument("--time-limit", type=float, default=300, help="seconds; clients stop after it")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--organisers", type=int, default=0,
                        help="organisers reloading the score report in a second phase (0: one phase)")
    parser.add_argument("--campaign-conversations", type=int, default=0,
                        help="generated conversations imported into the campaign first (the report's size)")
    parser.add_argument("--phase-seconds", type=float, default=60, help="length of each phase with --organisers")
    parser.add_argument("--rounds", type=int, default=2,
                        help="with --organisers: pairs of phases (alone, then loaded), alternated")
    parser.add_argument("--console-workers", type=int, default=0,
                        help="serve the organisers from a second gunicorn of this many sync workers (0: the same server)")
    parser.add_argument("--console-nice", type=int, default=10,
                        help="the second gunicorn's CPU priority: the nice of its scheduling group (as systemd's CPUWeight=)")
    parser.add_argument("--report-pause", type=float, default=0.0,
                        help="seconds an organiser waits between reloads (0: reload as soon as it answers)")
    args = parser.parse_args()
    result = run(args.annotators, args.changes, args.nuggets, args.time_limit, args.workers, args.threads,
                 args.organisers, args.campaign_conversations, args.phase_seconds, args.report_pause, args.rounds,
                 args.console_workers, args.console_nice)
    path = write_result("load-" + result["database"].split()[0].lower()
                        + ("-organisers" if args.organisers else ""), result)
    print(f"== load run ({result['database']}; {result['server']}; a campaign of "
          f"{result['campaign_conversations']} conversations)")
    for name, phase in result["phases"].items():
        lat = phase["latency"]
        print(f"{name}: {phase['changes_made']} changes in {phase['wall_s']} s ({phase['changes_per_s']}/s); "
              f"latency p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms, max {lat['max_ms']} ms; errors {phase['errors']}")
        if phase["report_loads"]:
            rep = phase["report_loads"]
            print(f"    score report: {rep['n']} loads, p50 {rep['p50_ms']} ms, p95 {rep['p95_ms']} ms, max {rep['max_ms']} ms")
        print(f"    CPU: app {phase['server_cpu_s']} s, database {phase['database_cpu_s']} s "
              f"({phase['machine_cpu_share']} of the machine's {os.cpu_count()} CPUs over the phase), "
              f"the simulated browsers {phase['client_cpu_s']} s")
    if args.organisers:
        print(f"annotators' throughput kept while the organisers reload: {result['throughput_kept']} (target >= 0.8)")
    print(f"every change recorded exactly once: {result['exactly_once']}")
    for line in result["error_samples"] + result["mismatches"]:
        print("   ", line)
    if result["stopped_by_time_limit"]:
        print("   (stopped by the time limit before all changes were made)")
    print(f"(raw: {path})")
    if result["errors"] or not result["exactly_once"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
