"""How many topics and trials: the design study (`scoring.design_study`) of a campaign's
conversation scores, per measure, and the tables the trials page, its CSV and JSON and
`manage.py design_study` give (one function computes for all of them: `campaign_studies`).

The database side only: the scores come from `annotator.scores.campaign_tables.score_table`, each
run's system and trial from `run_comparison.run_identities`; a system's conversations of one
topic and trial are averaged into one score, as the trial instability does.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from annotator.evaluation.run_comparison import measures_of, run_identities, systems_and_trials
from annotator.interchange.csvsafe import csv_lines
from annotator.models import Campaign
from annotator.scores.campaign_tables import score_table
from scoring import design_study
from scoring.design_study import COEFFICIENTS, D_TOPICS, D_TRIALS, TARGETS, TRIALS_ASKED

DEFAULT_MEASURE = "GFRC"
COMPONENT_COLUMNS = ["measure", "component", "variance", "share"]
D_STUDY_COLUMNS = ["measure", "topics", "trials", "E_rho2", "Phi"]
PAGE_TOPICS = (10, 25, 50, 100)  # the trials page's compact D study (and the campaign's own number)
EXPLAINED = {
    "system": "Systems: how much the systems truly differ (what the campaign measures)",
    "topic": "Topics: some topics are easier for every system",
    "system_x_topic": "System × topic: a system better on some topics than another system is",
    "trial_in_cell": "Trials: a system's answers to a topic differ from one trial to the next",
    design_study.CONFOUNDED: "System × topic and trials together (one trial per system and topic cannot part them)",
}


@dataclass(frozen=True)
class MeasureStudy:
    measure: str
    study: design_study.DesignStudy
    unscored_topics: tuple[str, ...] = ()  # topics with conversations but no score of the measure

    @property
    def components(self) -> design_study.Components | None:
        return self.study.components


def trial_scores(table: pd.DataFrame, identities: dict[str, tuple[str, int]], measures: list[str]) -> pd.DataFrame:
    """One row per system, topic and trial: system, topic, trial and each measure, the mean of
    the trial's conversations of the topic (NaN where none has the measure)."""
    if table.empty:
        return pd.DataFrame(columns=["system", "topic", "trial", *measures])
    system, trial = systems_and_trials(table, identities)
    frame = table.assign(system=system, trial=trial)
    return frame.groupby(["system", "topic", "trial"], sort=True)[measures].mean().reset_index()


def design_studies(table: pd.DataFrame, identities: dict[str, tuple[str, int]], measures: list[str]) -> list[MeasureStudy]:
    scores = trial_scores(table, identities, measures)
    columns = [scores[c].to_numpy() for c in ("system", "topic", "trial")]
    studies = []
    for m in measures:
        scored = scores[m].notna()
        unscored = tuple(sorted(set(scores["topic"]) - set(scores.loc[scored, "topic"])))
        studies.append(MeasureStudy(m, design_study.study(*columns, scores[m].to_numpy(dtype=float)), unscored))
    return studies


def campaign_studies(campaign: Campaign, measures: list[str] | None = None,
                     table: pd.DataFrame | None = None) -> list[MeasureStudy]:
    """The design study of each measure (default GFRC) from the campaign's current scores
    (`table`: its score_table, when the caller has it already)."""
    table = score_table(campaign) if table is None else table
    return design_studies(table, run_identities(campaign), measures or [DEFAULT_MEASURE])


def known_measures(campaign: Campaign, table: pd.DataFrame | None = None) -> list[str]:
    return measures_of(score_table(campaign) if table is None else table)


# -- tables ---------------------------------------------------------------------------------------


