"""Campaign files checked without the database: defaults, shorthand, every problem by JSON path."""

from __future__ import annotations

import json

from annotator.interchange.imports.campaign_file import topic_type_for, validate_campaign
from tests.commands.helpers import CAMPAIGN_FILE

MINIMAL = {"slug": "tiny", "topic_types": [{"code": "M", "attribute_sets": [{"name": "RATINGS", "kind": "ordinal", "groups": ["a", "b"]}]}]}


def test_the_shipped_file_is_valid():
    spec, problems = validate_campaign(json.loads(CAMPAIGN_FILE.read_text()), "fairweb-campaign.json")
    assert problems == []
    assert [g["label"] for g in spec["grades"]] == ["L0", "L1", "L2"]


def test_a_minimal_file_gets_the_papers_settings_and_uniform_targets():
    spec, problems = validate_campaign(MINIMAL)
    assert problems == []
    assert (spec["patience"], spec["alpha"], spec["method"], spec["empty_turns"], spec["turn_weight"], spec["duplicates_count_once"],
            spec["missing_membership"]) == (1250, 0.5, "independent", "ignore", "one", True, "uniform")
    (a,) = spec["topic_types"][0]["attribute_sets"]
    assert (a["target"], a["divergence"], a["weight"], a["helper"]) == ([0.5, 0.5], "rnod", 1.0, {})


def test_missing_membership_is_uniform_or_refuse():
    spec, problems = validate_campaign(dict(MINIMAL, settings={"missing_membership": "refuse"}))
    assert problems == [] and spec["missing_membership"] == "refuse"
    _, problems = validate_campaign(dict(MINIMAL, settings={"missing_membership": "skip"}))
    assert [p.where for p in problems] == ["settings.missing_membership"]


def test_topics_and_runs_may_be_plain_strings_and_targets_fractions():
    data = dict(MINIMAL, topics=["M001"], runs=["bing"])
    data["topic_types"][0]["attribute_sets"][0]["target"] = ["1/3", "2/3"]
    spec, problems = validate_campaign(data)
    assert problems == []
    assert spec["topics"] == [{"code": "M001", "type": "M", "description": ""}]
    assert spec["runs"] == [{"name": "bing", "kind": "conversations", "system": "bing", "trial": 1}]
    assert spec["topic_types"][0]["attribute_sets"][0]["target"] == [1 / 3, 2 / 3]


def test_a_runs_system_and_trial_come_from_its_name_unless_given():
    data = dict(MINIMAL, runs=["bard-trial2", {"name": "bing_trial3", "system": "New Bing"}, {"name": "x-trial4", "trial": 1}])
    spec, problems = validate_campaign(data)
    assert problems == []
    assert [(r["system"], r["trial"]) for r in spec["runs"]] == [("bard", 2), ("New Bing", 3), ("x", 1)]


def test_a_target_from_the_mapping_counts_values_per_group():
    data = json.loads(json.dumps(MINIMAL))
    data["topic_types"][0]["attribute_sets"] = [{
        "name": "ORIGIN", "kind": "nominal", "groups": ["Europe", "Asia"], "target": "from-mapping",
        "helper": {"mapping": {"France": "Europe", "Japan": "Asia", "Turkey": ["Europe", "Asia"], "Italy": "Europe"}},
    }]
    spec, problems = validate_campaign(data)
    assert problems == [] and spec["topic_types"][0]["attribute_sets"][0]["target"] == [2.5 / 4, 1.5 / 4]


def test_reserved_and_unwritable_attribute_names_are_refused():
    data = json.loads(json.dumps(MINIMAL))
    data["topic_types"][0]["attribute_sets"] += [
        {"name": "SPAN", "kind": "ordinal", "groups": ["a"]},
        {"name": "TWO WORDS", "kind": "ordinal", "groups": ["a"]},
    ]
    _, problems = validate_campaign(data, "c.json")
    assert [str(p) for p in problems] == [
        "c.json: topic_types[0].attribute_sets[1].name: SPAN is reserved by the paper format (#SPAN:, #ENTITY:, #COMMENT:)",
        "c.json: topic_types[0].attribute_sets[2].name: attribute set id 'TWO WORDS' holds whitespace (files separate their fields by it)",
    ]


