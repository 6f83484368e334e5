"""scoring.significance: ANOVA, randomised Tukey HSD, paired t-tests, effect sizes, topic set
size and standardisation, each checked against an independent computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from scoring import significance
from scoring.reference.significance import plain_tukey_hsd


def noisy_runs(topics: int = 20, effects=(0.0, 0.02, 0.05, 0.12), seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    difficulty = rng.uniform(0.2, 0.7, size=(topics, 1))
    return np.clip(difficulty + np.asarray(effects)[None, :] + rng.normal(0, 0.08, size=(topics, len(effects))), 0, 1)


def test_the_anova_table_matches_a_hand_computation():
    # grand mean 4; run means 2, 3, 7; topic means 3, 4, 5; total SS 52
    table = significance.anova(np.array([[1, 2, 6], [2, 4, 6], [3, 3, 9]], dtype=float))
    assert (table.ss_run, table.ss_topic, table.ss_residual) == pytest.approx((42, 6, 4))
    assert (table.df_run, table.df_topic, table.df_residual) == (2, 2, 4)
    assert table.V_E == pytest.approx(1.0)
    assert table.F_run == pytest.approx(21.0) and table.F_topic == pytest.approx(3.0)
    assert table.p_run == pytest.approx(stats.f.sf(21, 2, 4)) and table.p_topic == pytest.approx(stats.f.sf(3, 2, 4))


def test_paired_t_p_values_equal_scipy_ttest_rel_for_every_pair():
    x = noisy_runs()
    p = significance.paired_t_pvalues(x)
    for a in range(x.shape[1]):
        for b in range(x.shape[1]):
            if a != b:
                assert abs(p[a, b] - stats.ttest_rel(x[:, a], x[:, b]).pvalue) < 1e-9


def test_the_randomised_tukey_hsd_agrees_with_a_plain_python_twin_within_sampling_error():
    x = noisy_runs()
    fast = significance.randomised_tukey_hsd(x, permutations=20_000, seed=1)
    slow = np.array(plain_tukey_hsd(x.tolist(), permutations=4_000, seed=2))
    assert 0.02 < fast[0, 2] < 0.98  # the check bites: some p-values lie well inside (0, 1)
    for a in range(x.shape[1]):
        for b in range(x.shape[1]):
            p = (fast[a, b] + slow[a, b]) / 2
            error = math.sqrt(p * (1 - p) * (1 / 20_000 + 1 / 4_000))
            assert abs(fast[a, b] - slow[a, b]) <= 4.5 * error + 1e-9, (a, b)


def test_the_randomised_tukey_hsd_repeats_with_a_seed_and_is_symmetric():
    x = noisy_runs()
    first = significance.randomised_tukey_hsd(x, permutations=500, seed=7)
    assert np.array_equal(first, significance.randomised_tukey_hsd(x, permutations=500, seed=7))
    assert np.array_equal(first, first.T) and np.all(np.diag(first) == 1.0)


def test_a_clear_difference_is_significant_and_no_difference_is_not():
    x = noisy_runs(topics=40, effects=(0.0, 0.0, 0.3))
    p = significance.randomised_tukey_hsd(x, permutations=2_000, seed=0)
    assert p[0, 2] < 0.01 and p[0, 1] > 0.05


@pytest.mark.parametrize("permutations", [0, significance.MAX_PERMUTATIONS + 1])
def test_the_number_of_permutations_is_bounded(permutations):
    with pytest.raises(ValueError):
        significance.randomised_tukey_hsd(noisy_runs(), permutations=permutations)


def test_compare_runs_orders_runs_by_mean_and_gives_each_pair_its_effect_size():
    x = noisy_runs()
    result = significance.compare_runs(x, ["a", "b", "c", "d"], permutations=200, seed=0)
    assert result.runs == ("d", "c", "b", "a") and list(result.means) == sorted(result.means, reverse=True)
    pair = result.pairs()[0]
    assert (pair.run_a, pair.run_b) == ("d", "c")
    assert pair.diff == pytest.approx(x[:, 3].mean() - x[:, 2].mean())
    assert pair.effect_size == pytest.approx(pair.diff / math.sqrt(result.anova.V_E))
    assert pair.p_paired_t == pytest.approx(stats.ttest_rel(x[:, 3], x[:, 2]).pvalue, abs=1e-9)
    assert len(result.pairs()) == 6 and result.topics == 20


def test_topics_a_run_lacks_are_reported_and_left_out_of_the_matrix():
    scores = np.array([[0.1, 0.2], [0.3, np.nan], [0.5, 0.6]])
    matrix = significance.complete_topics(scores, ["T1", "T2", "T3"], ["a", "b"])
    assert matrix.topics == ("T1", "T3") and matrix.missing == {"b": ("T2",)}
    assert matrix.scores.tolist() == [[0.1, 0.2], [0.5, 0.6]]


def test_the_paired_t_topic_set_size_matches_the_normal_approximation():
    # sigma_d^2 = 2 V_E = 0.04; (z_.025 + z_.2)^2 * 0.04 / 0.05^2 = 125.6, plus about two for the t
    n = significance.topics_for_paired_t(V_E=0.02, min_diff=0.05)
    assert 126 <= n <= 130
    assert significance.topics_for_paired_t(V_E=0.02, min_diff=0.10) < n  # a larger difference needs fewer


def test_the_anova_topic_set_size_for_two_runs_is_about_the_t_tests_and_grows_with_the_runs():
    t = significance.topics_for_paired_t(V_E=0.02, min_diff=0.05)
    two = significance.topics_for_anova(V_E=0.02, min_diff=0.05, runs=2)
    assert abs(two - t) <= 2
    assert significance.topics_for_anova(V_E=0.02, min_diff=0.05, runs=10) > two


def test_an_unreachable_topic_set_size_is_none_not_a_hang():
    assert significance.topics_for_paired_t(V_E=1.0, min_diff=1e-6) is None
    assert significance.topics_for_paired_t(V_E=0.0, min_diff=0.05) is None


def test_standardisation_is_the_normal_cdf_of_the_z_score_per_topic():
    out = significance.standardise(np.array([[0.2, 0.4, 0.6], [0.3, 0.3, 0.3], [0.1, np.nan, 0.5]]))
    assert out[0].tolist() == pytest.approx([stats.norm.cdf(-1), 0.5, stats.norm.cdf(1)])
    assert out[1].tolist() == [0.5, 0.5, 0.5]
    assert np.isnan(out[2, 1]) and out[2, 0] == pytest.approx(stats.norm.cdf(-1 / math.sqrt(2)))


# -- at the edges (issue 21: checked against Sakai's examples and an independent implementation) --


def _paired_t_power(n: int, V_E: float, min_diff: float, alpha: float) -> float:
    """The power of a two-sided paired t-test, both tails by the survival function (exact
    where scipy's nct.cdf of a large shift gives NaN)."""
    df = n - 1
    critical = stats.t.ppf(1 - alpha / 2, df)
    shift = math.sqrt(n) * min_diff / math.sqrt(2 * V_E)
    return stats.nct.sf(critical, df, shift) + stats.nct.sf(critical, df, -shift)


@pytest.mark.parametrize(("V_E", "min_diff", "alpha", "expected"), [
    (0.002, 0.2, 0.01, 5),  # power 0.923 at 5 topics
    (1.0, 3.5 * math.sqrt(2), 0.05, 3),
    (0.5, 3.5, 0.05, 3),
])
def test_the_paired_t_topic_set_size_is_the_smallest_with_enough_power_even_for_large_effects(V_E, min_diff, alpha, expected):
    n = significance.topics_for_paired_t(V_E=V_E, min_diff=min_diff, alpha=alpha)
    assert n == expected
    assert _paired_t_power(n, V_E, min_diff, alpha) >= 0.8 > _paired_t_power(n - 1, V_E, min_diff, alpha)


@pytest.mark.parametrize(("effect", "expected"), [(3.5, 5), (4.5, 4)])
def test_a_large_standardised_effect_needs_few_topics_at_alpha_one_percent(effect, expected):
    # Sakai's standardised effect min_diff / sqrt(2 V_E)... here V_E = 1/2, so min_diff is the effect
    n = significance.topics_for_paired_t(V_E=0.5, min_diff=effect, alpha=0.01)
    assert n == expected
    assert _paired_t_power(n, 0.5, effect, 0.01) >= 0.8 > _paired_t_power(n - 1, 0.5, effect, 0.01)


@pytest.mark.parametrize("value", [0.1, 0.3, 0.7, 1 / 3, 0.123456789])
def test_a_topic_on_which_every_run_scores_the_same_standardises_to_one_half(value):
    out = significance.standardise(np.array([[value] * 7, [0.1, 0.5, 0.9, 0.2, 0.3, 0.4, 0.6]]))
    assert out[0].tolist() == [0.5] * 7


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 3)])
def test_standardising_no_topics_or_no_runs_gives_the_same_empty_matrix_back(shape):
    out = significance.standardise(np.empty(shape))
    assert out.shape == shape


def test_anova_on_runs_identical_on_every_topic_is_undefined_whatever_the_rounding():
    rng = np.random.default_rng(21)
    for _ in range(300):
        topics, runs = rng.integers(2, 30), rng.integers(2, 10)
        column = rng.random((topics, 1))
        table = significance.anova(np.repeat(column, runs, axis=1))
        assert math.isnan(table.p_run) and math.isnan(table.F_run)
        assert table.V_E == 0


def test_anova_still_finds_a_tiny_real_difference_between_runs():
    x = np.array([[0.2, 0.2 + 1e-9], [0.5, 0.5 + 1e-9], [0.7, 0.7 + 1e-9]])
    table = significance.anova(x)
    assert table.p_run == 0.0 and table.F_run == math.inf
