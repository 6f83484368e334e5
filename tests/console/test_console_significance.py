"""The run comparison page: run x run table per measure, ANOVA, topic set size, bounded inputs."""

import pytest
from django.urls import reverse

from annotator.evaluation import run_comparison
from annotator.scores.campaign_tables import score_table
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.helpers import add_ranked_list_runs
from tests.console.pilot import MOVIES, PEOPLE, import_conversations, pilot_campaign
from tests.factories import make_conversation


def url(campaign):
    return reverse("console:significance", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_the_run_comparison(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_first_visit_compares_gfrc_with_the_defaults_runs_ordered_by_mean(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200
    rows = response.context["rows"]
    assert [r["mean"] for r in rows] == sorted((r["mean"] for r in rows), reverse=True)
    assert {r["run"] for r in rows} == {"bard-trial1", "bing-trial1", "chatgpt-trial1"}
    params = response.context["form"].cleaned_data
    assert (params["measure"], params["permutations"], params["alpha"]) == ("GFRC", 10_000, 0.05)
    html = response.content.decode()
    assert 'id="pairs"' in html and "Two-way ANOVA without replication" in html
    assert 'data-testid="n-paired-t"' in html and reverse("console:trials", kwargs={"slug": campaign.slug}) in html


def test_pairs_below_the_chosen_alpha_are_marked_significant(organiser, campaign):
    loose = organiser.get(url(campaign), {"measure": "R", "alpha": 0.5, "permutations": 500, "seed": 1})
    strict = organiser.get(url(campaign), {"measure": "R", "alpha": 0.001, "permutations": 500, "seed": 1})
    def marked(response):
        return sum(bool(c and c["significant"]) for r in response.context["rows"] for c in r["cells"])
    p_values = [c["p_tukey_hsd"] for r in loose.context["rows"] for c in r["cells"] if c]
    assert marked(loose) == sum(p < 0.5 for p in p_values) and marked(strict) == sum(p < 0.001 for p in p_values)
    assert loose.content.decode().count("data-significant") == marked(loose)


def test_the_page_shows_what_the_analysis_module_computes_for_the_same_seed(organiser, campaign):
    response = organiser.get(url(campaign), {"measure": "GF", "permutations": 300, "seed": 5, "min_diff": 0.1})
    expected = run_comparison.compare_measure(score_table(campaign), "GF", 300, 5)
    assert response.context["comparison"].result.p_tukey_hsd.tolist() == expected.result.p_tukey_hsd.tolist()
    size = response.context["topic_set_size"]
    assert size.min_diff == 0.1 and size.paired_t == run_comparison.topic_set_size(expected, 0.1).paired_t


def test_standardisation_is_an_option_of_the_report(organiser, campaign):
    response = organiser.get(url(campaign), {"measure": "GFRC", "permutations": 200, "standardise": "on"})
    assert response.context["comparison"].standardised
    assert "(standardised)" in response.content.decode()


@pytest.mark.parametrize("bad", [{"permutations": 100_001}, {"permutations": 10}, {"alpha": 2}, {"measure": "nope"},
                                 {"min_diff": 0}, {"seed": -1}])
def test_out_of_bounds_inputs_are_refused_with_the_form_and_nothing_computed(organiser, campaign, bad):
    response = organiser.get(url(campaign), bad)
    assert response.status_code == 400
    assert "comparison" not in response.context and response.context["form"].errors


def test_a_run_lacking_topics_is_named_and_left_out_and_the_others_are_compared_on_every_topic(organiser, campaign):
    make_conversation(campaign, [("U", "Films?"), ("S", "None.")], topic="M001", run="solo-trial1")
    response = organiser.get(url(campaign), {"permutations": 200})
    selection = response.context["selection"]
    assert selection.left_out == {"solo-trial1": ("M002",)}
    assert selection.runs == ("bard-trial1", "bing-trial1", "chatgpt-trial1") and selection.topics == ("M001", "M002")
    assert {r["run"] for r in response.context["rows"]} == set(selection.runs)
    html = response.content.decode()
    assert 'data-testid="missing"' in html and '<strong class="run-name">solo-trial1</strong> lacks 1 (M002)' in html
    assert "3 runs</strong>\n  on <strong>2 topics</strong>" in html


def test_picked_runs_are_compared_on_the_topics_they_share_and_the_csv_compares_the_same(organiser, campaign):
    make_conversation(campaign, [("U", "Films?"), ("S", "None.")], topic="M001", run="solo-trial1")
    query = {"permutations": 200, "runs": ["solo-trial1", "bing-trial1"], "measure": "R"}
    response = organiser.get(url(campaign), query)
    selection = response.context["selection"]
    assert selection.runs == ("bing-trial1", "solo-trial1") and selection.topics == ("M001",)
    assert selection.topics_left_out == ("M002",)
    assert "fewer than two topics" in response.content.decode()
    assert organiser.get(reverse("console:significance_csv", kwargs={"slug": campaign.slug}), query).status_code == 400
    query["runs"] = ["bard-trial1", "bing-trial1"]
    csv_text = organiser.get(reverse("console:significance_csv", kwargs={"slug": campaign.slug}), query).content.decode()
    lines = csv_text.strip().splitlines()
    assert len(lines) == 2 and "bing-trial1" in lines[1] and "bard-trial1" in lines[1] and lines[1].endswith(",2")


def test_picked_topics_narrow_the_comparison(organiser, campaign):
    response = organiser.get(url(campaign), {"permutations": 200, "topics": ["M001"]})
    assert response.context["selection"].topics == ("M001",)


def test_the_queries_do_not_grow_with_the_runs_compared(organiser, campaign):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert organiser.get(url(campaign), {"permutations": 100}).status_code == 200
        return len(captured.captured_queries)

    queries()  # conversations the factories made bypass the importer: their figures are stored on first read
    before = queries()
    for topic in ("M001", "M002"):
        make_conversation(campaign, [("U", "Films?"), ("S", "None.")], topic=topic, run="extra-trial1")
    queries()
    # session, user, campaign; then score_table: conversations, judges' assignments, topic types
    # with attribute sets (2), and per topic type turns, nuggets, memberships
    assert queries() == before


def test_a_gfr_variant_compares_the_ranked_list_runs_only(organiser, campaign):
    add_ranked_list_runs(campaign)
    response = organiser.get(url(campaign), {"measure": "GFR-ERR+RNOD+JSD", "permutations": 200, "seed": 1})
    assert response.status_code == 200
    assert {r["run"] for r in response.context["rows"]} == {"web-a", "web-b", "web-c"}
    cells = [c for r in response.context["rows"] for c in r["cells"] if c]
    assert all(c["effect_size"] == c["effect_size"] for c in cells)  # computed, not NaN
    assert 'data-testid="runs-kind">(ranked-list runs)' in response.content.decode()
    gfrc = organiser.get(url(campaign), {"measure": "GFRC", "permutations": 200})
    assert {r["run"] for r in gfrc.context["rows"]} == {"bard-trial1", "bing-trial1", "chatgpt-trial1"}


def test_the_measure_choice_groups_conversation_and_ranked_list_measures(organiser, campaign):
    add_ranked_list_runs(campaign)
    choices = organiser.get(url(campaign)).context["form"].fields["measure"].choices
    assert [label for label, _ in choices] == ["Conversation runs (GFRC)", "Ranked-list runs (GFR)"]
    assert [name for name, _ in choices[1][1]] == ["ERR", "iRBU", "GFR-ERR+NMD+JSD", "GFR-ERR+RNOD+JSD", "GFR-iRBU+NMD+JSD",
                                                   "GFR-iRBU+RNOD+JSD"]


def test_a_gfr_measure_is_refused_where_the_campaign_has_no_ranked_list_runs(organiser, campaign):
    assert organiser.get(url(campaign), {"measure": "GFR-ERR+RNOD+JSD"}).status_code == 400


STANDARDISED_QUERIES = [{"permutations": 100_000, "standardise": "on", "min_diff": 0.001, "alpha": 0.001},
                        {"measure": "GF_ORIGIN", "standardise": "on"}]


@pytest.mark.django_db
@pytest.mark.parametrize("query", STANDARDISED_QUERIES)
def test_standardised_scores_of_runs_that_share_no_topic_say_why_nothing_is_compared(query):
    campaign, client = pilot_campaign(PEOPLE, MOVIES)  # chat-a on P001 (R) only, chat-b on P002 (M) only
    response = client.get(url(campaign), query)
    assert response.status_code == 200 and response.context["comparison"].result is None
    assert "Not compared: no two runs have a topic in common." in response.content.decode()


@pytest.mark.django_db
def test_standardised_scores_of_a_measure_missing_on_some_topics_compare_what_can_be_compared():
    campaign, client = pilot_campaign(PEOPLE, MOVIES)
    import_conversations(campaign, PEOPLE | {"run": "chat-b"}, MOVIES | {"run": "chat-a"})  # both runs on P001, P002
    gfrc = client.get(url(campaign), {"measure": "GFRC", "standardise": "on", "permutations": 200})
    assert gfrc.status_code == 200 and gfrc.context["comparison"].result.topics == 2
    origin = client.get(url(campaign), {"measure": "GF_ORIGIN", "standardise": "on", "permutations": 200})
    assert origin.status_code == 200 and origin.context["comparison"].result is None  # ORIGIN: the Movies topic P002 alone
    assert "Not compared: fewer than two topics that every run has with a GF_ORIGIN score." in origin.content.decode()


def test_the_run_and_topic_pickers_are_fieldsets_whose_legend_comes_before_their_first_box(organiser, campaign):
    import re

    html = organiser.get(url(campaign)).content.decode()
    for name, legend in (("runs", "Runs"), ("topics", "Topics")):
        block = re.search(rf'data-field="{name}">(.*?)</fieldset>', html, re.S).group(1)
        assert block.lstrip().startswith(f"<fieldset><legend>{legend}</legend>"), block[:200]
        assert block.index("<legend>") < block.index('type="checkbox"')
