"""GFR written out formula by formula in plain Python: the oracle for `scoring.gfr`.

One ranked list at a time, loops and the `math` module, each step named after GFR-SPEC.md;
the divergences are `scoring.reference.divergence`'s. The tests hold `scoring.gfr` and the
stored ranked-list figures to it.
"""

from __future__ import annotations

import math

from scoring.reference.divergence import jsd, nmd, rnod

DIVERGENCES = {"JSD": jsd, "NMD": nmd, "RNOD": rnod}


def list_scores(gains: list[float], memberships: dict[str, list[list[float]]], targets: dict[str, list[float]],
                nominal: dict[str, bool], max_gain: float, cutoff: int, patience: float = 0.99) -> dict[str, float]:
    """Every figure of one ranked list: ERR, iRBU, GF-<X>:<set> and the GFR variants."""
    gains = gains[:cutoff]
    out = {"ERR": 0.0, "iRBU": 0.0}
    reach = 1.0
    stops = []
    for i, gain in enumerate(gains, start=1):
        stop = gain / (max_gain + 1)
        stops.append((reach, stop))
        out["ERR"] += reach * stop / i
        out["iRBU"] += reach * stop * patience**i
        reach *= 1 - stop
    for name, vectors in memberships.items():
        k = len(targets[name])
        for divergence, function in DIVERGENCES.items():
            total = 0.0
            running = [0.0] * k
            for i, (reach_i, stop) in enumerate(stops, start=1):
                running = [r + v for r, v in zip(running, vectors[i - 1])]
                achieved = [r / i for r in running]
                total += reach_i * stop * (1 - function(achieved, targets[name]))
            out[f"GF-{divergence}:{name}"] = total
    has_nominal = any(nominal.values())
    for relevance in ("ERR", "iRBU"):
        for ordinal in ("NMD", "RNOD"):
            parts = [out[relevance]] + [out[f"GF-{'JSD' if nominal[n] else ordinal}:{n}"] for n in memberships]
            out[f"GFR-{relevance}+{ordinal}{'+JSD' if has_nominal else ''}"] = math.fsum(parts) / len(parts)
    return out
