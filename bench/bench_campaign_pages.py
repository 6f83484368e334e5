"""Every console page and export of a campaign-sized campaign, beside the floor of the same run.

Builds the campaign once (bench.lib.generators' campaign: `--topics` x `--runs`
conversations, default 500 x 20 = 10,000; 3 graded nuggets each, ORIGIN memberships on a
third; a second annotator's judgments on `--second` of them, default 1,000; with `--branching
F`, that share of them a tree whose last answer was regenerated), then times, in
this process through Django's test client with DEBUG=0 (best of `--repeats`), every organiser
page, CSV and export, the API's campaign scores, a settings change (L: re-scores every stored
figure) and alpha alone, beside the floor measured in the same run, both with the garbage
collector set as the WSGI entry point sets it for gunicorn and runserver (config.wsgi):

    floor = the campaign's judgments read as plain rows (turns, nuggets with entity and gain,
            memberships: values_list) into arrays + scoring.gfrc.score on them

and prints each time, its ratio to the floor and the load average.

    .venv/bin/python bench/bench_campaign_pages.py [--topics 500 --runs 20 --second 1000] [--branching 0.1] [--only PART ...] [--interleave]
    scripts/with-postgres.sh .venv/bin/python bench/bench_campaign_pages.py
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.generators import branching_line, conversation_line  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.seeding import make_campaign  # noqa: E402


def build(topics: int, runs: int, second: int, branching: float = 0.0) -> dict:
    """The campaign "bench" with organiser "organiser", annotators "gold" and "second"."""
    from django.contrib.auth import get_user_model

    from annotator.interchange.imports.conversations import import_files

    users = get_user_model()
    organiser = users.objects.create_superuser("organiser", password="organiser-pw")
    gold = users.objects.create_user("gold", password="gold-pw")
    other = users.objects.create_user("second", password="second-pw")
    campaign = make_campaign(slug="bench", organiser=organiser)
    campaign.organisers.add(organiser)
    rng = random.Random(20231121)
    every = round(1 / branching) if branching else 0  # every how many conversations one branches
    lines = [json.dumps(branching_line(line, i) if every and i % every == every - 1 else line)
             for i, line in ((i, conversation_line(i, topics, rng)) for i in range(topics * runs))]
    started = time.perf_counter()
    result = import_files(campaign, [("campaign.jsonl", "\n".join(lines).encode())], annotator=gold)
    assert result.ok, result.errors[:3]
    imported = time.perf_counter() - started
    started = time.perf_counter()
    if second:
        result = import_files(campaign, [("second.jsonl", "\n".join(lines[:second]).encode())], annotator=other)
        assert result.ok, result.errors[:3]
    return {"campaign": campaign, "organiser": organiser, "import_s": round(imported, 2),
            "second_import_s": round(time.perf_counter() - started, 2)}


def floor(campaign) -> float:
    """The campaign's judgments as plain rows into arrays, scored by scoring.gfrc.score: the
    least any page that shows the campaign's scores could do."""
    import numpy as np

    from annotator.models import AttributeSet, Membership, Nugget, Turn
    from annotator.scores.per_conversation import attribute_specs, campaign_settings
    from scoring import gfrc
    from scoring.words import word_count, word_position

    started = time.perf_counter()
    turns = list(Turn.objects.filter(conversation__topic__campaign=campaign).order_by("conversation_id", "position")
                 .values_list("pk", "conversation_id", "role", "text"))
    nuggets = list(Nugget.objects.filter(turn__conversation__topic__campaign=campaign)
                   .values_list("turn_id", "end_word", "entity_id", "entity__grade__gain", "annotator_id"))
    members = {(e, a): v for e, a, v in Membership.objects.filter(entity__topic__campaign=campaign)
               .values_list("entity_id", "attribute_set_id", "vector")}
    sets = list(AttributeSet.objects.filter(topic_type__campaign=campaign))
    conversation_code, system_row, offset_of = {}, {}, {}
    ends, turn_conversation = [], []
    previous, offset = None, 0
    for pk, conversation_id, role, text in turns:
        if conversation_id != previous:
            previous, offset = conversation_id, 0
            conversation_code[conversation_id] = len(conversation_code)
        words = word_count(text)
        offset_of[pk] = offset
        if role == "S":
            system_row[pk] = len(ends)
            ends.append(offset + words)
            turn_conversation.append(conversation_code[conversation_id])
        offset += words
    turn = np.array([system_row[n[0]] for n in nuggets], dtype=np.int64)
    wc = np.array([word_position(offset_of[n[0]], n[1]) for n in nuggets], dtype=np.int64)
    membership = {a.name: np.array([members.get((n[2], a.pk)) or [1.0 / a.size] * a.size for n in nuggets], dtype=float)
                  .reshape(-1, a.size) for a in sets}
    gfrc.score(gfrc.TurnTable(np.array(turn_conversation, dtype=np.int64), np.array(ends, dtype=np.int64)),
               gfrc.NuggetTable(turn=turn, wc=wc, gain=np.array([n[3] or 0.0 for n in nuggets], dtype=float),
                                entity=np.array([n[2] for n in nuggets], dtype=np.int64), membership=membership),
               attribute_specs(sets), campaign_settings(campaign), len(conversation_code))
    return time.perf_counter() - started


