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
    expect(rows.first).to_have_class(re.compile(r"\bselected\b"))  # on load: the keys work at once
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
    span.locator("button.take[data-side=\"1\"]").click()
    expect(page.locator(".messages")).to_contain_text("(from ann)")


def test_an_organiser_takes_the_third_annotators_values_by_number_and_by_aiming(page, live_server, login):
    from annotator.models import Entity
    from tests.judgments.three_annotators import three_annotators

    case = three_annotators()
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/adjudicate/{case.conversation.pk}/")
    rows = page.locator("tr.disagreement")
    expect(rows.first).to_contain_text("majority: L2 (carol differs)")
    # selected on load, no j needed: the grade of Interstellar, carol's L1 by her number
    expect(rows.first).to_have_class(re.compile(r"\bselected\b"))
    page.keyboard.press("3")
    expect(page.locator(".messages")).to_contain_text("(from carol)")
    gold = adjudication.gold_account()
    assert Entity.objects.get(annotator=gold, key__contains="tt0816692").grade.label == "L1"
    label = page.locator("tr.disagreement", has_text="label of S1")
    while "selected" not in (label.get_attribute("class") or ""):
        page.keyboard.press("j")
    for _ in range(3):  # ann, bob, carol
        page.keyboard.press("l")
    expect(label.locator("button.take.aimed")).to_have_attribute("data-side", "3")
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text("label of S1 o -> x (from carol)")
    assert TurnLabel.objects.get(turn__conversation=case.conversation, annotator=gold).label == "x"
    page.keyboard.press("?")
    expect(page.locator("#keys-help")).to_contain_text("take the majority's value")


def test_keys_typed_while_the_answering_page_loads_or_before_it_comes_are_applied_there_in_order(page, live_server, login):
    conversation = doubled_with_a_label_disagreement()
    held, holding = [], {"on": False}  # the page's key script held back: the page is shown, its script not yet run

    def hold_the_script(route):
        if holding["on"] and not held:
            held.append(route)
        else:
            route.continue_()

    page.route(re.compile(r".*/js/adjudicate[^/]*\.js$"), hold_the_script)
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/{conversation.topic.campaign.slug}/adjudicate/{conversation.pk}/")
    expect(page.locator("tr.disagreement.selected")).to_have_count(1)
    holding["on"] = True
    page.keyboard.press("l")  # a decision: the page that answers it comes without its script for now
    expect(page.locator(".messages")).to_contain_text("Gold: ")
    assert AdjudicationDecision.objects.count() == 1
    page.keyboard.press("u")  # the page is shown, its key script not yet run
    page.wait_for_timeout(300)
    assert AdjudicationDecision.objects.count() == 1 and held
    held.pop().continue_()  # the script runs: the key typed before it is applied
    expect(page.locator(".messages")).to_contain_text("Undid: ")
    assert AdjudicationDecision.objects.count() == 0

    holding["on"] = False
    page.keyboard.press("l")  # a decision, and at once an undo, typed before the answer comes
    page.keyboard.press("u")
    expect(page.locator(".messages")).to_contain_text("Undid: ")
    assert AdjudicationDecision.objects.count() == 0
