"""The evaluation report of an overview paper: significance between runs, trial instability,
worst cases and topic set size, from the campaign's current judgments and settings.

The database side only: scores come from `annotator.scores.campaign_tables.score_tables`, the statistics from
`scoring.significance` (pure maths).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from annotator.interchange.csvsafe import csv_lines
from annotator.models import Campaign, Run
from annotator.scores.campaign_tables import ScoreTables, score_columns, score_table
from annotator.scores.ranked_lists import MEASURES as RANKED_LIST_MEASURES, score_ranked_lists
from scoring import significance

CSV_COLUMNS = ["measure", "run_a", "run_b", "mean_a", "mean_b", "diff", "p_tukey_hsd", "p_paired_t", "effect_size", "topics"]
TRIAL_MEASURES = ("GFRC", "R", "GF")
WORST_PERCENTILE = 10
LOWEST = 10  # conversations and system turns the worst cases list
SIDE_BY_SIDE = 10  # conversations the console's read-only view shows at once (its URL's ids)


def measures_of(table: pd.DataFrame) -> list[str]:
    """The measures a campaign has: R, GF_<attribute set>..., GF, GFRC."""
    return score_columns(table)


@dataclass
class RunTables:
    """What runs are compared on: the conversation runs' GFRC table and the ranked-list runs'
    GFR table (one row per run and topic each). Their measures never share a name, so a
    measure says which runs it compares."""

    conversations: pd.DataFrame
    ranked_lists: pd.DataFrame

    def measure_groups(self) -> list[tuple[str, list[str]]]:
        groups = [("Conversation runs (GFRC)", measures_of(self.conversations))]
        if not self.ranked_lists.empty:
            groups.append(("Ranked-list runs (GFR)", list(RANKED_LIST_MEASURES)))
        return groups

    def measures(self) -> list[str]:
        return [m for _, measures in self.measure_groups() for m in measures]

    def table_for(self, measure: str) -> pd.DataFrame:
        return self.ranked_lists if measure in RANKED_LIST_MEASURES else self.conversations


def run_tables(campaign: Campaign) -> RunTables:
    return RunTables(score_table(campaign), score_ranked_lists(campaign).table)


def topic_run_matrix(table: pd.DataFrame, measure: str) -> significance.CompleteMatrix:
    """Topics x runs of `measure`, each cell the mean over the run's conversations of the topic;
    only the topics every run has (the others are listed in `missing`)."""
    cells = table.groupby(["topic", "run"])[measure].mean().unstack("run")
    topics = sorted(table["topic"].unique())
    runs = sorted(table["run"].unique())
    cells = cells.reindex(index=topics, columns=runs)
    return significance.complete_topics(cells.to_numpy(dtype=float), topics, runs)


@dataclass
class Selection:
    """What a comparison compares: runs on the topics they all have, and what was left out."""

    table: pd.DataFrame  # the score table's rows of `runs` on `topics`
    runs: tuple[str, ...]
    topics: tuple[str, ...]
    left_out: dict[str, tuple[str, ...]]  # run -> the topics it lacks, for runs left out
    topics_left_out: tuple[str, ...]  # topics some compared run lacks
    picked: bool  # the organiser picked the runs (else every run that has every topic)


def select_runs(table: pd.DataFrame, runs: list[str] | None = None, topics: list[str] | None = None) -> Selection:
    """The runs and topics to compare.

    By default every run, on the topics the runs have; a run lacking topics that the others
    have is left out (listed with what it lacks), the one lacking most first, until the rest
    all have the same topics, so that a partial run never empties the comparison of the
    complete ones (at least two runs are kept: then the topics they share are compared).
    Picked runs are compared on the topics they share (of the picked topics, if any)."""
    if topics:
        table = table[table["topic"].isin(topics)]
    has = {run: frozenset(group["topic"]) for run, group in table.groupby("run", sort=True)}
    left_out: dict[str, tuple[str, ...]] = {}
    if runs:
        kept = [run for run in sorted(has) if run in set(runs)]
    else:
        kept = sorted(has)
        while len(kept) > 2:
            universe = frozenset().union(*(has[r] for r in kept))
            lacking = {r: universe - has[r] for r in kept}
            worst = max(kept, key=lambda r: (len(lacking[r]), r))
            if not lacking[worst]:
                break
            left_out[worst] = tuple(sorted(lacking[worst]))
            kept.remove(worst)
    universe = frozenset().union(*(has[r] for r in kept)) if kept else frozenset()
    shared = frozenset.intersection(*(has[r] for r in kept)) if kept else frozenset()
    chosen = table[table["run"].isin(kept) & table["topic"].isin(shared)]
    return Selection(chosen, tuple(kept), tuple(sorted(shared)), left_out, tuple(sorted(universe - shared)), bool(runs))


def select_tables(tables: RunTables, runs: list[str] | None = None,
                  topics: list[str] | None = None) -> tuple[RunTables, dict[str, Selection]]:
    """`select_runs` for each kind of run (conversation runs, ranked-list runs): picked runs
    apply to their own kind; a kind none of whose runs is picked compares all of its runs.
    Returns the tables restricted and the selection of each kind ("conversations",
    "ranked_lists") that has runs."""
    picked = set(runs or [])
    chosen: dict[str, pd.DataFrame] = {}
    selections: dict[str, Selection] = {}
    for kind in ("conversations", "ranked_lists"):
        table = getattr(tables, kind)
        if table.empty:
            chosen[kind] = table
            continue
        mine = sorted(picked & set(table["run"]))
        selections[kind] = select_runs(table, mine or None, topics)
        chosen[kind] = selections[kind].table
    return RunTables(**chosen), selections


def kind_of(measure: str) -> str:
    return "ranked_lists" if measure in RANKED_LIST_MEASURES else "conversations"


@dataclass
class MeasureComparison:
    measure: str
    matrix: significance.CompleteMatrix
    standardised: bool
    result: significance.Comparison | None  # None: fewer than two runs or topics to compare

    @property
    def reason(self) -> str:
        if self.result is not None:
            return ""
        runs = len(self.matrix.runs)
        if runs == 0:
            return "no two runs have a topic in common"
        if runs == 1:
            return "fewer than two runs"
        return f"fewer than two topics that every run has with a {self.measure} score"

    def table(self, alpha: float) -> list[dict]:
        """Run x run rows for the console: the row run's difference to each column run, with the
        p-values and effect size, significant (Tukey HSD p < alpha) pairs marked."""
        r = self.result
        if r is None:
            return []
        rows = []
        for i, run in enumerate(r.runs):
            cells = []
            for j in range(len(r.runs)):
                if i == j:
                    cells.append(None)
                    continue
                cells.append({
                    "diff": float(r.means[i] - r.means[j]),
                    "p_tukey_hsd": float(r.p_tukey_hsd[i, j]),
                    "p_paired_t": float(r.p_paired_t[i, j]),
                    "effect_size": float(r.effect_size[i, j]),
                    "significant": bool(r.p_tukey_hsd[i, j] < alpha),
                })
            rows.append({"run": run, "mean": float(r.means[i]), "cells": cells})
        return rows


def compare_measure(table: pd.DataFrame, measure: str, permutations: int = significance.DEFAULT_PERMUTATIONS,
                    seed: int | None = None, standardised: bool = False,
                    progress: significance.Progress | None = None) -> MeasureComparison:
    """`progress(done, total)` hears of the randomised Tukey HSD's trials as they finish."""
    matrix = topic_run_matrix(table, measure)
    if standardised:
        matrix = significance.CompleteMatrix(
            significance.standardise(matrix.scores), matrix.topics, matrix.runs, matrix.missing
        )
    if len(matrix.runs) < 2 or len(matrix.topics) < 2:
        return MeasureComparison(measure, matrix, standardised, None)
    result = significance.compare_runs(matrix.scores, matrix.runs, permutations, seed, progress)
    return MeasureComparison(measure, matrix, standardised, result)


