"""How many topics and trials: a generalizability-theory design study of a campaign's scores.

Pure numpy (no Django): the database side is `annotator.evaluation.design_study`; the formulas
and a worked example are in docs/scoring.md ("How many topics and trials").

The design is r:(s x t) (Brennan 2001, *Generalizability Theory*, the r:(p x i) design with
systems as the object of measurement): systems s crossed with topics t, and trials r nested in
each system-topic cell (a trial is one run of a system on a topic; its score is the mean of its
conversations there). The G study estimates the variance components of systems, topics,
system x topic and trials within cells from the mean squares of the balanced design (ANOVA
estimates, from the expected mean squares):

    E MS_s    = s2(r:st) + n_r s2(st) + n_t n_r s2(s)
    E MS_t    = s2(r:st) + n_r s2(st) + n_s n_r s2(t)
    E MS_st   = s2(r:st) + n_r s2(st)
    E MS_r:st = s2(r:st)

Every estimate is taken from the mean squares as they are, and only then is a negative one set
to 0 (Brennan's practice: the zero is not carried into the other equations, as Cronbach et al.
would carry it). With one trial per cell, s2(st) and s2(r:st) are confounded: only their sum,
MS_st, is estimated, and the D study is known for one trial per cell alone.

The D study, for n_t topics and n_r trials per system and topic:

    E rho^2 = s2(s) / (s2(s) + s2(st) / n_t + s2(r:st) / (n_t n_r))
    Phi     = s2(s) / (s2(s) + (s2(t) + s2(st)) / n_t + s2(r:st) / (n_t n_r))

E rho^2 is how well the campaign ranks the systems (relative error); Phi how well it gives their
absolute scores (absolute error: a topic's difficulty counts too).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

COMPONENTS = ("system", "topic", "system_x_topic", "trial_in_cell")
CONFOUNDED = "system_x_topic+trial_in_cell"  # their sum, all one trial per cell can estimate
COEFFICIENTS = ("E_rho2", "Phi")
TRIALS_ASKED = (1, 2, 3, 5, 10)  # the trials per system and topic the fewest topics are given for
TARGETS = (0.8, 0.9)
MAX_TOPICS = 10_000  # fewest topics beyond this: not reachable (None)
D_TOPICS = range(1, 101)
D_TRIALS = range(1, 11)
_REACHED = 1e-12  # a coefficient within this of the target reaches it (rounding of the sums)


class DesignError(ValueError):
    """The scores hold no design to study (fewer than two systems or two topics)."""


# -- the G study ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Components:
    """The G study of a balanced systems x topics x trials array."""

    n_systems: int
    n_topics: int
    n_trials: int
    degrees_of_freedom: dict[str, int]  # by source (COMPONENTS); trial_in_cell 0 with one trial
    mean_squares: dict[str, float]  # by source; trial_in_cell NaN with one trial per cell
    estimates: dict[str, float]  # from the mean squares, negative ones kept
    variance: dict[str, float | None]  # negative estimates set to 0; None where not estimable

    @property
    def confounded(self) -> bool:
        """One trial per cell: system x topic and trials within cells are one component."""
        return self.n_trials == 1

    def rows(self) -> list[tuple[str, float | None, float | None]]:
        """(component, variance, share) in COMPONENTS order, then CONFOUNDED's sum with one
        trial per cell. The share is of the variance of one score (one topic, one trial): the
        sum of the estimated components, negative ones counted as 0."""
        names = [*COMPONENTS, CONFOUNDED] if self.confounded else list(COMPONENTS)
        total = sum(v for v in self.variance.values() if v is not None)
        return [(name, self.variance.get(name), (None if self.variance.get(name) is None or total <= 0
                                                 else self.variance[name] / total)) for name in names]

    def _errors(self, trials) -> tuple[np.ndarray, np.ndarray]:
        """The relative and absolute error variances of one topic with `trials` trials per
        cell (NaN where they are not known: more than one trial from a one-trial study)."""
        trials = np.asarray(trials, dtype=float)
        v = self.variance
        if self.confounded:
            one = np.where(trials == 1, 1.0, np.nan)
            relative = v[CONFOUNDED] * one
        else:
            relative = v["system_x_topic"] + v["trial_in_cell"] / trials
        return relative, relative + v["topic"]

    def coefficients(self, topics, trials) -> dict[str, np.ndarray]:
        """E_rho2 and Phi for `topics` and `trials` per system and topic (arrays broadcast
        against each other: a column of topics and a row of trials give the whole grid). NaN
        where undefined: every component 0, or more trials than a one-trial study can say."""
        topics = np.asarray(topics, dtype=float)
        relative, absolute = self._errors(trials)
        s = self.variance["system"]
        out = {}
        for name, error in (("E_rho2", relative), ("Phi", absolute)):
            denominator = s + error / topics
            with np.errstate(invalid="ignore", divide="ignore"):
                out[name] = np.where(denominator > 0, s / np.where(denominator > 0, denominator, 1.0), np.nan)
        return out

    def fewest_topics(self, target: float, trials: int, coefficient: str = "E_rho2",
                      cap: int = MAX_TOPICS) -> int | None:
        """The fewest topics with which `coefficient` (E_rho2 or Phi) reaches `target` with
        `trials` trials per system and topic; None when more than `cap` would be needed, when
        systems do not differ (s2(s) = 0: no number of topics tells them apart), or when a
        one-trial study cannot say (trials > 1)."""
        if coefficient not in COEFFICIENTS:
            raise ValueError(f"coefficient: {coefficient!r} is not one of {', '.join(COEFFICIENTS)}")
        if not 0 < target < 1:
            raise ValueError("target: a coefficient between 0 and 1 (exclusive)")
        s = self.variance["system"]
        relative, absolute = self._errors(trials)
        error = float(relative if coefficient == "E_rho2" else absolute)
        if not s > 0 or math.isnan(error):
            return None

        def reaches(n: int) -> bool:
            return bool(self.coefficients(n, trials)[coefficient] >= target - _REACHED)

        # s / (s + error / n) >= target  <=>  n >= target error / ((1 - target) s); the closed form
        # is then checked with the coefficient itself, so the answer agrees with the D study's table
        guess = target * error / ((1 - target) * s)
        if guess > cap + 1:
            return None
        n = max(1, math.ceil(guess))
        while n > 1 and reaches(n - 1):
            n -= 1
        while not reaches(n):
            n += 1
            if n > cap:
                return None
        return n if n <= cap else None


def variance_components(scores) -> Components:
    """The G study of a balanced systems x topics x trials array (no NaN)."""
    x = np.asarray(scores, dtype=float)
    if x.ndim != 3:
        raise ValueError("scores: a systems x topics x trials array")
    n_s, n_t, n_r = x.shape
    if n_s < 2 or n_t < 2 or n_r < 1:
        raise DesignError(_too_small(n_s, n_t))
    if np.isnan(x).any():
        raise ValueError("scores: a balanced design has a score in every cell and trial")
    grand = x.mean()
    system = x.mean(axis=(1, 2))
    topic = x.mean(axis=(0, 2))
    cell = x.mean(axis=2)
    # Each sum of squares from its own deviations, and one no larger than the rounding of the
    # means is 0 (as scoring.significance.anova): systems equal on every topic then have no
    # system variance, not whatever the last bits of the means say.
    noise = x.size * (32 * np.finfo(float).eps * float(np.abs(x).max(initial=0.0))) ** 2

    def sum_of_squares(deviations: np.ndarray, weight: int) -> float:
        total = weight * float((deviations ** 2).sum())
        return total if total > noise else 0.0

    ss = {
        "system": sum_of_squares(system - grand, n_t * n_r),
        "topic": sum_of_squares(topic - grand, n_s * n_r),
        "system_x_topic": sum_of_squares(cell - system[:, None] - topic[None, :] + grand, n_r),
        "trial_in_cell": sum_of_squares(x - cell[:, :, None], 1),
    }
    df = {"system": n_s - 1, "topic": n_t - 1, "system_x_topic": (n_s - 1) * (n_t - 1),
          "trial_in_cell": n_s * n_t * (n_r - 1)}
    ms = {name: ss[name] / df[name] if df[name] else math.nan for name in COMPONENTS}
    estimates = {
        "system": (ms["system"] - ms["system_x_topic"]) / (n_t * n_r),
        "topic": (ms["topic"] - ms["system_x_topic"]) / (n_s * n_r),
    }
    if n_r == 1:
        estimates[CONFOUNDED] = ms["system_x_topic"]
    else:
        estimates["system_x_topic"] = (ms["system_x_topic"] - ms["trial_in_cell"]) / n_r
        estimates["trial_in_cell"] = ms["trial_in_cell"]
    variance: dict[str, float | None] = {name: max(value, 0.0) for name, value in estimates.items()}
    if n_r == 1:
        variance.update(system_x_topic=None, trial_in_cell=None)
    return Components(n_s, n_t, n_r, df, ms, estimates, variance)


def _too_small(systems: int, topics: int) -> str:
    if systems < 2:
        return f"a design study needs two or more systems on the same topics ({systems} here)"
    return f"a design study needs two or more topics that every system has ({topics} here)"


# -- from a long table to a balanced design -----------------------------------------------------


@dataclass(frozen=True)
class LeftOut:
    """What the balanced design left out, and why."""

    trials: int  # n_r: the most common number of trials of a system-topic cell
    short_cells: tuple[tuple[str, str, int], ...] = ()  # (system, topic, trials) with fewer: left out
    trimmed_cells: tuple[tuple[str, str, int], ...] = ()  # more: the first n_r trials (by number) kept
    systems: dict[str, tuple[str, ...]] = field(default_factory=dict)  # system left out -> topics it lacks
    topics: dict[str, tuple[str, ...]] = field(default_factory=dict)  # topic left out -> systems lacking it

    def sentences(self, shown: int = 10) -> list[str]:
        """What was left out, in words, naming up to `shown` cells, systems' topics and topics'
        systems each (empty when nothing was)."""
        n = self.trials
        said = []
        if self.short_cells:
            said.append(f"{len(self.short_cells)} system-topic cell(s) with fewer than {n} trial(s) left out: "
                        + _some([f"{s} on {t} ({k})" for s, t, k in self.short_cells], shown, "; "))
        if self.trimmed_cells:
            said.append(f"{len(self.trimmed_cells)} system-topic cell(s) with more than {n} trial(s): their first {n} "
                        "by trial number used: " + _some([f"{s} on {t} ({k})" for s, t, k in self.trimmed_cells], shown, "; "))
        for system, lacking in self.systems.items():
            said.append(f"system {system} left out: it lacks {n} trial(s) on {len(lacking)} topic(s) "
                        f"({_some(list(lacking), shown)})")
        if self.topics:
            said.append(f"{len(self.topics)} topic(s) left out, where a system lacks {n} trial(s): " + _some(
                [f"{topic} ({', '.join(lacking)})" for topic, lacking in self.topics.items()], shown, "; "))
        return said


def _some(names: list[str], shown: int, sep: str = ", ") -> str:
    return sep.join(names[:shown]) + (f"{sep}and {len(names) - shown} more" if len(names) > shown else "")


@dataclass(frozen=True)
class Balanced:
    scores: np.ndarray  # systems x topics x trials
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    left_out: LeftOut


def balance(systems: Iterable, topics: Iterable, trials: Iterable, scores: Iterable) -> Balanced:
    """The balanced r:(s x t) design in a long table (one row per system, topic and trial; a row
    without a score does not count). Each system-topic cell keeps the most common number of
    trials n_r (ties: the larger): a cell with fewer is left out, one with more keeps its first
    n_r trials by trial number. Then the systems and topics are those that make the most cells
    with every kept system on every kept topic (systems with the fewest topics are left out
    while that keeps more cells; ties keep more systems). Vectorised: a campaign's long table
    has a row per system, topic and trial (100,000 at TREC-RAG size)."""
    system_of, topic_of, trial_of, score_of = (
        np.asarray(column if isinstance(column, np.ndarray) else list(column), dtype=kind)
        for column, kind in ((systems, str), (topics, str), (trials, np.int64), (scores, float)))
    if not (len(system_of) == len(topic_of) == len(trial_of) == len(score_of)):
        raise ValueError("systems, topics, trials and scores differ in length")
    scored = ~np.isnan(score_of)
    system_of, topic_of, trial_of, score_of = system_of[scored], topic_of[scored], trial_of[scored], score_of[scored]
    if not len(score_of):
        return Balanced(np.empty((0, 0, 0)), (), (), LeftOut(0))
    system_names, s = np.unique(system_of, return_inverse=True)
    topic_names, t = np.unique(topic_of, return_inverse=True)
    cell = s * len(topic_names) + t
    order = np.lexsort((np.arange(len(cell)), trial_of, cell))  # by cell, then trial, then row
    repeated = (cell[order][1:] == cell[order][:-1]) & (trial_of[order][1:] == trial_of[order][:-1])
    if repeated.any():
        row = order[1:][repeated].min()  # the first row, in the table's order, that repeats an earlier one
        raise ValueError(f"one score per system, topic and trial: {system_of[row]} has two for trial "
                         f"{trial_of[row]} of {topic_of[row]}")
    sizes = np.bincount(cell, minlength=len(system_names) * len(topic_names)).reshape(len(system_names), -1)
    held, counts = np.unique(sizes[sizes > 0], return_counts=True)
    n_r = int(held[np.lexsort((held, counts))[-1]])  # the most common number of trials; ties: the larger
    short = _cells(sizes, (sizes > 0) & (sizes < n_r), system_names, topic_names)
    trimmed = _cells(sizes, sizes > n_r, system_names, topic_names)
    has = sizes >= n_r  # systems x topics: the cells kept
    kept_s, kept_t = _most_cells(has, system_names)
    every_topic = sizes.any(axis=0)
    left_systems = {str(system_names[i]): tuple(topic_names[(kept_t if kept_t.any() else every_topic) & ~has[i]].tolist())
                    for i in np.flatnonzero(~kept_s & sizes.any(axis=1))}
    left_topics = {str(topic_names[j]): tuple(system_names[kept_s & ~has[:, j]].tolist())
                   for j in np.flatnonzero(every_topic & ~kept_t)}
    first = np.searchsorted(cell[order], cell[order])  # each sorted row's cell starts here
    rank = np.empty(len(cell), dtype=np.int64)
    rank[order] = np.arange(len(cell)) - first  # the trial's place in its cell, by trial number
    s_index = np.full(len(system_names), -1)
    s_index[kept_s] = np.arange(kept_s.sum())
    t_index = np.full(len(topic_names), -1)
    t_index[kept_t] = np.arange(kept_t.sum())
    x = np.empty((int(kept_s.sum()), int(kept_t.sum()), n_r))
    used = (s_index[s] >= 0) & (t_index[t] >= 0) & (rank < n_r)
    x[s_index[s[used]], t_index[t[used]], rank[used]] = score_of[used]
    return Balanced(x, tuple(system_names[kept_s].tolist()), tuple(topic_names[kept_t].tolist()),
                    LeftOut(n_r, short, trimmed, left_systems, left_topics))


def _cells(sizes: np.ndarray, which: np.ndarray, system_names: np.ndarray, topic_names: np.ndarray) -> tuple:
    """(system, topic, trials) of the cells `which`, sorted by system then topic."""
    rows, columns = np.nonzero(which)  # row-major: by system, then topic (both in name order)
    return tuple(zip(system_names[rows].tolist(), topic_names[columns].tolist(), sizes[rows, columns].tolist()))


def _most_cells(has: np.ndarray, system_names: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which systems (all but the k with the fewest topics) and which topics they share make the
    most cells; at least two systems stay while there are two. `has`: systems x topics."""
    order = np.lexsort((system_names, has.sum(axis=1)))  # fewest topics first (ties: by name)
    # the topics shared by order[k:], for every k at once: a running AND from the last system back
    shared = np.logical_and.accumulate(has[order[::-1]], axis=0)[::-1]
    candidates = max(1, len(order) - 1)
    sizes = (len(order) - np.arange(candidates)) * shared[:candidates].sum(axis=1)
    k = int(np.argmax(sizes))  # the first of the largest: ties keep more systems
    kept = np.zeros(len(has), dtype=bool)
    kept[order[k:]] = True
    return kept, shared[k]


