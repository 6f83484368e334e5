"""`scoring.design_study.balance` (vectorised) gives what the plain loops below give, on random long
tables with missing scores, short and long cells, systems lacking topics and ties."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from scoring.design_study import LeftOut, balance


def balance_by_loops(systems, topics, trials, scores):
    """The balanced design as the first version computed it, cell by cell (the oracle)."""
    cells: dict[tuple[str, str], dict[int, float]] = {}
    for system, topic, trial, score in zip(systems, topics, trials, scores, strict=True):
        if score is None or math.isnan(score):
            continue
        cell = cells.setdefault((str(system), str(topic)), {})
        if int(trial) in cell:
            raise ValueError(f"one score per system, topic and trial: {system} has two for trial {trial} of {topic}")
        cell[int(trial)] = float(score)
    if not cells:
        return np.empty((0, 0, 0)), (), (), LeftOut(0)
    counts = Counter(len(cell) for cell in cells.values())
    n_r = max(counts, key=lambda k: (counts[k], k))
    short = tuple(sorted((s, t, len(c)) for (s, t), c in cells.items() if len(c) < n_r))
    trimmed = tuple(sorted((s, t, len(c)) for (s, t), c in cells.items() if len(c) > n_r))
    has: dict[str, set[str]] = {s: set() for s, _ in cells}
    for (s, t), cell in cells.items():
        if len(cell) >= n_r:
            has[s].add(t)
    order = sorted(has, key=lambda s: (len(has[s]), s))
    best = None
    for k in range(max(1, len(order) - 1)):
        kept = sorted(order[k:])
        shared = set.intersection(*(has[s] for s in kept)) if kept else set()
        if best is None or len(kept) * len(shared) > best[0]:
            best = (len(kept) * len(shared), tuple(kept), tuple(sorted(shared)))
    kept_systems, kept_topics = best[1], best[2]
    every_topic = sorted({t for _, t in cells})
    left_systems = {s: tuple(sorted(set(kept_topics or every_topic) - has[s])) for s in sorted(has) if s not in kept_systems}
    left_topics = {t: tuple(s for s in kept_systems if t not in has[s]) for t in every_topic if t not in kept_topics}
    x = np.array([[[cells[s, t][r] for r in sorted(cells[s, t])[:n_r]] for t in kept_topics] for s in kept_systems],
                 dtype=float).reshape(len(kept_systems), len(kept_topics), n_r)
    return x, kept_systems, kept_topics, LeftOut(n_r, short, trimmed, left_systems, left_topics)


def random_table(rng: random.Random):
    rows = []
    systems = [f"s{i}" for i in range(rng.randint(1, 6))]
    topics = [f"t{j:02d}" for j in range(rng.randint(1, 12))]
    usual = rng.randint(1, 4)
    for system in systems:
        lacking = set(rng.sample(topics, rng.randint(0, len(topics) // 2))) if rng.random() < 0.3 else set()
        for topic in topics:
            if topic in lacking:
                continue
            n = usual if rng.random() < 0.7 else rng.randint(1, 5)
            for trial in rng.sample(range(1, 9), n):
                score = float("nan") if rng.random() < 0.05 else round(rng.random(), 3)
                rows.append((system, topic, trial, score))
    rng.shuffle(rows)
    return [list(column) for column in zip(*rows)] if rows else [[], [], [], []]


@pytest.mark.parametrize("seed", range(300))
def test_the_vectorised_balance_is_the_loops_on_a_random_table(seed):
    table = random_table(random.Random(seed))
    x, systems, topics, left_out = balance_by_loops(*table)
    found = balance(*table)
    assert (found.systems, found.topics, found.left_out) == (systems, topics, left_out)
    assert found.scores.shape == x.shape and found.scores.tolist() == x.tolist()


def test_the_first_repeated_row_is_named_as_the_loops_name_it():
    table = [["A", "B", "A", "B"], ["t1", "t1", "t1", "t1"], [1, 2, 1, 2], [0.1, 0.2, 0.3, 0.4]]
    with pytest.raises(ValueError) as loops:
        balance_by_loops(*table)
    with pytest.raises(ValueError) as vectorised:
        balance(*table)
    assert str(vectorised.value) == str(loops.value) == "one score per system, topic and trial: A has two for trial 1 of t1"
