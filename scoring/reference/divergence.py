"""The divergences of GFRC and GFR written out in plain Python: JSD, NMD and RNOD between an
achieved distribution and a target, lists and the `math` module only. The twin of
`scoring.divergence`; the GFRC and GFR oracles (`scoring.reference.gfrc`, `.gfr`) score with them.
"""

from __future__ import annotations

import math


def _clip01(x: float) -> float:
    return min(1.0, max(0.0, x))


def jsd(p: list[float], q: list[float]) -> float:
    """JSD(p||q) = 1/2 KL(p||m) + 1/2 KL(q||m), m = (p+q)/2, log base 2, 0 log 0 = 0.

    Each term p_i log2(p_i / m_i) is written p_i log2(2 p_i / (p_i + q_i)) so that a tiny q_i
    whose half underflows to 0 cannot divide by zero.
    """
    total = 0.0
    for p_i, q_i in zip(p, q):
        if p_i > 0:
            total += 0.5 * p_i * math.log2(2 * p_i / (p_i + q_i))
        if q_i > 0:
            total += 0.5 * q_i * math.log2(2 * q_i / (p_i + q_i))
    return _clip01(total)


def nmd(p: list[float], q: list[float]) -> float:
    """sum_i |P_i - Q_i| / (K - 1) with P, Q the cumulative sums."""
    k = len(p)
    if k <= 1:
        return 0.0
    cum_p = cum_q = 0.0
    distance = 0.0
    for p_i, q_i in zip(p, q):
        cum_p += p_i
        cum_q += q_i
        distance += abs(cum_p - cum_q)
    return _clip01(distance / (k - 1))


def rnod(p: list[float], q: list[float]) -> float:
    """DW_i = sum_j |i-j| (p_j-q_j)^2; OD = mean DW_i over i with q_i > 0; sqrt(OD / (K-1))."""
    k = len(p)
    if k <= 1:
        return 0.0
    dws = []
    for i in range(k):
        if q[i] > 0:
            dws.append(sum(abs(i - j) * (p[j] - q[j]) ** 2 for j in range(k)))
    od = sum(dws) / len(dws)
    return _clip01(math.sqrt(max(0.0, od / (k - 1))))


DIVERGENCES = {"jsd": jsd, "nmd": nmd, "rnod": rnod}