def compare(table: pd.DataFrame | RunTables, measures: list[str] | None = None,
            permutations: int = significance.DEFAULT_PERMUTATIONS, seed: int | None = None,
            standardised: bool = False, progress: Callable[[str, int, int], None] | None = None) -> list[MeasureComparison]:
    """Every requested measure (default: all of them), each with its own seeded generator so
    a measure's p-values do not depend on which other measures were asked for. With RunTables,
    each measure compares the runs of its kind (conversation or ranked-list runs).
    `progress(measure, done, total)` hears of each measure's Tukey HSD trials."""
    def heard(measure: str) -> significance.Progress | None:
        return None if progress is None else partial(progress, measure)

    if isinstance(table, RunTables):
        return [compare_measure(table.table_for(m), m, permutations, seed, standardised, heard(m))
                for m in (measures or table.measures())]
    return [compare_measure(table, m, permutations, seed, standardised, heard(m)) for m in (measures or measures_of(table))]


def pair_rows(comparisons: list[MeasureComparison]) -> list[dict]:
    """One row per measure and run pair, the CSV_COLUMNS."""
    return [
        {"measure": c.measure, "run_a": p.run_a, "run_b": p.run_b, "mean_a": p.mean_a, "mean_b": p.mean_b,
         "diff": p.diff, "p_tukey_hsd": p.p_tukey_hsd, "p_paired_t": p.p_paired_t, "effect_size": p.effect_size,
         "topics": c.result.topics}
        for c in comparisons if c.result is not None for p in c.result.pairs()
    ]


