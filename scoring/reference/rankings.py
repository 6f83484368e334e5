"""tau-AP written out from its definition: the twin of `scoring.rankings.tau_ap`."""

from __future__ import annotations


def tau_ap(gold: list[float], judge: list[float]) -> float:
    """Yilmaz et al. (2008), word for word: rank by the judge (ties in the gold's order), then for
    each rank i >= 2 the share of runs above it the gold also puts above it (a gold tie: half)."""
    runs = sorted(range(len(gold)), key=lambda r: (-judge[r], -gold[r]))
    total = 0.0
    for i in range(1, len(runs)):
        correct = 0.0
        for above in runs[:i]:
            if gold[above] > gold[runs[i]]:
                correct += 1
            elif gold[above] == gold[runs[i]]:
                correct += 0.5
        total += correct / i
    return 2 / (len(runs) - 1) * total - 1
