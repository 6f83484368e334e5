"""design_study: the variance components and the D study of a campaign's scores as CSV or JSON,
the demo's three systems x two trials studied (and shown on its trials page), figures equal to a
computation made apart from the score table."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

import numpy as np
import pytest
from django.test import Client

from annotator.evaluation.run_comparison import run_identities
from annotator.models import Campaign
from annotator.scores.campaign_tables import score_table
from scoring.design_study import COMPONENTS
from tests.scoring.test_design_study import degrees_of_freedom, sums_of_squares_by_least_squares

from .helpers import refused, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    run("load_demo")
    return Campaign.objects.get(slug="fairweb1")


def demo_scores(campaign: Campaign, measure: str) -> np.ndarray:
    """Systems x topics x trials of `measure`, each the plain mean of the trial's conversations,
    by loops over the score table (the demo has every system on every topic twice)."""
    identities = run_identities(campaign)
    table = score_table(campaign)
    values = defaultdict(list)
    for run_name, topic, value in zip(table["run"], table["topic"], table[measure]):
        system, trial = identities[run_name]
        values[system, topic, trial].append(value)
    systems, topics, trials = (sorted({key[i] for key in values}) for i in range(3))
    return np.array([[[sum(values[s, t, r]) / len(values[s, t, r]) for r in trials] for t in topics] for s in systems])


def test_the_demo_is_studied_as_three_systems_on_every_topic_twice_with_the_figures_of_a_computation_apart(demo):
    out, err = run("design_study", campaign="fairweb1", measure=["GFRC", "R"], format="json")
    data = json.loads(out)
    assert set(data) == {"components", "d_study", "fewest_topics", "designs"}
    assert {tuple(sorted(row)) for row in data["components"]} == {("component", "measure", "share", "variance")}
    assert {tuple(sorted(row)) for row in data["d_study"]} == {("E_rho2", "Phi", "measure", "topics", "trials")}
    for measure in ("GFRC", "R"):
        design = next(d for d in data["designs"] if d["measure"] == measure)
        assert (len(design["systems"]), design["topics"], design["trials"]) == (3, 12, 2) and design["studied"]
        assert f"{measure}: 3 system(s) x 12 topic(s) x 2 trial(s) per system and topic" in err
        x = demo_scores(demo, measure)
        ss = sums_of_squares_by_least_squares(x)
        ms = {k: ss[k] / df for k, df in degrees_of_freedom(*x.shape).items()}
        n_s, n_t, n_r = x.shape
        apart = {"system": (ms["system"] - ms["system_x_topic"]) / (n_t * n_r),
                 "topic": (ms["topic"] - ms["system_x_topic"]) / (n_s * n_r),
                 "system_x_topic": (ms["system_x_topic"] - ms["trial_in_cell"]) / n_r,
                 "trial_in_cell": ms["trial_in_cell"]}
        rows = [row for row in data["components"] if row["measure"] == measure]
        assert [row["component"] for row in rows] == list(COMPONENTS)
        for row in rows:
            assert row["variance"] == pytest.approx(max(apart[row["component"]], 0.0), rel=1e-7, abs=1e-15)
        grid = [row for row in data["d_study"] if row["measure"] == measure]
        assert len(grid) == 100 * 10 and (grid[0]["topics"], grid[0]["trials"], grid[-1]["topics"], grid[-1]["trials"]) == (1, 1, 100, 10)
        v = {row["component"]: row["variance"] for row in rows}
        own = next(row for row in grid if (row["topics"], row["trials"]) == (n_t, n_r))
        if v["system"] > 0:
            assert own["E_rho2"] == pytest.approx(
                v["system"] / (v["system"] + v["system_x_topic"] / n_t + v["trial_in_cell"] / (n_t * n_r)))
        fewest = [row for row in data["fewest_topics"] if row["measure"] == measure]
        assert [(row["trials"], row["target"]) for row in fewest] == [(n, t) for n in (1, 2, 3, 5, 10) for t in (0.8, 0.9)]


def test_the_demos_systems_differ_so_its_study_says_how_many_topics_reach_each_coefficient(demo):
    out, _ = run("design_study", campaign="fairweb1", measure=["GFRC", "R", "GF"], format="json")
    data = json.loads(out)
    for measure in ("GFRC", "R", "GF"):
        system = next(row for row in data["components"] if (row["measure"], row["component"]) == (measure, "system"))
        assert system["share"] > 0.03, measure  # the demo's systems pick relevant entities at different rates
        fewest = [row for row in data["fewest_topics"] if row["measure"] == measure]
        assert all(row["E_rho2"] is not None and row["Phi"] is not None for row in fewest), measure
        assert all(a["E_rho2"] >= b["E_rho2"] for a, b in zip(fewest[::2], fewest[2::2])), measure  # more trials, fewer topics


def test_the_csv_is_the_components_then_a_blank_line_then_the_d_study(demo):
    out, _ = run("design_study", campaign="fairweb1")
    components, d_study = out.split("\n\n")
    rows = list(csv.DictReader(io.StringIO(components)))
    assert [(r["measure"], r["component"]) for r in rows] == [("GFRC", c) for c in COMPONENTS]
    grid = list(csv.DictReader(io.StringIO(d_study)))
    assert list(grid[0]) == ["measure", "topics", "trials", "E_rho2", "Phi"] and len(grid) == 1000
    assert all(0 <= float(r["Phi"]) <= float(r["E_rho2"]) <= 1 for r in grid)


def test_the_demos_trials_page_shows_the_design_study(demo):
    client = Client()
    assert client.login(username="organiser", password="organiser")
    response = client.get("/console/fairweb1/report/trials/?measure=R")
    assert response.status_code == 200
    design = response.context["design"]
    assert (len(design["systems"]), design["topics"], design["trials"]) == (3, 12, 2)
    html = response.content.decode()
    for shown in ("How many topics and trials: R", 'id="design-components"', 'id="design-fewest"', 'id="design-d-study"',
                  "12 <span class=\"muted\">(this campaign)</span>", "/console/fairweb1/report/design-study.csv?measure=R"):
        assert shown in html, shown


def test_unknown_campaigns_and_measures_are_refused_by_name(demo):
    assert "no campaign 'nope'" in refused("design_study", campaign="nope")[0]
    assert "no measure GF_NOPE in fairweb1" in refused("design_study", campaign="fairweb1", measure=["GF_NOPE"])[0]


def test_a_measure_some_topics_lack_leaves_them_out_and_says_so(demo):
    out, err = run("design_study", campaign="fairweb1", measure=["GF_GENDER"], format="json")
    design = json.loads(out)["designs"][0]
    assert design["topics"] < 12
    assert any(note.startswith(f"{12 - design['topics']} topic(s) without a GF_GENDER score") for note in design["notes"])
    assert "without a GF_GENDER score" in err
