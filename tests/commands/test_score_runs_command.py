"""score_runs: GFR of the ranked-list runs, one row per run, topic, attribute set and measure."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.reference.gfr import list_scores

from .helpers import refused, run, write
from .pilot import GMEMB, PILOT, PILOT_CAMPAIGN, QRELS, RUN_FILES, load_pilot

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def _rows(out: str, sep: str = "\t") -> list[dict]:
    return list(csv.DictReader(io.StringIO(out), delimiter=sep))


def test_the_pilot_scores_every_run_topic_attribute_set_and_measure_with_the_official_names():
    load_pilot()
    out, _ = run("score_runs", "--campaign", "fairweb1pilot")
    rows = _rows(out)
    assert out.splitlines()[0] == "run\ttopic\tattribute_set\tmeasure\tvalue"
    p001 = [(r["attribute_set"], r["measure"]) for r in rows if (r["run"], r["topic"]) == ("Anserini-bm25", "P001")]
    assert p001 == [("-", "ERR"), ("-", "iRBU"), ("HINDEX", "GF-JSD"), ("HINDEX", "GF-NMD"), ("HINDEX", "GF-RNOD"),
                    ("GENDER", "GF-JSD"), ("GENDER", "GF-NMD"), ("GENDER", "GF-RNOD"),
                    ("-", "GFR-ERR+NMD+JSD"), ("-", "GFR-ERR+RNOD+JSD"), ("-", "GFR-iRBU+NMD+JSD"), ("-", "GFR-iRBU+RNOD+JSD")]
    t_measures = {r["measure"] for r in rows if r["topic"] == "P003"}
    assert {"GFR-ERR+NMD", "GFR-ERR+RNOD", "GFR-iRBU+NMD", "GFR-iRBU+RNOD"} <= t_measures
    assert not any(m.endswith("+JSD") for m in t_measures)
    assert len(rows) == 3 * (12 + 12 + 9 + 9)  # runs x (P001 R, P002 M: 2 sets; P003 T, P004 Y: 1 set)
    # every M-ORIGIN figure is scored (the official driver never prepares that file: all 0 there)
    assert all(float(r["value"]) > 0 for r in rows if r["attribute_set"] == "ORIGIN" and r["measure"] == "GF-JSD")


def _pilot_file(path) -> dict:
    """topic -> doc -> fields, read straight from the pack."""
    table: dict = {}
    for line in path.read_text().splitlines():
        topic, doc, *rest = line.split()
        table.setdefault(topic, {})[doc] = rest
    return table


def test_pilot_figures_agree_with_the_plain_python_twin_read_straight_from_the_files():
    load_pilot()
    rows = _rows(run("score_runs", "--campaign", "fairweb1pilot")[0])
    qrels = _pilot_file(QRELS)
    gains = {"L0": 0.0, "L1": 1.0, "L2": 3.0}
    campaign = json.loads(PILOT_CAMPAIGN.read_text())
    kinds = {(t["code"], a["name"]): a["kind"] == "nominal" for t in campaign["topic_types"] for a in t["attribute_sets"]}
    memberships = {}
    for path in GMEMB:
        type_code, name = path.name.split(".")[1].split("-")
        memberships[(type_code, name)] = _pilot_file(path)
    types = {"P001": "R", "P002": "M", "P003": "T", "P004": "Y"}
    for run_file in RUN_FILES:
        lines = [line.split() for line in run_file.read_text().splitlines()]
        tag = lines[0][5]
        for topic, type_code in types.items():
            docs = [fields[2] for fields in lines if fields[0] == topic]
            sets = {name: m for (t, name), m in memberships.items() if t == type_code}
            targets = {name: [float(x) for x in (PILOT / f"{type_code}-{name}.golddistr").read_text().split()] for name in sets}
            twin = list_scores(
                [gains[qrels[topic][d][0]] if d in qrels[topic] else 0.0 for d in docs],
                {name: [[float(x) for x in m[topic][d]] if d in m.get(topic, {}) else [1 / len(targets[name])] * len(targets[name])
                        for d in docs] for name, m in sets.items()},
                targets, {name: kinds[(type_code, name)] for name in sets}, 3.0, 20,
            )
            for row in (r for r in rows if (r["run"], r["topic"]) == (tag, topic)):
                key = row["measure"] if row["attribute_set"] == "-" else f"{row['measure']}:{row['attribute_set']}"
                assert float(row["value"]) == pytest.approx(twin[key], abs=1e-12), (tag, topic, key)


def test_a_hand_computed_run_scores_as_specified(tmp_path):
    run("load_campaign", str(PILOT_CAMPAIGN))
    # P003 (T, FOLLOWERS: ordinal, uniform target over 4 bands): an L2 page in band 1, an
    # unjudged page (uniform), an L1 page in band 4.
    run("import_ntcireval", "--campaign", "fairweb1pilot",
        write(tmp_path, "h.qrels", "P003 a L2\nP003 c L1\n"),
        write(tmp_path, "h.T-FOLLOWERS.gmemb", "P003 a 1 0 0 0\nP003 c 0 0 0 1\n"))
    run("import_runs", "--campaign", "fairweb1pilot", write(tmp_path, "run", "P003 Q0 a 1 3 hand\nP003 Q0 b 2 2 hand\nP003 Q0 c 3 1 hand\n"))
    out, _ = run("score_runs", "--campaign", "fairweb1pilot", "--format", "csv")
    values = {(r["attribute_set"], r["measure"]): float(r["value"]) for r in _rows(out, ",")}
    # R = (3/4, 0, 1/4), S = (1, 1/4, 1/4): S R = (3/4, 0, 1/16)
    assert values[("-", "ERR")] == pytest.approx(3 / 4 + 1 / 16 / 3, abs=1e-15)
    assert values[("-", "iRBU")] == pytest.approx(3 / 4 * 0.99 + 1 / 16 * 0.99**3, abs=1e-15)
    # a_1 = (1, 0, 0, 0); a_3 = (1 + 1/4, 1/4, 1/4, 1/4 + 1) / 3 = (5/12, 1/12, 1/12, 5/12)
    nmd_1 = (3 / 4 + 1 / 2 + 1 / 4) / 3
    nmd_3 = (abs(5 / 12 - 1 / 4) + abs(6 / 12 - 2 / 4) + abs(7 / 12 - 3 / 4)) / 3
    assert values[("FOLLOWERS", "GF-NMD")] == pytest.approx(3 / 4 * (1 - nmd_1) + 1 / 16 * (1 - nmd_3), abs=1e-15)
    # RNOD of a_1: d = (3/4, -1/4, -1/4, -1/4), d^2 = (9, 1, 1, 1)/16, DW_k = sum |k-j| d_j^2
    dw_1 = [sum(abs(k - j) * d for j, d in enumerate([9 / 16, 1 / 16, 1 / 16, 1 / 16])) for k in range(4)]
    d3 = [(5 / 12 - 1 / 4) ** 2, (1 / 12 - 1 / 4) ** 2, (1 / 12 - 1 / 4) ** 2, (5 / 12 - 1 / 4) ** 2]
    dw_3 = [sum(abs(k - j) * d for j, d in enumerate(d3)) for k in range(4)]
    rnod_1, rnod_3 = math.sqrt(sum(dw_1) / 4 / 3), math.sqrt(sum(dw_3) / 4 / 3)
    assert values[("FOLLOWERS", "GF-RNOD")] == pytest.approx(3 / 4 * (1 - rnod_1) + 1 / 16 * (1 - rnod_3), abs=1e-15)
    assert values[("-", "GFR-ERR+RNOD")] == pytest.approx((values[("-", "ERR")] + values[("FOLLOWERS", "GF-RNOD")]) / 2, abs=1e-15)
    assert values[("-", "GFR-iRBU+NMD")] == pytest.approx((values[("-", "iRBU")] + values[("FOLLOWERS", "GF-NMD")]) / 2, abs=1e-15)


def test_a_cutoff_reads_fewer_ranks_and_json_gives_the_same_rows(tmp_path):
    load_pilot()
    at_20 = json.loads(run("score_runs", "--campaign", "fairweb1pilot", "--format", "json")[0])
    at_1 = json.loads(run("score_runs", "--campaign", "fairweb1pilot", "--format", "json", "--cutoff", "1")[0])
    assert [sorted(r) for r in at_20[:1]] == [["attribute_set", "measure", "run", "topic", "value"]]
    assert len(at_1) == len(at_20) and at_1 != at_20
    assert refused("score_runs", "--campaign", "fairweb1pilot", "--cutoff", "0")[0] == "--cutoff: at least 1 rank"


def test_a_topic_without_a_relevant_document_gets_no_figure_and_a_run_missing_a_topic_scores_zero(tmp_path):
    run("load_campaign", str(PILOT_CAMPAIGN))
    run("import_ntcireval", "--campaign", "fairweb1pilot", write(tmp_path, "q.qrels", "P001 a L1\nP002 b L0\n"))
    run("import_runs", "--campaign", "fairweb1pilot", write(tmp_path, "one", "P001 Q0 a 1 1 one\nP002 Q0 b 1 1 one\n"))
    run("import_runs", "--campaign", "fairweb1pilot", write(tmp_path, "two", "P002 Q0 b 1 1 two\n"))
    rows = _rows(run("score_runs", "--campaign", "fairweb1pilot")[0])
    assert {r["topic"] for r in rows} == {"P001"}
    assert {float(r["value"]) for r in rows if r["run"] == "two"} == {0.0}
    assert {r["run"] for r in rows} == {"one", "two"}


def test_several_cutoffs_are_one_call_whose_rows_end_with_their_cutoff_and_one_cutoff_keeps_the_columns():
    load_pilot()
    out, _ = run("score_runs", "--campaign", "fairweb1pilot", "--cutoff", "5", "--cutoff", "20")
    rows = _rows(out)
    assert out.splitlines()[0] == "run\ttopic\tattribute_set\tmeasure\tvalue\tcutoff"
    alone = {cutoff: _rows(run("score_runs", "--campaign", "fairweb1pilot", "--cutoff", cutoff)[0]) for cutoff in ("5", "20")}
    for cutoff, expected in alone.items():
        mine = [{k: v for k, v in r.items() if k != "cutoff"} for r in rows if r["cutoff"] == cutoff]
        assert len(mine) == len(expected) and all(
            (a["run"], a["topic"], a["attribute_set"], a["measure"]) == (b["run"], b["topic"], b["attribute_set"], b["measure"])
            and float(a["value"]) == pytest.approx(float(b["value"]), abs=1e-15) for a, b in zip(mine, expected))
    assert refused("score_runs", "--campaign", "fairweb1pilot", "--cutoff", "20", "--cutoff", "0")[0] == "--cutoff: at least 1 rank"


def test_as_ntcireval_gives_the_same_rows_and_on_the_pilot_the_same_figures():
    # the pilot's scored lists hold no unjudged document (docs/scoring.md): the two agree there
    load_pilot()
    exact, _ = run("score_runs", "--campaign", "fairweb1pilot")
    six, _ = run("score_runs", "--campaign", "fairweb1pilot", "--as-ntcireval")
    assert [(r["run"], r["topic"], r["measure"]) for r in _rows(six)] == [(r["run"], r["topic"], r["measure"]) for r in _rows(exact)]
    assert all(float(a["value"]) == pytest.approx(float(b["value"]), abs=1e-12) for a, b in zip(_rows(six), _rows(exact)))


def test_a_round_with_one_judge_a_document_is_scored_and_written_without_pandas(monkeypatch):
    # pandas' import is a quarter of a second of every `score_runs` start (docs/benchmarks.md)
    load_pilot()
    expected = {fmt: run("score_runs", "--campaign", "fairweb1pilot", "--format", fmt, "--cutoff", "5", "--cutoff", "20")[0]
                for fmt in ("tsv", "json")}
    from annotator.models import RankedListFigures

    RankedListFigures.objects.all().delete()  # computed again, not read
    monkeypatch.setitem(sys.modules, "pandas", None)  # any `import pandas` now fails
    for fmt, text in expected.items():
        assert run("score_runs", "--campaign", "fairweb1pilot", "--format", fmt, "--cutoff", "5", "--cutoff", "20")[0] == text


def test_the_command_and_what_it_reads_import_no_pandas():
    start = ("import django, sys; django.setup(); import annotator.management.commands.score_runs; "
             "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", start], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
                         env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert out.stdout.split()[-1] == "False"


def test_a_campaign_without_runs_gives_the_header_alone_and_says_why():
    load_pilot(runs=False)
    out, err = run("score_runs", "--campaign", "fairweb1pilot", "--cutoff", "5", "--cutoff", "20")
    assert out == "run\ttopic\tattribute_set\tmeasure\tvalue\tcutoff\n"
    assert "no ranked-list run scored" in err
    assert json.loads(run("score_runs", "--campaign", "fairweb1pilot", "--format", "json")[0]) == []
