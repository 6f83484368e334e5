"""Exports of conversations that branch (issue 42): JSONL keeps the tree; the paper format, which
holds one line of turns, refuses it and says why."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model

from annotator.interchange.exports.catalogue import ExportRefused, stream
from annotator.interchange.formats.jsonl import parse_jsonl, write_jsonl
from annotator.interchange.imports.conversations import import_files
from annotator.models import Campaign
from tests.commands.helpers import load_fairweb
from tests.scores.test_conversation_trees_scored import tree_line


@pytest.fixture
def campaign(db):
    load_fairweb()
    return Campaign.objects.get(slug="fairweb1")


def test_a_tree_exports_as_jsonl_as_it_was_imported(campaign):
    organiser = get_user_model().objects.create_user("organiser")
    line = json.dumps(tree_line()) + "\n"
    result = import_files(campaign, [("tree.jsonl", line.encode())], annotator=organiser)
    assert not result.errors, result.errors
    exported = "".join(stream(campaign, "jsonl", organiser))
    assert exported == write_jsonl(parse_jsonl(line, "tree.jsonl").conversations)


def test_a_tree_exports_the_branch_its_chat_showed(campaign):
    from annotator.models import Turn

    organiser = get_user_model().objects.create_user("organiser")
    tree = tree_line()
    for turn in tree["turns"]:
        if turn["id"] in ("a", "u2a", "s2a"):
            turn["shown"] = False
    line = json.dumps(tree) + "\n"
    assert not import_files(campaign, [("tree.jsonl", line.encode())], annotator=organiser).errors
    assert sorted(Turn.objects.filter(conversation__topic__campaign=campaign, shown=False).values_list("key", flat=True)) == [
        "a", "s2a", "u2a"]
    exported = "".join(stream(campaign, "jsonl", organiser))
    assert exported == write_jsonl(parse_jsonl(line, "tree.jsonl").conversations)
    assert [t.get("shown", True) for t in json.loads(exported)["turns"]] == [True, False, True, False, False, True, True]


def test_the_paper_export_refuses_a_campaign_whose_conversations_branch(campaign):
    organiser = get_user_model().objects.create_user("organiser")
    import_files(campaign, [("tree.jsonl", (json.dumps(tree_line()) + "\n").encode())], annotator=organiser)
    with pytest.raises(ExportRefused, match=r"1 conversation\(s\) of campaign fairweb1 branch \(M001 / bing-trial1\)"):
        stream(campaign, "paper", organiser)


def test_the_paths_export_gives_each_path_its_probability_and_the_figures_of_its_own_linear_conversation(campaign):
    import csv
    import io

    from django.core.management import call_command

    from annotator.models import Conversation
    from annotator.scores.per_conversation import score_conversation
    from tests.scores.test_conversation_trees_scored import path_line

    organiser = get_user_model().objects.create_user("organiser")
    tree = tree_line()
    lines = [tree, path_line(tree, ["u1", "a", "u2a", "s2a"], "patha-trial1"),
             path_line(tree, ["u1", "b", "u2b", "s2b"], "pathb-trial1")]
    result = import_files(campaign, [("t.jsonl", "".join(json.dumps(line) + "\n" for line in lines).encode())],
                          annotator=organiser)
    assert not result.errors, result.errors
    out = io.StringIO()
    call_command("export_scores", campaign="fairweb1", format="paths-csv", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(rows[0])[:6] == ["topic", "run", "judge", "path", "probability", "R"]
    assert list(rows[0])[-2:] == ["GF", "GFRC"]
    by_run = {}
    for row in rows:
        by_run.setdefault(row["run"], []).append(row)
    tree_rows = by_run["bing-trial1"]
    assert [(r["path"], float(r["probability"])) for r in tree_rows] == [("u1>a>u2a>s2a", 0.7), ("u1>b>u2b>s2b", 0.3)]
    for row, linear_run in zip(tree_rows, ["patha-trial1", "pathb-trial1"]):
        alone = score_conversation(Conversation.objects.get(run__name=linear_run), organiser)
        (linear_row,) = by_run[linear_run]
        assert (linear_row["path"], float(linear_row["probability"])) == ("1>2>3>4", 1.0)
        for figure in ("R", "GF", "GFRC"):
            assert float(row[figure]) == pytest.approx(getattr(alone, figure), abs=1e-12)
            assert float(linear_row[figure]) == pytest.approx(getattr(alone, figure), abs=1e-12)
        for name, value in alone.GF_m.items():
            assert float(row[f"GF_{name}"]) == pytest.approx(value, abs=1e-12)


def test_a_later_mention_is_counted_along_its_own_path_in_the_nugget_table(campaign):
    import csv
    import io

    organiser = get_user_model().objects.create_user("organiser")
    tree = {"topic": "M001", "run": "bing-trial1", "turns": [
        {"id": "u1", "role": "user", "text": "Films?"},
        {"id": "a", "parent": "u1", "role": "system", "text": "Film A"},
        {"id": "b", "parent": "u1", "role": "system", "text": "Film B"},
        {"id": "u2a", "parent": "a", "role": "user", "text": "More?"},
        {"id": "s2a", "parent": "u2a", "role": "system", "text": "Film B"},
        {"id": "u2b", "parent": "b", "role": "user", "text": "More?"},
        {"id": "s2b", "parent": "u2b", "role": "system", "text": "Film B"},
    ], "nuggets": [{"turn": t, "start": 0, "end": 1, "grade": "L1"} for t in ("a", "b", "s2a", "s2b")]}
    result = import_files(campaign, [("t.jsonl", (json.dumps(tree) + "\n").encode())], annotator=organiser)
    assert not result.errors, result.errors
    rows = list(csv.DictReader(io.StringIO("".join(stream(campaign, "nuggets-tsv", organiser))), delimiter="\t"))
    # Film B in S2 of the first answer's path is its first mention there; in the second's, a later one
    assert [(r["text"], r["wc"], r["duplicate"]) for r in rows] == [
        ("Film A", "3", "False"), ("Film B", "3", "False"), ("Film B", "6", "False"), ("Film B", "6", "True")]
