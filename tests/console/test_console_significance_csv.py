"""The run comparison as CSV: one row per run pair, the compare_runs command's columns."""

import csv
import io

import pytest
from django.urls import reverse

from annotator.evaluation import run_comparison
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.pilot import MOVIES, PEOPLE, pilot_campaign


def url(campaign):
    return reverse("console:significance_csv", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_downloads_the_run_pairs(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_csv_has_a_row_per_run_pair_of_the_chosen_measure(organiser, campaign):
    response = organiser.get(url(campaign), {"measure": "R", "permutations": 200, "seed": 3})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert 'filename="fw-R-run-pairs.csv"' in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0]) == run_comparison.CSV_COLUMNS
    assert len(rows) == 3 and {r["measure"] for r in rows} == {"R"} and {r["topics"] for r in rows} == {"2"}
    assert all(float(r["mean_a"]) >= float(r["mean_b"]) for r in rows)


def test_the_page_links_its_csv_with_the_same_inputs(organiser, campaign):
    page = organiser.get(reverse("console:significance", kwargs={"slug": campaign.slug}), {"measure": "R", "seed": "3"})
    assert f'{url(campaign)}?measure=R&amp;seed=3' in page.content.decode()


def test_a_bounded_input_out_of_range_is_refused(organiser, campaign):
    assert organiser.get(url(campaign), {"permutations": 1_000_000}).status_code == 400


@pytest.mark.django_db
@pytest.mark.parametrize("query", [{"permutations": 100_000, "standardise": "on", "min_diff": 0.001, "alpha": 0.001},
                                   {"measure": "GF_ORIGIN", "standardise": "on"}])
def test_standardised_scores_of_runs_that_share_no_topic_are_refused_with_the_reason(query):
    campaign, client = pilot_campaign(PEOPLE, MOVIES)  # chat-a on P001 (R) only, chat-b on P002 (M) only
    response = client.get(url(campaign), query)
    assert response.status_code == 400 and response.content.decode() == "Not compared: no two runs have a topic in common.\n"
