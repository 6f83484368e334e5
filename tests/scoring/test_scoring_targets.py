"""A target is used as given when it sums to 1 within 1e-5 (scoring.targets, the rule's home),
on the conversation side (GFRC) and the ranked-list side (GFR) alike."""

from fractions import Fraction

import numpy as np
import pytest

from scoring import gfr, gfrc
from scoring.targets import TARGET_TOLERANCE, target_problem

FAIRWEB_GENDER = [0.333333, 0.333333, 0.333333]  # fixtures/fairweb1-pilot/R-GENDER.golddistr


def test_fairweb_ones_gender_target_summing_to_0_999999_is_a_target():
    assert TARGET_TOLERANCE == 1e-5
    assert target_problem(FAIRWEB_GENDER) is None
    assert target_problem([Fraction(1, 3)] * 3) is None


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ([], "is empty"),
        ([0.5, 0.49998], "sums to 0.99998, not 1"),
        ([0.5, 0.50002], "sums to 1.00002, not 1"),
        ([1.5, -0.5], "value 2 is negative (-0.5)"),
        ([float("nan"), 1.0], "value 1 is not a finite number"),
        ([None, 1.0], "value 1 is not a number"),
        ([True], "value 1 is not a number"),
        ([10**308] * 10, "sums to a huge number, not 1"),
    ],
)
def test_what_is_no_target_is_said_in_words(values, problem):
    assert target_problem(values) == problem


def test_the_conversation_side_and_the_ranked_list_side_take_the_same_targets_as_given():
    for target in (FAIRWEB_GENDER, [0.499996, 0.499996]):
        assert gfrc.AttributeSet("GENDER", ("a",) * len(target), target, "jsd").target.tolist() == target
        assert gfr.GroupSet("GENDER", True, np.array(target)).target.tolist() == target
    for target in ([0.49999, 0.49999], [0.6, 0.5]):
        with pytest.raises(ValueError, match="the target sums to"):
            gfrc.AttributeSet("GENDER", ("a", "b"), target, "jsd")
        with pytest.raises(ValueError, match="the target sums to"):
            gfr.GroupSet("GENDER", True, np.array(target))
