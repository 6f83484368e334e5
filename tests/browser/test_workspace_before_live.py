"""Controls on screen before htmx has made the page live act as htmx controls: clicks on a grade
and on a turn's label, made while htmx is still loading, are held and then sent through htmx in
the order made once the page is live. Nothing is posted natively (no page round trip)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotator.models import Entity, Nugget, TurnLabel
from tests.factories import make_campaign
from tests.workspace.conftest import build_paper

pytestmark = pytest.mark.django_db(transaction=True)


def test_clicks_on_controls_before_the_page_is_live_are_sent_by_htmx_in_order(page, live_server, login):
    conversation, annotator, _ = build_paper(annotated=True, username="early", campaign=make_campaign(slug="early"))
    nugget = Nugget.objects.filter(annotator=annotator).select_related("entity__grade").order_by("turn__position", "start_word").first()
    assert nugget.entity.grade.level == 2
    s1 = conversation.turns.get(position=2)
    login("early", "early-pw")

    held = []  # htmx itself is held back: the page shows its controls, and none is live yet
    page.route("**/htmx-2.0.11.min*.js", lambda route: held.append(route))
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/?nugget={nugget.pk}", wait_until="commit")
    expect(page.locator("#grade-1")).to_be_visible()
    page.evaluate("window.sameDocument = true")
    page.locator("#grade-1").click()
    page.locator(f"#label-{s1.pk}-x").click()
    assert page.evaluate("typeof window.htmx") == "undefined"
    assert len(held) == 1
    # nothing went to the server natively: no grade, no label, the same document
    assert Entity.objects.get(pk=nugget.entity_id).grade.level == 2
    assert not TurnLabel.objects.filter(annotator=annotator).exists()

    held[0].continue_()
    expect(page.locator("#grade-1")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(f"#label-{s1.pk}-x")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#workspace")).to_have_attribute("aria-busy", "false")
    assert page.evaluate("window.sameDocument") is True
    assert Entity.objects.get(pk=nugget.entity_id).grade.level == 1
    assert list(TurnLabel.objects.filter(annotator=annotator).values_list("turn_id", "label")) == [(s1.pk, "x")]
    expect(page.locator(f"#badge-{nugget.pk}")).to_have_text("WC 35 · L1")


def test_without_htmx_the_controls_post_as_plain_forms(page, live_server, login):
    conversation, annotator, _ = build_paper(annotated=True, username="nohtmx", campaign=make_campaign(slug="nohtmx"))
    nugget = Nugget.objects.filter(annotator=annotator).order_by("turn__position", "start_word").first()
    login("nohtmx", "nohtmx-pw")
    page.route("**/htmx-2.0.11.min*.js", lambda route: route.abort())
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/?nugget={nugget.pk}")
    page.wait_for_load_state("load")
    assert page.evaluate("typeof window.htmx") == "undefined"
    page.locator("#grade-1").click()  # not held for ever: a native POST, then the page again
    expect(page.locator("#grade-1")).to_have_attribute("aria-pressed", "true")
    assert Entity.objects.get(pk=nugget.entity_id).grade.level == 1
