"""A conversation that branches, in a real browser: the page shows the branch the chat showed;
[ and ] switch to the sibling branch at the current turn, and the panel scores the path shown
beside the expectation over every path."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotator.scores.per_conversation import score_conversation
from tests.factories import make_branching_conversation, make_campaign, make_user, mark

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_annotator_reads_one_branch_at_a_time_and_switches_with_the_keys(page, live_server, login):
    annotator = make_user("annotator")
    conversation = make_branching_conversation(make_campaign(), annotator)
    mark(conversation, annotator, 2, 0, 1, "L2")
    mark(conversation, annotator, 3, 0, 1, "L1")
    expected = score_conversation(conversation, annotator)

    login("annotator", "annotator-pw")
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/")
    turns = page.locator("#turns")
    expect(turns).to_contain_text("Film Beta")
    expect(turns).not_to_contain_text("Film Alpha")
    expect(page.locator("nav.branches").first).to_contain_text("branch 2 of 2")
    expect(page.locator("#score-panel [data-expected=GFRC]")).to_have_text(f"{expected.GFRC:.4f}")

    page.locator("body").press("[")
    expect(turns).to_contain_text("Film Alpha")
    expect(turns).not_to_contain_text("Film Gamma")
    expect(page.locator("nav.branches").first).to_contain_text("branch 1 of 2")
    expect(page.locator("#score-panel [data-expected=GFRC]")).to_have_text(f"{expected.GFRC:.4f}")
    page.locator("body").press("[")
    expect(page.locator("#flash")).to_contain_text("No previous branch at S1")
    page.locator("body").press("]")
    expect(turns).to_contain_text("Film Beta")
