"""The paper's Tables 1 and 2 as exports (nuggets-csv, turns-csv): the score panel's figures."""

from __future__ import annotations

import csv
import io

import pytest

from annotator.interchange.exports import catalogue as exporting, scores
from annotator.judgments import edits
from annotator.models import Campaign, Conversation, Membership, Nugget
from annotator.scores.per_conversation import score_conversation
from annotator.rules.vectors import format_vector
from tests.commands.helpers import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    """load_demo's campaign and its judged conversation (the paper's M002 Bing conversation)."""
    run("load_demo")
    conversation = Conversation.objects.select_related("topic__campaign", "run").get(topic__code="M002", run__name="bing-trial1")
    return conversation.topic.campaign, conversation


def read_csv(text: str) -> list[dict]:
    """The rows of the demo's paper conversation (M002, bing-trial1): the demo has others too."""
    return [r for r in csv.DictReader(io.StringIO(text)) if (r["topic"], r["run"]) == ("M002", "bing-trial1")]


def test_the_nugget_table_holds_the_panels_table_1_for_the_demo_conversation(demo):
    campaign, conversation = demo
    out, _ = run("export_scores", "--campaign", campaign.slug, "--format", "nuggets-csv")
    rows = read_csv(out)
    panel = score_conversation(conversation, conversation.gold_annotator)
    assert len(rows) == len(panel.nuggets) == 10
    for row, nugget in zip(rows, panel.nuggets):
        assert (row["topic"], row["run"], row["annotator"]) == ("M002", "bing-trial1", "annotator")
        assert row["entity_key"] == nugget.nugget.entity.key
        assert (int(row["wc"]), float(row["pw"]), float(row["g"]), float(row["pw_g"])) == (
            nugget.wc, nugget.pw, nugget.gain, nugget.contribution
        )
        assert row["duplicate"] == str(nugget.duplicate)
        assert row["missing_membership"] == ""
    assert [int(r["wc"]) for r in rows] == [35, 39, 43, 46, 51, 91, 96, 99, 104, 107]
    assert sum(float(r["pw_g"]) for r in rows) / panel.normaliser == pytest.approx(panel.R)


def test_the_turn_table_holds_the_panels_table_2_for_the_demo_conversation(demo):
    campaign, conversation = demo
    rows = read_csv("".join(exporting.stream(campaign, "turns-csv")))
    panel = score_conversation(conversation, conversation.gold_annotator)
    expected = [
        (str(view.turn), spec.name, format_vector(view.achieved[spec.name]), view.distr_sim[spec.name], view.weight)
        for view in panel.system_turns
        for spec in panel.attribute_sets
    ]
    assert [
        (r["turn"], r["attribute_set"], r["achieved"], float(r["distr_sim"]), float(r["turn_weight"])) for r in rows
    ] == expected
    assert [r["turn"] for r in rows] == ["S1", "S1", "S2", "S2"]
    assert {r["attribute_set"]: r["target"] for r in rows}["RATINGS"] == "(1/4,1/4,1/4,1/4)"
    gf_ratings = sum(float(r["distr_sim"]) for r in rows if r["attribute_set"] == "RATINGS") / 2
    assert gf_ratings == pytest.approx(panel.GF_m["RATINGS"]) == pytest.approx(0.57842, abs=1e-5)


def test_a_turn_without_a_relevant_nugget_is_listed_unscored_with_no_distribution(demo):
    campaign, conversation = demo
    for nugget in Nugget.objects.filter(turn__conversation=conversation, turn__number=2, turn__role="S"):
        edits.delete_nugget(nugget, actor=nugget.annotator, expected_version=nugget.version)  # as an annotator does
    rows = read_csv("".join(exporting.stream(campaign, "turns-csv")))
    assert [(r["turn"], r["scored"]) for r in rows] == [("S1", "True")] * 2 + [("S2", "False")] * 2
    assert all(r["achieved"] == r["distr_sim"] == "" and float(r["turn_weight"]) == 0 for r in rows[2:])


def test_a_graded_nugget_without_a_membership_names_the_attribute_set_it_lacks(demo):
    campaign, conversation = demo
    first = score_conversation(conversation, conversation.gold_annotator).nuggets[0].nugget.entity
    Membership.objects.filter(entity_id=first.pk, attribute_set__name="ORIGIN").delete()
    rows = read_csv("".join(exporting.stream(campaign, "nuggets-csv")))
    assert [r["missing_membership"] for r in rows if r["entity_key"] == first.key] == ["ORIGIN"]
    assert sum(1 for r in rows if r["missing_membership"]) == 1


def test_the_tables_stream_in_chunks_with_one_header(demo):
    campaign, _ = demo
    chunks = list(exporting.stream(campaign, "nuggets-csv"))
    assert chunks[0].startswith(",".join(scores.SCORE_NUGGET_COLUMNS) + "\n")
    assert "".join(chunks).count("topic,run,annotator") == 1


def test_an_empty_campaign_exports_only_the_headers():
    campaign = Campaign.objects.create(slug="empty", name="empty")
    assert "".join(exporting.stream(campaign, "turns-csv")) == ",".join(scores.SCORE_TURN_COLUMNS) + "\n"
