"""GFR (NTCIR-17 FairWeb-1): relevance and group fairness of ranked lists, as NTCIREVAL computes it.

The statement is `GFR-SPEC.md` of the reference material. For one ranked list (a run's
documents for a topic, in the run file's order, cut at l) with gains g_i:

- stopping probability R_i = g_i / (g_max + 1), reach S_1 = 1, S_i = prod_{j<i} (1 - R_j);
- ERR@l = sum S_i R_i / i, iRBU@l = sum S_i R_i p^i (p = 0.99);
- the achieved distribution a_i is the plain mean of the memberships of ranks 1..i (every
  document, relevant or not; an unjudged one is uniform), and
  GF-X@l = sum S_i R_i (1 - X(a_i, p*)) for X in JSD, NMD, RNOD (all three, whatever the
  attribute set's kind, as NTCIREVAL prints them);
- GFR is the unweighted mean of a relevance part (ERR or iRBU) and one GF part per attribute
  set (NMD or RNOD for ordinal sets, JSD for nominal ones); none is normalised by an ideal list.

Every function is vectorised over lists: a campaign's runs x topics (of one topic type) are
rows of padded arrays, gains ``(n, depth)`` with 0 beyond a list's end and memberships
``(n, depth, K)`` with any distribution there (the padding's R is 0, so it adds nothing; the
achieved distribution at rank i only reads ranks up to i). Only numpy: no Django here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scoring.divergence import DIVERGENCES
from scoring.targets import target_problem

DEFAULT_CUTOFF = 20  # FairWeb-1's l
RBU_PATIENCE = 0.99  # iRBU's p: the user's probability of moving on to the next rank
DEFAULT_GAINS = {"L0": 0.0, "L1": 1.0, "L2": 3.0}  # FairWeb-1's `-g 1:3`
RELEVANCE_PARTS = ("ERR", "iRBU")
ORDINAL_PARTS = ("NMD", "RNOD")
DIVERGENCE_NAMES = ("JSD", "NMD", "RNOD")  # the GF-X figures, in NTCIREVAL's order


def variant_names(has_nominal: bool) -> list[str]:
    """The official GFR variants of a topic type: with "+JSD" when it has a nominal set."""
    suffix = "+JSD" if has_nominal else ""
    return [f"GFR-{relevance}+{ordinal}{suffix}" for relevance in RELEVANCE_PARTS for ordinal in ORDINAL_PARTS]


@dataclass(frozen=True)
class GroupSet:
    """An attribute set as GFR sees it: nominal or ordinal, and its target p* (used as given:
    NTCIREVAL does not renormalise a target that sums to 0.999999; the rule: scoring.targets)."""

    name: str
    nominal: bool
    target: np.ndarray

    def __post_init__(self) -> None:
        target = np.array(self.target, dtype=float)
        if target.ndim != 1:
            raise ValueError(f"attribute set {self.name!r}: the target must be a vector of probabilities")
        problem = target_problem(target.tolist())  # used as given within 1e-5, as the conversation side
        if problem is not None:
            raise ValueError(f"attribute set {self.name!r}: the target {problem}")
        target.setflags(write=False)
        object.__setattr__(self, "target", target)

    @property
    def size(self) -> int:
        return int(self.target.size)


@dataclass
class GFRScores:
    """Per list (row): ERR, iRBU, GF per attribute set and divergence, and the GFR variants."""

    ERR: np.ndarray  # (n,)
    iRBU: np.ndarray  # (n,)
    GF: dict[tuple[str, str], np.ndarray]  # (attribute set, "JSD" | "NMD" | "RNOD") -> (n,)
    GFR: dict[str, np.ndarray]  # official variant name -> (n,)


def stopping_probabilities(gains: np.ndarray, max_gain: float) -> np.ndarray:
    """R_i = g_i / (g_max + 1): the chance the user stops at rank i, satisfied."""
    if max_gain < 0:
        raise ValueError("the largest gain cannot be negative")
    return np.asarray(gains, dtype=float) / (max_gain + 1.0)


def reach_probabilities(stopping: np.ndarray) -> np.ndarray:
    """S_1 = 1, S_i = prod_{j<i} (1 - R_j): the chance the user gets to rank i."""
    stopping = np.asarray(stopping, dtype=float)
    reach = np.ones_like(stopping)
    if stopping.shape[-1] > 1:
        reach[..., 1:] = np.cumprod(1.0 - stopping[..., :-1], axis=-1)
    return reach


def achieved_distributions(memberships: np.ndarray) -> np.ndarray:
    """a_i: the mean membership of ranks 1..i, for every i (shape as `memberships`)."""
    memberships = np.asarray(memberships, dtype=float)
    ranks = np.arange(1, memberships.shape[-2] + 1, dtype=float)
    return np.cumsum(memberships, axis=-2) / ranks[:, None]


def _cut(array: np.ndarray, cutoff: int, axis: int) -> np.ndarray:
    if isinstance(cutoff, bool) or int(cutoff) != cutoff or cutoff < 1:
        raise ValueError(f"the cutoff must be a positive whole number of ranks, not {cutoff!r}")
    index = [slice(None)] * array.ndim
    index[axis] = slice(0, int(cutoff))
    return array[tuple(index)]


def _weights(gains: np.ndarray, max_gain: float, cutoff: int) -> np.ndarray:
    """S_i R_i at ranks 1..min(cutoff, depth): what each rank contributes to every measure."""
    stopping = stopping_probabilities(_cut(np.atleast_2d(np.asarray(gains, dtype=float)), cutoff, -1), max_gain)
    return reach_probabilities(stopping) * stopping


def err(gains: np.ndarray, max_gain: float, cutoff: int = DEFAULT_CUTOFF) -> np.ndarray:
    """ERR@l = sum_{i<=l} S_i R_i / i, one per row."""
    weights = _weights(gains, max_gain, cutoff)
    return (weights / np.arange(1, weights.shape[-1] + 1)).sum(axis=-1)  # not `@`: see divergence.rnod


def irbu(gains: np.ndarray, max_gain: float, cutoff: int = DEFAULT_CUTOFF, patience: float = RBU_PATIENCE) -> np.ndarray:
    """iRBU@l = sum_{i<=l} S_i R_i p^i, one per row."""
    weights = _weights(gains, max_gain, cutoff)
    return (weights * patience ** np.arange(1, weights.shape[-1] + 1)).sum(axis=-1)  # not `@`: see divergence.rnod


def group_fairness(gains: np.ndarray, memberships: np.ndarray, target, max_gain: float,
                   cutoff: int = DEFAULT_CUTOFF) -> dict[str, np.ndarray]:
    """GF-X@l = sum_{i<=l} S_i R_i (1 - X(a_i, p*)) for X in JSD, NMD and RNOD, one per row."""
    weights = _weights(gains, max_gain, cutoff)
    memberships = _cut(np.asarray(memberships, dtype=float).reshape(weights.shape[0], -1, np.shape(target)[-1]), cutoff, 1)
    achieved = achieved_distributions(memberships)
    n, depth, k = achieved.shape
    flat = achieved.reshape(n * depth, k)
    out = {}
    for name in DIVERGENCE_NAMES:
        similarity = 1.0 - np.asarray(DIVERGENCES[name.lower()](flat, np.asarray(target, dtype=float)))
        out[name] = (weights * similarity.reshape(n, depth)).sum(axis=-1)
    return out


def uniform_membership(size: int, six_decimals: bool = False) -> np.ndarray:
    """The membership of a document without one (unjudged, or judged without a vector in the
    set): 1/K in every group, or with `six_decimals` 1/K as NTCIREVAL's GFlabel writes it with
    ``%f`` before scoring (1/3 -> 0.333333), to reproduce its figures to the last digit."""
    value = 1.0 / size
    return np.full(size, float(f"{value:f}") if six_decimals else value)


def score_cutoffs(gains: np.ndarray, memberships: Sequence[np.ndarray], attribute_sets: Sequence[GroupSet],
                  max_gain: float, cutoffs: Sequence[int]) -> dict[int, GFRScores]:
    """Every GFR figure of n ranked lists of one topic type at every cutoff asked for, in one
    pass: each rank's contribution S_i R_i, S_i R_i (1 - X(a_i, p*)) is summed once along the
    ranks (a running sum, as NTCIREVAL adds them) and read at each cutoff (at the list's last
    rank when it is shorter). `memberships[m]` is the ``(n, depth, K_m)`` vectors of set m."""
    for cutoff in cutoffs:
        _cut(np.zeros(1), cutoff, 0)  # the check of a cutoff
    gains = np.atleast_2d(np.asarray(gains, dtype=float))
    if len(memberships) != len(attribute_sets):
        raise ValueError("one membership array per attribute set")
    depth = min(max(cutoffs), gains.shape[-1])
    n = gains.shape[0]
    if depth == 0:
        gains, depth = np.zeros((n, 1)), 1
    stopping = stopping_probabilities(gains[:, :depth], max_gain)
    weights = reach_probabilities(stopping) * stopping
    ranks = np.arange(1, depth + 1, dtype=float)
    running = {"ERR": np.cumsum(weights / ranks, axis=-1), "iRBU": np.cumsum(weights * RBU_PATIENCE**ranks, axis=-1)}
    # A rank of weight 0 (a document of gain 0: most of a list) adds exactly 0 to every GF
    # whatever its divergence, so the divergences are taken at the other ranks only: the same
    # sums, bit for bit, for a quarter of the logarithms on a FairWeb round
    # (docs/benchmarks-history.md, "Ranked-list runs").
    contributing = np.flatnonzero(weights.ravel())
    rank_of = np.tile(ranks, n)[contributing, None]  # a_i = (memberships summed to i) / i, at those ranks only
    contributions = np.zeros(n * depth)
    for spec, vectors in zip(attribute_sets, memberships):
        vectors = np.asarray(vectors, dtype=float).reshape(n, -1, spec.size)[:, :depth]
        if vectors.shape[1] < depth:  # no membership past the lists' ends: their weights are 0
            vectors = np.concatenate([vectors, np.broadcast_to(uniform_membership(spec.size), (n, depth - vectors.shape[1], spec.size))], axis=1)
        achieved = np.cumsum(vectors, axis=1).reshape(n * depth, spec.size)[contributing] / rank_of
        for name in DIVERGENCE_NAMES:
            similarity = 1.0 - np.asarray(DIVERGENCES[name.lower()](achieved, spec.target))
            contributions[contributing] = weights.ravel()[contributing] * similarity
            running[(spec.name, name)] = np.cumsum(contributions.reshape(n, depth), axis=-1)
    has_nominal = any(spec.nominal for spec in attribute_sets)
    out = {}
    for cutoff in cutoffs:
        at = min(int(cutoff), depth) - 1
        relevance = {name: running[name][:, at] for name in RELEVANCE_PARTS}
        fairness = {(spec.name, name): running[(spec.name, name)][:, at] for spec in attribute_sets for name in DIVERGENCE_NAMES}
        variants = {}
        for relevance_part in RELEVANCE_PARTS:
            for ordinal_part in ORDINAL_PARTS:
                parts = [relevance[relevance_part]] + [
                    fairness[(spec.name, "JSD" if spec.nominal else ordinal_part)] for spec in attribute_sets
                ]
                variants[f"GFR-{relevance_part}+{ordinal_part}{'+JSD' if has_nominal else ''}"] = np.mean(parts, axis=0)
        out[int(cutoff)] = GFRScores(ERR=relevance["ERR"], iRBU=relevance["iRBU"], GF=fairness, GFR=variants)
    return out


def score(gains: np.ndarray, memberships: Sequence[np.ndarray], attribute_sets: Sequence[GroupSet],
          max_gain: float, cutoff: int = DEFAULT_CUTOFF) -> GFRScores:
    """Every GFR figure of n ranked lists of one topic type (its attribute sets, in order, with
    `memberships[m]` the ``(n, depth, K_m)`` vectors of set m) at one cutoff."""
    return score_cutoffs(gains, memberships, attribute_sets, max_gain, [cutoff])[int(cutoff)]
