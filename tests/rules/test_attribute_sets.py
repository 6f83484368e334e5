"""An attribute set's rules (annotator.rules.attribute_sets): what a set is read as, and what is
refused with which words. Pure: no database. (Every entrance says the same: tests/test_set_up_rules_through_every_entrance.py.)"""

from __future__ import annotations

import pytest

from annotator.rules.attribute_sets import read_attribute_set, regrouping_problem
from annotator.rules.problems import as_sentence, placed


def test_a_set_given_only_its_name_kind_and_groups_gets_the_defaults():
    read, problems = read_attribute_set({"name": "ORIGIN", "kind": "nominal", "groups": ["Asia", "Europe"]})
    assert problems == []
    assert read == {"name": "ORIGIN", "kind": "nominal", "groups": ["Asia", "Europe"], "target": [0.5, 0.5],
                    "divergence": "jsd", "weight": 1.0, "helper": {}}
    read, _ = read_attribute_set({"name": "RATINGS", "kind": "ordinal", "groups": ["low", "high"]})
    assert read["divergence"] == "rnod"


def test_a_target_is_read_exactly_from_numbers_or_fractions_and_derived_from_a_mapping():
    read, problems = read_attribute_set({"name": "A", "kind": "ordinal", "groups": ["a", "b", "c"], "target": ["1/3", "1/3", 1 / 3]})
    assert problems == [] and read["target"] == [1 / 3] * 3
    mapping = {"France": "Europe", "Japan": "Asia", "Turkey": ["Europe", "Asia"]}
    read, problems = read_attribute_set({"name": "A", "kind": "nominal", "groups": ["Europe", "Asia"],
                                         "target": "from-mapping", "helper": {"mapping": mapping}})
    assert problems == [] and read["target"] == [0.5, 0.5]


def test_a_target_of_the_wrong_length_is_refused_before_its_values_are_read():
    _, problems = read_attribute_set({"name": "A", "kind": "ordinal", "groups": ["a", "b"], "target": ["x"] * 10**6})
    assert problems == [("target", "the target has 1000000 values, expected 2")]


def test_a_mapping_refused_for_its_values_is_not_also_blamed_for_the_derived_target():
    _, problems = read_attribute_set({"name": "A", "kind": "nominal", "groups": ["a", "b"], "target": "from-mapping",
                                      "helper": {"mapping": {"x": "a", "X": "b"}}})
    assert problems == [("helper.mapping.X", "the same value as 'x' (values match case-insensitively)")]
    _, problems = read_attribute_set({"name": "A", "kind": "nominal", "groups": ["a", "b"], "target": "from-mapping"})
    assert problems == [("target", "deriving the target from the mapping needs a helper with a mapping")]


@pytest.mark.parametrize("kind, helper, problem", [
    ("nominal", {"bands": [10]}, ("helper.bands", "bands need ordinal groups")),
    ("ordinal", {"bands": "10"}, ("helper.bands", "must be a list of numbers (group limits)")),
    ("ordinal", {"bands": [True]}, ("helper.bands", "must be a list of numbers (group limits)")),
    ("nominal", {"mapping": {}}, ("helper.mapping", "must map values to group labels")),
    ("nominal", {"mapping": {" Japan ": "a", "japan": "a"}},
     ("helper.mapping.japan", "the same value as ' Japan ' (values match case-insensitively)")),
    ("nominal", {"typing": True}, ("helper.typing", "unknown field (expected one of: bands, mapping)")),
    ("nominal", [], ("helper", "must be an object")),
])
def test_a_helper_is_refused_with_what_is_wrong_in_it(kind, helper, problem):
    read, problems = read_attribute_set({"name": "A", "kind": kind, "groups": ["a", "b"], "helper": helper})
    assert problems == [problem] and read["helper"] == {}


def test_the_number_of_groups_of_a_judged_set_stays():
    assert regrouping_problem("RATINGS", 4, 4, judged=True) is None
    assert regrouping_problem("RATINGS", 4, 2, judged=False) is None
    assert regrouping_problem("RATINGS", 4, 2, judged=True) == (
        "groups", "RATINGS has 4 groups and memberships judged against them: its number of groups cannot change to 2")


def test_a_problem_is_said_beside_the_entrances_field_with_where_within_it():
    fields = {"helper": "helper_kind", "helper.mapping": "mapping_text", "target": "target_text"}
    problems = [("helper.mapping.St. Lucia", "must be a group label"), ("target", "the target sums to 0.9, not 1")]
    assert placed(problems, fields) == [("mapping_text", "St. Lucia: must be a group label."),
                                        ("target_text", "The target sums to 0.9, not 1.")]
    assert as_sentence("SPAN is reserved.") == "SPAN is reserved."
    with pytest.raises(KeyError):
        placed([("weight", "must be at least 0")], fields)