def pairs_csv(comparisons: list[MeasureComparison]) -> str:
    rows = ([row[column] for column in CSV_COLUMNS] for row in pair_rows(comparisons))
    return "".join(csv_lines([CSV_COLUMNS, *rows]))  # floats in full (round-trip) precision


def pairs_json(comparisons: list[MeasureComparison]) -> str:
    """Per measure: topics compared, topics each run lacks, the ANOVA and every pair."""
    def number(x: float) -> float | None:
        return None if math.isnan(x) else x

    out = []
    for c in comparisons:
        entry: dict = {"measure": c.measure, "standardised": c.standardised, "topics": len(c.matrix.topics),
                       "missing": {run: list(t) for run, t in c.matrix.missing.items()}}
        if c.result is None:
            entry["skipped"] = c.reason
        else:
            a = c.result.anova
            entry["anova"] = {"V_E": number(a.V_E), "F_run": number(a.F_run), "p_run": number(a.p_run),
                              "df_run": a.df_run, "df_residual": a.df_residual}
            entry["pairs"] = [{k: number(v) if isinstance(v, float) else v for k, v in row.items()}
                              for row in pair_rows([c])]
        out.append(entry)
    return json.dumps(out, indent=2)


# -- topic set size --------------------------------------------------------------------------


@dataclass
class TopicSetSize:
    V_E: float
    runs: int
    min_diff: float
    alpha: float
    power: float
    paired_t: int | None  # None: not reachable within significance.MAX_TOPICS, or no V_E yet
    anova: int | None


def topic_set_size(comparison: MeasureComparison, min_diff: float, alpha: float = 0.05, power: float = 0.8) -> TopicSetSize | None:
    if comparison.result is None:
        return None
    V_E = comparison.result.anova.V_E
    runs = len(comparison.result.runs)
    return TopicSetSize(
        V_E, runs, min_diff, alpha, power,
        significance.topics_for_paired_t(V_E, min_diff, alpha, power),
        significance.topics_for_anova(V_E, min_diff, runs, alpha, power),
    )


# -- trial instability ---------------------------------------------------------------------------


def run_identities(campaign: Campaign) -> dict[str, tuple[str, int]]:
    """Run name -> (system, trial)."""
    return {run.name: run.system_and_trial() for run in Run.objects.filter(campaign=campaign)}


