"""Where a save's and a page's time goes: the stages of the save path, in-process, beside the
floor views measured the same way, so a ratio target can be read against what each stage costs.

The Django test client (no gunicorn, no network) under the production settings (DEBUG=0, the
workers' garbage-collector settling of config/wsgi.py), on
the same 300-nugget conversation as bench_http.py. Each stage is timed by wrapping the function
that does it where the views call it; SQL execution is timed by a connection execute_wrapper
(the database's own work, without the ORM building the query). Medians per request, in ms.

    .venv/bin/python bench/profile_save.py [--iterations 60] [--nuggets 300] [--warmup 10]
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import statistics
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["DJANGO_SETTINGS_MODULE"] = "bench.lib.floor_settings"  # the product plus /floor/

from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.seeding import make_annotator, make_campaign, seed_conversation, spare_span  # noqa: E402

# (module, function, stage): where the save path's views and read side call each stage
STAGES = [
    ("annotator.workspace.views.edits", "assignment_for_annotator", "access (assignment)"),
    ("annotator.workspace.views.conversation", "assignment_for_annotator", "access (assignment)"),
    ("annotator.workspace.views.edits", "_turns_of", "the conversation's turns, for the form"),
    ("annotator.judgments.edits", "create_nugget", "write: nugget, entity, history event"),
    ("annotator.workspace.queries", "attribute_sets_of", "read: attribute sets"),
    ("annotator.workspace.queries", "score_conversation", "read + score: turns, nuggets, memberships, gfrc"),
    ("annotator.workspace.queries", "suggestions_for", "read: suggestions"),
    ("annotator.workspace.page_context", "editor_context", "read: editor (selected nugget's memberships, forms)"),
    ("annotator.workspace.page_context", "render_turns", "render: conversation column (Python)"),
    ("annotator.workspace.page_context", "score_panel_context", "render: Tables 1 and 2 (Python)"),
    ("annotator.workspace.views.edits", "render", "render: templates (editor, counts, panel)"),
    ("annotator.workspace.views.conversation", "render", "render: templates (page)"),
]


def _instrument(spent: dict[str, float]) -> None:
    import importlib

    from annotator.judgments.edits import keeps_figures

    for module_name, name, stage in STAGES:
        module = importlib.import_module(module_name)
        function = getattr(module, name)
        # A service of the edit service is called through its body (edits.save_with_score runs
        # `__wrapped__` and stores the figures itself): time the body, keep the wrapper.
        service = getattr(function, "__wrapped__", None) if module_name == "annotator.judgments.edits" else None

        def timed(*args, _function=service or function, _stage=stage, **kwargs):
            start = time.perf_counter()
            try:
                return _function(*args, **kwargs)
            finally:
                spent[_stage] += time.perf_counter() - start

        timed = functools.wraps(service or function)(timed)
        setattr(module, name, keeps_figures(timed) if service is not None else timed)


@contextmanager
def _sql_clock(spent: dict[str, float], counts: dict[str, int]):
    from django.db import connection

    def clock(execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            spent["SQL execution (inside the stages above)"] += time.perf_counter() - start
            counts["queries"] += 1

    with connection.execute_wrapper(clock):
        yield


_SPENT: dict[str, float] | None = None  # what the wrapped stages add to (wrapped once)


def run(nuggets: int, iterations: int, warmup: int = 10) -> dict:
    from django.test import Client

    results: dict = {"machine": machine(), "iterations": iterations, "nuggets": nuggets}
    with bench_database():
        from django.core.management import call_command

        call_command("collectstatic", "--noinput", verbosity=0)
        import config.wsgi  # noqa: F401  the garbage-collector settling gunicorn's workers get
        results["database"] = database_label()
        campaign = make_campaign("bench")
        annotator = make_annotator("profiled")
        conversation = seed_conversation(campaign, annotator, nuggets=nuggets, run="run-profile")
        from annotator.models import Nugget

        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(annotator)
        base = f"/conversations/{conversation.pk}/"
        turn, start, end = spare_span(conversation, nuggets)
        other = Nugget.objects.filter(annotator=annotator).exclude(turn=turn, start_word__lte=end, end_word__gte=start).first()
        htmx = {"HX-Request": "true"}

        def back_to_n_nuggets():  # untimed
            Nugget.objects.filter(turn=turn, annotator=annotator, start_word=start).delete()

        profiles = {
            "bare POST (floor)": (lambda: client.post("/floor/write/", {"nugget": other.pk}, headers=htmx), None),
            "save (create a nugget)": (
                lambda: client.post(base + "nuggets/", {"turn": turn.pk, "start": start, "end": end}, headers=htmx),
                back_to_n_nuggets,
            ),
            "bare GET (floor)": (lambda: client.get("/floor/read/", headers=htmx), None),
            "conversation page": (lambda: client.get(base), None),
        }
        for name, (request, after) in profiles.items():
            stages, total, queries, p95, outliers = _profile_request(request, after, iterations, warmup)
            results[name] = {"median_ms": round(total, 2), "p95_ms": round(p95, 2), "queries": queries,
                             "stages_ms": {k: round(v, 2) for k, v in stages.items()}, "outliers": outliers}
    return results


@contextmanager
def _outlier_causes(seen: dict[str, bool]):
    """Marks in `seen` what makes a request an outlier (each about 6 ms on SQLite): a garbage
    collection run inside it, and a commit over 2 ms (the commit that runs SQLite's WAL
    checkpoint, about one in a thousand pages written)."""
    from django.db import connection

    def collected(phase, info):
        if phase == "start":
            seen["garbage collection"] = True

    commit = connection._commit

    def timed_commit(*args, **kwargs):
        start = time.perf_counter()
        try:
            return commit(*args, **kwargs)
        finally:
            if time.perf_counter() - start > 0.002:
                seen["commit over 2 ms (WAL checkpoint)"] = True

    gc.callbacks.append(collected)
    connection._commit = timed_commit
    try:
        yield
    finally:
        gc.callbacks.remove(collected)
        del connection._commit  # the class's again


def _profile_request(request, after, iterations: int, warmup: int = 10):
    """Median total of `request()`, its queries, the mean time per stage inside it (`after`,
    when given, runs untimed after each request), and its 95th percentile with how many
    requests had each cause of an outlier (`_outlier_causes`)."""
    global _SPENT
    if _SPENT is None:
        _SPENT = defaultdict(float)
        _instrument(_SPENT)
    counts: dict[str, int] = defaultdict(int)
    outliers: dict[str, int] = defaultdict(int)
    totals = []
    for i in range(warmup + iterations):
        if i == warmup:
            _SPENT.clear()
            counts.clear()
        seen: dict[str, bool] = {}
        with _sql_clock(_SPENT, counts), _outlier_causes(seen):
            start = time.perf_counter()
            request()
            took = time.perf_counter() - start
        if after is not None:
            after()
        if i >= warmup:
            totals.append(took)
            for cause in seen:
                outliers[cause] += 1
    stages = {stage: 1000 * seconds / iterations for stage, seconds in _SPENT.items()}
    p95 = 1000 * statistics.quantiles(totals, n=20)[-1] if len(totals) > 1 else 1000 * totals[0]
    return stages, 1000 * statistics.median(totals), counts["queries"] // iterations, p95, dict(outliers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--nuggets", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=10, help="unmeasured requests of each kind first")
    args = parser.parse_args()
    results = run(args.nuggets, args.iterations, args.warmup)
    path = write_result("profile-" + results["database"].split()[0].lower(), results)
    print(f"== where the time goes, in-process ({results['database']}; {args.nuggets} nuggets; "
          f"{args.iterations} requests each; stage times are means, totals medians)")
    for name in ("bare POST (floor)", "save (create a nugget)", "bare GET (floor)", "conversation page"):
        r = results[name]
        print(f"{name}: {r['median_ms']} ms (p95 {r['p95_ms']} ms), {r['queries']} queries; of {args.iterations} requests, "
              + (", ".join(f"{n} with a {cause}" for cause, n in r["outliers"].items()) or "none with a garbage collection or a slow commit"))
        for stage, ms in r["stages_ms"].items():
            print(f"   {ms:7.2f} ms  {stage}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"(raw: {path})")


if __name__ == "__main__":
    main()
