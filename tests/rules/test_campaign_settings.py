"""A campaign's settings and grades (annotator.rules.campaign_settings): what is read, and what is
refused with which words. Pure: no database."""

from __future__ import annotations

from annotator.rules.campaign_settings import grade_problems, read_settings, repeated_grade_problems


def test_the_papers_settings_are_read_as_they_are():
    given = {"patience": 1250, "alpha": 0.5, "method": "independent", "empty_turns": "ignore", "turn_weight": "one",
             "duplicates_count_once": True, "missing_membership": "uniform", "ranked_list_cutoff": 20.0}
    read, problems = read_settings(given)
    assert problems == [] and read == {**given, "ranked_list_cutoff": 20}


def test_only_the_settings_given_are_judged_each_with_its_reason():
    read, problems = read_settings({"patience": 0, "alpha": "0.5", "duplicates_count_once": "yes", "turn_weight": "max_pw"})
    assert problems == [("patience", "must be at least 1"), ("alpha", "must be a number"),
                        ("duplicates_count_once", "must be true or false")]
    assert read == {"patience": None, "alpha": None, "turn_weight": "max_pw", "duplicates_count_once": None}


def test_a_grade_without_a_ranked_list_gain_takes_fairwebs_or_must_be_given_one():
    assert grade_problems("L2", 1) == []
    assert grade_problems("L3", 1) == [
        ("ranked_list_gain", "give the ranked-list gain of L3 (FairWeb-1's defaults cover L0, L1 and L2)")]
    assert grade_problems("L3", 1, 7) == []
    assert grade_problems("", 1.5, -1) == [("label", "a grade label is a short non-empty string"),
                                           ("gain", "must be between 0 and 1"),
                                           ("ranked_list_gain", "must be between 0 and 1000000")]


def test_a_later_grade_repeating_a_label_or_a_level_is_named():
    assert repeated_grade_problems([("L0", 0), ("L1", 1), ("L1", 2), ("X", 1)]) == [
        (2, ("label", "label L1 is given twice")), (3, ("level", "level 1 is given twice"))]
