"""GFR of ranked lists (scoring.gfr): hand-computed cases per measure and divergence, and the
vectorised maths against the plain-Python twin on random runs x topics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import gfr
from scoring.reference.gfr import list_scores

# One list, FairWeb gains (g_max = 3): an L2 document, an L0 one, an L1 one.
GAINS = [[3.0, 0.0, 1.0]]
# R = (3/4, 0, 1/4); S = (1, 1/4, 1/4); S R = (3/4, 0, 1/16).
HALVES = np.array([0.5, 0.5])
TWO_GROUPS = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])  # a_1 = (1, 0), a_2 = (1/2, 1/2), a_3 = (2/3, 1/3)


def test_stopping_and_reach_probabilities_follow_the_gains_and_the_largest_gain():
    stopping = gfr.stopping_probabilities(np.array(GAINS), 3)
    assert stopping.tolist() == [[0.75, 0.0, 0.25]]
    assert gfr.reach_probabilities(stopping).tolist() == [[1.0, 0.25, 0.25]]


def test_err_sums_the_stopping_chances_discounted_by_rank():
    assert gfr.err(GAINS, 3)[0] == pytest.approx(3 / 4 + (1 / 16) / 3, abs=1e-15)


def test_irbu_discounts_by_patience_to_the_power_of_the_rank():
    assert gfr.irbu(GAINS, 3)[0] == pytest.approx(3 / 4 * 0.99 + 1 / 16 * 0.99**3, abs=1e-15)


def test_a_cutoff_drops_the_ranks_below_it_and_a_cutoff_beyond_the_list_changes_nothing():
    assert gfr.err(GAINS, 3, cutoff=2)[0] == pytest.approx(0.75, abs=1e-15)
    assert gfr.irbu(GAINS, 3, cutoff=1)[0] == pytest.approx(0.75 * 0.99, abs=1e-15)
    assert gfr.err(GAINS, 3, cutoff=1000)[0] == gfr.err(GAINS, 3, cutoff=3)[0]


def test_a_list_without_gain_scores_zero_everywhere():
    scores = gfr.score(np.zeros((1, 4)), [np.full((1, 4, 2), 0.5)], [gfr.GroupSet("A", False, HALVES)], 3)
    assert scores.ERR[0] == scores.iRBU[0] == 0.0
    assert all(v[0] == 0.0 for v in scores.GF.values()) and all(v[0] == 0.0 for v in scores.GFR.values())


def test_achieved_distributions_are_running_means_of_every_document_relevant_or_not():
    achieved = gfr.achieved_distributions(TWO_GROUPS)[0]
    np.testing.assert_allclose(achieved, [[1, 0], [0.5, 0.5], [2 / 3, 1 / 3]], atol=1e-15)


def test_gf_nmd_charges_the_cumulative_distance_at_each_stopping_rank():
    # NMD(a_1) = |1 - 1/2| / 1 = 1/2; NMD(a_3) = |2/3 - 1/2| = 1/6.
    gf = gfr.group_fairness(GAINS, TWO_GROUPS, HALVES, 3)
    assert gf["NMD"][0] == pytest.approx(0.75 * (1 - 1 / 2) + (1 / 16) * (1 - 1 / 6), abs=1e-15)


def test_gf_rnod_averages_the_distance_weighted_errors_over_target_groups():
    # Two groups: DW_1 = DW_2 = (a - 1/2)^2, so RNOD = |a_1 - 1/2|: 1/2 at rank 1, 1/6 at rank 3.
    gf = gfr.group_fairness(GAINS, TWO_GROUPS, HALVES, 3)
    assert gf["RNOD"][0] == pytest.approx(0.75 * (1 - 1 / 2) + (1 / 16) * (1 - 1 / 6), abs=1e-15)


def test_rnod_skips_groups_the_target_leaves_empty_and_nmd_does_not():
    # a = (0, 0, 1) against (1/2, 1/2, 0): DW_1 = 1/4 + 2, DW_2 = 1/4 + 1, DW_3 not counted.
    gf = gfr.group_fairness([[3.0]], np.array([[[0.0, 0.0, 1.0]]]), np.array([0.5, 0.5, 0.0]), 3)
    assert gf["RNOD"][0] == pytest.approx(0.75 * (1 - math.sqrt(((2.25 + 1.25) / 2) / 2)), abs=1e-15)
    assert gf["NMD"][0] == pytest.approx(0.75 * (1 - (0.5 + 1 + 0) / 2), abs=1e-15)


def test_gf_jsd_uses_base_two_logarithms_with_the_midpoint_distribution():
    # a_1 = (1, 0), M = (3/4, 1/4): KL(a||M) = log2(4/3), KL(p||M) = (log2(2/3) + 1) / 2.
    jsd_1 = (math.log2(4 / 3) + (math.log2(2 / 3) + 1) / 2) / 2
    # a_3 = (2/3, 1/3), M = (7/12, 5/12).
    jsd_3 = ((2 / 3 * math.log2(8 / 7) + 1 / 3 * math.log2(4 / 5)) + (math.log2(6 / 7) + math.log2(6 / 5)) / 2) / 2
    gf = gfr.group_fairness(GAINS, TWO_GROUPS, HALVES, 3)
    assert gf["JSD"][0] == pytest.approx(0.75 * (1 - jsd_1) + (1 / 16) * (1 - jsd_3), abs=1e-15)


def test_gfr_is_the_plain_mean_of_the_relevance_part_and_one_gf_part_per_attribute_set():
    ordinal = gfr.GroupSet("RATINGS", False, HALVES)
    nominal = gfr.GroupSet("ORIGIN", True, HALVES)
    scores = gfr.score(np.array(GAINS), [TWO_GROUPS, TWO_GROUPS[:, ::-1]], [ordinal, nominal], 3)
    assert sorted(scores.GFR) == sorted(gfr.variant_names(True))
    expected = (scores.iRBU[0] + scores.GF[("RATINGS", "RNOD")][0] + scores.GF[("ORIGIN", "JSD")][0]) / 3
    assert scores.GFR["GFR-iRBU+RNOD+JSD"][0] == pytest.approx(expected, abs=1e-15)
    expected = (scores.ERR[0] + scores.GF[("RATINGS", "NMD")][0] + scores.GF[("ORIGIN", "JSD")][0]) / 3
    assert scores.GFR["GFR-ERR+NMD+JSD"][0] == pytest.approx(expected, abs=1e-15)


def test_a_topic_type_without_a_nominal_set_has_the_variants_without_jsd():
    scores = gfr.score(np.array(GAINS), [TWO_GROUPS], [gfr.GroupSet("HINDEX", False, HALVES)], 3)
    assert sorted(scores.GFR) == ["GFR-ERR+NMD", "GFR-ERR+RNOD", "GFR-iRBU+NMD", "GFR-iRBU+RNOD"]
    assert scores.GFR["GFR-ERR+RNOD"][0] == pytest.approx((scores.ERR[0] + scores.GF[("HINDEX", "RNOD")][0]) / 2)


def test_a_target_summing_to_0_999999_is_used_as_given():
    target = np.array([0.333333, 0.333333, 0.333333])
    assert gfr.GroupSet("GENDER", True, target).target.tolist() == target.tolist()


def test_a_cutoff_must_be_a_positive_whole_number():
    with pytest.raises(ValueError):
        gfr.err(GAINS, 3, cutoff=0)


@st.composite
def campaigns(draw):
    """Runs x topics of one type as padded arrays, the lists of different lengths."""
    n = draw(st.integers(1, 6))
    depth = draw(st.integers(1, 12))
    lengths = draw(st.lists(st.integers(0, depth), min_size=n, max_size=n))
    levels = draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, 3.0]), min_size=n * depth, max_size=n * depth))
    gains = np.array(levels).reshape(n, depth)
    sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    memberships, sets = [], []
    for m, k in enumerate(sizes):
        raw = rng.random((n, depth, k)) * (rng.random((n, depth, k)) < 0.6) + 1e-12
        vectors = raw / raw.sum(axis=-1, keepdims=True)
        target = rng.random(k) * (rng.random(k) < 0.8)
        target = np.full(k, 1 / k) if target.sum() == 0 else target / target.sum()
        memberships.append(vectors)
        sets.append(gfr.GroupSet(f"S{m}", draw(st.booleans()), target))
    for row, length in enumerate(lengths):
        gains[row, length:] = 0.0
        for vectors in memberships:
            vectors[row, length:] = 1.0 / vectors.shape[-1]
    return gains, lengths, memberships, sets, draw(st.integers(1, 15))


@settings(max_examples=150, deadline=None)
@given(campaigns())
def test_the_vectorised_maths_agrees_with_the_plain_python_twin(case):
    gains, lengths, memberships, sets, cutoff = case
    scores = gfr.score(gains, memberships, sets, 3.0, cutoff)
    for row, length in enumerate(lengths):
        twin = list_scores(
            gains[row, :length].tolist(),
            {s.name: v[row, :length].tolist() for s, v in zip(sets, memberships)},
            {s.name: s.target.tolist() for s in sets},
            {s.name: s.nominal for s in sets},
            3.0,
            cutoff,
        )
        assert scores.ERR[row] == pytest.approx(twin["ERR"], abs=1e-12)
        assert scores.iRBU[row] == pytest.approx(twin["iRBU"], abs=1e-12)
        for (name, divergence), values in scores.GF.items():
            assert values[row] == pytest.approx(twin[f"GF-{divergence}:{name}"], abs=1e-12)
        for variant, values in scores.GFR.items():
            assert values[row] == pytest.approx(twin[variant], abs=1e-12)
