"""The randomised Tukey HSD's shuffles (issue 44: sorted random keys instead of `rng.permuted` on
copies of the matrix): uniform and independent row orders, ties in the keys drawn again, the
p-values against an exact enumeration of every shuffle, a seed's trials whatever the threads,
progress as trials finish."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from scoring import significance


def row_orders(cells: np.ndarray, m: int) -> np.ndarray:
    """Each row's order as one number: the permutation of its m positions in base m."""
    positions = cells % m
    return (positions * m ** np.arange(m)[::-1]).sum(axis=-1)


def chi_square_p(counts: np.ndarray) -> float:
    from scipy import stats

    return float(stats.chisquare(counts.ravel()).pvalue)


def test_every_shuffled_row_holds_its_own_cells_once():
    cells = significance.shuffled_cells(np.random.default_rng(1), 7, 5, 40)
    assert cells.shape == (40, 7, 5)
    expected = np.arange(35).reshape(7, 5)
    assert np.array_equal(np.sort(cells, axis=-1), np.broadcast_to(expected, cells.shape))


def test_the_six_orders_of_three_runs_are_equally_likely_in_every_row():
    cells = significance.shuffled_cells(np.random.default_rng(2), 2, 3, 60_000)
    orders = row_orders(cells, 3)
    for row in range(2):
        counts = np.unique(orders[:, row], return_counts=True)[1]
        assert counts.size == 6
        assert chi_square_p(counts) > 1e-4  # a biased shuffle (e.g. one left in place) fails by far


def test_the_rows_of_a_trial_are_shuffled_independently():
    cells = significance.shuffled_cells(np.random.default_rng(3), 2, 3, 72_000)
    orders = row_orders(cells, 3)
    _, first = np.unique(orders[:, 0], return_inverse=True)
    _, second = np.unique(orders[:, 1], return_inverse=True)
    joint = np.bincount(first * 6 + second, minlength=36)
    assert chi_square_p(joint) > 1e-4  # one order drawn for both rows would leave 30 of 36 cells empty


class TyingBitGenerator:
    """Zeros (every key of every row tied) on the first draw, then a real generator's bits."""

    def __init__(self, seed: int):
        self.real = np.random.default_rng(seed).bit_generator
        self.draws = 0

    def random_raw(self, size):
        self.draws += 1
        return np.zeros(size, dtype=np.uint64) if self.draws == 1 else self.real.random_raw(size)


class TyingGenerator:
    def __init__(self, seed: int):
        self.bit_generator = TyingBitGenerator(seed)


def test_rows_whose_random_keys_tie_are_drawn_again_not_left_in_their_first_order():
    rng = TyingGenerator(4)
    cells = significance.shuffled_cells(rng, 3, 4, 3_000)
    assert rng.bit_generator.draws == 2  # every row drawn again once
    orders = row_orders(cells, 4).ravel()
    counts = np.bincount(np.unique(orders, return_inverse=True)[1])
    assert counts.size == 24 and chi_square_p(counts) > 1e-4  # ties broken by cell number would give one order


def exact_tukey_hsd(x: np.ndarray) -> np.ndarray:
    """The p-values over every joint shuffle of the rows (each equally likely), enumerated."""
    n, m = x.shape
    observed = np.abs(x.mean(axis=0)[:, None] - x.mean(axis=0)[None, :])
    rows = [[x[i, list(order)] for order in itertools.permutations(range(m))] for i in range(n)]
    spreads = []
    for choice in itertools.product(*rows):
        means = np.mean(choice, axis=0)
        spreads.append(means.max() - means.min())
    spreads = np.array(spreads)
    return (spreads[None, None, :] >= observed[:, :, None] - 1e-12).mean(axis=2)


def test_the_p_values_agree_with_every_shuffle_enumerated_within_sampling_error():
    x = np.array([[0.1, 0.5, 0.35], [0.2, 0.6, 0.3], [0.15, 0.55, 0.5], [0.3, 0.45, 0.2]])
    exact = exact_tukey_hsd(x)  # 6^4 = 1,296 joint shuffles
    assert 0.01 < exact[0, 1] < 0.2 and 0.3 < exact[1, 2] < 0.9  # p-values well inside (0, 1): the check bites
    drawn = significance.randomised_tukey_hsd(x, permutations=significance.MAX_PERMUTATIONS, seed=5)
    error = np.sqrt(exact * (1 - exact) / significance.MAX_PERMUTATIONS)
    assert np.all(np.abs(drawn - exact) <= 4.5 * error + 1e-12)


def test_a_seed_gives_the_same_trials_whatever_the_number_of_threads(monkeypatch):
    x = np.random.default_rng(6).uniform(size=(300, 12))
    monkeypatch.setattr(significance, "_CHUNK_CELLS", 3_600 * 5)  # 5 trials a chunk: 40 chunks
    monkeypatch.setattr(significance, "_WORKERS", 1)
    alone = significance.permuted_spreads(x, 200, seed=7)
    monkeypatch.setattr(significance, "_WORKERS", 3)
    assert np.array_equal(alone, significance.permuted_spreads(x, 200, seed=7))
    assert not np.array_equal(alone, significance.permuted_spreads(x, 200, seed=8))


def test_more_permutations_add_trials_after_the_fewer_ones(monkeypatch):
    x = np.random.default_rng(9).uniform(size=(50, 6))
    monkeypatch.setattr(significance, "_CHUNK_CELLS", 300 * 10)
    fewer = significance.permuted_spreads(x, 100, seed=3)
    assert np.array_equal(significance.permuted_spreads(x, 250, seed=3)[:100], fewer)


def test_the_spreads_are_the_largest_minus_the_smallest_run_mean_of_the_drawn_shuffles(monkeypatch):
    x = np.random.default_rng(10).uniform(size=(20, 4))
    monkeypatch.setattr(significance, "_CHUNK_CELLS", 80 * 1_000)  # one chunk: the first child's stream
    spreads = significance.permuted_spreads(x, 30, seed=11)
    child = np.random.SeedSequence(11).spawn(1)[0]
    cells = significance.shuffled_cells(np.random.default_rng(child), 20, 4, 30)
    means = x.ravel()[cells].mean(axis=1)
    assert np.allclose(spreads, means.max(axis=1) - means.min(axis=1), rtol=0, atol=1e-15)


def test_progress_hears_of_every_chunk_of_trials_in_order_up_to_the_total(monkeypatch):
    x = np.random.default_rng(12).uniform(size=(100, 10))
    monkeypatch.setattr(significance, "_CHUNK_CELLS", 1_000 * 30)
    heard = []
    significance.compare_runs(x, [f"r{j}" for j in range(10)], 100, seed=1, progress=lambda done, total: heard.append((done, total)))
    assert heard == [(30, 100), (60, 100), (90, 100), (100, 100)]


@pytest.mark.parametrize("shape", [(1, 5), (5, 1), (2, 2)])
def test_tiny_matrices_still_give_symmetric_p_values_with_ones_on_the_diagonal(shape):
    p = significance.randomised_tukey_hsd(np.random.default_rng(13).uniform(size=shape), 50, seed=1)
    assert p.shape == (shape[1], shape[1]) and np.array_equal(p, p.T) and np.all(np.diag(p) == 1.0)
    assert not math.isnan(p.sum())
