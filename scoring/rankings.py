"""How far a judge's annotation is from the gold: nugget spans, and the system rankings both give.

Pure maths (numpy and the standard library; scipy only inside the functions that need its
distributions), so it runs where Django is not installed, like the rest of `scoring`.

- `compare_spans`: which of a judge's nuggets match the gold's, exactly (same words) or by
  overlapping words, with precision, recall and F1 for both, and a one-to-one pairing of
  overlapping nuggets (largest overlap first) whose grades and memberships can be compared.
- `compare_rankings`: two score vectors over the same runs (gold and judge run means) as
  rankings: Kendall's tau-b and its p-value, tau-AP (Yilmaz, Aslam & Robertson, SIGIR 2008)
  and the pairs of runs whose order flips. tau-b and the flips come from one pairwise sign
  matrix; the p-value is scipy.stats.kendalltau's.

Whether the gold tells two flipped runs apart is the significance report's test
(`scoring.significance.randomised_tukey_hsd`), applied in `annotator.evaluation.judge_comparison`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Span = tuple[int, int, int]  # (turn, first word, last word), inclusive word indexes


@dataclass(frozen=True)
class PRF:
    matched_gold: int  # gold nuggets the judge found
    matched_judge: int  # judge nuggets the gold has
    gold: int
    judge: int

    @property
    def precision(self) -> float:
        return self.matched_judge / self.judge if self.judge else float("nan")

    @property
    def recall(self) -> float:
        return self.matched_gold / self.gold if self.gold else float("nan")

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        if math.isnan(p) or math.isnan(r):
            return 1.0 if not self.gold and not self.judge else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: PRF) -> PRF:
        return PRF(self.matched_gold + other.matched_gold, self.matched_judge + other.matched_judge,
                   self.gold + other.gold, self.judge + other.judge)


EMPTY = PRF(0, 0, 0, 0)


@dataclass(frozen=True)
class SpanComparison:
    exact: PRF
    overlap: PRF
    pairs: tuple[tuple[int, int], ...]  # (gold index, judge index), one-to-one, overlapping spans


def _overlap(a: Span, b: Span) -> int:
    if a[0] != b[0]:
        return 0
    return max(0, min(a[2], b[2]) - max(a[1], b[1]) + 1)


def exact_matches(gold: Sequence[Span], judge: Sequence[Span]) -> PRF:
    """Exact span matching, the one definition (judges against the gold, and two annotators'
    agreement): a span matches when the other side has a span with the same turn and words."""
    both = set(gold) & set(judge)
    return PRF(sum(1 for g in gold if g in both), sum(1 for j in judge if j in both), len(gold), len(judge))


def compare_spans(gold: Sequence[Span], judge: Sequence[Span]) -> SpanComparison:
    """Exact: a span with the same turn and words on the other side. Overlap: a span sharing
    at least one word. Pairs for grades and memberships: each gold nugget with at most one judge
    nugget and vice versa, the largest overlaps first (an exact match is never split)."""
    overlaps = [(_overlap(g, j), -gi, -ji) for gi, g in enumerate(gold) for ji, j in enumerate(judge)]
    overlaps = [o for o in overlaps if o[0] > 0]
    gold_hit = {-gi for _, gi, _ in overlaps}
    judge_hit = {-ji for _, _, ji in overlaps}
    pairs, used_gold, used_judge = [], set(), set()
    for _, gi, ji in sorted(overlaps, reverse=True):
        gi, ji = -gi, -ji
        if gi not in used_gold and ji not in used_judge:
            used_gold.add(gi)
            used_judge.add(ji)
            pairs.append((gi, ji))
    return SpanComparison(
        exact=exact_matches(gold, judge),
        overlap=PRF(len(gold_hit), len(judge_hit), len(gold), len(judge)),
        pairs=tuple(sorted(pairs)),
    )


def confusion_matrix(pairs: Sequence[tuple[int, int]], levels: int) -> np.ndarray:
    """Rows: the gold's level, columns: the judge's; the last row and column count "ungraded"
    (level None)."""
    matrix = np.zeros((levels + 1, levels + 1), dtype=np.int64)
    for g, j in pairs:
        matrix[levels if g is None else g, levels if j is None else j] += 1
    return matrix


# -- rankings --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankingComparison:
    runs: int
    tau_b: float
    p_value: float
    tau_ap: float
    flips: tuple[tuple[int, int], ...]  # (i, j) with i ranked above j by the gold, below by the judge


def _signs(scores: np.ndarray) -> np.ndarray:
    return np.sign(scores[:, None] - scores[None, :])


def kendall_tau_b(gold: Sequence[float], judge: Sequence[float]) -> float:
    """tau-b = (C - D) / sqrt((n0 - T_gold) (n0 - T_judge)) over all pairs; NaN when either
    side is all ties (or there are fewer than two runs)."""
    x, y = np.asarray(gold, dtype=float), np.asarray(judge, dtype=float)
    if x.size < 2:
        return float("nan")
    upper = np.triu_indices(x.size, 1)
    sx, sy = _signs(x)[upper], _signs(y)[upper]
    untied_x, untied_y = np.count_nonzero(sx), np.count_nonzero(sy)
    if not untied_x or not untied_y:
        return float("nan")
    return float((sx * sy).sum() / math.sqrt(untied_x * untied_y))


def tau_ap(gold: Sequence[float], judge: Sequence[float]) -> float:
    """tau-AP of the judge's ranking against the gold's (higher score ranks first):
    2/(N-1) * sum over ranks i = 2..N of C(i)/(i-1), minus 1, where C(i) counts the runs the
    judge puts above its i-th run that the gold also puts above it. Disagreements near the top
    cost more than near the bottom. Ties: the judge's tied runs are taken in the gold's order
    (a tie is not a flip), and a gold tie counts half."""
    x, y = np.asarray(gold, dtype=float), np.asarray(judge, dtype=float)
    n = x.size
    if n < 2:
        return float("nan")
    order = np.lexsort((-x, -y))  # by the judge's score, ties by the gold's
    g = x[order]
    above = g[None, :] > g[:, None]  # above[i, j]: the gold puts the judge's j-th run above its i-th
    tied = g[None, :] == g[:, None]
    earlier = np.tril(np.ones((n, n), dtype=bool), -1)  # j comes before i in the judge's ranking
    correct = (above & earlier).sum(axis=1) + 0.5 * (tied & earlier).sum(axis=1)
    ranks = np.arange(1, n)
    return float(2.0 / (n - 1) * (correct[1:] / ranks).sum() - 1.0)


def compare_rankings(gold: Sequence[float], judge: Sequence[float]) -> RankingComparison:
    """The runs ranked by the gold's and by the judge's scores (same order of runs in both)."""
    x, y = np.asarray(gold, dtype=float), np.asarray(judge, dtype=float)
    n = x.size
    flips: tuple[tuple[int, int], ...] = ()
    p_value = float("nan")
    if n >= 2:
        sx, sy = _signs(x), _signs(y)
        i, j = np.nonzero(np.triu((sx * sy) < 0, 1))
        flips = tuple((int(a), int(b)) if x[a] > x[b] else (int(b), int(a)) for a, b in zip(i, j))
        if np.ptp(x) > 0 and np.ptp(y) > 0:
            from scipy.stats import kendalltau  # scipy is slow to import: only when there is a ranking

            p_value = float(kendalltau(x, y, variant="b").pvalue)
    return RankingComparison(runs=n, tau_b=kendall_tau_b(x, y), p_value=p_value, tau_ap=tau_ap(x, y), flips=flips)
