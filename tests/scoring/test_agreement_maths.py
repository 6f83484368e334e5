"""scoring.agreement against known values."""

import math
import random

import pytest

from scoring.agreement import cohen_kappa, dice, krippendorff_alpha, membership_distance, span_agreement
from scoring.reference import agreement as krippendorff_reference

N = None
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 coders x 12 units example.
TEXTBOOK = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


def test_krippendorffs_textbook_example_gives_its_published_nominal_alpha():
    assert krippendorff_alpha(TEXTBOOK, "nominal") == pytest.approx(0.743, abs=5e-4)


def test_krippendorffs_textbook_example_gives_its_published_interval_alpha():
    assert krippendorff_alpha(TEXTBOOK, "interval") == pytest.approx(0.849, abs=5e-4)


def test_krippendorffs_textbook_example_gives_its_published_ordinal_alpha():
    assert krippendorff_alpha(TEXTBOOK, "ordinal") == pytest.approx(0.815, abs=5e-4)


def test_perfect_agreement_is_one_and_no_variation_is_undefined():
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], "ordinal") == 1.0
    assert math.isnan(krippendorff_alpha([[1, 1], [1, 1]]))


def test_units_coded_once_are_not_pairable():
    assert krippendorff_alpha([[1, 2, 3], [1, 2, N]]) == krippendorff_alpha([[1, 2], [1, 2]])


def test_nan_is_a_missing_value_like_none():
    with_nan = [[v if v is not None else math.nan for v in row] for row in TEXTBOOK]
    assert krippendorff_alpha(with_nan, "ordinal") == krippendorff_alpha(TEXTBOOK, "ordinal")


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
def test_with_no_unit_coded_twice_alpha_is_undefined_not_an_error(metric):
    # the krippendorff package raises ValueError here; a campaign whose annotators never met
    # on a unit shows "no figure" instead
    assert math.isnan(krippendorff_alpha([[1, 2, N], [N, N, 3]], metric))
    assert math.isnan(krippendorff_alpha([[1, 2, 3]], metric))
    assert math.isnan(krippendorff_alpha([], metric))


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
def test_with_one_value_among_the_pairable_units_alpha_is_undefined_not_an_error(metric):
    # one value in the whole data: the package raises ValueError
    assert math.isnan(krippendorff_alpha([[2, 2, 2], [2, 2, N]], metric))
    # other values only in units coded once: the package divides zero by zero
    assert math.isnan(krippendorff_alpha([[1, 1, 3], [1, 1, N]], metric))


def test_an_unknown_metric_is_refused():
    with pytest.raises(ValueError, match="metric must be one of"):
        krippendorff_alpha(TEXTBOOK, "ratio-ish")


def test_cohens_kappa_matches_a_hand_computation():
    # 4 of 5 agree (p_o = 0.8); marginals 3/2 and 2/3 give p_e = 0.48; kappa = 0.32 / 0.52
    assert cohen_kappa([1, 1, 0, 0, 1], [1, 0, 0, 0, 1]) == pytest.approx(0.32 / 0.52)


def test_cohens_kappa_of_the_classic_two_by_two_table():
    # Cohen's kappa, Wikipedia's example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> 0.4
    a = ["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_kappa_drops_pairs_with_a_missing_label():
    assert cohen_kappa([1, 2, N], [1, 2, 2]) == 1.0


def test_span_agreement_counts_exact_matches_and_overlapping_words():
    result = span_agreement([(1, 0, 3), (1, 5, 6)], [(1, 0, 3), (1, 6, 8)])
    assert result.exact_f1 == 0.5
    # words: first {0,1,2,3,5,6}, second {0,1,2,3,6,7,8}: 5 shared -> 2*5/13
    assert result.word_dice == pytest.approx(10 / 13)
    assert (result.both, result.only_first, result.only_second) == (1, 1, 1)


def test_dice_of_two_empty_sets_is_one():
    assert dice(set(), set()) == 1.0


def test_membership_distance_is_zero_for_equal_vectors_and_one_for_disjoint_ones():
    same = membership_distance([([0.5, 0.5], [0.5, 0.5])])
    assert same.mean_jsd == 0 and same.mean_l1 == 0
    apart = membership_distance([([1, 0], [0, 1])])
    assert apart.mean_jsd == pytest.approx(1.0) and apart.mean_l1 == 2.0
    assert math.isnan(membership_distance([]).mean_jsd)


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
def test_alpha_agrees_with_the_papers_formulas_written_out_on_random_campaigns(metric):
    # grades 0-3, 2 to 5 coders, a third of the values missing: the package's answer through
    # our wrapper equals the coincidence-matrix formulas computed by hand
    rng = random.Random(f"alpha-{metric}")
    for _ in range(40):
        coders, units = rng.randint(2, 5), rng.randint(1, 30)
        data = [[rng.choice([0, 1, 1, 2, 3]) if rng.random() > 0.33 else None for _ in range(units)] for _ in range(coders)]
        expected = krippendorff_reference.alpha(data, metric)
        got = krippendorff_alpha(data, metric)
        assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected, abs=1e-9), data
