import pytest
from django.urls import reverse

from annotator.models import AttributeSet
from annotator.scores.campaign_tables import score_table
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.helpers import attribute_set_post
from tests.factories import FAIRWEB_ORIGIN_TARGET


@pytest.fixture
def ratings(campaign):
    return AttributeSet.objects.get(topic_type__campaign=campaign, name="RATINGS")


@pytest.fixture
def origin(campaign):
    return AttributeSet.objects.get(topic_type__campaign=campaign, name="ORIGIN")


def url(attribute_set):
    return reverse("console:attribute_set", kwargs={"slug": attribute_set.topic_type.campaign.slug, "pk": attribute_set.pk})


def test_only_the_campaigns_organiser_edits_an_attribute_set(client_as, ratings):
    assert_only_the_organiser_gets_in(client_as, url(ratings))
    assert_only_the_organiser_gets_in(client_as, url(ratings), "post", attribute_set_post(ratings, weight=5))
    ratings.refresh_from_db()
    assert ratings.weight == 1.0


def test_the_page_shows_groups_target_and_helper_fields(organiser, ratings):
    content = organiser.get(url(ratings)).content.decode()
    assert "10K-1M" in content and "(1/4,1/4,1/4,1/4)" in content and 'name="derive_target"' in content


def test_a_new_target_is_saved_and_GF_follows_it(organiser, campaign, ratings):
    before = score_table(campaign)["GF_RATINGS"].mean()
    response = organiser.post(url(ratings), attribute_set_post(ratings, target_text="(0, 0, 1/2, 1/2)"))
    assert response.status_code == 302
    ratings.refresh_from_db()
    assert ratings.target == [0, 0, 0.5, 0.5] and ratings.version == 2
    assert score_table(campaign)["GF_RATINGS"].mean() != pytest.approx(before)


def test_a_target_summing_to_1_within_1e_5_is_saved_as_given_and_scored(organiser, campaign, ratings):
    response = organiser.post(url(ratings), attribute_set_post(ratings, target_text="(0.249999, 0.249999, 0.249999, 0.25)"))
    assert response.status_code == 302
    ratings.refresh_from_db()
    assert ratings.target == [0.249999, 0.249999, 0.249999, 0.25]
    assert 0 <= score_table(campaign)["GF_RATINGS"].mean() <= 1  # the conversation side takes it as given too


def test_a_target_that_does_not_sum_to_one_is_refused(organiser, ratings):
    response = organiser.post(url(ratings), attribute_set_post(ratings, target_text="(0.1, 0.2, 0.3, 0.3)"))
    assert response.status_code == 200
    assert "sums to 0.9" in str(response.context["form"].errors["target_text"])


def test_a_target_of_the_wrong_length_is_refused(organiser, ratings):
    response = organiser.post(url(ratings), attribute_set_post(ratings, target_text="(1/2, 1/2)"))
    assert "expected 4" in str(response.context["form"].errors["target_text"])


def test_nominal_groups_must_use_JSD(organiser, origin):
    response = organiser.post(url(origin), attribute_set_post(origin, divergence="rnod"))
    assert response.context["form"].errors["divergence"] == ["Nominal groups have no order: use jsd."]


def test_the_number_of_groups_cannot_change_once_vectors_were_given(organiser, ratings):
    response = organiser.post(url(ratings), attribute_set_post(ratings, groups_text="low\nhigh", target_text="uniform"))
    assert response.context["form"].errors["groups_text"] == [
        "RATINGS has 4 groups and memberships judged against them: its number of groups cannot change to 2."]


def test_ordinal_bands_are_saved_as_the_membership_helper(organiser, ratings):
    organiser.post(url(ratings), attribute_set_post(ratings, helper_kind="bands", bands_text="100, 10000, 1000000"))
    ratings.refresh_from_db()
    assert ratings.helper == {"bands": [100.0, 10000.0, 1000000.0]}


def test_bands_must_be_one_fewer_than_the_groups_and_ascending(organiser, ratings):
    response = organiser.post(url(ratings), attribute_set_post(ratings, helper_kind="bands", bands_text="100, 10000"))
    assert "need 3 band limits" in str(response.context["form"].errors["bands_text"])
    response = organiser.post(url(ratings), attribute_set_post(ratings, helper_kind="bands", bands_text="100, 50, 1000"))
    assert response.context["form"].errors["bands_text"] == ["Must be strictly increasing."]


def test_the_origin_target_can_be_derived_from_the_country_mapping(organiser, origin):
    mapping = "Nigeria = Africa\nKenya = Africa\nUnited States = America\nTurkey = Europe, Middle East"
    organiser.post(url(origin), attribute_set_post(origin, helper_kind="mapping", mapping_text=mapping, derive_target="on"))
    origin.refresh_from_db()
    assert origin.helper["mapping"]["Turkey"] == ["Europe", "Middle East"]
    assert origin.target == pytest.approx([0.5, 0.25, 0, 0, 0, 0.125, 0.125, 0])


def test_deriving_a_target_needs_a_mapping(organiser, origin):
    response = organiser.post(url(origin), attribute_set_post(origin, derive_target="on"))
    assert response.context["form"].errors["derive_target"] == [
        "Deriving the target from the mapping needs a helper with a mapping."]
    origin.refresh_from_db()
    assert origin.target == FAIRWEB_ORIGIN_TARGET


def test_a_mapping_to_an_unknown_group_is_refused_naming_the_value_and_the_groups(organiser, origin):
    response = organiser.post(url(origin), attribute_set_post(origin, helper_kind="mapping", mapping_text="Japan = Narnia"))
    assert response.context["form"].errors["mapping_text"] == [
        "Japan: must be a group label (or a list of them): " + ", ".join(origin.groups) + "."]


def test_a_value_written_twice_in_the_mapping_is_refused_rather_than_the_later_line_kept(organiser, origin):
    mapping = "Japan = Asia\nJapan = Europe"
    response = organiser.post(url(origin), attribute_set_post(origin, helper_kind="mapping", mapping_text=mapping))
    assert response.context["form"].errors["mapping_text"] == [
        "Japan: the same value as 'Japan' (values match case-insensitively)."]
    origin.refresh_from_db()
    assert origin.version == 1


def test_a_stale_attribute_set_form_is_refused_and_overwrites_nothing(organiser, ratings):
    stale = attribute_set_post(ratings, weight=3)
    organiser.post(url(ratings), attribute_set_post(ratings, weight=2))
    response = organiser.post(url(ratings), stale, follow=True)
    ratings.refresh_from_db()
    assert ratings.weight == 2
    assert "Someone else saved" in response.content.decode()
