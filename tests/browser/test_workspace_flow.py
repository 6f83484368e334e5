"""The workspace in a real browser: an annotator re-creates nuggets of the paper's M002 Bing
conversation (its nuggets removed) with the mouse and with the keyboard only, and the live
panel shows the R and GF that annotator.scores.per_conversation computes from what was saved."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotator.models import AttributeSet, Conversation, Nugget, Topic, TurnLabel
from annotator.scores.per_conversation import score_conversation
from tests.workspace.conftest import build_paper, line_span

pytestmark = pytest.mark.django_db(transaction=True)


def demo_like(username: str = "annotator"):
    """The demo's M002 Bing conversation, assigned to `username`, with no judgments yet."""
    conversation, annotator, _ = build_paper(annotated=False, username=username)
    Topic.objects.filter(pk=conversation.topic_id).update(description="Sci-fi movies that feature time travel (IMDb).")
    AttributeSet.objects.filter(name="RATINGS").update(helper={"bands": [100, 10000, 1000000]})
    AttributeSet.objects.filter(name="ORIGIN").update(
        helper={"mapping": {"United States": "America", "United Kingdom": "Europe"}}
    )
    return conversation, annotator


def word(page, turn_id: int, index: int):
    return page.locator(f'#turn-{turn_id} .w[data-i="{index}"]')


def expect_panel_matches_the_database(page, conversation, annotator):
    conversation = Conversation.objects.select_related("topic__campaign").get(pk=conversation.pk)
    score = score_conversation(conversation, annotator)
    expect(page.locator("#score-panel [data-score=R]")).to_have_text(f"{score.R:.4f}")
    expect(page.locator("#score-panel [data-score=GF]")).to_have_text(f"{score.GF:.4f}")
    for name, value in score.GF_m.items():
        expect(page.locator(f"#score-panel [data-score=GF-{name}]")).to_have_text(f"{value:.4f}")
    return score