def pages(campaign) -> list[tuple[str, str]]:
    """(name, URL) of every organiser page, CSV and export of the campaign."""
    from annotator.console.views.exports import EXPORTS
    from annotator.models import Conversation, Nugget

    slug = campaign.slug
    two = (Nugget.objects.filter(turn__conversation__topic__campaign=campaign, annotator__username="second")
           .values_list("turn__conversation_id", flat=True).first())
    some = list(Conversation.objects.filter(topic__campaign=campaign).order_by("pk").values_list("pk", flat=True)[:3])
    result = [
        ("overview", f"/console/{slug}/"), ("settings", f"/console/{slug}/settings/"),
        ("progress", f"/console/{slug}/progress/"), ("usefulness grid", f"/console/{slug}/grid/"),
        ("agreement", f"/console/{slug}/agreement/"),
        ("adjudication of one conversation", f"/console/{slug}/adjudicate/{two}/"),
        ("judges", f"/console/{slug}/judges/"),
        ("score report", f"/console/{slug}/report/"), ("score report, page 50 by GFRC", f"/console/{slug}/report/?sort=GFRC&order=desc&page=50"),
        ("report.csv", f"/console/{slug}/report.csv"),
        ("report-conversations.csv", f"/console/{slug}/report-conversations.csv"),
        ("R-vs-GF plot (svg)", f"/console/{slug}/r-vs-gf.svg"),
        ("run comparison", f"/console/{slug}/report/significance/"),
        ("trials", f"/console/{slug}/report/trials/"), ("worst cases", f"/console/{slug}/report/worst/"),
        ("conversations side by side", f"/console/{slug}/conversations/{','.join(map(str, some))}/"),
        ("exports page", f"/console/{slug}/exports/"),
        ("API campaign scores", f"/api/campaigns/{slug}/scores/"),
    ]
    result += [(f"export {kind}", f"/console/{slug}/exports/{kind}/") for kind in EXPORTS]
    return result


def run_comparison_maths(campaign) -> float:
    """The run comparison's maths alone (scoring.significance.compare_runs at its default B on
    the campaign's topics x runs GFRC matrix), which its page's target adds 1 s to."""
    from annotator.scores.campaign_tables import score_table
    from scoring import significance

    table = score_table(campaign)
    matrix = table.pivot_table(index="topic", columns="run", values="GFRC")
    started = time.perf_counter()
    significance.compare_runs(matrix.to_numpy(), list(matrix.columns), significance.DEFAULT_PERMUTATIONS, seed=1)
    return time.perf_counter() - started


def timed_get(client, url: str, repeats: int) -> tuple[float, int, int]:
    """Best of `repeats` after one untimed request (imports, template compilation, font cache)."""
    response = client.get(url)
    if response.streaming:
        b"".join(response.streaming_content)
    best, status, size = float("inf"), 0, 0
    for _ in range(repeats):
        started = time.perf_counter()
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        best = min(best, time.perf_counter() - started)
        status, size = response.status_code, len(body)
    return best, status, size


def settings_change(campaign, client) -> dict:
    """A new L through the settings form (every stored figure re-scored), then alpha alone."""
    from annotator.console.forms import CampaignSettingsForm

    def post(**changes) -> float:
        campaign.refresh_from_db()
        data = {f: getattr(campaign, f) for f in CampaignSettingsForm.Meta.fields}
        data.update(changes, version=campaign.version)
        if not data["duplicates_count_once"]:
            data.pop("duplicates_count_once")
        started = time.perf_counter()
        form = CampaignSettingsForm(data=data, instance=campaign)
        assert form.is_valid(), form.errors
        form.save_checked()
        return time.perf_counter() - started

    return {"new_L_s": round(post(patience=campaign.patience + 50), 3), "alpha_alone_s": round(post(alpha=0.4), 3)}


