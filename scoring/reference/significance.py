"""The randomised Tukey HSD written the slow, obvious way (Sakai's pseudo-code): one
permutation at a time, each topic's scores shuffled across the runs with `random`, lists only.
The twin of `scoring.significance.randomised_tukey_hsd` (which permutes in numpy chunks); the
tests compare the two within sampling error and bench/bench_compare_runs.py times one
permutation of each.
"""

from __future__ import annotations

import random


def plain_tukey_hsd(matrix: list[list[float]], permutations: int, seed: int) -> list[list[float]]:
    """p-values [a][b]: the share of permutations whose spread of run means reaches |mean_a - mean_b|."""
    rng = random.Random(seed)
    n, m = len(matrix), len(matrix[0])
    means = [sum(row[j] for row in matrix) / n for j in range(m)]
    counts = [[0] * m for _ in range(m)]
    for _ in range(permutations):
        shuffled = []
        for row in matrix:
            row = list(row)
            rng.shuffle(row)
            shuffled.append(row)
        permuted_means = [sum(row[j] for row in shuffled) / n for j in range(m)]
        spread = max(permuted_means) - min(permuted_means)
        for a in range(m):
            for b in range(m):
                if spread >= abs(means[a] - means[b]) - 1e-12:
                    counts[a][b] += 1
    return [[c / permutations for c in row] for row in counts]