def test_an_annotator_marks_grades_and_labels_with_the_mouse_and_the_panel_follows(page, live_server, login):
    conversation, annotator = demo_like()
    s1, s2 = conversation.turns.get(position=2), conversation.turns.get(position=4)
    page.set_viewport_size({"width": 1500, "height": 1000})
    login("annotator", "annotator-pw")
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/")
    expect(page.locator("#score-panel [data-score=R]")).to_have_text("0.0000")
    # the server sends runs of text; every word becomes a span numbered as the server counts
    expect(page.locator("#turns .w")).to_have_count(123)
    expect(page.locator("#turns .lazy")).to_have_count(0)
    assert page.locator("#turns .w").evaluate_all("ws => ws.map(w => +w.dataset.p)") == list(range(1, 124))

    # 1. Back to the Future: drag from its first word to its URL
    _, start, end = line_span(conversation, 2, "Back to the Future")
    first, last = word(page, s1.pk, start), word(page, s1.pk, end)
    box_a, box_b = first.bounding_box(), last.bounding_box()
    page.mouse.move(box_a["x"] + 2, box_a["y"] + box_a["height"] / 2)
    page.mouse.down()
    page.mouse.move(box_b["x"] + box_b["width"] / 2, box_b["y"] + box_b["height"] / 2, steps=8)
    page.mouse.move(box_b["x"] + box_b["width"] - 2, box_b["y"] + box_b["height"] / 2)
    page.mouse.up()
    expect(page.locator("#turns a.wc", has_text="WC 35")).to_be_visible()
    expect(page.locator("#editor h2")).to_contain_text("WC 35")
    page.get_by_role("button", name="Grade L2").click()
    expect(page.locator("#grade-2")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="RATINGS: >=1M").click()
    expect(page.get_by_role("button", name="RATINGS: >=1M (now 100%)")).to_be_visible()
    page.get_by_role("button", name="ORIGIN: America").click()
    expect(page.get_by_role("button", name="ORIGIN: America (now 100%)")).to_be_visible()

    # 2. The Terminator: one click on its suggestion
    _, start, end = line_span(conversation, 2, "The Terminator")
    page.locator(f"#accept-{s1.pk}-{start}").click()
    expect(page.locator("#turns a.wc", has_text="WC 39")).to_be_visible()
    page.get_by_role("button", name="Grade L2").click()
    expect(page.locator("#grade-2")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="RATINGS: 10K-1M").click()
    expect(page.get_by_role("button", name="RATINGS: 10K-1M (now 100%)")).to_be_visible()
    origin = page.locator("#editor form.membership").nth(1)
    origin.get_by_label("Vector").fill("(0,1/2,0,0,0,1/2,0,0)")
    origin.get_by_label("Evidence").fill("United Kingdom,United States")
    origin.get_by_role("button", name="Save ORIGIN").click()
    expect(page.locator("#editor code.vec").nth(1)).to_have_text("(0,1/2,0,0,0,1/2,0,0)")

    # 3. Groundhog Day by click + shift-click, then taken back with the Undo button
    _, start, end = line_span(conversation, 2, "Groundhog Day")
    word(page, s1.pk, start).click()
    word(page, s1.pk, end).click(modifiers=["Shift"])
    expect(page.locator("#turns a.wc", has_text="WC 43")).to_be_visible()
    page.get_by_role("button", name="Undo the last change (u)").click()
    expect(page.locator("#turns a.wc", has_text="WC 43")).to_have_count(0)
    expect(page.locator("#flash")).to_contain_text("Undid: new nugget")
    page.locator(f"#badge-{Nugget.objects.get(turn=s1, start_word=line_span(conversation, 2, 'Terminator')[1]).pk}").click()
    expect(page.locator("#editor h2")).to_contain_text("WC 39")

    # a sum that is not 1 is shown and refused
    origin = page.locator("#editor form.membership").nth(1)
    page.wait_for_load_state("networkidle")  # the editor's swap has settled: typing goes to the final form
    origin.get_by_label("Vector").fill("(0,1/2,0,0,0,1/3,0,0)")
    expect(origin.locator(".vector-check")).to_contain_text("sums to 0.833333, not 1")  # live, while typing
    origin.get_by_role("button", name="Save ORIGIN").click()
    expect(page.locator("#editor")).to_contain_text("sums to 0.833333, not 1")

    # a selection in a user turn is refused with a message
    u2 = conversation.turns.get(position=3)
    word(page, u2.pk, 0).click()
    word(page, u2.pk, 2).click(modifiers=["Shift"])
    expect(page.locator("#flash")).to_contain_text("this is a user turn")

    # 4. labels
    page.locator(f"#label-{s1.pk}-o").click()
    expect(page.locator(f"#label-{s1.pk}-o")).to_have_attribute("aria-pressed", "true")
    page.locator(f"#label-{s2.pk}-o").click()
    expect(page.locator(f"#label-{s2.pk}-o")).to_have_attribute("aria-pressed", "true")

    page.wait_for_load_state("networkidle")
    assert Nugget.objects.filter(annotator=annotator).count() == 2
    score = expect_panel_matches_the_database(page, conversation, annotator)
    assert score.R > 0 and score.GF > 0

    # the tables the edits' answers built row by row are the tables a fresh page shows
    tables = page.locator("#score-panel .nugget-table").inner_text(), page.locator("#table-2").inner_text()
    assert page.locator("#score-panel .nugget-table tbody tr:visible").count() == 2
    # laid out as grid rows, Table 1 is still a table to assistive technology: a header row, then a row per nugget
    table_1 = page.get_by_role("table").filter(has=page.get_by_role("columnheader", name="pw×g"))
    expect(table_1.get_by_role("row")).to_have_count(3)
    expect(table_1.get_by_role("row").nth(1).get_by_role("cell")).to_have_count(6)

    # reload: everything was saved as it was made
    page.reload()
    assert (page.locator("#score-panel .nugget-table").inner_text(), page.locator("#table-2").inner_text()) == tables
    expect(page.locator("#turns a.wc", has_text="WC 35 · L2")).to_be_visible()
    expect(page.locator("#turns a.wc", has_text="WC 39 · L2")).to_be_visible()
    expect(page.locator(f"#label-{s1.pk}-o")).to_have_attribute("aria-pressed", "true")
    expect_panel_matches_the_database(page, conversation, annotator)
    assert set(TurnLabel.objects.filter(annotator=annotator).values_list("label", flat=True)) == {"o"}


