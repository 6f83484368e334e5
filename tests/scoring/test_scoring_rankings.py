"""Judge-versus-gold maths: span matching, Kendall's tau-b, tau-AP, flips and the paired test."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats

from scoring.rankings import (
    compare_rankings,
    compare_spans,
    confusion_matrix,
    kendall_tau_b,
    tau_ap,
)
from scoring.reference.rankings import tau_ap as reference_tau_ap


@pytest.mark.parametrize(
    ("judge", "expected"),
    [
        ([4, 3, 2, 1], 1.0),  # the gold's own order
        ([1, 2, 3, 4], -1.0),  # reversed
        ([3, 4, 2, 1], 1 / 3),  # the top two swapped: costs much
        ([4, 3, 1, 2], 7 / 9),  # the bottom two swapped: costs little
    ],
)
def test_tau_ap_has_the_known_values_of_hand_made_rankings_and_agrees_with_its_plain_twin(judge, expected):
    gold = [4, 3, 2, 1]
    assert tau_ap(gold, judge) == pytest.approx(expected, abs=1e-12)
    assert reference_tau_ap(gold, judge) == pytest.approx(expected, abs=1e-12)


def test_tau_ap_agrees_with_its_plain_twin_on_random_rankings_with_ties():
    rng = random.Random(11)
    for _ in range(200):
        n = rng.randint(2, 9)
        gold = [rng.choice([0.1, 0.2, 0.3, 0.4, 0.5]) for _ in range(n)]
        judge = [rng.choice([0.1, 0.2, 0.3, 0.4]) for _ in range(n)]
        assert tau_ap(gold, judge) == pytest.approx(reference_tau_ap(gold, judge), abs=1e-12)


def test_kendall_tau_b_equals_scipy_kendalltau_to_1e_12_on_rankings_with_and_without_ties():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(3, 30))
        gold = rng.integers(0, 6, n).astype(float) if rng.random() < 0.5 else rng.random(n)
        judge = gold + rng.normal(0, 0.3, n) if rng.random() < 0.5 else rng.integers(0, 4, n).astype(float)
        expected = stats.kendalltau(gold, judge, variant="b").statistic
        if math.isnan(expected):
            assert math.isnan(kendall_tau_b(gold, judge))
        else:
            assert abs(kendall_tau_b(gold, judge) - expected) < 1e-12


def test_the_ranking_comparison_lists_the_flipped_pairs_with_the_golds_winner_first_and_scipys_p_value():
    gold = [0.5, 0.4, 0.3, 0.2]
    judge = [0.45, 0.46, 0.1, 0.2]
    comparison = compare_rankings(gold, judge)
    assert comparison.flips == ((0, 1), (2, 3))
    assert comparison.runs == 4
    assert comparison.p_value == pytest.approx(stats.kendalltau(gold, judge).pvalue)
    assert comparison.tau_b == pytest.approx(1 / 3)


def test_one_run_gives_no_ranking_to_compare():
    comparison = compare_rankings([0.3], [0.4])
    assert math.isnan(comparison.tau_b) and math.isnan(comparison.tau_ap) and comparison.flips == ()


def test_spans_match_exactly_or_by_overlapping_words_and_pair_one_to_one_by_the_largest_overlap():
    gold = [(1, 0, 4), (1, 6, 9), (2, 0, 3)]
    judge = [(1, 0, 4), (1, 8, 12), (1, 13, 14), (3, 0, 1)]
    spans = compare_spans(gold, judge)
    assert (spans.exact.precision, spans.exact.recall) == (1 / 4, 1 / 3)
    assert (spans.overlap.precision, spans.overlap.recall) == (2 / 4, 2 / 3)
    assert spans.overlap.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert spans.pairs == ((0, 0), (1, 1))


def test_an_exact_match_is_paired_even_when_a_longer_span_overlaps_it_more():
    gold = [(1, 0, 2), (1, 3, 9)]
    judge = [(1, 0, 2), (1, 1, 9)]
    # judge 1 overlaps gold 1 by 7 words and gold 0 by 2: the pairs keep the exact match
    assert compare_spans(gold, judge).pairs == ((0, 0), (1, 1))


def test_confusion_matrix_counts_gold_levels_against_judge_levels_with_ungraded_last():
    matrix = confusion_matrix([(2, 2), (2, 1), (0, None), (None, 1)], levels=3)
    assert matrix.tolist() == [[0, 0, 0, 1], [0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 0]]