def _number(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def component_rows(studies: list[MeasureStudy]) -> list[dict]:
    return [{"measure": s.measure, "component": name, "variance": _number(variance), "share": _number(share)}
            for s in studies if s.components is not None for name, variance, share in s.components.rows()]


def d_study_rows(studies: list[MeasureStudy], topics=D_TOPICS, trials=D_TRIALS) -> list[dict]:
    return [{"measure": s.measure, **{k: _number(v) if k in COEFFICIENTS else v for k, v in row.items()}}
            for s in studies for row in s.study.d_study(topics, trials)]


def fewest_rows(studies: list[MeasureStudy]) -> list[dict]:
    return [{"measure": s.measure, **row} for s in studies for row in s.study.fewest_topics()]


def design_rows(studies: list[MeasureStudy]) -> list[dict]:
    """Per measure: the design studied (systems, topics, trials per cell), what was left out and why,
    or why there is no study."""
    rows = []
    for s in studies:
        b = s.study.balanced
        left = b.left_out
        rows.append({
            "measure": s.measure, "systems": list(b.systems), "topics": len(b.topics), "trials": left.trials,
            "studied": s.components is not None, "reason": s.study.reason,
            "confounded": bool(s.components is not None and s.components.confounded),
            "short_cells": [{"system": a, "topic": t, "trials": k} for a, t, k in left.short_cells],
            "trimmed_cells": [{"system": a, "topic": t, "trials": k} for a, t, k in left.trimmed_cells],
            "systems_left_out": {k: list(v) for k, v in left.systems.items()},
            "topics_left_out": {k: list(v) for k, v in left.topics.items()},
            "notes": notes(s),
        })
    return rows


def notes(s: MeasureStudy) -> list[str]:
    """What the reader must know of the study: left out, confounded, not studied."""
    said = list(s.study.balanced.left_out.sentences())
    if s.unscored_topics:  # GF_<set> of a set that some topic types do not have
        said.insert(0, f"{len(s.unscored_topics)} topic(s) without a {s.measure} score (not in the study): "
                       + ", ".join(s.unscored_topics[:10]) + (", ..." if len(s.unscored_topics) > 10 else ""))
    if s.components is not None and s.components.confounded:
        said.append("one trial per system and topic: system x topic and trials within cells are confounded "
                    f"({design_study.CONFOUNDED}); the D study is known for one trial alone: two or more trials per "
                    "system and topic part them")
    if s.components is None:
        said.append(f"not studied: {s.study.reason}")
    return said


def as_json(studies: list[MeasureStudy]) -> str:
    """{"components": [...], "d_study": [...]} as issue 43 has them, with "fewest_topics" and "designs"
    (what was studied and left out) beside them."""
    return json.dumps({"components": component_rows(studies), "d_study": d_study_rows(studies),
                       "fewest_topics": fewest_rows(studies), "designs": design_rows(studies)}, indent=2)


def as_csv(studies: list[MeasureStudy]) -> str:
    """The components table, a blank line, the D study table (floats in full precision; an
    undefined coefficient or share is an empty cell)."""
    components = [[row[c] for c in COMPONENT_COLUMNS] for row in component_rows(studies)]
    d_study = [[row[c] for c in D_STUDY_COLUMNS] for row in d_study_rows(studies)]
    return "".join(csv_lines([COMPONENT_COLUMNS, *components])) + "\n" + "".join(csv_lines([D_STUDY_COLUMNS, *d_study]))


# -- the trials page --------------------------------------------------------------------------------


def page(s: MeasureStudy) -> dict:
    """What the trials page shows of one measure's study: the components with their shares, the
    fewest topics per trials (E rho^2 and Phi at each target), a compact D study (PAGE_TOPICS and
    the campaign's own number of topics, by TRIALS_ASKED) and the notes."""
    out: dict = {"measure": s.measure, "reason": s.study.reason, "notes": notes(s),
                 "systems": s.study.balanced.systems, "topics": len(s.study.balanced.topics),
                 "trials": s.study.balanced.left_out.trials, "targets": TARGETS, "trials_asked": TRIALS_ASKED}
    c = s.components
    if c is None:
        return out
    out["confounded"] = c.confounded
    out["components"] = [{"name": name, "explained": EXPLAINED[name], "variance": variance, "share": share,
                          "variance_text": f"{variance:.3g}", "share_text": "–" if share is None else f"{share:.1%}"}
                         for name, variance, share in c.rows() if variance is not None]
    out["systems_differ"] = c.variance["system"] > 0
    fewest = {(row["trials"], row["target"]): row for row in s.study.fewest_topics()}
    out["fewest"] = [{"trials": n_r, "cells": [fewest[n_r, t][coefficient] for coefficient in COEFFICIENTS
                                                for t in TARGETS]}
                     for n_r in TRIALS_ASKED]
    topics = sorted({*PAGE_TOPICS, c.n_topics})
    grid = c.coefficients(np.array(topics)[:, None], np.array(TRIALS_ASKED)[None, :])
    out["d_study"] = [{"topics": n_t, "this_campaign": n_t == c.n_topics,
                       "cells": [{"trials": n_r, "E_rho2": _number(grid["E_rho2"][i, j]), "Phi": _number(grid["Phi"][i, j]),
                                  "this_campaign": n_t == c.n_topics and n_r == c.n_trials}
                                 for j, n_r in enumerate(TRIALS_ASKED)]}
                      for i, n_t in enumerate(topics)]
    return out