def run(topics: int, runs: int, second: int, repeats: int, only: list[str] | None = None,
        interleave: bool = False, branching: float = 0.0) -> dict:
    with bench_database():
        from django.core.management import call_command
        from django.test import Client

        call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG=0 serves the manifest's names
        built = build(topics, runs, second, branching)
        campaign = built["campaign"]
        # as gunicorn and runserver serve: the WSGI entry point's garbage-collector settings
        # (config.wsgi._settle: what lives as long as the process frozen, a higher threshold)
        import config.wsgi  # noqa: F401
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(built["organiser"])
        floors = [floor(campaign) for _ in range(max(2, repeats))]
        result = {"machine": machine(), "database": database_label(), "conversations": topics * runs,
                  "topics": topics, "runs": runs, "second": second, "branching": branching, "import_s": built["import_s"],
                  "second_import_s": built["second_import_s"], "floor_s": round(min(floors), 3), "pages": {}}
        every = pages(campaign)
        unknown = sorted(part for part in only or () if not any(part in name for name, _url in every))
        if unknown:
            raise SystemExit(f"--only: no page's name holds {unknown}; the pages: {[name for name, _url in every]}")
        for name, url in every:
            if only and not any(part in name for part in only):
                continue
            beside = [floor(campaign) for _ in range(repeats)] if interleave else []
            seconds, status, size = timed_get(client, url, repeats)
            if interleave:  # the floor of this moment: best of those measured just before and after
                beside += [floor(campaign) for _ in range(repeats)]
            page_floor = min(beside) if interleave else min(floors)
            result["pages"][name] = {"url": url, "s": round(seconds, 3), "status": status, "bytes": size,
                                     "ratio": round(seconds / page_floor, 2), "load": os.getloadavg()[0],
                                     **({"floor_s": round(page_floor, 3)} if interleave else {})}
        result["run_comparison_maths_s"] = (round(run_comparison_maths(campaign), 3)
                                            if not only or "run comparison" in result["pages"] else None)
        floors.append(floor(campaign))
        result["floor_after_s"] = round(floors[-1], 3)
        result["settings"] = settings_change(campaign, client) if not only else None
        result["load_end"] = os.getloadavg()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=500)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--second", type=int, default=1000, help="conversations a second annotator judged too")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--branching", type=float, default=0.0,
                        help="the share of conversations that branch (their last answer regenerated), e.g. 0.1")
    parser.add_argument("--only", action="extend", nargs="+", metavar="PART",
                        help="time only the pages whose name holds one of these (e.g. --only export, "
                             "--only 'worst cases'; repeatable); no settings change then")
    parser.add_argument("--interleave", action="store_true",
                        help="measure the floor again beside each page (best of `repeats` just before and "
                             "after it) and give each page's ratio to that: ratios that hold on a loaded machine")
    args = parser.parse_args()
    r = run(args.topics, args.runs, min(args.second, args.topics * args.runs), args.repeats, args.only,
            args.interleave, args.branching)
    path = write_result("campaign_pages-" + r["database"].split()[0].lower(), r)
    print(f"== console pages of a {r['conversations']}-conversation campaign ({r['topics']} topics x {r['runs']} runs, "
          f"second annotator on {r['second']}; {r['branching']:.0%} branching; {r['database']}; import {r['import_s']} s + {r['second_import_s']} s)")
    print(f"floor (plain-row read + gfrc.score): {r['floor_s']} s (again after the pages: {r['floor_after_s']} s)")
    print("| page | s | x floor | status | KB | load (1 min) |" + (" floor beside it (s) |" if args.interleave else ""))
    print("|---|---|---|---|---|---|" + ("---|" if args.interleave else ""))
    for name, p in r["pages"].items():
        print(f"| {name} | {p['s']} | {p['ratio']} | {p['status']} | {p['bytes'] // 1024} | {p['load']:.1f} |"
              + (f" {p['floor_s']} |" if args.interleave else ""))
    if r["run_comparison_maths_s"] is not None:
        print(f"run comparison maths alone (randomised Tukey HSD, B = 10,000): {r['run_comparison_maths_s']} s")
    if r["settings"] is not None:
        print(f"settings change: new L re-scores in {r['settings']['new_L_s']} s; alpha alone {r['settings']['alpha_alone_s']} s")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in r['load_end'])}")
    print(f"(raw: {path})")
    # the paper format holds one line of turns: it refuses a campaign whose conversations branch
    bad = [name for name, p in r["pages"].items()
           if p["status"] != (409 if name == "export paper" and r["branching"] else 200)]
    if bad:
        sys.exit(f"pages that did not answer 200: {bad}")


if __name__ == "__main__":
    main()
