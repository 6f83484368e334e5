"""The campaign's guidelines in the console: Markdown, a note per topic type, every change a new
version (who, when, the text) that annotators read beside the conversation and on their queue."""

from __future__ import annotations

from django.urls import reverse

from annotator.models import Guidelines
from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign) -> str:
    return reverse("console:guidelines", args=[campaign.slug])


def test_only_the_campaigns_organisers_write_the_guidelines(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))
    assert_only_the_organiser_gets_in(client_as, url(campaign), method="post", data={"text": "x"})
    assert not Guidelines.objects.exists()


def test_each_change_is_a_new_version_with_who_and_when_and_an_unchanged_save_is_none(organiser, campaign):
    organiser.post(url(campaign), {"text": "# Grading\n\nL2: **highly relevant**.", "note_M": "Movies need IMDb."})
    organiser.post(url(campaign), {"text": "# Grading\n\nL2: **highly relevant**.", "note_M": "Movies need IMDb."})
    response = organiser.post(url(campaign), {"text": "# Grading\n\nL2: very relevant.", "note_M": ""}, follow=True)
    versions = list(Guidelines.objects.filter(campaign=campaign).order_by("version"))
    assert [(v.version, v.author.username) for v in versions] == [(1, "org"), (2, "org")]
    assert versions[0].notes == {"M": "Movies need IMDb."} and versions[1].notes == {}
    assert "Version 2 of the guidelines is in force." in response.content.decode()
    earlier = organiser.get(url(campaign), {"version": 1}).content.decode()
    assert "<strong>highly relevant</strong>" in earlier and "Movies need IMDb." in earlier


def test_the_markdown_is_shown_clean_html_and_links_are_http_only(organiser, campaign):
    organiser.post(url(campaign), {"text": "<img src=x onerror=alert(1)> [ok](https://example.org) [no](javascript:alert(1))"})
    html = organiser.get(url(campaign)).content.decode()
    assert 'href="https://example.org"' in html and 'rel="noopener noreferrer nofollow"' in html
    assert "<img" not in html and 'href="javascript' not in html


def test_annotators_read_the_guidelines_on_their_queue(organiser, campaign, client_as):
    organiser.post(url(campaign), {"text": "Read **every** turn.", "note_M": "Movies: the IMDb page."})
    queue = client_as("annotator").get(reverse("queue")).content.decode()
    assert "Guidelines of FairWeb pilot (demo)" in queue and "<strong>every</strong>" in queue
    assert "Topics of type M" in queue and "Movies: the IMDb page." in queue
