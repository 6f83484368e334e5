"""A harvested conversation in a real browser: the gold annotator accepts the spans the system
cited with the keyboard alone, grades them, and the live panel's R moves as the database says."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotator.models import Nugget
from tests.browser.test_workspace_flow import expect_panel_matches_the_database
from tests.workspace.conftest import GROUNDING, build_harvest

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_gold_annotator_accepts_the_cited_suggestions_with_the_keyboard_and_the_score_moves(page, live_server, login):
    conversation, gold = build_harvest("gold")
    page.set_viewport_size({"width": 1500, "height": 1000})
    login("gold", "gold-pw")
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/")
    page.wait_for_load_state("networkidle")
    expect(page.locator(".line.candidate.citation")).to_have_count(2)
    expect(page.locator(".cited-by").first).to_contain_text("cited by the system: Volver (2006) - IMDb")
    expect(page.locator(".cited-by .redirect")).to_have_text("Google grounding redirect, not resolved offline")
    expect(page.locator("#score-panel [data-score=R]")).to_have_text("0.0000")

    for _ in range(40):  # Tab until the text has the focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('w')"):
            break
    assert page.evaluate("document.activeElement.classList.contains('w')")

    page.keyboard.press("a")  # Volver: S2 words 12-17, the 30th word of the conversation
    expect(page.locator("#turns a.wc", has_text="WC 30")).to_be_visible()
    expect(page.locator(".line.candidate.citation")).to_have_count(1)
    page.keyboard.press("2")
    expect(page.locator("#grade-2")).to_have_attribute("aria-pressed", "true")
    after_one = expect_panel_matches_the_database(page, conversation, gold)
    assert after_one.R > 0

    page.keyboard.press("a")  # Cléo, cited through a Google grounding link
    expect(page.locator("#turns a.wc", has_text="WC 42")).to_be_visible()
    page.keyboard.press("1")
    expect(page.locator("#grade-1")).to_have_attribute("aria-pressed", "true")
    after_two = expect_panel_matches_the_database(page, conversation, gold)
    assert after_two.R > after_one.R
    expect(page.locator(".line.candidate")).to_have_count(0)

    accepted = Nugget.objects.filter(annotator=gold).order_by("start_word").values_list("start_word", "end_word", "entity__key")
    assert list(accepted) == [(12, 17, "https://imdb.com/title/tt0441909"), (19, 29, GROUNDING)]
