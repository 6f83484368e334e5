"""Comparing runs over a topic x run score matrix, as an NTCIR overview paper does.

Pure numpy and scipy.stats (no Django): the database side is `annotator.evaluation.run_comparison`.

A matrix has one row per topic and one column per run; a cell is the run's score on the topic
(the mean over the run's conversations of that topic). The tests follow Sakai's practice for
comparing many systems: two-way ANOVA without replication (topic x run) for the residual
variance V_E, the randomised Tukey HSD over all run pairs, the paired t-test beside it, the
effect size ES_E = difference / sqrt(V_E), and topic set size design from V_E.

scipy is imported where it is used: importing it would weigh on every process start that never
compares runs (see annotator.console.reports).
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

DEFAULT_PERMUTATIONS = 10_000
MAX_PERMUTATIONS = 100_000
# Permuted cells drawn at once (a chunk of trials): 8 MB of keys and 8 MB of gathered scores,
# where B x topics x runs at once would be 8 GB at 10,000 x 2,000 x 50.
_CHUNK_CELLS = 1_000_000
_WORKERS = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 4)

Progress = Callable[[int, int], None]  # (trials done, trials in all)


@dataclass(frozen=True)
class CompleteMatrix:
    """The topics every run has, and which topics each run lacks (reported, not dropped silently)."""

    scores: np.ndarray  # topics x runs, no NaN
    topics: tuple[str, ...]
    runs: tuple[str, ...]
    missing: dict[str, tuple[str, ...]]  # run -> the topics it has no score for


def complete_topics(scores: np.ndarray, topics, runs) -> CompleteMatrix:
    """Keep the topics (rows) with a score for every run; NaN marks a missing cell."""
    scores = np.asarray(scores, dtype=float).reshape(len(topics), len(runs))
    absent = np.isnan(scores)
    keep = ~absent.any(axis=1)
    missing = {run: tuple(t for t, gone in zip(topics, absent[:, j]) if gone) for j, run in enumerate(runs)}
    return CompleteMatrix(
        scores=scores[keep], topics=tuple(t for t, k in zip(topics, keep) if k), runs=tuple(runs),
        missing={run: gone for run, gone in missing.items() if gone},
    )


@dataclass(frozen=True)
class Anova:
    """Two-way ANOVA without replication: topic and run effects, one score per cell."""

    ss_run: float
    ss_topic: float
    ss_residual: float
    df_run: int
    df_topic: int
    df_residual: int
    V_E: float  # the residual mean square
    F_run: float
    p_run: float
    F_topic: float
    p_topic: float


def anova(scores: np.ndarray) -> Anova:
    from scipy import stats

    x = np.asarray(scores, dtype=float)
    n, m = x.shape
    grand = x.mean()
    run_means, topic_means = x.mean(axis=0), x.mean(axis=1)
    # Each sum of squares from its own deviations (no subtraction of totals), and a sum no larger
    # than the rounding of the means is zero: runs identical on every topic then have no run
    # effect and no residual (F undefined) instead of whatever the last bits of the means say.
    noise = x.size * (32 * np.finfo(float).eps * float(np.abs(x).max(initial=0.0))) ** 2

    def sum_of_squares(deviations: np.ndarray, weight: int = 1) -> float:
        total = weight * float((deviations**2).sum())
        return total if total > noise else 0.0

    ss_run = sum_of_squares(run_means - grand, n)
    ss_topic = sum_of_squares(topic_means - grand, m)
    ss_residual = sum_of_squares(x - topic_means[:, None] - run_means[None, :] + grand)
    df_run, df_topic, df_residual = m - 1, n - 1, (m - 1) * (n - 1)
    V_E = ss_residual / df_residual if df_residual else math.nan

    def f_test(ss: float, df: int) -> tuple[float, float]:
        if not df_residual or not df:
            return math.nan, math.nan
        if V_E == 0:
            return (math.inf, 0.0) if ss > 0 else (math.nan, math.nan)
        F = (ss / df) / V_E
        return F, float(stats.f.sf(F, df, df_residual))

    F_run, p_run = f_test(ss_run, df_run)
    F_topic, p_topic = f_test(ss_topic, df_topic)
    return Anova(ss_run, ss_topic, ss_residual, df_run, df_topic, df_residual, V_E, F_run, p_run, F_topic, p_topic)


def randomised_tukey_hsd(scores: np.ndarray, permutations: int = DEFAULT_PERMUTATIONS, seed: int | None = None,
                         progress: Progress | None = None) -> np.ndarray:
    """Runs x runs p-values of the paired randomised Tukey HSD test (Sakai).

    Each of B trials shuffles every topic's row independently (under the null hypothesis the
    run labels of a topic's scores are exchangeable) and records the largest minus the smallest
    run mean; the p-value of a pair is the share of trials whose max - min reaches the pair's
    observed absolute difference. Comparing every pair with the max - min controls the
    familywise error over all pairs at once. `progress(done, total)` is called as trials finish.
    """
    if not 1 <= permutations <= MAX_PERMUTATIONS:
        raise ValueError(f"permutations must be between 1 and {MAX_PERMUTATIONS}")
    x = np.asarray(scores, dtype=float)
    spreads = permuted_spreads(x, permutations, seed, progress)
    observed = np.abs(x.mean(axis=0)[:, None] - x.mean(axis=0)[None, :])
    # Sorted spreads answer every pair with one binary search; a tiny tolerance keeps a trial
    # that equals the observed difference (up to rounding of the sums) counting as reaching it.
    spreads.sort()
    reached = permutations - np.searchsorted(spreads, observed - 1e-12, side="left")
    return reached / permutations


def permuted_spreads(x: np.ndarray, permutations: int, seed: int | None = None,
                     progress: Progress | None = None) -> np.ndarray:
    """The max - min of the run means of `permutations` row-shuffled copies of x, in trial order.

    Trials are drawn in chunks of a size fixed by the matrix's shape; chunk k draws from the
    k-th child of SeedSequence(seed), so a seed gives the same trials whatever the number of
    threads (the chunks run on up to _WORKERS threads: numpy's sorting, gathering and summing
    leave the GIL) and a larger B only adds trials after the smaller B's."""
    n, m = x.shape
    if n == 0 or m == 0:
        raise ValueError("no scores to permute")
    chunk = max(1, _CHUNK_CELLS // (n * m))
    starts = range(0, permutations, chunk)
    children = np.random.SeedSequence(seed).spawn(len(starts))
    flat = np.ascontiguousarray(x).ravel()
    spreads = np.empty(permutations)

    def one(k: int) -> np.ndarray:
        size = min(chunk, permutations - starts[k])
        sums = flat.take(shuffled_cells(np.random.default_rng(children[k]), n, m, size)).sum(axis=1)
        means = sums / n
        return means.max(axis=1) - means.min(axis=1)

    workers = min(_WORKERS, len(starts))
    with ThreadPoolExecutor(workers) if workers > 1 else nullcontext() as pool:
        for k, done in enumerate(pool.map(one, range(len(starts))) if pool else map(one, range(len(starts)))):
            spreads[starts[k]:starts[k] + done.size] = done
            if progress is not None:
                progress(starts[k] + done.size, permutations)
    return spreads


def shuffled_cells(rng: np.random.Generator, n: int, m: int, size: int) -> np.ndarray:
    """size x n x m flat cell numbers (row-major in an n x m matrix): each of the size x n rows
    the numbers of its row in a uniformly random order, rows independent.

    Each cell gets a random 64-bit key whose low bits are replaced by its own number, and each
    row is sorted (numpy's SIMD sort): the cells come out in the order of their random high
    bits, a uniform permutation as long as those bits differ within the row. A row where two
    cells' high bits tie (about m^2 / 2^(65 - bits) per row: 1e-11 at 50 runs x 2,000 topics)
    is drawn again, so the order is uniform exactly, not nearly."""
    bits = max(n * m - 1, 1).bit_length()
    low = (1 << bits) - 1
    cells = np.arange(n * m, dtype=np.int64).reshape(n, m)
    keys = _keyed(rng, cells, size, low)
    while m > 1:
        gaps = np.bitwise_xor(keys[..., 1:], keys[..., :-1]).view(np.uint64)
        if gaps.min() > low:  # every row's high bits distinct (one pass, no row lookup)
            break
        tied = np.nonzero((gaps <= low).any(axis=-1))
        keys[tied] = _keyed(rng, cells[tied[1]][None], 1, low)[0]
    keys &= low
    return keys


def _keyed(rng: np.random.Generator, cells: np.ndarray, size: int, low: int) -> np.ndarray:
    """size copies of `cells` (rows of cell numbers), each row sorted by fresh random keys."""
    keys = rng.bit_generator.random_raw(size * cells.size).view(np.int64).reshape(size, *cells.shape)
    keys &= ~low
    keys |= cells
    keys.sort(axis=-1)
    return keys


def paired_t_pvalues(scores: np.ndarray) -> np.ndarray:
    """Runs x runs two-sided p-values of the paired t-test (scipy.stats.ttest_rel) per pair."""
    from scipy import stats

    x = np.asarray(scores, dtype=float)
    m = x.shape[1]
    result = np.full((m, m), np.nan)
    if m < 2 or x.shape[0] < 2:
        return result
    first, second = np.triu_indices(m, k=1)
    with warnings.catch_warnings():
        # identical differences on every topic (e.g. standardised scores of two runs) leave the
        # t statistic undefined or infinite: scipy's p-value stands, its warning is noise here
        warnings.simplefilter("ignore", RuntimeWarning)
        p = stats.ttest_rel(x[:, first], x[:, second], axis=0).pvalue
    result[first, second] = p
    result[second, first] = p
    return result


def effect_sizes(scores: np.ndarray, V_E: float) -> np.ndarray:
    """Runs x runs ES_E: (mean of the row run - mean of the column run) / sqrt(V_E)."""
    means = np.asarray(scores, dtype=float).mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (means[:, None] - means[None, :]) / math.sqrt(V_E) if V_E > 0 else np.full((means.size,) * 2, np.nan)


@dataclass(frozen=True)
class PairComparison:
    run_a: str
    run_b: str
    mean_a: float
    mean_b: float
    diff: float
    p_tukey_hsd: float
    p_paired_t: float
    effect_size: float


@dataclass(frozen=True)
class Comparison:
    """Every pair of runs on one matrix; runs ordered by mean, best first."""

    runs: tuple[str, ...]
    means: np.ndarray
    topics: int
    anova: Anova
    p_tukey_hsd: np.ndarray  # runs x runs, in the order of `runs`
    p_paired_t: np.ndarray
    effect_size: np.ndarray

    def pairs(self) -> list[PairComparison]:
        """Each unordered pair once, the better run first."""
        m = len(self.runs)
        return [
            PairComparison(
                self.runs[i], self.runs[j], float(self.means[i]), float(self.means[j]),
                float(self.means[i] - self.means[j]), float(self.p_tukey_hsd[i, j]), float(self.p_paired_t[i, j]),
                float(self.effect_size[i, j]),
            )
            for i in range(m) for j in range(i + 1, m)
        ]


def compare_runs(scores: np.ndarray, runs, permutations: int = DEFAULT_PERMUTATIONS, seed: int | None = None,
                 progress: Progress | None = None) -> Comparison:
    """ANOVA, randomised Tukey HSD, paired t-tests and effect sizes of a complete matrix;
    `progress(done, total)` hears of the Tukey HSD's trials (the part that takes seconds)."""
    x = np.asarray(scores, dtype=float)
    order = np.argsort(-x.mean(axis=0), kind="stable")
    x = x[:, order]
    table = anova(x)
    return Comparison(
        runs=tuple(runs[i] for i in order),
        means=x.mean(axis=0),
        topics=x.shape[0],
        anova=table,
        p_tukey_hsd=randomised_tukey_hsd(x, permutations, seed, progress),
        p_paired_t=paired_t_pvalues(x),
        effect_size=effect_sizes(x, table.V_E),
    )


# -- topic set size design (Sakai 2016) -----------------------------------------------------------

MAX_TOPICS = 100_000


def _smallest_n(power_of, low: int) -> int | None:
    """The smallest n >= low with power_of(n) >= its target (power grows with n), or None if
    more than MAX_TOPICS would be needed."""
    high = low
    while not power_of(high):
        if high >= MAX_TOPICS:
            return None
        low, high = high + 1, min(high * 2, MAX_TOPICS)
    while low < high:
        middle = (low + high) // 2
        if power_of(middle):
            high = middle
        else:
            low = middle + 1
    return high


def topics_for_paired_t(V_E: float, min_diff: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Topics a two-sided paired t-test needs to detect `min_diff` with the given power, the
    variance of a difference taken as 2 V_E (Sakai's topic set size design)."""
    from scipy import stats

    if not (V_E > 0 and min_diff > 0):
        return None
    sd = math.sqrt(2 * V_E)

    def enough(n: int) -> bool:
        df = n - 1
        critical = stats.t.ppf(1 - alpha / 2, df)
        shift = math.sqrt(n) * min_diff / sd
        # the lower tail P(T <= -c | shift) as P(T >= c | -shift): scipy's nct.cdf is NaN once the
        # shift passes about 6, which would skip every size with a large effect
        achieved = stats.nct.sf(critical, df, shift) + stats.nct.sf(critical, df, -shift)
        return achieved >= power

    return _smallest_n(enough, 2)


def topics_for_anova(V_E: float, min_diff: float, runs: int, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Topics a one-way ANOVA over `runs` runs needs to detect a difference of `min_diff` between
    the best and the worst run (the least favourable configuration: lambda = n D^2 / (2 V_E))."""
    from scipy import stats

    if not (V_E > 0 and min_diff > 0 and runs >= 2):
        return None
    delta = min_diff**2 / (2 * V_E)

    def enough(n: int) -> bool:
        df_between, df_within = runs - 1, runs * (n - 1)
        critical = stats.f.ppf(1 - alpha, df_between, df_within)
        return stats.ncf.sf(critical, df_between, df_within, n * delta) >= power

    return _smallest_n(enough, 2)


# -- standardisation -----------------------------------------------------------------------------


def standardise(scores: np.ndarray) -> np.ndarray:
    """Each score as the standard normal CDF of its z-score among the runs on its topic (the
    topic's mean and sample standard deviation over runs), so topics of different difficulty
    count alike. A topic on which every run scores the same gives 0.5 to all; NaN stays NaN.
    No topics or no runs (runs that share no topic) is nothing to standardise: the same empty
    matrix comes back, and the comparison says why it compares nothing."""
    from scipy import stats

    x = np.asarray(scores, dtype=float)
    if x.size == 0:  # nanmax over no runs has no identity
        return x.copy()
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # a topic with fewer than two runs has no SD
        mean = np.nanmean(x, axis=1, keepdims=True)
        sd = np.nanstd(x, axis=1, ddof=1, keepdims=True)
        # equal scores are a constant topic, decided on the scores themselves: their mean can be
        # a rounding step off them, leaving an SD of 1e-17 that would blow that step up to a z
        varies = (np.nanmax(x, axis=1, keepdims=True) > np.nanmin(x, axis=1, keepdims=True)) & (sd > 0)
        z = np.where(varies, (x - mean) / np.where(varies, sd, 1.0), 0.0)
    z = np.where(np.isnan(x), np.nan, z)
    return stats.norm.cdf(z)
