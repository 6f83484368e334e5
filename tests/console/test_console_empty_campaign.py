"""A campaign just created (no topics, no conversations): every console page still renders."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_campaign, make_user

PAGES = ["overview", "settings", "upload", "assign", "progress", "grid", "agreement", "report", "report_csv", "exports"]


@pytest.fixture
def empty(db):
    organiser = make_user("solo")
    campaign = make_campaign("empty", organiser=organiser)
    client = Client()
    client.force_login(organiser)
    return client, campaign


@pytest.mark.parametrize("page", PAGES)
def test_every_console_page_renders_for_a_campaign_without_conversations(empty, page):
    client, campaign = empty
    assert client.get(reverse(f"console:{page}", kwargs={"slug": campaign.slug})).status_code == 200


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_the_plot_of_an_empty_campaign_says_so(empty, fmt):
    client, campaign = empty
    response = client.get(reverse("console:plot", kwargs={"slug": campaign.slug, "fmt": fmt}))
    assert response.status_code == 200
    if fmt == "svg":
        assert "no conversations yet" in response.content.decode()
