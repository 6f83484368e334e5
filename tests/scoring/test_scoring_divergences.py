"""Properties of the divergences behind DistrSim: JSD for nominal groups, NMD and RNOD for ordinal."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon

from scoring.divergence import DIVERGENCES, distr_sim, jsd, nmd, rnod
from scoring.reference import divergence as reference

ORDINAL = [nmd, rnod]


@st.composite
def distributions(draw, k: int | None = None, min_k: int = 1, max_k: int = 8) -> np.ndarray:
    """A probability vector, often with empty groups (as achieved distributions usually have)."""
    k = draw(st.integers(min_k, max_k)) if k is None else k
    weights = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, 7]) | st.floats(0, 10), min_size=k, max_size=k))
    weights = np.array(weights, dtype=float)
    if weights.sum() <= 0:
        weights[draw(st.integers(0, k - 1))] = 1.0
    return weights / weights.sum()


@st.composite
def pairs(draw, min_k: int = 1) -> tuple[np.ndarray, np.ndarray]:
    k = draw(st.integers(min_k, 8))
    return draw(distributions(k)), draw(distributions(k))


@pytest.mark.parametrize("name", sorted(DIVERGENCES))
@given(p=distributions())
def test_every_divergence_is_zero_for_identical_distributions(name, p):
    assert DIVERGENCES[name](p, p) == pytest.approx(0.0, abs=1e-12)
    assert distr_sim(p, p, name) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name", sorted(DIVERGENCES))
@given(pq=pairs())
def test_every_divergence_lies_between_zero_and_one(name, pq):
    p, q = pq
    value = DIVERGENCES[name](p, q)
    assert isinstance(value, float)
    assert 0.0 <= value <= 1.0


@given(pq=pairs())
def test_jsd_is_symmetric(pq):
    p, q = pq
    assert jsd(p, q) == pytest.approx(jsd(q, p), abs=1e-12)


@given(pq=pairs())
def test_jsd_agrees_with_scipy_jensenshannon_squared_in_base_2(pq):
    p, q = pq
    expected = jensenshannon(p, q, base=2) ** 2
    assume(np.isfinite(expected))  # scipy overflows on subnormal probabilities; jsd does not
    assert jsd(p, q) == pytest.approx(expected, abs=1e-9)


def test_jsd_survives_a_probability_whose_half_underflows():
    assert jsd([1.0, 0.0], [1.0, 5e-324]) == pytest.approx(0.0, abs=1e-300)
    assert reference.jsd([1.0, 0.0], [1.0, 5e-324]) == pytest.approx(0.0, abs=1e-300)


def test_jsd_of_disjoint_distributions_is_one_and_ignores_how_far_apart_the_groups_are():
    assert jsd([1, 0, 0, 0], [0, 1, 0, 0]) == pytest.approx(1.0)
    assert jsd([1, 0, 0, 0], [0, 0, 0, 1]) == pytest.approx(1.0)


@given(
    k=st.integers(3, 8),
    data=st.data(),
    moved=st.floats(0.01, 1.0),
)
def test_ordinal_divergences_penalise_mass_in_a_far_band_more_than_in_a_near_band(k, data, moved):
    """Target: everything in band t. Moving a share of the achieved mass to a band farther from
    t costs more than moving it to a nearer band; JSD cannot tell the two apart."""
    t = data.draw(st.integers(0, k - 1))
    others = sorted(range(k), key=lambda band: abs(band - t))[1:]
    distances = sorted({abs(b - t) for b in others})
    assume(len(distances) >= 2)
    near_d, far_d = sorted(data.draw(st.lists(st.sampled_from(distances), min_size=2, max_size=2, unique=True)))
    near = next(b for b in others if abs(b - t) == near_d)
    far = next(b for b in others if abs(b - t) == far_d)
    target = np.eye(k)[t]
    achieved_near = (1 - moved) * target + moved * np.eye(k)[near]
    achieved_far = (1 - moved) * target + moved * np.eye(k)[far]
    for divergence in ORDINAL:
        assert divergence(achieved_far, target) > divergence(achieved_near, target)
    assert jsd(achieved_far, target) == pytest.approx(jsd(achieved_near, target))


def test_nmd_and_rnod_of_point_masses_grow_with_the_band_distance():
    target = [1, 0, 0, 0]
    assert [nmd(np.eye(4)[j], target) for j in range(4)] == pytest.approx([0, 1 / 3, 2 / 3, 1])
    assert [rnod(np.eye(4)[j], target) for j in range(4)] == pytest.approx(np.sqrt([0, 1 / 3, 2 / 3, 1]))


def test_rnod_averages_only_over_the_bands_the_target_uses():
    """DW_i is only averaged over bins with q_i > 0 (Sakai 2021)."""
    p, q = np.array([0.0, 0.0, 1.0]), np.array([0.5, 0.5, 0.0])
    dw = [sum(abs(i - j) * (p[j] - q[j]) ** 2 for j in range(3)) for i in range(3)]
    assert rnod(p, q) == pytest.approx(np.sqrt((dw[0] + dw[1]) / 2 / 2))


def test_a_single_group_has_nothing_to_diverge():
    for divergence in (jsd, nmd, rnod):
        assert divergence([1.0], [1.0]) == 0.0


@pytest.mark.parametrize("name", sorted(DIVERGENCES))
@given(data=st.data())
def test_divergences_are_vectorised_over_rows_and_broadcast_the_target(name, data):
    k = data.draw(st.integers(1, 6))
    rows = data.draw(st.lists(distributions(k), min_size=0, max_size=5))
    target = data.draw(distributions(k))
    achieved = np.array(rows).reshape(len(rows), k)
    values = DIVERGENCES[name](achieved, target)
    assert isinstance(values, np.ndarray) and values.shape == (len(rows),)
    assert values.tolist() == pytest.approx([DIVERGENCES[name](row, target) for row in rows], abs=1e-12)
    both_2d = DIVERGENCES[name](achieved, np.tile(target, (len(rows), 1)))
    assert both_2d.tolist() == pytest.approx(values.tolist(), abs=1e-12)


@pytest.mark.parametrize("name", sorted(DIVERGENCES))
@given(pq=pairs())
def test_numpy_divergences_agree_with_the_plain_python_reference(name, pq):
    p, q = pq
    assert DIVERGENCES[name](p, q) == pytest.approx(reference.DIVERGENCES[name](p.tolist(), q.tolist()), abs=1e-12)


def test_distr_sim_refuses_an_unknown_divergence():
    with pytest.raises(ValueError, match="unknown divergence"):
        distr_sim([1.0], [1.0], "kl")
