"""An organiser settles two annotators' disagreements one by one in the browser: by keyboard
(j/k/n to move, h/l to take left/right, u to undo) and by mouse, seeing each choice's effect."""

import re

import pytest
from playwright.sync_api import expect

from annotator.judgments import adjudication, edits
from annotator.models import AdjudicationDecision, Conversation, TurnLabel
from tests.console.demo import build_demo

pytestmark = pytest.mark.django_db(transaction=True)


def doubled_with_a_label_disagreement():
    campaign, _organiser, (ann, bob) = build_demo(n_topics=1)
    conversation = next(c for c in Conversation.objects.filter(topic__campaign=campaign) if c.assignments.count() == 2)
    label = TurnLabel.objects.get(turn__conversation=conversation, turn__number=1, annotator=bob)
    edits.set_turn_label(label.turn, annotator=bob, actor=bob, label="x" if label.label == "o" else "o",
                         expected_version=label.version)
    return conversation


def test_an_organiser_settles_disagreements_by_keyboard_and_undoes_one(page, live_server, login):
    conversation = doubled_with_a_label_disagreement()
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/adjudicate/{conversation.pk}/")
    rows = page.locator("tr.disagreement")
    count = rows.count()
    assert count >= 2
    expect(rows.first.locator("td.effects")).to_contain_text("run mean GFRC")
    page.keyboard.press("j")
    expect(rows.first).to_have_class(re.compile(r"\bselected\b"))
    page.keyboard.press("l")  # take the right annotator's value
    expect(page.locator(".messages")).to_contain_text("Gold: ")
    assert AdjudicationDecision.objects.count() == 1
    first = AdjudicationDecision.objects.get()
    assert first.taken_from.username == "bob"
    # the next open disagreement is selected: take the left one's with the arrow key
    expect(page.locator("tr.disagreement.selected")).to_have_count(1)
    selected_unit = page.locator("tr.disagreement.selected").get_attribute("data-unit")
    assert selected_unit != first.unit
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".messages")).to_contain_text("(from ann)")
    assert AdjudicationDecision.objects.count() == 2
    page.keyboard.press("u")
    expect(page.locator(".messages")).to_contain_text("Undid: ")
    assert AdjudicationDecision.objects.count() == 1
    assert page.locator("tr.disagreement.selected").get_attribute("data-unit") == selected_unit
    conversation.refresh_from_db()
    assert conversation.gold_annotator == adjudication.gold_account()
    page.keyboard.press("?")
    expect(page.locator("#keys-help")).to_have_attribute("open", "")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path="test-results/adjudication-1280.png", full_page=True)


def test_an_organiser_writes_a_gold_label_with_the_mouse(page, live_server, login):
    conversation = doubled_with_a_label_disagreement()
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/adjudicate/{conversation.pk}/")
    row = page.locator("tr.disagreement", has_text="label of S1")
    row.get_by_placeholder("o, x or -").fill("-")
    row.get_by_role("button", name="Set").click()
    expect(page.locator(".messages")).to_contain_text("label of S1")
    expect(page.locator("tr.disagreement", has_text="label of S1")).to_contain_text("settled")
    gold = adjudication.gold_account()
    assert TurnLabel.objects.get(turn__conversation=conversation, turn__number=1, annotator=gold).label == "-"
    # and the other side with a click
    span = page.locator("tr.disagreement").first
    span.locator("button.take-left").click()
    expect(page.locator(".messages")).to_contain_text("(from ann)")