def systems_and_trials(table: pd.DataFrame, identities: dict[str, tuple[str, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Each row's system and trial (its run's, from `identities`, else from the run's name),
    looked up once a run, not once a row."""
    codes, runs = pd.factorize(table["run"])
    of = [identities.get(run) or Run.system_and_trial_of(run) for run in runs]
    systems = np.array([system for system, _ in of], dtype=object)
    trials = np.array([trial for _, trial in of], dtype=np.int64)
    return systems[codes], trials[codes]


@dataclass
class Instability:
    systems: list[dict] = field(default_factory=list)  # per system: trials, topics, variance shares
    spreads: list[dict] = field(default_factory=list)  # per system and topic with >= 2 trials
    most_disagreeing: list[dict] = field(default_factory=list)


def trial_instability(table: pd.DataFrame, identities: dict[str, tuple[str, int]], top: int = 10) -> Instability:
    """Per system and topic judged in two or more trials: the spread across its trials (SD and
    range) of GFRC, R and GF; per system, how the score variance splits into the part between
    topics and the part between trials of a topic (sums of squares: total = topics + trials);
    and the `top` system-topic pairs with the widest GFRC range, with their conversations."""
    result = Instability()
    if table.empty:
        return result
    system, trial = systems_and_trials(table, identities)
    frame = table.assign(system=system, trial=trial)
    # one score per system, topic and trial (several conversations of a trial are averaged)
    per_trial = frame.groupby(["system", "topic", "trial"]).agg(
        **{m: (m, "mean") for m in TRIAL_MEASURES}, run=("run", "first")
    ).reset_index()
    conversations_of: dict[tuple, list] = defaultdict(list)  # in the table's order, as a groupby keeps it
    for key in zip(frame["system"].tolist(), frame["topic"].tolist(), frame["trial"].tolist(), frame["conversation"].tolist()):
        conversations_of[key[:3]].append(key[3])
    per_trial["conversations"] = [conversations_of[key] for key in zip(
        per_trial["system"].tolist(), per_trial["topic"].tolist(), per_trial["trial"].tolist())]
    for system, rows in per_trial.groupby("system", sort=True):
        repeated = rows[rows.groupby("topic")["topic"].transform("size").to_numpy() >= 2]  # topics in >= 2 trials
        entry: dict = {"system": system, "trials": int(rows["trial"].nunique()), "topics": int(rows["topic"].nunique()),
                       "repeated_topics": int(repeated["topic"].nunique()), "shares": {}}
        for measure in TRIAL_MEASURES:
            entry["shares"][measure] = _variance_shares(repeated, measure)
        result.systems.append(entry)
        for topic, trials in repeated.groupby("topic", sort=True):
            trials = trials.sort_values("trial")
            conversations = [c for cs in trials["conversations"] for c in cs]
            spread = {"system": system, "topic": topic, "trials": len(trials),
                      "runs": trials["run"].tolist(), "conversations": conversations,
                      "side_by_side": conversations[:SIDE_BY_SIDE]}
            for measure in TRIAL_MEASURES:
                values = trials[measure].to_numpy(dtype=float)
                spread[measure] = {"sd": float(np.std(values, ddof=1)), "range": float(np.ptp(values))}
            result.spreads.append(spread)
    result.most_disagreeing = sorted(
        (s for s in result.spreads if not math.isnan(s["GFRC"]["range"])), key=lambda s: -s["GFRC"]["range"]
    )[:top]
    return result


def _variance_shares(rows: pd.DataFrame, measure: str) -> dict[str, float]:
    """Shares of the sum of squares of a system's scores (topics judged in >= 2 trials) that lie
    between topics and between the trials of a topic."""
    values = rows[measure].to_numpy(dtype=float)
    if values.size < 2:
        return {"topics": math.nan, "trials": math.nan}
    total = float(((values - values.mean()) ** 2).sum())
    topic_means = rows.groupby("topic")[measure].transform("mean").to_numpy(dtype=float)
    between_trials = float(((values - topic_means) ** 2).sum())
    if total == 0:
        return {"topics": math.nan, "trials": math.nan}
    return {"topics": 1 - between_trials / total, "trials": between_trials / total}


# -- worst cases ---------------------------------------------------------------------------------


@dataclass
class WorstCases:
    measure: str
    runs: list[dict]  # run, min, p10, mean, conversations
    conversations: list[dict]  # the lowest-scoring conversations by `measure`
    turns: dict[str, list[dict]]  # attribute set -> the system turns with the lowest DistrSim


def worst_cases(tables: ScoreTables, measure: str = "GFRC", lowest: int = LOWEST) -> WorstCases:
    """Per run its minimum, 10th percentile and mean; the `lowest` lowest conversations by
    `measure`; per attribute set the `lowest` system turns with the lowest DistrSim (of
    `tables.system_turns`: campaign_tables.worst_tables gives just the turns that can be)."""
    table = tables.conversations
    runs = []
    for run, group in table.groupby("run", sort=True):
        values = group[measure].dropna().to_numpy(dtype=float)
        runs.append({
            "run": run, "conversations": int(values.size),
            "min": float(values.min()) if values.size else math.nan,
            "p10": float(np.percentile(values, WORST_PERCENTILE)) if values.size else math.nan,
            "mean": float(values.mean()) if values.size else math.nan,
        })
    scored = table.dropna(subset=[measure]).sort_values([measure, "run", "topic"]).head(lowest)
    conversations = [
        {"conversation": int(row["conversation"]), "topic": row["topic"], "run": row["run"], "value": float(row[measure]),
         "R": float(row["R"]), "GF": float(row["GF"]), "GFRC": float(row["GFRC"])}
        for _, row in scored.iterrows()
    ]
    turns: dict[str, list[dict]] = {}
    system_turns = tables.system_turns.dropna(subset=["distr_sim"])
    for attribute_set, rows in system_turns.groupby("attribute_set", sort=True):
        turns[attribute_set] = [
            {"conversation": int(row["conversation"]), "topic": row["topic"], "run": row["run"], "turn": row["turn"],
             "distr_sim": float(row["distr_sim"])}
            for _, row in rows.sort_values(["distr_sim", "run", "topic", "turn"]).head(lowest).iterrows()
        ]
    return WorstCases(measure, runs, conversations, turns)
