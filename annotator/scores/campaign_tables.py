"""Campaign-wide score tables: every conversation of a campaign from its gold (or from chosen
annotators), read from the stored figures (annotator.scores.stored.reads) as pandas frames. What reports,
run comparison, judge comparison and exports read; the per-conversation layer is
annotator.scores.per_conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from annotator.models import Campaign, Topic
from annotator.scores.stored import reads as stored
from scoring import gfrc


def gf_column(attribute_set_name: str) -> str:
    return f"GF_{attribute_set_name}"


def score_columns(table: pd.DataFrame) -> list[str]:
    """The measure columns of a score table, in the one order every table, export and page
    uses: R, GF_<attribute set>... (by name), GF, GFRC. An empty frame gives R, GF, GFRC."""
    return measure_columns(c[len(gf_column("")):] for c in table.columns if c.startswith(gf_column("")))


def measure_columns(attribute_set_names) -> list[str]:
    """R, GF_<attribute set>... (by name), GF, GFRC: the measure columns of these sets."""
    return ["R", *sorted(gf_column(name) for name in attribute_set_names), "GF", "GFRC"]


def path_measures(path: stored.PathFigures) -> dict[str, float]:
    """A path's figures by measure column, the names every table gives them."""
    return {"R": path.R, **{gf_column(name): value for name, value in path.GF_m.items()}, "GF": path.GF, "GFRC": path.GFRC}


def topic_codes(campaign: Campaign) -> list[str]:
    return list(Topic.objects.filter(campaign=campaign).values_list("code", flat=True))


# -- campaign-wide score tables -------------------------------------------------------------



@dataclass
class ScoreTables:
    """The scores of a campaign's conversations and of their scored system turns."""

    conversations: pd.DataFrame  # see score_table
    system_turns: pd.DataFrame  # conversation, topic, run, turn ("S1"), attribute_set, distr_sim


def score_table(campaign: Campaign, whose: Mapping[int, int] | None = None,
                settings: gfrc.Settings | None = None) -> pd.DataFrame:
    """One row per conversation: conversation, topic, topic_type, run, judge, R,
    GF_<attribute set>..., GF, GFRC, sorted by run and topic, from the stored figures
    (annotator.scores.stored: plain rows, no scoring unless `settings` differ from the
    campaign's in more than alpha)."""
    return _frame(stored.judge_figures(campaign, whose, settings))


def _frame(figures: stored.JudgeFigures) -> pd.DataFrame:
    rows = figures.conversations
    frame = pd.DataFrame({
        "conversation": np.array([row[0] for row in rows], dtype=np.int64),
        "topic": [row[1] for row in rows],
        "topic_type": [row[2] for row in rows],
        "run": [row[3] for row in rows],
        "judge": pd.Series(figures.judge, dtype=object),
        "R": figures.R,
    })
    for name in sorted({name for sets in figures.GF_sets for name in sets}):
        frame[gf_column(name)] = np.array([sets.get(name, np.nan) for sets in figures.GF_sets], dtype=float)
    frame["GF"] = figures.GF
    frame["GFRC"] = figures.GFRC
    return frame[[*_LEADING, *score_columns(frame)]].sort_values(["run", "topic"], ignore_index=True, kind="stable")


def score_tables(campaign: Campaign, whose: Mapping[int, int] | None = None, *, turns: bool = True) -> ScoreTables:
    """One row per conversation (score_table) and, with `turns`, one per scored system turn
    and attribute set (its DistrSim; else that table is empty).

    `whose` (conversation id -> annotator id) scores just those conversations from those
    annotators' judgments (an automatic judge against the gold); by default every conversation
    from its gold's (`gold_annotators`).
    """
    if not turns:
        return ScoreTables(score_table(campaign, whose), pd.DataFrame(columns=list(_TURN_COLUMNS)))
    figures, turn_frame = stored.figures_and_turns(campaign, whose)  # the stored rows read once
    return ScoreTables(_frame(figures), turn_frame)


def worst_tables(campaign: Campaign, lowest: int) -> ScoreTables:
    """What the worst cases need: every conversation (score_table), and the scored system turns
    of just the conversations that can hold an attribute set's `lowest` lowest DistrSim
    (`stored.figures_and_lowest_turns`: the others are not re-scored)."""
    figures, turn_frame = stored.figures_and_lowest_turns(campaign, lowest)
    return ScoreTables(_frame(figures), turn_frame)


_TURN_COLUMNS = ("conversation", "topic", "run", "turn", "attribute_set", "distr_sim")
_LEADING = ("conversation", "topic", "topic_type", "run", "judge")


def with_usernames(table: pd.DataFrame) -> pd.DataFrame:
    """The table with its `judge` column as usernames (as every CSV gives it), not user ids."""
    from django.contrib.auth import get_user_model

    judge_ids = {int(j) for j in table["judge"].dropna()} if len(table) else set()
    names = dict(get_user_model().objects.filter(pk__in=judge_ids).values_list("pk", "username")) if judge_ids else {}
    table = table.copy()
    table["judge"] = [names.get(int(j), "") if j is not None and j == j else "" for j in table["judge"]]
    return table


def run_means(table: pd.DataFrame) -> pd.DataFrame:
    """Per-run means over topics of every score column (NaN-aware: a topic type without an
    attribute set does not pull that column's mean down)."""
    means = table.groupby("run")[score_columns(table)].mean()
    means.insert(0, "topics", table.groupby("run")["topic"].nunique())
    return means.reset_index()
