"""A link is made only for an http(s) URL, by one rule (annotator.rules.links) used by every
template and HTML builder; anything else is shown as text.

The probe of issue 39: a JSONL upload "as" the automatic judge `citations`, an entity key
`javascript:...`, shown to the conversation's annotator as `cited by the system: <a
href="javascript:...">`. Here every place an entity key reaches a page holds such keys (the
systems' citations, a judge's proposals, the annotator's own entity) and every page of the site
is read, as the annotator and as the organiser: no href is anything but a page of the site or an
http(s) URL."""

from __future__ import annotations

import html
import re

import pytest

from annotator.models import AnnotatorProfile, Assignment, Campaign, Entity, Nugget, Turn
from annotator.rules.links import http_url, link_html
from tests.factories import make_user
from tests.security.conftest import all_urls

pytestmark = pytest.mark.django_db

EVIL_KEYS = ["javascript:alert(document.cookie)", "JaVaScRiPt:alert(1)", "data:text/html,<script>alert(1)</script>",
             "vbscript:msgbox(1)", "java\tscript:alert(1)", "//evil.example/x", "http:evil", " javascript:alert(1)"]
HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


@pytest.mark.parametrize("key", EVIL_KEYS + ["", None, "name:primer (2004)", "ftp://x/y", "https://", "http://[::1"])
def test_nothing_but_an_http_url_with_a_host_is_a_link_target(key):
    assert http_url(key) is None
    assert "<a " not in link_html(key, "Primer")


@pytest.mark.parametrize("url", ["https://www.imdb.com/title/tt0088763/", "http://127.0.0.1:8000/x?a=1&b=2", "HTTPS://EXAMPLE.ORG"])
def test_an_http_url_is_a_link_that_opens_elsewhere_without_referrer_or_opener(url):
    made = link_html(url, "<b>Primer</b>")
    assert made.startswith(f'<a href="{html.escape(url)}" target="_blank" rel="noopener noreferrer nofollow"')
    assert "&lt;b&gt;Primer&lt;/b&gt;" in made


@pytest.fixture
def keyed(site):
    """The systems' citations, a judge's proposals and alice's own entity, all keyed javascript:."""
    turn, topic = site.turn, site.conversation.topic
    # one line each: alice's nugget, a cited span, a judge's proposal (a line shows one suggestion)
    lines = [turn.text, "Primer (2004) is harder.", "Tenet (2020) is louder."]
    Turn.objects.filter(pk=turn.pk).update(text="\n".join(lines))
    citations = make_user("citations")
    AnnotatorProfile.mark(citations)
    judge = make_user("their-pipeline")
    AnnotatorProfile.mark(judge, campaign=site.campaign)
    Campaign.objects.filter(pk=site.campaign.pk).update(proposals_from=judge)
    first = len(lines[0].split())
    for start, (who, key) in [(first, (citations, EVIL_KEYS[0])), (first + 4, (judge, EVIL_KEYS[2]))]:
        Assignment.objects.create(conversation=site.conversation, annotator=who)
        entity = Entity.objects.create(topic=topic, annotator=who, key=key, name="Back to the Future")
        Nugget.objects.create(turn=turn, annotator=who, entity=entity, start_word=start, end_word=start + 1)
    Entity.objects.filter(pk=site.nugget.entity_id).update(key=EVIL_KEYS[1])  # alice's own (the entity editor)
    return site


def hrefs_not_http_or_the_sites(body: str) -> list[str]:
    found = []
    for match in HREF.finditer(body):
        value = html.unescape(match.group(1) if match.group(1) is not None else match.group(2)).strip()
        if value and not (value.startswith(("/", "?", "#")) and not value.startswith("//")) and http_url(value) is None:
            found.append(value)
    return found


def check_every_page(client, ids) -> list[str]:
    client.raise_request_exception = False
    problems = []
    for name, url in all_urls(ids):
        if name.startswith("admin:") or name == "logout":
            continue
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = client.get(url, **headers)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            body = b"".join(response).decode(errors="replace") if response.streaming else response.content.decode(errors="replace")
            problems += [f"{url} ({name}): href={bad!r}" for bad in hrefs_not_http_or_the_sites(body)]
    return problems


def test_the_annotator_sees_the_cited_and_proposed_keys_as_text_never_as_links(client, keyed):
    client.force_login(keyed.alice)
    page = client.get(f"/conversations/{keyed.conversation.pk}/?nugget={keyed.nugget.pk}").content.decode()
    assert "cited by the system" in page and "proposed by their-pipeline" in page  # they are there, inert
    assert not hrefs_not_http_or_the_sites(page)
    problems = check_every_page(client, keyed.ids_for("alice"))
    assert not problems, "\n".join(problems)


def test_the_organiser_sees_no_link_that_is_not_http_on_any_page(client, keyed):
    client.force_login(keyed.organiser)
    problems = check_every_page(client, keyed.ids_for("alice"))
    assert not problems, "\n".join(problems)
