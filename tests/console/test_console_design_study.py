"""How many topics and trials on the trials page, and its CSV and JSON: organisers only, the same
numbers as `manage.py design_study` (one function computes for both), what was left out said."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from annotator.evaluation import design_study
from scoring.design_study import CONFOUNDED
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.demo import RUNS
from tests.commands.helpers import run
from tests.factories import make_campaign, make_conversation, make_user, mark


def page_url(campaign, **query):
    from urllib.parse import urlencode

    base = reverse("console:trials", kwargs={"slug": campaign.slug})
    return base + ("?" + urlencode(query) if query else "")


def file_url(campaign, fmt):
    return reverse("console:design_study_file", kwargs={"slug": campaign.slug, "fmt": fmt})


@pytest.fixture
def second_trials(demo):
    """A second trial of every run of the demo on its two topics, some of them with a nugget:
    3 systems x 2 topics x 2 trials."""
    campaign, _organiser, (ann, _bob) = demo
    turns = [("U", "Please list sci-fi movies that feature time travel."),
             ("S", "Back to the Future (1985) is a classic and Looper (2012) is worth watching.")]
    for i, (topic, name) in enumerate((t, r) for t in ("M001", "M002") for r in RUNS):
        conversation = make_conversation(campaign, turns, topic=topic, run=name.replace("trial1", "trial2"), annotators=[ann])
        if i % 3:
            mark(conversation, ann, 2, 0, 4, grade="L2" if i % 2 else "L1")
    return campaign


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_only_the_campaigns_organiser_gets_the_design_study_files(client_as, campaign, fmt):
    assert_only_the_organiser_gets_in(client_as, file_url(campaign, fmt))


def test_one_trial_per_topic_is_studied_as_confounded_and_said(organiser, campaign):
    response = organiser.get(page_url(campaign))
    assert response.status_code == 200
    design = response.context["design"]
    assert design["measure"] == "GFRC" and design["trials"] == 1 and design["confounded"]
    assert [c["name"] for c in design["components"]] == ["system", "topic", CONFOUNDED]
    html = response.content.decode()
    assert 'id="design-study"' in html and "one trial per system and topic" in html
    # the D study says nothing of two or more trials: empty cells, not invented numbers
    first_row = design["d_study"][0]["cells"]
    assert first_row[0]["E_rho2"] is not None and all(cell["E_rho2"] is None for cell in first_row[1:])


def test_the_page_the_csv_the_json_and_the_command_give_the_same_numbers(organiser, second_trials):
    campaign = second_trials
    response = organiser.get(page_url(campaign, measure="R"))
    design = response.context["design"]
    assert (len(design["systems"]), design["topics"], design["trials"]) == (3, 2, 2) and not design["confounded"]
    command_json, err = run("design_study", campaign=campaign.slug, measure=["R"], format="json")
    command_csv, _ = run("design_study", campaign=campaign.slug, measure=["R"])
    assert "R: 3 system(s) x 2 topic(s) x 2 trial(s)" in err
    files = {fmt: organiser.get(file_url(campaign, fmt), {"measure": "R"}) for fmt in ("csv", "json")}
    assert files["csv"]["Content-Type"].startswith("text/csv") and "attachment" in files["csv"]["Content-Disposition"]
    assert files["csv"].content.decode() == command_csv
    assert json.loads(files["json"].content) == json.loads(command_json)
    data = json.loads(command_json)
    components = {row["component"]: row for row in data["components"]}
    assert [c["variance"] for c in design["components"]] == [components[c["name"]]["variance"] for c in design["components"]]
    grid = {(row["topics"], row["trials"]): row for row in data["d_study"]}
    assert len(grid) == 1000
    for row in design["d_study"]:
        for cell in row["cells"]:
            expected = grid.get((row["topics"], cell["trials"]))
            if expected:
                assert (cell["E_rho2"], cell["Phi"]) == (expected["E_rho2"], expected["Phi"])
    fewest = {(row["trials"], row["target"]): row for row in data["fewest_topics"]}
    for row in design["fewest"]:
        assert row["cells"] == [fewest[row["trials"], t][c] for c in ("E_rho2", "Phi") for t in (0.8, 0.9)]
    # the CSV: the components, a blank line, the D study
    head, _, tail = files["csv"].content.decode().partition("\n\n")
    assert next(csv.reader(io.StringIO(head))) == ["measure", "component", "variance", "share"]
    assert next(csv.reader(io.StringIO(tail))) == ["measure", "topics", "trials", "E_rho2", "Phi"]


def test_cells_with_more_trials_than_most_keep_their_first_and_the_page_says_so(organiser, campaign, with_second_trial):
    response = organiser.get(page_url(campaign))
    design = response.context["design"]
    assert design["trials"] == 1
    html = response.content.decode()
    assert "their first 1 by trial number used" in html and "bing on M001 (2)" in html


def test_the_page_names_the_measures_on_which_systems_differ(organiser, second_trials):
    response = organiser.get(page_url(second_trials))
    studies = design_study.campaign_studies(second_trials, design_study.known_measures(second_trials))
    differ = [s.measure for s in studies if s.components and s.components.variance["system"] > 0]
    assert differ and response.context["systems_differ_on"] == differ


def test_systems_that_score_alike_reach_no_coefficient_and_the_page_says_why(db):
    from django.test import Client

    organiser = make_user("flat-org")
    campaign = make_campaign("flat", organiser=organiser)
    turns = [("U", "Films?"), ("S", "None that I know of.")]
    for topic in ("M001", "M002"):
        for name in ("a-trial1", "a-trial2", "b-trial1", "b-trial2"):
            make_conversation(campaign, turns, topic=topic, run=name)  # no nuggets: every score 0
    client = Client()
    client.force_login(organiser)
    response = client.get(page_url(campaign))
    design = response.context["design"]
    assert (design["topics"], design["trials"]) == (2, 2) and not design["systems_differ"]
    assert all(n is None for row in design["fewest"] for n in row["cells"])
    assert 'data-testid="systems-do-not-differ"' in response.content.decode() and response.context["systems_differ_on"] == []


def test_an_unknown_measure_is_refused_on_the_page_and_in_the_files(organiser, campaign):
    assert organiser.get(page_url(campaign, measure="GF_NOPE")).status_code == 400
    refused = organiser.get(file_url(campaign, "csv"), {"measure": "GF_NOPE"})
    assert refused.status_code == 400 and "No measure GF_NOPE" in refused.content.decode()


def test_a_campaign_without_two_systems_has_no_study_and_no_csv_of_empty_tables(organiser, campaign):
    from annotator.models import Run

    Run.objects.filter(campaign=campaign).exclude(name="bing-trial1").delete()  # their conversations too
    response = organiser.get(page_url(campaign))
    assert "two or more systems" in response.context["design"]["reason"]
    assert 'data-testid="design-not-studied"' in response.content.decode()
    refused = organiser.get(file_url(campaign, "csv"))
    assert refused.status_code == 400 and "Not studied: GFRC: a design study needs two or more systems" in refused.content.decode()
    as_json = json.loads(organiser.get(file_url(campaign, "json")).content)
    assert as_json["components"] == [] and as_json["designs"][0]["studied"] is False
