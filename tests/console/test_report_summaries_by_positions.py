"""The report's summaries take each run's and each topic's scores by row positions
(`reports.groups_of`), not a frame a group: the figures must be those of a frame a group, bit
for bit, with missing scores, groups of one and of unequal sizes, ties and unsorted rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotator.console import reports
from scoring.intervals import mean_intervals


def random_table(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(1, 400))
    table = pd.DataFrame({
        "topic": [f"T{t:03d}" for t in rng.integers(0, 40, rows)],
        "run": [f"sys{s}-trial{k}" for s, k in zip(rng.integers(0, 6, rows), rng.integers(1, 3, rows))],
        "R": rng.choice([0.0, 0.25, 0.5, 1.0, np.nan], rows),
        "GF": rng.random(rows),
    })
    table.loc[rng.random(rows) < 0.2, "GF"] = np.nan
    return table


@pytest.mark.parametrize("seed", range(60))
def test_the_summaries_by_row_positions_equal_those_of_a_frame_a_group(seed):
    table = random_table(seed)
    for key, other in (("run", "topic"), ("topic", "run")):
        frames = list(table.groupby(key, sort=True))
        positions = reports.groups_of(table, key)
        assert [value for value, _ in positions] == [value for value, _ in frames]
        assert reports.distinct_in(table, positions, other) == [int(frame[other].nunique()) for _, frame in frames]
        for column in ("R", "GF"):
            expected = mean_intervals(frame[column].to_numpy() for _, frame in frames)
            got = reports.intervals_of(table, positions, column)
            for a, b in ((expected.mean, got.mean), (expected.low, got.low), (expected.high, got.high), (expected.n, got.n)):
                assert np.array_equal(a, b, equal_nan=True), (key, column)
