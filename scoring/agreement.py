"""Inter-annotator agreement: pure numpy maths, no Django.

- `krippendorff_alpha`: any number of coders, missing values allowed, nominal / ordinal /
  interval metric, by the maintained `krippendorff` package (checked against the worked
  example of Krippendorff, "Computing Krippendorff's alpha-reliability", 2011).
- `cohen_kappa`: two coders, every unit coded by both.
- `span_agreement`: two annotators' nugget spans, as exact-match F1 (scoring.rankings.exact_matches,
  the one exact-match rule) and word-overlap Dice.
- `membership_distance`: mean JSD and L1 between two annotators' membership vectors.

Missing values are `None` (or NaN) in the reliability data.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import krippendorff
import numpy as np

from scoring.divergence import jsd
from scoring.rankings import exact_matches

METRICS = ("nominal", "ordinal", "interval")


def _is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def krippendorff_alpha(data: Sequence[Sequence], metric: str = "nominal") -> float:
    """Krippendorff's alpha of reliability data: one row per coder, one column per unit, the
    values numbers (a grade's level), a missing value None or NaN. Computed by the
    `krippendorff` package.

    Returns NaN when no unit is pairable (coded by two coders or more) or when the pairable
    values are all the same (no variation: alpha is undefined). The package refuses the first
    and a single value in the data, and divides zero by zero when only unpairable values vary;
    all three are the one documented answer here.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, not {metric!r}")
    matrix = np.atleast_2d(np.asarray(data, dtype=float))  # None becomes NaN, the package's missing value
    coded = ~np.isnan(matrix)
    pairable = matrix[:, coded.sum(axis=0) >= 2]
    if np.unique(pairable[~np.isnan(pairable)]).size < 2:
        return float("nan")
    return float(
        krippendorff.alpha(
            reliability_data=matrix, level_of_measurement=metric, value_domain=np.unique(matrix[coded])
        )
    )


def cohen_kappa(a: Sequence, b: Sequence) -> float:
    """Cohen's kappa of two coders' labels of the same units (pairs with a missing value are dropped)."""
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if not _is_missing(x) and not _is_missing(y)]
    if not pairs:
        return float("nan")
    labels = sorted({v for pair in pairs for v in pair})
    index = {v: i for i, v in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    for x, y in pairs:
        table[index[x], index[y]] += 1
    total = table.sum()
    p_observed = np.trace(table) / total
    p_expected = float((table.sum(axis=1) * table.sum(axis=0)).sum()) / total**2
    if p_expected == 1:
        return 1.0 if p_observed == 1 else float("nan")
    return float((p_observed - p_expected) / (1 - p_expected))


def dice(a: set, b: set) -> float:
    """2 |A n B| / (|A| + |B|); 1 when both are empty (nothing to disagree on)."""
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


@dataclass(frozen=True)
class SpanAgreement:
    exact_f1: float  # spans that match word for word (F1 = Dice on whole spans)
    word_dice: float  # words covered by nuggets of both annotators
    only_first: int
    only_second: int
    both: int


def span_agreement(first: Iterable[tuple[int, int, int]], second: Iterable[tuple[int, int, int]]) -> SpanAgreement:
    """Spans are (turn, start_word, end_word), inclusive word indexes."""
    a, b = set(first), set(second)
    words_a = {(turn, w) for turn, start, end in a for w in range(start, end + 1)}
    words_b = {(turn, w) for turn, start, end in b for w in range(start, end + 1)}
    return SpanAgreement(
        exact_f1=exact_matches(sorted(a), sorted(b)).f1,
        word_dice=dice(words_a, words_b),
        only_first=len(a - b),
        only_second=len(b - a),
        both=len(a & b),
    )


@dataclass(frozen=True)
class VectorDistance:
    pairs: int
    mean_jsd: float
    mean_l1: float


def membership_distance(pairs: Iterable[tuple[Sequence[float], Sequence[float]]]) -> VectorDistance:
    """Mean JSD (log 2, in [0, 1]) and mean L1 (in [0, 2]) over pairs of membership vectors."""
    pairs = list(pairs)
    if not pairs:
        return VectorDistance(pairs=0, mean_jsd=float("nan"), mean_l1=float("nan"))
    by_size: dict[int, list] = {}  # one vectorised jsd per vector length (attribute sets may be mixed)
    for p, q in pairs:
        by_size.setdefault(len(p), []).append((p, q))
    jsd_sum = l1_sum = 0.0
    for same in by_size.values():
        p = np.asarray([p for p, _ in same], dtype=float)
        q = np.asarray([q for _, q in same], dtype=float)
        jsd_sum += float(np.sum(jsd(p, q)))
        l1_sum += float(np.abs(p - q).sum())
    return VectorDistance(pairs=len(pairs), mean_jsd=jsd_sum / len(pairs), mean_l1=l1_sum / len(pairs))
