"""A conversation that branches, imported and scored (issue 42): its figure is the expectation of
its paths' figures, each path scored as the linear conversation it is."""

from __future__ import annotations

import copy
import json

import pytest
from django.contrib.auth import get_user_model

from annotator.interchange.imports.conversations import import_files
from annotator.models import Campaign, Conversation
from annotator.scores.per_conversation import score_conversation
from tests.commands.helpers import load_fairweb
from tests.interchange.formats.test_jsonl_trees import TREE

GENDERLESS = {"RATINGS": {"vector": [0, 1, 0, 0]}, "ORIGIN": {"vector": [0, 0, 0, 0, 0, 1, 0, 0]}}


@pytest.fixture
def campaign(db):
    load_fairweb()
    return Campaign.objects.get(slug="fairweb1")


def tree_line() -> dict:
    tree = copy.deepcopy(TREE)
    tree["nuggets"] = [
        {"turn": "a", "start": 0, "end": 2, "grade": "L2", "memberships": GENDERLESS},
        {"turn": "b", "start": 0, "end": 2, "grade": "L1", "memberships": GENDERLESS},
        {"turn": "s2a", "start": 0, "end": 1, "grade": "L1", "memberships": GENDERLESS},
        {"turn": "s2b", "start": 3, "end": 4, "grade": "L2", "memberships": GENDERLESS},
    ]
    return tree


def path_line(tree: dict, path: list[str], run: str) -> dict:
    """The linear conversation one path of `tree` is, with the nuggets on it."""
    by_id = {t["id"]: t for t in tree["turns"]}
    turns = [{"role": by_id[i]["role"], "text": by_id[i]["text"]} for i in path]
    nuggets = [dict(n, turn=path.index(n["turn"]) + 1) for n in tree["nuggets"] if n["turn"] in path]
    return {"topic": tree["topic"], "run": run, "turns": turns, "nuggets": nuggets}


def test_a_tree_scores_the_expectation_of_its_paths_each_as_its_own_linear_conversation(campaign):
    organiser = get_user_model().objects.create_user("organiser")
    tree = tree_line()
    lines = [tree, path_line(tree, ["u1", "a", "u2a", "s2a"], "patha-trial1"),
             path_line(tree, ["u1", "b", "u2b", "s2b"], "pathb-trial1")]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    result = import_files(campaign, [("trees.jsonl", data)], annotator=organiser)
    assert not result.errors, result.errors
    scores = {c.run.name: score_conversation(c, organiser) for c in Conversation.objects.filter(topic__campaign=campaign)}
    whole, a, b = scores["bing-trial1"], scores["patha-trial1"], scores["pathb-trial1"]
    assert whole.conversation.is_tree
    for figure in ("R", "GF", "GFRC"):
        assert getattr(whole, figure) == pytest.approx(0.7 * getattr(a, figure) + 0.3 * getattr(b, figure), abs=1e-12)
    for name in whole.GF_m:
        assert whole.GF_m[name] == pytest.approx(0.7 * a.GF_m[name] + 0.3 * b.GF_m[name], abs=1e-12)
    # positions count along each path: every nugget has the WC it has in its path's conversation
    assert sorted(n.wc for n in whole.nuggets) == sorted([n.wc for n in a.nuggets] + [n.wc for n in b.nuggets])


def test_the_stored_figures_of_a_tree_are_its_expected_ones_and_a_new_setting_scores_them_again(campaign):
    from annotator.models import StoredFigures
    from annotator.scores.campaign_tables import score_table
    from annotator.scores.stored import invalidation
    from annotator.scores.stored.figures import rows_from_judgments

    organiser = get_user_model().objects.create_user("organiser")
    result = import_files(campaign, [("tree.jsonl", (json.dumps(tree_line()) + "\n").encode())], annotator=organiser)
    assert not result.errors, result.errors
    conversation = Conversation.objects.get(topic__campaign=campaign)
    live = score_conversation(conversation, organiser)
    stored = StoredFigures.objects.get(conversation=conversation, annotator=organiser)
    assert (stored.r, stored.gf, stored.gfrc) == pytest.approx((live.R, live.GF, live.GFRC), abs=1e-12)
    # the rows a campaign-wide refresh stores are the ones the save stored
    fresh = [row for row in rows_from_judgments(campaign, None, None) if row[1] == organiser.pk]
    assert fresh[0][6] == stored.inputs and fresh[0][2:5] == pytest.approx((stored.r, stored.gf, stored.gfrc), abs=1e-12)
    table = score_table(campaign)
    assert table.loc[table["topic"] == "M001", "GFRC"].iloc[0] == pytest.approx(live.GFRC, abs=1e-12)

    campaign.patience = 10
    campaign.save()
    invalidation.settings_changed(campaign, {"patience"})
    again = score_conversation(Conversation.objects.get(pk=conversation.pk), organiser)
    assert again.R != pytest.approx(live.R)
    table = score_table(campaign)
    assert table.loc[table["topic"] == "M001", "GFRC"].iloc[0] == pytest.approx(again.GFRC, abs=1e-12)
