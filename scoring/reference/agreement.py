"""Krippendorff's alpha written out from the paper in plain Python: an independent check of
`scoring.agreement.krippendorff_alpha` (which calls the `krippendorff` package) and a
baseline of bench/bench_agreement.py.

Krippendorff, "Computing Krippendorff's alpha-reliability" (2011), the coincidence-matrix
formulation: o_ck sums, over units with m_u >= 2 values, the ordered pairs (c, k) of values
of different coders weighted 1 / (m_u - 1); n_c are its margins; alpha = 1 - D_o / D_e with
D_o = sum o_ck delta_ck and D_e = sum n_c n_k delta_ck / (n - 1). Loops and dicts only.
"""

from __future__ import annotations

import math


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def coincidences(data: list[list]) -> dict[tuple, float]:
    matrix: dict[tuple, float] = {}
    for column in zip(*data):
        present = [v for v in column if not _missing(v)]
        m = len(present)
        if m < 2:
            continue
        for i, c in enumerate(present):
            for j, k in enumerate(present):
                if i != j:
                    matrix[(c, k)] = matrix.get((c, k), 0.0) + 1 / (m - 1)
    return matrix


def delta(c, k, metric: str, margins: dict, values: list) -> float:
    if metric == "nominal":
        return 0.0 if c == k else 1.0
    if metric == "interval":
        return (c - k) ** 2
    # ordinal: (sum of n_g for g from c to k, less half of n_c and n_k)^2
    low, high = sorted((values.index(c), values.index(k)))
    between = sum(margins.get(values[g], 0.0) for g in range(low, high + 1))
    return (between - (margins.get(c, 0.0) + margins.get(k, 0.0)) / 2) ** 2


def alpha(data: list[list], metric: str = "nominal") -> float:
    """NaN when nothing is pairable or the pairable values never vary (alpha is undefined)."""
    o = coincidences(data)
    margins: dict = {}
    for (c, _), weight in o.items():
        margins[c] = margins.get(c, 0.0) + weight
    n = sum(margins.values())
    values = sorted(margins)
    if n <= 1 or len(values) < 2:
        return float("nan")
    observed = sum(weight * delta(c, k, metric, margins, values) for (c, k), weight in o.items())
    expected = sum(margins[c] * margins[k] * delta(c, k, metric, margins, values) for c in values for k in values) / (n - 1)
    return float("nan") if expected == 0 else 1 - observed / expected
