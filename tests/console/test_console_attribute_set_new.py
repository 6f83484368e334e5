import pytest
from django.urls import reverse

from annotator.models import AttributeSet
from annotator.scores.campaign_tables import score_table
from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    topic_type = campaign.topic_types.get()
    return reverse("console:attribute_set_new", kwargs={"slug": campaign.slug, "topic_type": topic_type.pk})


def test_only_the_campaigns_organiser_adds_an_attribute_set(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))
    data = {"name": "GENDER", "kind": "nominal", "divergence": "jsd", "weight": 1, "position": 2,
            "groups_text": "female, male, other", "helper_kind": "none"}
    assert_only_the_organiser_gets_in(client_as, url(campaign), "post", data)
    assert not AttributeSet.objects.filter(name="GENDER").exists()


def test_the_new_attribute_set_page_shows_an_empty_form(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200 and "New attribute set" in response.content.decode()


def test_an_organiser_adds_an_attribute_set_to_a_topic_type(organiser, campaign):
    topic_type = campaign.topic_types.get()
    response = organiser.post(url(campaign), {
        "name": "GENDER", "kind": "nominal", "divergence": "jsd", "weight": 1, "position": 2,
        "groups_text": "female, male, other", "target_text": "", "helper_kind": "none",
    })
    assert response.status_code == 302
    gender = AttributeSet.objects.get(topic_type=topic_type, name="GENDER")
    assert gender.target == pytest.approx([1 / 3] * 3)
    assert "GF_GENDER" in score_table(campaign).columns


def test_a_duplicate_attribute_set_name_is_refused(organiser, campaign):
    response = organiser.post(url(campaign), {
        "name": "ORIGIN", "kind": "nominal", "divergence": "jsd", "weight": 1, "position": 2,
        "groups_text": "a, b", "helper_kind": "none",
    })
    assert "already has" in str(response.context["form"].errors["name"])


@pytest.mark.parametrize(("name", "reason"), [("a/b", "is not a letter"), ("2x", "is not a letter"),
                                               ("SPAN", "reserved"), ("GEN DER", "whitespace")])
def test_a_name_the_exports_cannot_write_is_refused(organiser, campaign, name, reason):
    response = organiser.post(url(campaign), {
        "name": name, "kind": "nominal", "divergence": "jsd", "weight": 1, "position": 2,
        "groups_text": "female, male, other", "target_text": "", "helper_kind": "none",
    })
    assert response.status_code != 302
    assert reason in str(response.context["form"].errors["name"])
    assert not AttributeSet.objects.filter(name=name).exists()
