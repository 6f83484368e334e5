"""Divergences between an achieved distribution and its target, as GFR and GFRC use them.

GFRC judges a system turn's group fairness by how far the achieved distribution p (the mean
membership of the turn's relevant nuggets) lies from the target q of an attribute set:
DistrSim = 1 - Divergence(p || q). Nominal groups (regions, genders) have no order, so JSD
is used; ordinal groups (rating bands, h-index bands) do, so a divergence that charges more
for putting mass in a *far* band than in a *near* one is used: NMD or RNOD.

Every function is vectorised over rows: ``p`` and ``q`` may each be 1-D ``(K,)`` or 2-D
``(n, K)`` and broadcast against each other (typically many achieved distributions against
one target). A 1-D/1-D call returns a Python float, otherwise an ``(n,)`` array. Results are
clipped to [0, 1] so that rounding never yields a DistrSim a hair above 1 or below 0.

Only numpy: this module must stay importable without Django.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Divergence = Callable[[np.ndarray, np.ndarray], "np.ndarray | float"]


def _as_rows(p, q) -> tuple[np.ndarray, np.ndarray, bool]:
    """p and q as 2-D rows that broadcast against each other (no copies); remember whether the
    caller gave two vectors, to hand back a float."""
    p_arr = np.asarray(p, dtype=float)
    q_arr = np.asarray(q, dtype=float)
    if p_arr.ndim not in (1, 2) or q_arr.ndim not in (1, 2):
        raise ValueError("distributions must be 1-D (K,) or 2-D (n, K)")
    if p_arr.shape[-1] != q_arr.shape[-1]:
        raise ValueError(f"distributions over different numbers of groups: {p_arr.shape[-1]} vs {q_arr.shape[-1]}")
    try:
        np.broadcast_shapes(p_arr.shape, q_arr.shape)
    except ValueError:
        raise ValueError(f"cannot pair distributions of shapes {p_arr.shape} and {q_arr.shape}") from None
    scalar = p_arr.ndim == 1 and q_arr.ndim == 1
    return np.atleast_2d(p_arr), np.atleast_2d(q_arr), scalar


def _n_rows(p2: np.ndarray, q2: np.ndarray) -> int:
    return np.broadcast_shapes(p2.shape, q2.shape)[0]


def _finish(values: np.ndarray, scalar: bool) -> np.ndarray | float:
    clipped = np.clip(values, 0.0, 1.0)
    return float(clipped[0]) if scalar else clipped


def _half_kl_term(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x * log2(x / m) with m = (x + y) / 2, written x * log2(2x / (x + y)); 0 log 0 = 0.

    Dividing by x + y rather than by the midpoint keeps the ratio finite even when y is so
    small that (x + y) / 2 underflows; `where=` means no log of zero is ever taken.
    """
    out = np.zeros(np.broadcast_shapes(x.shape, y.shape))
    positive = x > 0
    np.divide(2.0 * x, x + y, out=out, where=positive)
    np.log2(out, out=out, where=positive)
    out *= x
    return out


def jsd(p, q) -> np.ndarray | float:
    """Jensen-Shannon divergence, log base 2 (so it lies in [0, 1]); for nominal groups.

    JSD(p||q) = 1/2 KL(p||m) + 1/2 KL(q||m), m = (p + q) / 2. It is symmetric and finite even
    when one distribution gives a group zero mass, which is why GFR uses it rather than KL.
    """
    p2, q2, scalar = _as_rows(p, q)
    if q2.shape[0] == 1 and p2.shape[0] > 1:
        # One target for every row (GFR's achieved distributions at every rank): the same
        # terms computed whole and the groups of no mass zeroed after (0 log 0 = 0; their 0/0
        # is never used) instead of `where=` masks: the same bits, without the masks' work
        # (docs/benchmarks-history.md, "Ranked-list runs").
        with np.errstate(divide="ignore", invalid="ignore"):
            rows_half = np.where(p2 > 0, p2 * np.log2(2.0 * p2 / (p2 + q2)), 0.0).sum(axis=-1)
            target_half = np.where(q2 > 0, q2 * np.log2(2.0 * q2 / (q2 + p2)), 0.0).sum(axis=-1)
        return _finish(0.5 * rows_half + 0.5 * target_half, scalar)
    values = 0.5 * _half_kl_term(p2, q2).sum(axis=-1) + 0.5 * _half_kl_term(q2, p2).sum(axis=-1)
    return _finish(values, scalar)


def nmd(p, q) -> np.ndarray | float:
    """Normalised match distance: sum_i |P_i - Q_i| / (K - 1), P and Q the cumulative sums.

    Match distance is the earth mover's distance between histograms on a line, so moving
    mass one band costs less than moving it three. With a single group there is nothing to
    move and the divergence is 0.
    """
    p2, q2, scalar = _as_rows(p, q)
    k = p2.shape[-1]
    if k <= 1:
        return _finish(np.zeros(_n_rows(p2, q2)), scalar)
    distance = np.abs(np.cumsum(p2, axis=-1) - np.cumsum(q2, axis=-1)).sum(axis=-1)
    return _finish(distance / (k - 1), scalar)


def _band_distances(k: int) -> np.ndarray:
    """|i - j| for every pair of bands: how far apart two ordinal groups are."""
    bands = np.arange(k)
    return np.abs(bands[:, None] - bands[None, :]).astype(float)


def rnod(p, q) -> np.ndarray | float:
    """Root normalised order-aware divergence (Sakai, ACL 2021); for ordinal groups.

    DW_i = sum_j |i - j| (p_j - q_j)^2 is the squared error seen from band i, weighted by how
    far each other band is; OD averages DW_i over the bands the target actually uses
    (q_i > 0), NOD = OD / (K - 1) and RNOD = sqrt(NOD). With a single group it is 0.
    """
    p2, q2, scalar = _as_rows(p, q)
    k = p2.shape[-1]
    if k <= 1:
        return _finish(np.zeros(_n_rows(p2, q2)), scalar)
    in_target = q2 > 0
    n_target_bands = in_target.sum(axis=-1)
    if np.any(n_target_bands == 0):
        raise ValueError("RNOD needs a target with at least one group of positive mass")
    squared = (p2 - q2) ** 2
    # The sum of DW_i over the target's bands is sum_j (p_j - q_j)^2 sum_{i in target} |i - j|:
    # one integer weight per band (exact) instead of a (K, K) matrix per row. Products summed
    # along each row, not `@`: BLAS rounds a row's dot product differently by where the row
    # falls in the matrix, so a turn scored among a campaign's would differ in its last bit from
    # the same turn scored alone (the stored figures and the workspace's).
    band_weights = (in_target[:, :, None] * _band_distances(k)).sum(axis=1)  # (1 or n, K)
    od = (squared * band_weights).sum(axis=-1) / n_target_bands
    return _finish(np.sqrt(np.maximum(od / (k - 1), 0.0)), scalar)


DIVERGENCES: dict[str, Divergence] = {"jsd": jsd, "nmd": nmd, "rnod": rnod}


def distr_sim(p, q, divergence: str) -> np.ndarray | float:
    """DistrSim = 1 - Divergence(p || q): how close the achieved distribution is to the target."""
    try:
        measure = DIVERGENCES[divergence]
    except KeyError:
        raise ValueError(f"unknown divergence {divergence!r}; expected one of {sorted(DIVERGENCES)}") from None
    return 1.0 - measure(p, q)
