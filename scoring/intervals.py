"""Confidence intervals of means: pure numpy + scipy.stats, no Django.

- `mean_intervals`: one mean and its t confidence interval per sample (a run's scores over
  its topics, a topic's over its runs), vectorised over the samples.
- `mean_ci`: the same for one sample.

Missing values (None or NaN) are dropped. With one value the interval is undefined (NaN
bounds); with none the mean is too.

scipy is imported where it is used: importing it would weigh on every process start that never
computes an interval.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95


@dataclass(frozen=True)
class MeanIntervals:
    """Per sample: its mean, the interval's bounds and the number of values that counted."""

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray

    def mean_and_bounds(self, i: int) -> tuple[float, float, float]:
        """Sample i's mean, lower and upper bound."""
        return float(self.mean[i]), float(self.low[i]), float(self.high[i])


def mean_intervals(samples: Iterable[Sequence[float | None]], confidence: float = CONFIDENCE) -> MeanIntervals:
    """Each sample's mean and two-sided t confidence interval, mean +- t(df = n - 1) * sd / sqrt(n).

    Samples of the same size are stacked and reduced as one array: each row sums as it would
    alone, so a sample's figures do not depend on the other samples."""
    kept = [x[~np.isnan(x)] for x in (np.asarray(sample, dtype=float).ravel() for sample in samples)]
    sizes = np.array([x.size for x in kept], dtype=int)
    mean, sd = np.full(len(kept), np.nan), np.full(len(kept), np.nan)
    for size in np.unique(sizes[sizes > 0]):
        rows = np.flatnonzero(sizes == size)
        stacked = np.stack([kept[i] for i in rows])
        mean[rows] = stacked.mean(axis=1)
        if size > 1:
            sd[rows] = stacked.std(axis=1, ddof=1)
    half = np.full(len(kept), np.nan)
    several = sizes > 1
    if several.any():
        from scipy import stats

        n = sizes[several]
        half[several] = stats.t.ppf((1 + confidence) / 2, n - 1) * sd[several] / np.sqrt(n)
    return MeanIntervals(mean=mean, low=mean - half, high=mean + half, n=sizes)


def mean_ci(values: Sequence[float | None], confidence: float = CONFIDENCE) -> tuple[float, float, float, int]:
    """Mean, lower and upper bound of the t confidence interval, and n, of one sample."""
    one = mean_intervals([values], confidence)
    return (*one.mean_and_bounds(0), int(one.n[0]))
