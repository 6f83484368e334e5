"""Benchmark: a FairWeb-size round of ranked-list runs imported and scored by the app, beside
a plain numpy script reading and scoring the same files, in the same run.

    .venv/bin/python bench/bench_ranked_lists.py [--runs 100] [--topics 50] [--documents 1000]
    scripts/with-postgres.sh .venv/bin/python bench/bench_ranked_lists.py   # on PostgreSQL

The pack (seeded, the FairWeb-1 formats and the pilot's four topic types: R with HINDEX and
GENDER, M with RATINGS and ORIGIN, T with FOLLOWERS, Y with SUBSCS, the pilot's targets): a
qrels file judging --documents pages per topic (70% L0, 20% L1, 10% L2), one `.gmemb` file
per type and attribute set (one-hot or uniform vectors), the `.golddistr` targets, and --runs
TREC run files ranking --documents pages per topic (drawn from the judged pages and a fifth
more unjudged ones; document ids are UUIDs, as in the pilot).

Timed, each as its own process (wall, CPU and peak resident memory from wait4):
- the app: `load_campaign`, `import_ntcireval`, `import_runs` (every file in one call) and
  `score_runs --cutoff 20 --cutoff 100 --cutoff <documents>` (complete lists) to a TSV file;
- the plain numpy script (scoring/reference/gfr_from_files.py): read the files and score the same
  cutoffs, to a TSV file.
Then every figure of the two is compared (and `score_runs --as-ntcireval` with the script's
`--six-decimals`), the database's size is set against the pack's, and one judgment is edited
(L1 -> L2 through the edit service the API calls) and timed until its topic's new GFR is read
(in this process, then by `score_runs` as a new process).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.lib import PYTHON  # noqa: E402
from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.timing import load_average  # noqa: E402

PILOT_CAMPAIGN = ROOT / "fixtures" / "fairweb1-pilot-campaign.json"
NUMPY_SCRIPT = [PYTHON, "-m", "scoring.reference.gfr_from_files"]  # a participant's own script: numpy only
TYPES = "RMTY"


def campaign_file(topics: list[str]) -> dict:
    campaign = json.loads(PILOT_CAMPAIGN.read_text())
    campaign.update(slug="bench-gfr", name="bench GFR", topics=[{"id": t, "type": t[0]} for t in topics])
    campaign.pop("note", None)
    return campaign


def write_pack(directory: Path, runs: int, topic_count: int, documents: int) -> tuple[list[str], list[Path], list[Path]]:
    """(topics, judgment files, run files) of a seeded pack in `directory`."""
    rng = random.Random(20261124)
    campaign = campaign_file([])
    sets = {t["code"]: [(a["name"], a["target"]) for a in t["attribute_sets"]] for t in campaign["topic_types"]}
    topics = [f"{TYPES[i % 4]}{i // 4 + 1:03d}" for i in range(topic_count)]
    docs = {t: [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(int(documents * 1.2))] for t in topics}
    qrels = directory / "bench.qrels"
    memberships = {(code, name): (directory / f"bench.{code}-{name}.gmemb").open("w") for code, s in sets.items() for name, _ in s}
    with qrels.open("w") as q:
        for t in topics:
            for doc in docs[t][:documents]:  # the rest are never judged
                q.write(f"{t} {doc} {rng.choices(['L0', 'L1', 'L2'], [0.7, 0.2, 0.1])[0]}\n")
                for name, target in sets[t[0]]:
                    k = len(target)
                    if rng.random() < 0.3:
                        vector = " ".join([repr(1 / k)] * k)  # as the pilot writes them: 0.3333333333333333
                    else:
                        hot = rng.randrange(k)
                        vector = " ".join("1" if g == hot else "0" for g in range(k))
                    memberships[(t[0], name)].write(f"{t} {doc} {vector}\n")
    for file in memberships.values():
        file.close()
    for code, s in sets.items():
        for name, target in s:
            (directory / f"{code}-{name}.golddistr").write_text("".join(f"{p}\n" for p in target))
    run_files = []
    for r in range(runs):
        path = directory / f"run.bench{r:03d}"
        with path.open("w") as out:
            for t in topics:
                ranked = rng.sample(docs[t], documents)
                out.writelines(f"{t} Q0 {d} {rank} {1000 - rank * 0.5:.4f} bench{r:03d}\n" for rank, d in enumerate(ranked, 1))
        run_files.append(path)
    return topics, [qrels, *(directory / f"bench.{code}-{name}.gmemb" for code, s in sets.items() for name, _ in s)], run_files


def timed_process(args: list[str], stdout=None) -> dict:
    """Wall, CPU (user + system) and peak resident memory of one process."""
    started = time.perf_counter()
    process = subprocess.Popen(args, cwd=ROOT, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    stderr = process.stderr.read().decode()
    if stdout is None:
        process.stdout.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(args[:4])}... failed: {stderr[-2000:]}")
    return {"wall_s": round(wall, 3), "cpu_s": round(usage.ru_utime + usage.ru_stime, 3), "max_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def read_figures(path: Path) -> dict[tuple, float]:
    figures = {}
    with path.open() as f:
        header = f.readline().rstrip("\n").split("\t")
        at = {name: i for i, name in enumerate(header)}
        for line in f:
            cells = line.rstrip("\n").split("\t")
            figures[(cells[at["run"]], cells[at["topic"]], cells[at["attribute_set"]], cells[at["measure"]],
                      cells[at["cutoff"]])] = float(cells[at["value"]])
    return figures


def compare(app: dict, reference: dict) -> dict:
    missing = len(set(reference) ^ set(app))
    difference = max((abs(app[k] - reference[k]) for k in reference if k in app), default=float("nan"))
    return {"figures": len(reference), "keys_not_in_both": missing, "max_abs_difference": difference}


def database_size() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            path = Path(connection.settings_dict["NAME"])
            return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
        cursor.execute("SELECT pg_database_size(current_database())")
        return int(cursor.fetchone()[0])


def edit_one_judgment(slug: str, tsv: Path) -> dict:
    """L1 -> L2 for one judged page that some list ranks first; seconds until the new GFR is
    read in this process (the console and the API read this way), and by `score_runs`."""
    from annotator.judgments.edits import update_entity
    from annotator.models import Campaign, Entity, Grade
    from annotator.scores.ranked_lists import score_ranked_lists

    campaign = Campaign.objects.get(slug=slug)
    score_ranked_lists(campaign)  # what was there before the edit: stored
    entity = Entity.objects.filter(topic__campaign=campaign, grade__label="L1").order_by("pk").first()
    before = score_ranked_lists(campaign).table.query("topic == @entity.topic.code")["GFR-ERR+RNOD+JSD"].to_numpy()
    started = time.perf_counter()
    update_entity(entity, actor=None, expected_version=entity.version, grade=Grade.objects.get(campaign=campaign, label="L2"))
    after = score_ranked_lists(campaign).table.query("topic == @entity.topic.code")["GFR-ERR+RNOD+JSD"].to_numpy()
    in_process = time.perf_counter() - started
    update_entity(entity, actor=None, expected_version=entity.version, grade=Grade.objects.get(campaign=campaign, label="L1"))
    with tsv.open("w") as out:
        command = timed_process([PYTHON, "manage.py", "score_runs", "--campaign", slug], stdout=out)
    return {"topic": entity.topic.code, "lists_changed": int((before != after).sum()), "in_process_s": round(in_process, 3),
            "score_runs_s": command["wall_s"]}


STORED_TABLES = {"import_ntcireval": ["annotator_entity", "annotator_membership", "annotator_annotationevent"],
                 "import_runs": ["annotator_topicdocument", "annotator_rankedlist"]}


def server_floor(directory: Path) -> dict:
    """PostgreSQL only: how long the server alone takes to store what each import stored, its
    rows COPYed back in from the server's own binary dump (no Python, no parsing, no network
    text), with the app's constraints and indexes, and the commit that runs the deferred
    foreign-key checks. Run last: it empties and refills the tables."""
    from django.db import connection, transaction

    with connection.cursor() as cursor:
        for tables in STORED_TABLES.values():
            for table in tables:
                with (directory / f"{table}.bin").open("wb") as out, cursor.cursor.copy(f"COPY {table} TO STDOUT (FORMAT binary)") as copy:
                    for data in copy:
                        out.write(data)
        cursor.execute("DELETE FROM annotator_rankedlistfigures")
        for tables in reversed(STORED_TABLES.values()):
            for table in reversed(tables):
                cursor.execute(f"DELETE FROM {table}")
        for tables in STORED_TABLES.values():
            for table in tables:
                cursor.execute(f"VACUUM FULL {table}")  # as empty as before the import
    floor = {}
    for step, tables in STORED_TABLES.items():
        started = time.perf_counter()
        with transaction.atomic(), connection.cursor() as cursor:
            for table in tables:
                with (directory / f"{table}.bin").open("rb") as dump, cursor.cursor.copy(f"COPY {table} FROM STDIN (FORMAT binary)") as copy:
                    while data := dump.read(1 << 20):
                        copy.write(data)
            copied = time.perf_counter()
        floor[step] = {"copy_s": round(copied - started, 3), "commit_s": round(time.perf_counter() - copied, 3)}
    return floor


def run(runs: int, topics: int, documents: int) -> dict:
    with bench_database() as tmp:
        pack = tmp / "pack"
        pack.mkdir()
        started = time.perf_counter()
        topic_codes, judgments, run_files = write_pack(pack, runs, topics, documents)
        pack_bytes = sum(p.stat().st_size for p in pack.iterdir())
        campaign_path = tmp / "campaign.json"
        campaign_path.write_text(json.dumps(campaign_file(topic_codes)))
        result = {"database": database_label(), "generate_s": round(time.perf_counter() - started, 1),
                  "pack_mb": round(pack_bytes / 2**20, 1), "run_lines": runs * topics * documents}
        cutoffs = ["20", "100", str(documents)]
        cutoff_args = [a for c in cutoffs for a in ("--cutoff", c)]
        manage = [PYTHON, "manage.py"]
        app = {
            "load_campaign": timed_process([*manage, "load_campaign", str(campaign_path)]),
            "import_ntcireval": timed_process([*manage, "import_ntcireval", "--campaign", "bench-gfr", *map(str, judgments)]),
            "import_runs": timed_process([*manage, "import_runs", "--campaign", "bench-gfr", *map(str, run_files)]),
        }
        with (tmp / "app.tsv").open("w") as out:
            app["score_runs"] = timed_process([*manage, "score_runs", "--campaign", "bench-gfr", *cutoff_args], stdout=out)
        with (tmp / "reference.tsv").open("w") as out:
            reference = timed_process([*NUMPY_SCRIPT, "--pack", str(pack), *cutoff_args], stdout=out)
        app_total = {key: round(sum(step[key] for step in app.values()), 3) for key in ("wall_s", "cpu_s")}
        app_total["max_rss_mb"] = max(step["max_rss_mb"] for step in app.values())
        result.update(app=app, app_total=app_total, reference=reference,
                      ratio_wall=round(app_total["wall_s"] / reference["wall_s"], 2),
                      ratio_cpu=round(app_total["cpu_s"] / reference["cpu_s"], 2))
        result["agreement"] = compare(read_figures(tmp / "app.tsv"), read_figures(tmp / "reference.tsv"))
        with (tmp / "app6.tsv").open("w") as out:
            result["score_runs_as_ntcireval"] = timed_process(
                [*manage, "score_runs", "--campaign", "bench-gfr", "--as-ntcireval", *cutoff_args], stdout=out)
        with (tmp / "reference6.tsv").open("w") as out:
            timed_process([*NUMPY_SCRIPT, "--pack", str(pack), "--six-decimals", *cutoff_args], stdout=out)
        result["agreement_as_ntcireval"] = compare(read_figures(tmp / "app6.tsv"), read_figures(tmp / "reference6.tsv"))
        result["database_mb"] = round(database_size() / 2**20, 1)
        result["edit"] = edit_one_judgment("bench-gfr", tmp / "after-edit.tsv")
        from django.db import connection

        if connection.vendor == "postgresql":
            result["server_floor"] = server_floor(tmp)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--documents", type=int, default=1000)
    args = parser.parse_args()
    load_before = load_average()
    result = {"machine": machine(), "runs": args.runs, "topics": args.topics, "documents": args.documents,
              "load_average_before": load_before, **run(args.runs, args.topics, args.documents),
              "load_average": load_average()}
    path = write_result("bench_ranked_lists", result)
    r = result
    print(f"{args.runs} runs x {args.topics} topics x {args.documents} documents ({r['run_lines']:,} run lines, "
          f"pack {r['pack_mb']} MB), {r['database']}, cutoffs 20, 100, {args.documents}\n")
    print("| step | wall s | CPU s | peak resident MB |\n|---|---:|---:|---:|")
    for step, t in r["app"].items():
        print(f"| `{step}` | {t['wall_s']} | {t['cpu_s']} | {t['max_rss_mb']} |")
    t = r["app_total"]
    print(f"| **the app, import + score** | **{t['wall_s']}** | **{t['cpu_s']}** | {t['max_rss_mb']} |")
    t = r["reference"]
    print(f"| plain numpy script, read + score | {t['wall_s']} | {t['cpu_s']} | {t['max_rss_mb']} |")
    print(f"| **app / script** | **{r['ratio_wall']}x** | **{r['ratio_cpu']}x** | |")
    a, a6 = r["agreement"], r["agreement_as_ntcireval"]
    print(f"\nFigures: {a['figures']:,} compared, max abs difference {a['max_abs_difference']:.1e} "
          f"({a['keys_not_in_both']} not in both); --as-ntcireval against the script's six decimals: "
          f"{a6['max_abs_difference']:.1e} over {a6['figures']:,}.")
    print(f"Database {r['database_mb']} MB for a {r['pack_mb']} MB pack.")
    e = r["edit"]
    print(f"One judgment edited (L1 -> L2, topic {e['topic']}, {e['lists_changed']} lists' GFR changed): new GFR read "
          f"{e['in_process_s']} s after the edit in a running process; `score_runs` as a new process {e['score_runs_s']} s.")
    if "server_floor" in r:
        f = r["server_floor"]
        print("The server alone storing what each import stored (its rows COPYed back from its own binary dump; "
              "the commit runs the deferred foreign-key checks): "
              + "; ".join(f"`{step}` {t['copy_s'] + t['commit_s']:.2f} s ({t['copy_s']} + commit {t['commit_s']})" for step, t in f.items())
              + f"; {sum(t['copy_s'] + t['commit_s'] for t in f.values()):.2f} s in all.")
    print(f"\nLoad average {r['load_average_before']} before, {r['load_average']} after. Raw numbers: {path}")


if __name__ == "__main__":
    main()
