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
