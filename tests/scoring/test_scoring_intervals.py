"""scoring.intervals: t confidence intervals of means, one sample or many at once."""

import math

import numpy as np
import pytest
from scipy import stats

from scoring.intervals import mean_ci, mean_intervals


def test_the_confidence_interval_uses_the_t_distribution():
    mean, low, high, n = mean_ci([1.0, 2.0, 3.0, 4.0])
    # t(0.975, 3) = 3.182446; sd = 1.290994; half-width = 3.182446 * 1.290994 / 2
    assert (mean, n) == (2.5, 4)
    assert high - mean == pytest.approx(3.182446 * 1.290994 / 2, rel=1e-5)
    assert mean - low == pytest.approx(high - mean)


def test_one_topic_has_no_interval():
    mean, low, high, n = mean_ci([0.3])
    assert mean == 0.3 and math.isnan(low) and math.isnan(high)


def test_no_values_have_no_mean():
    mean, low, high, n = mean_ci([None, math.nan])
    assert n == 0 and math.isnan(mean) and math.isnan(low) and math.isnan(high)


def test_missing_values_are_dropped_before_the_interval_is_taken():
    assert mean_ci([1.0, None, 2.0, math.nan, 3.0, 4.0]) == mean_ci([1.0, 2.0, 3.0, 4.0])


def test_a_99_percent_interval_is_wider_than_a_95_percent_one():
    _, low95, high95, _ = mean_ci([0.2, 0.4, 0.5, 0.9])
    _, low99, high99, _ = mean_ci([0.2, 0.4, 0.5, 0.9], confidence=0.99)
    assert low99 < low95 and high99 > high95


def test_the_interval_agrees_with_scipys_own_t_interval():
    x = np.random.default_rng(3).random(17)
    _, low, high, _ = mean_ci(x)
    expected = stats.t.interval(0.95, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert (low, high) == pytest.approx(expected, rel=1e-12)


def test_many_samples_at_once_give_each_exactly_what_it_gives_alone():
    rng = np.random.default_rng(7)
    # sizes mixed and repeated (samples of one size are reduced together), longer than numpy's
    # 8-wide unrolled sums, with missing values, a single value and an empty sample among them
    samples = [list(rng.random(size)) for size in (5, 40, 5, 137, 40, 1, 0, 2, 137)]
    samples[1][3] = None
    samples[3][100] = math.nan
    together = mean_intervals(samples)
    for i, sample in enumerate(samples):
        alone = mean_ci(sample)
        assert together.mean_and_bounds(i) == pytest.approx(alone[:3], nan_ok=True, rel=0, abs=0)
        assert together.n[i] == alone[3]
    assert list(together.n) == [5, 39, 5, 136, 40, 1, 0, 2, 137]


def test_a_sample_does_not_change_anothers_figures():
    rng = np.random.default_rng(11)
    first = list(rng.random(50))
    alone = mean_intervals([first]).mean_and_bounds(0)
    beside_others = mean_intervals([list(rng.random(50)), first, list(rng.random(50))]).mean_and_bounds(1)
    assert beside_others == alone


def test_no_samples_give_empty_arrays():
    none = mean_intervals([])
    assert none.mean.shape == none.low.shape == none.high.shape == none.n.shape == (0,)