def test_a_whole_conversation_can_be_annotated_with_the_keyboard_only(page, live_server, login):
    conversation, annotator = demo_like()
    s1, s2 = conversation.turns.get(position=2), conversation.turns.get(position=4)
    page.set_viewport_size({"width": 1500, "height": 1000})
    login("annotator", "annotator-pw")
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/")
    page.wait_for_load_state("networkidle")

    for _ in range(40):  # Tab until the text has the focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('w')"):
            break
    assert page.evaluate("document.activeElement.classList.contains('w')")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"  # focus is visible

    # accept the first suggestion, grade it, type both memberships
    page.keyboard.press("a")
    expect(page.locator("#turns a.wc", has_text="WC 35")).to_be_visible()
    page.keyboard.press("2")
    expect(page.locator("#grade-2")).to_have_attribute("aria-pressed", "true")
    # (a person sees where the focus is before typing text: so does the test)
    vectors = page.locator("#editor [data-membership-input]")
    page.keyboard.press("m")
    expect(vectors.first).to_be_focused()
    page.keyboard.type("(0,0,0,1)")
    page.keyboard.press("Enter")
    expect(page.locator("#editor code.vec").first).to_have_text("(0,0,0,1)")
    expect(vectors.first).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#turns .w:focus")).to_have_count(1)
    page.keyboard.press("m")
    expect(vectors.nth(1)).to_be_focused()
    page.keyboard.type("(0,1,0,0,0,0,0,0)")
    page.keyboard.press("Enter")
    expect(page.locator("#editor code.vec").nth(1)).to_have_text("(0,1,0,0,0,0,0,0)")
    expect(vectors.nth(1)).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#turns .w:focus")).to_have_count(1)

    # the next line by word selection: down a line, Shift+End, Enter; grade L1
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+End")
    page.keyboard.press("Enter")
    expect(page.locator("#turns a.wc", has_text="WC 39")).to_be_visible()
    page.keyboard.press("1")
    expect(page.locator("#grade-1")).to_have_attribute("aria-pressed", "true")

    # dismiss the next suggestion, label S1, undo the label, label again
    page.keyboard.press("d")
    expect(page.locator(".line.candidate")).to_have_count(7)
    page.keyboard.press("o")
    expect(page.locator(f"#label-{s1.pk}-o")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("u")
    expect(page.locator(f"#label-{s1.pk}-o")).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("o")
    expect(page.locator(f"#label-{s1.pk}-o")).to_have_attribute("aria-pressed", "true")

    # on to S2: next suggestions until the focus is there, accept, grade, label x
    for _ in range(6):
        page.keyboard.press("j")
        if page.evaluate(f"!!document.activeElement.closest('#turn-{s2.pk}')"):
            break
    page.keyboard.press("a")
    expect(page.locator("#turns a.wc", has_text="WC 91")).to_be_visible()
    page.keyboard.press("2")
    expect(page.locator("#grade-2")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("x")
    expect(page.locator(f"#label-{s2.pk}-x")).to_have_attribute("aria-pressed", "true")

    page.wait_for_load_state("networkidle")
    score = expect_panel_matches_the_database(page, conversation, annotator)
    assert [n.wc for n in score.nuggets] == [35, 39, 91]
    assert [n.gain for n in score.nuggets] == [1.0, 0.5, 1.0]
    page.reload()
    expect(page.locator("#turns a.wc")).to_have_count(3)


def test_opening_the_link_details_loads_the_other_entities_as_suggestions(page, live_server, login):
    from tests.workspace.conftest import build_paper as build

    conversation, annotator, _ = build(annotated=True, username="linker")
    annotator.set_password("linker-pw")
    annotator.save()
    first, second = Nugget.objects.filter(turn__conversation=conversation).order_by("turn__position", "start_word")[:2]
    login("linker", "linker-pw")
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/?nugget={second.pk}")
    options = page.locator("#entity-names option")
    expect(options).to_have_count(0)  # not sent with the editor
    page.get_by_text("Link to another entity, rename, comment").click()
    expect(options).to_have_count(9)  # the other nine entities of M002
    expect(page.locator(f'#entity-names option[value="{first.entity.name}"]')).to_have_count(1)
    page.locator("#link-entity").fill(first.entity.name)
    page.locator("form.link-form").get_by_role("button", name="Link").click()
    expect(page.locator(f"#badge-{second.pk}")).to_contain_text("dup")


def test_in_a_huge_turn_words_become_selectable_where_the_pointer_goes_and_mark_a_nugget(page, live_server, login):
    """A 12,000-word turn comes as plain text away from nuggets; hovering a line makes its words
    spans with their conversation-wide positions, and dragging over them marks a nugget."""
    from tests.factories import make_campaign, make_conversation, make_user

    annotator = make_user("annotator")
    text = "\n".join(" ".join(f"w{k * 12 + i}" for i in range(12)) for k in range(1000))
    conversation = make_conversation(make_campaign(), [("U", "Tell me everything."), ("S", text)], annotators=[annotator])
    s1 = conversation.turns.get(position=2)
    page.set_viewport_size({"width": 1500, "height": 1000})
    login("annotator", "annotator-pw")
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/")
    line = page.locator(f'#turn-{s1.pk} .line[data-start="24"]')
    expect(line.locator(".w")).to_have_count(0)
    line.hover()
    expect(line.locator(".w")).to_have_count(12)
    first, last = word(page, s1.pk, 24), word(page, s1.pk, 26)
    expect(first).to_have_attribute("data-p", "28")  # U1 has 3 words
    box_a, box_b = first.bounding_box(), last.bounding_box()
    page.mouse.move(box_a["x"] + 2, box_a["y"] + box_a["height"] / 2)
    page.mouse.down()
    page.mouse.move(box_b["x"] + box_b["width"] - 2, box_b["y"] + box_b["height"] / 2, steps=8)
    page.mouse.up()
    expect(page.locator("#turns a.wc", has_text="WC 30")).to_be_visible()
    nugget = Nugget.objects.get()
    assert (nugget.start_word, nugget.end_word) == (24, 26)
