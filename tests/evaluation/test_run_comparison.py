"""annotator.evaluation.run_comparison: the score matrices, trial instability and worst cases from a campaign."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from annotator.evaluation import run_comparison
from annotator.scores.campaign_tables import score_table, score_tables
from tests.console.demo import build_demo


def frame(rows):
    return pd.DataFrame(rows, columns=["conversation", "topic", "run", "R", "GF", "GFRC"])


def test_a_runs_topic_score_is_the_mean_of_its_conversations_and_missing_topics_are_reported():
    table = frame([(1, "T1", "a", 0, 0, 0.2), (2, "T1", "a", 0, 0, 0.4), (3, "T1", "b", 0, 0, 0.5),
                   (4, "T2", "a", 0, 0, 0.1), (5, "T3", "a", 0, 0, 0.6), (6, "T3", "b", 0, 0, 0.9)])
    matrix = run_comparison.topic_run_matrix(table, "GFRC")
    assert matrix.topics == ("T1", "T3") and matrix.runs == ("a", "b")
    assert matrix.scores == pytest.approx(np.array([[0.3, 0.5], [0.6, 0.9]]))
    assert matrix.missing == {"b": ("T2",)}


def test_the_comparison_rows_carry_the_csv_columns_and_scipys_paired_t():
    rng = np.random.default_rng(0)
    rows = [(i, f"T{t}", run, 0, 0, float(rng.random())) for i, (t, run) in enumerate(
        (t, run) for t in range(8) for run in ("a", "b", "c"))]
    table = frame(rows)
    (comparison,) = run_comparison.compare(table, ["GFRC"], permutations=200, seed=1)
    csv_rows = run_comparison.pair_rows([comparison])
    assert list(csv_rows[0]) == run_comparison.CSV_COLUMNS and len(csv_rows) == 3
    matrix = run_comparison.topic_run_matrix(table, "GFRC")
    for row in csv_rows:
        a, b = matrix.runs.index(row["run_a"]), matrix.runs.index(row["run_b"])
        assert abs(row["p_paired_t"] - stats.ttest_rel(matrix.scores[:, a], matrix.scores[:, b]).pvalue) < 1e-9
        assert row["topics"] == 8 and row["diff"] == pytest.approx(row["mean_a"] - row["mean_b"])


def test_standardised_scores_are_compared_when_asked():
    table = frame([(1, "T1", "a", 0, 0, 0.1), (2, "T1", "b", 0, 0, 0.3), (3, "T2", "a", 0, 0, 0.7), (4, "T2", "b", 0, 0, 0.8)])
    plain, = run_comparison.compare(table, ["GFRC"], permutations=100, seed=0)
    standard, = run_comparison.compare(table, ["GFRC"], permutations=100, seed=0, standardised=True)
    # per topic the better run gets Phi(1/sqrt 2), the worse Phi(-1/sqrt 2), whatever the topic's difficulty
    assert standard.result.means.tolist() == pytest.approx([stats.norm.cdf(1 / math.sqrt(2)), stats.norm.cdf(-1 / math.sqrt(2))])
    assert plain.result.means.tolist() == pytest.approx([0.55, 0.4])


def test_trial_instability_gives_the_spread_per_system_and_topic_and_the_variance_shares():
    table = frame([(1, "T1", "bing-trial1", 0.2, 0.5, 0.3), (2, "T1", "bing-trial2", 0.4, 0.5, 0.7),
                   (3, "T2", "bing-trial1", 0.6, 0.5, 0.5), (4, "T2", "bing-trial2", 0.6, 0.5, 0.5),
                   (5, "T1", "bard", 0.1, 0.1, 0.1)])
    identities = {"bing-trial1": ("bing", 1), "bing-trial2": ("bing", 2), "bard": ("bard", 1)}
    result = run_comparison.trial_instability(table, identities)
    bing = next(s for s in result.systems if s["system"] == "bing")
    assert (bing["trials"], bing["repeated_topics"]) == (2, 2)
    # GFRC 0.3, 0.7 | 0.5, 0.5: total SS 0.08, within topics 0.08 -> all from trials
    assert bing["shares"]["GFRC"] == pytest.approx({"topics": 0.0, "trials": 1.0})
    # R 0.2, 0.4 | 0.6, 0.6: total SS 0.11, within 0.02
    assert bing["shares"]["R"]["trials"] == pytest.approx(0.02 / 0.11)
    first = result.most_disagreeing[0]
    assert (first["system"], first["topic"], first["conversations"]) == ("bing", "T1", [1, 2])
    assert first["GFRC"] == pytest.approx({"sd": stats.tstd([0.3, 0.7]), "range": 0.4})
    assert [s["topic"] for s in result.spreads if s["system"] == "bard"] == []


@pytest.mark.django_db
def test_worst_cases_list_run_percentiles_the_lowest_conversations_and_system_turns():
    campaign, _, _ = build_demo(n_topics=2)
    tables = score_tables(campaign)
    assert tables.conversations.equals(score_table(campaign))
    worst = run_comparison.worst_cases(tables, "GFRC", lowest=3)
    for run in worst.runs:
        values = tables.conversations.loc[tables.conversations["run"] == run["run"], "GFRC"]
        assert (run["min"], run["p10"], run["mean"]) == pytest.approx((values.min(), np.percentile(values, 10), values.mean()))
    lowest = sorted(tables.conversations["GFRC"])[:3]
    assert [c["value"] for c in worst.conversations] == pytest.approx(lowest)
    assert set(worst.turns) == {"ORIGIN", "RATINGS"}
    ratings = tables.system_turns[tables.system_turns["attribute_set"] == "RATINGS"]["distr_sim"]
    assert worst.turns["RATINGS"][0]["distr_sim"] == pytest.approx(ratings.min())
    assert worst.turns["RATINGS"][0]["turn"].startswith("S")