# -- the study -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DesignStudy:
    balanced: Balanced
    components: Components | None  # None: no design to study (`reason` says why)
    reason: str = ""

    def fewest_topics(self, trials: Iterable[int] = TRIALS_ASKED, targets: Iterable[float] = TARGETS) -> list[dict]:
        """Per trials and target: the fewest topics for E_rho2 and for Phi (None: not reachable,
        or not known from one trial per cell)."""
        if self.components is None:
            return []
        return [{"trials": n_r, "target": target,
                 **{c: self.components.fewest_topics(target, n_r, c) for c in COEFFICIENTS}}
                for n_r in trials for target in targets]

    def d_study(self, topics: Iterable[int] = D_TOPICS, trials: Iterable[int] = D_TRIALS) -> list[dict]:
        """One row per number of topics and of trials (topics first): E_rho2 and Phi, NaN
        where undefined."""
        if self.components is None:
            return []
        topics, trials = np.asarray(list(topics)), np.asarray(list(trials))
        grid = self.components.coefficients(topics[:, None], trials[None, :])
        return [{"topics": int(n_t), "trials": int(n_r), **{c: float(grid[c][i, j]) for c in COEFFICIENTS}}
                for i, n_t in enumerate(topics) for j, n_r in enumerate(trials)]


def study(systems: Iterable, topics: Iterable, trials: Iterable, scores: Iterable) -> DesignStudy:
    """The design study of a long table of (system, topic, trial, score): balanced (`balance`),
    then the G study; a table without two systems on two shared topics gets a reason instead."""
    balanced = balance(systems, topics, trials, scores)
    try:
        return DesignStudy(balanced, variance_components(balanced.scores))
    except DesignError as error:
        return DesignStudy(balanced, None, str(error))