def test_a_topic_type_is_the_longest_code_its_id_starts_with():
    assert topic_type_for("M002", ["M", "R"]) == "M"
    assert topic_type_for("RX01", ["R", "RX"]) == "RX"
    assert topic_type_for("Q001", ["M"]) is None


def test_a_topic_id_or_attribute_set_name_ending_in_a_line_break_is_refused():
    data = {**json.loads(json.dumps(MINIMAL)), "topics": [{"id": "M002\n"}], "runs": ["bing\n"]}
    data["topic_types"][0]["attribute_sets"][0]["name"] = "RATINGS\n"
    _, problems = validate_campaign(data, "c.json")
    assert {p.where for p in problems} == {"topics[0].id", "runs[0].name", "topic_types[0].attribute_sets[0].name"}
    assert all("line break" in p.message for p in problems)


def test_a_topic_may_name_its_type_and_otherwise_its_first_letter_decides():
    data = dict(MINIMAL, topic_types=[*MINIMAL["topic_types"], {"code": "R"}], topics=[{"id": "P001", "type": "R"}, "M002"])
    spec, problems = validate_campaign(data)
    assert problems == []
    assert [(t["code"], t["type"]) for t in spec["topics"]] == [("P001", "R"), ("M002", "M")]
    _, problems = validate_campaign(dict(MINIMAL, topics=[{"id": "P001", "type": "Q"}]))
    assert [(p.where, p.message) for p in problems] == [("topics[0].type", "must be one of: M")]


def test_a_target_summing_to_1_within_1e_5_is_kept_as_given_and_one_further_off_refused():
    data = json.loads(json.dumps(MINIMAL))
    data["topic_types"][0]["attribute_sets"][0] |= {"groups": ["a", "b", "c"], "target": [0.333333] * 3}
    spec, problems = validate_campaign(data)
    assert problems == [] and spec["topic_types"][0]["attribute_sets"][0]["target"] == [0.333333] * 3
    data["topic_types"][0]["attribute_sets"][0]["target"] = [0.3333, 0.3333, 0.3333]
    _, problems = validate_campaign(data)
    assert [p.where for p in problems] == ["topic_types[0].attribute_sets[0].target"]


def test_ranked_list_gains_default_to_fairwebs_and_may_be_set_per_grade():
    spec, _ = validate_campaign(MINIMAL)
    assert {g["label"]: g["ranked_list_gain"] for g in spec["grades"]} == {"L0": 0.0, "L1": 1.0, "L2": 3.0}
    assert spec["ranked_list_cutoff"] == 20
    spec, problems = validate_campaign(dict(MINIMAL, settings={"ranked_list_gains": {"L2": 2}, "ranked_list_cutoff": 10}))
    assert problems == [] and {g["label"]: g["ranked_list_gain"] for g in spec["grades"]} == {"L0": 0.0, "L1": 1.0, "L2": 2.0}
    assert spec["ranked_list_cutoff"] == 10


def test_a_grade_fairweb_has_no_ranked_list_gain_for_must_be_given_one():
    grades = {"L0": 0, "L1": 0.5, "L2": 0.8, "L3": 1}
    _, problems = validate_campaign(dict(MINIMAL, settings={"grades": grades}))
    assert [(p.where, p.message) for p in problems] == [
        ("settings.ranked_list_gains", "give the ranked-list gain of L3 (FairWeb-1's defaults cover L0, L1 and L2)")]
    _, problems = validate_campaign(dict(MINIMAL, settings={"grades": grades, "ranked_list_gains": {"L3": 7, "L9": 1}}))
    assert [p.where for p in problems] == ["settings.ranked_list_gains.L9"]


def test_the_pilot_campaign_file_is_valid_with_its_targets_as_given():
    from tests.commands.pilot import PILOT_CAMPAIGN

    spec, problems = validate_campaign(json.loads(PILOT_CAMPAIGN.read_text()))
    assert problems == []
    gender = next(a for t in spec["topic_types"] if t["code"] == "R" for a in t["attribute_sets"] if a["name"] == "GENDER")
    assert gender["target"] == [0.333333] * 3
