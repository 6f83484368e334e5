from django.urls import reverse

from annotator.models import Campaign, Grade
from annotator.scores.campaign_tables import score_table
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.helpers import settings_post


def url(campaign):
    return reverse("console:settings", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_reaches_the_settings(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))
    assert_only_the_organiser_gets_in(client_as, url(campaign), "post", settings_post(campaign, patience=10))
    campaign.refresh_from_db()
    assert campaign.patience == 1250


def test_the_settings_page_shows_the_form_grades_and_attribute_sets(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200
    content = response.content.decode()
    assert 'name="patience"' in content and 'name="grades-0-gain"' in content
    assert "ORIGIN" in content and "RATINGS" in content


def test_changing_L_is_saved_and_every_score_follows_it_at_once(organiser, campaign):
    before = score_table(campaign)["R"].mean()
    response = organiser.post(url(campaign), settings_post(campaign, patience=300))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.patience == 300 and campaign.version == 2
    assert score_table(campaign)["R"].mean() > before


def test_changing_a_grades_gain_changes_R(organiser, campaign):
    before = score_table(campaign)["R"].mean()
    organiser.post(url(campaign), settings_post(campaign, grades={"L1": 1.0}))
    assert Grade.objects.get(campaign=campaign, label="L1").gain == 1.0
    assert score_table(campaign)["R"].mean() > before


def test_a_stale_form_is_refused_with_a_clear_message_and_overwrites_nothing(organiser, campaign):
    stale = settings_post(campaign, patience=500)
    organiser.post(url(campaign), settings_post(campaign, alpha=0.2))  # someone else saves first
    response = organiser.post(url(campaign), stale, follow=True)
    campaign.refresh_from_db()
    assert campaign.patience == 1250 and campaign.alpha == 0.2
    assert "Someone else saved these settings" in response.content.decode()


def test_an_alpha_outside_zero_to_one_is_refused_beside_the_field(organiser, campaign):
    response = organiser.post(url(campaign), settings_post(campaign, alpha=1.5))
    assert response.status_code == 200
    assert "alpha" in response.context["form"].errors
    assert Campaign.objects.get(pk=campaign.pk).alpha == 0.5


def test_a_zero_patience_is_refused(organiser, campaign):
    response = organiser.post(url(campaign), settings_post(campaign, patience=0))
    assert "patience" in response.context["form"].errors


def test_a_gain_above_one_is_refused_and_nothing_is_saved(organiser, campaign):
    response = organiser.post(url(campaign), settings_post(campaign, grades={"L2": 2}, patience=99))
    assert response.status_code == 200
    assert not response.context["grades"].is_valid()
    campaign.refresh_from_db()
    assert campaign.patience == 1250


def test_refusing_nuggets_without_memberships_is_a_setting_of_the_page(organiser, campaign):
    assert 'name="missing_membership"' in organiser.get(url(campaign)).content.decode()
    organiser.post(url(campaign), settings_post(campaign, missing_membership="refuse"))
    campaign.refresh_from_db()
    assert campaign.missing_membership == "refuse"


def test_switching_to_cumulative_and_uniform_empty_turns_is_saved(organiser, campaign):
    organiser.post(url(campaign), settings_post(campaign, method="cumulative", empty_turns="uniform", turn_weight="max_pw"))
    campaign.refresh_from_db()
    assert (campaign.method, campaign.empty_turns, campaign.turn_weight) == ("cumulative", "uniform", "max_pw")


def test_unticking_duplicates_count_once_turns_the_rule_off(organiser, campaign):
    data = settings_post(campaign)
    data.pop("duplicates_count_once")
    organiser.post(url(campaign), data)
    campaign.refresh_from_db()
    assert campaign.duplicates_count_once is False


def test_ranked_list_gains_and_cutoff_are_settings_the_ranked_list_scores_follow(organiser, campaign):
    from annotator.scores.ranked_lists import score_ranked_lists
    from tests.console.helpers import add_ranked_list_runs

    add_ranked_list_runs(campaign)
    before = score_ranked_lists(campaign).table["ERR"].tolist()
    data = settings_post(campaign, ranked_list_cutoff=3)
    data.update({f"grades-{i}-ranked_list_gain": gain for i, gain in enumerate([0, 1, 7])})
    response = organiser.post(url(campaign), data)
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.ranked_list_cutoff == 3
    assert dict(Grade.objects.filter(campaign=campaign).values_list("label", "ranked_list_gain")) == {"L0": 0, "L1": 1, "L2": 7}
    assert score_ranked_lists(campaign).table["ERR"].tolist() != before


def test_a_new_grade_left_without_a_ranked_list_gain_needs_one_unless_fairweb_has_it(organiser, campaign):
    data = settings_post(campaign)
    data.update({"grades-3-label": "L3", "grades-3-level": 3, "grades-3-gain": 1})
    response = organiser.post(url(campaign), data)
    assert response.status_code == 200
    assert "Give the ranked-list gain of L3" in response.content.decode()


def test_every_grade_input_has_a_name_saying_its_grade_and_column(organiser, campaign):
    import re

    html = organiser.get(url(campaign)).content.decode()
    inputs = re.findall(r'<input[^>]*name="grades-\d+-(?:label|level|gain|ranked_list_gain)"[^>]*>', html)
    assert len(inputs) == 4 * (Grade.objects.filter(campaign=campaign).count() + 1)
    names = [re.search(r'aria-label="([^"]*)"', tag).group(1) for tag in inputs]
    assert "Gain g of L1" in names and "Label of the new grade" in names
    assert len(set(names)) == len(names)
