"""compare_runs: every run pair per measure as CSV or JSON, p-values as scipy and the analysis give them."""

from __future__ import annotations

import csv
import io
import json

import pytest
from scipy import stats

from annotator.evaluation import run_comparison
from annotator.scores.campaign_tables import score_table
from tests.console.demo import build_demo

from .helpers import refused, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return build_demo(n_topics=3)[0]


def test_the_csv_has_the_issues_columns_for_every_measure_and_run_pair(campaign):
    out, _ = run("compare_runs", campaign="fw", permutations=500, seed=1)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["measure", "run_a", "run_b", "mean_a", "mean_b", "diff", "p_tukey_hsd", "p_paired_t",
                             "effect_size", "topics"]
    measures = run_comparison.measures_of(score_table(campaign))
    assert [r["measure"] for r in rows] == [m for m in measures for _ in range(3)]
    matrix = run_comparison.topic_run_matrix(score_table(campaign), "GFRC")
    for row in (r for r in rows if r["measure"] == "GFRC"):
        a, b = matrix.runs.index(row["run_a"]), matrix.runs.index(row["run_b"])
        expected = stats.ttest_rel(matrix.scores[:, a], matrix.scores[:, b]).pvalue
        assert abs(float(row["p_paired_t"]) - expected) < 1e-9
        assert row["topics"] == "3"


def test_a_seed_repeats_the_tukey_hsd_p_values_and_measures_can_be_chosen(campaign):
    first, _ = run("compare_runs", campaign="fw", measure=["GFRC", "R"], permutations=300, seed=9)
    again, _ = run("compare_runs", campaign="fw", measure=["GFRC", "R"], permutations=300, seed=9)
    assert first == again
    assert {r["measure"] for r in csv.DictReader(io.StringIO(first))} == {"GFRC", "R"}


def test_json_gives_the_anova_and_the_pairs_per_measure(campaign):
    out, _ = run("compare_runs", campaign="fw", measure=["GF"], permutations=200, format="json", standardise=True)
    (entry,) = json.loads(out)
    assert entry["measure"] == "GF" and entry["standardised"] and entry["topics"] == 3
    assert entry["anova"]["df_run"] == 2 and len(entry["pairs"]) == 3


def test_unknown_campaigns_measures_and_unbounded_permutations_are_refused(campaign):
    assert "no campaign" in refused("compare_runs", campaign="nope")[0]
    assert "no measure GF_NOPE" in refused("compare_runs", campaign="fw", measure=["GF_NOPE"])[0]
    assert "--permutations" in refused("compare_runs", campaign="fw", permutations=10**7)[0]


def test_a_partial_run_is_left_out_and_the_others_compared_on_every_topic_as_on_the_page(campaign):
    from tests.factories import make_conversation

    make_conversation(campaign, [("U", "Films?"), ("S", "None.")], topic="M001", run="solo-trial1")
    out, err = run("compare_runs", campaign="fw", measure=["GFRC"], permutations=200)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 3 and {r["topics"] for r in rows} == {"3"}
    assert "solo-trial1 lacks 2 topic(s) (M002, M003): left out" in err
    picked, err = run("compare_runs", campaign="fw", measure=["GFRC"], permutations=200,
                      runs=["solo-trial1", "bing-trial1"])
    assert picked == "" or len(list(csv.DictReader(io.StringIO(picked)))) == 0
    assert "compared 2 run(s) on 1 topic(s)" in err and "not compared" in err


def test_a_gfr_variant_compares_the_ranked_list_runs_and_matches_the_analysis(campaign):
    from annotator.scores.ranked_lists import score_ranked_lists
    from tests.console.helpers import add_ranked_list_runs

    add_ranked_list_runs(campaign)
    out, _ = run("compare_runs", campaign="fw", measure=["GFR-ERR+RNOD+JSD"], permutations=500, seed=1)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["measure"] for r in rows} == {"GFR-ERR+RNOD+JSD"} and len(rows) == 3
    assert {r["run_a"] for r in rows} | {r["run_b"] for r in rows} == {"web-a", "web-b", "web-c"}
    matrix = run_comparison.topic_run_matrix(score_ranked_lists(campaign).table, "GFR-ERR+RNOD+JSD")
    for row in rows:
        a, b = matrix.runs.index(row["run_a"]), matrix.runs.index(row["run_b"])
        assert float(row["diff"]) == pytest.approx(matrix.scores[:, a].mean() - matrix.scores[:, b].mean(), abs=1e-12)


def test_every_measure_by_default_includes_the_ranked_list_ones_when_there_are_ranked_list_runs(campaign):
    from tests.console.helpers import add_ranked_list_runs

    add_ranked_list_runs(campaign)
    out, _ = run("compare_runs", campaign="fw", permutations=100, seed=1)
    measures = {r["measure"] for r in csv.DictReader(io.StringIO(out))}
    assert {"GFRC", "ERR", "iRBU", "GFR-iRBU+NMD+JSD"} <= measures


def test_a_long_tukey_hsd_says_on_standard_error_how_many_trials_are_done(campaign, monkeypatch):
    from annotator.management.commands import compare_runs

    monkeypatch.setattr(compare_runs, "PROGRESS_AFTER_S", 0.0)  # every measure counts as long
    out, err = run("compare_runs", campaign="fw", measure=["GFRC", "R"], permutations=500, seed=1)
    assert "GFRC: randomised Tukey HSD, 500 of 500 trials" in err.splitlines()
    assert "R: randomised Tukey HSD, 500 of 500 trials" in err.splitlines()
    assert "trials" not in out


def test_a_quick_tukey_hsd_says_nothing_of_its_trials(campaign):
    _, err = run("compare_runs", campaign="fw", measure=["GFRC"], permutations=500, seed=1)
    assert "trials" not in err


def test_trial_progress_waits_two_seconds_then_speaks_once_a_second_and_at_the_end():
    from annotator.management.commands.compare_runs import TrialProgress

    now = [0.0]
    lines: list[str] = []
    progress = TrialProgress(lines.append, clock=lambda: now[0])
    for t, done in [(0.0, 10), (1.9, 20), (2.0, 30), (2.5, 40), (3.1, 50), (3.2, 60), (3.3, 100)]:
        now[0] = t
        progress("GFRC", done, 100)
    assert lines == [f"GFRC: randomised Tukey HSD, {done} of 100 trials" for done in (30, 50, 100)]
    now[0] = 3.4
    progress("R", 10, 100)  # a new measure starts its own two seconds
    assert len(lines) == 3
