"""The worst cases page: per run minimum, 10th percentile and mean; lowest conversations and turns."""

from django.urls import reverse

from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:worst", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_the_worst_cases(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_worst_cases_of_the_chosen_measure_link_each_conversation_read_only(organiser, campaign):
    response = organiser.get(url(campaign), {"measure": "GF"})
    assert response.status_code == 200
    worst = response.context["worst"]
    assert worst.measure == "GF" and [r["run"] for r in worst.runs] == ["bard-trial1", "bing-trial1", "chatgpt-trial1"]
    assert all(r["min"] <= r["p10"] <= r["mean"] for r in worst.runs)
    values = [c["value"] for c in worst.conversations]
    assert values == sorted(values)
    html = response.content.decode()
    first = reverse("console:conversations", kwargs={"slug": campaign.slug, "ids": worst.conversations[0]["conversation"]})
    assert first in html and set(worst.turns) == {"ORIGIN", "RATINGS"}
    assert 'data-attribute-set="RATINGS"' in html


def test_an_unknown_measure_is_refused(organiser, campaign):
    assert organiser.get(url(campaign), {"measure": "GF_NOPE"}).status_code == 400


def test_a_conversation_that_branches_shows_its_worst_path_by_the_chosen_measure(organiser, campaign, demo):
    import pytest

    from tests.console.conftest import import_a_tree_and_its_paths

    topic, paths = import_a_tree_and_its_paths(campaign, demo[1])
    assert paths["patha-trial1"].GFRC != paths["pathb-trial1"].GFRC
    for measure in ("R", "GF_RATINGS", "GFRC"):  # the paths differ in R and GFRC, tie in GF_RATINGS
        a, b = (paths[run].R if measure == "R" else paths[run].GFRC if measure == "GFRC" else paths[run].GF_m["RATINGS"]
                for run in ("patha-trial1", "pathb-trial1"))
        response = organiser.get(url(campaign), {"measure": measure})
        (branch,) = response.context["worst_paths"]
        assert (branch.topic, branch.run, branch.paths, branch.measure) == (topic, "tree-trial1", 2, measure)
        assert (branch.lowest, branch.highest) == (min(a, b), max(a, b))
        assert branch.expected == pytest.approx(0.7 * a + 0.3 * b, abs=1e-12)
        worst = {"u1>a>u2a>s2a"} if a < b else {"u1>b>u2b>s2b"} if b < a else {"u1>a>u2a>s2a", "u1>b>u2b>s2b"}
        assert branch.worst_path in worst
        html = response.content.decode()
        assert 'id="worst-paths"' in html and branch.worst_path.replace(">", "&gt;") in html


def test_a_campaign_whose_conversations_are_all_linear_shows_no_worst_paths(organiser, campaign):
    response = organiser.get(url(campaign), {"measure": "GFRC"})
    assert response.context["worst_paths"] == [] and 'id="worst-paths"' not in response.content.decode()


def _worst_both_ways(campaign, lowest):
    from annotator.evaluation.run_comparison import worst_cases
    from annotator.scores.campaign_tables import score_tables, worst_tables

    every_turn = worst_cases(score_tables(campaign), "GFRC", lowest)
    candidates = worst_tables(campaign, lowest)
    return every_turn, worst_cases(candidates, "GFRC", lowest), candidates


def test_the_lowest_turns_found_from_the_stored_lowest_distr_sim_are_those_of_every_turn_rescored(campaign):
    for lowest in (1, 2, 3, 10, 1000):
        every_turn, found, candidates = _worst_both_ways(campaign, lowest)
        assert found == every_turn
    assert set(candidates.system_turns["attribute_set"]) == {"ORIGIN", "RATINGS"}


def test_ties_between_identical_conversations_keep_the_pages_order_and_old_rows_are_rescored(db):
    """Eight runs of one conversation: every turn ties with seven others, broken by run."""
    from pathlib import Path

    from annotator.interchange.imports.conversations import import_files
    from annotator.models import StoredFigures
    from tests.factories import make_campaign, make_user

    example = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "M002-bing-trial1.txt"
    gold = make_user("gold")
    campaign = make_campaign(organiser=make_user("organiser"))
    for run in ("bing-trial1", "bard-trial1", "chat-trial1", "bing-trial2", "bard-trial2", "chat-trial2"):
        assert import_files(campaign, [(f"M002-{run}.txt", example.read_bytes())], annotator=gold).ok
    for lowest in (1, 2, 3, 5, 10):
        every_turn, found, candidates = _worst_both_ways(campaign, lowest)
        assert found == every_turn
        assert found.turns and all(len(turns) == min(lowest, len(every_turn.turns[name]))
                                   for name, turns in found.turns.items())
        if lowest < 6:
            assert candidates.system_turns["conversation"].nunique() == lowest, "the others are not re-scored"
    # rows stored before the lowest DistrSim was kept are re-scored as before
    StoredFigures.objects.filter(campaign=campaign).update(lowest_distr_sim=None)
    every_turn, found, candidates = _worst_both_ways(campaign, 2)
    assert found == every_turn and candidates.system_turns["conversation"].nunique() == 6
