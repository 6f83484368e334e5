"""Keys typed fast act in the order typed: a long sequence of shortcut keys typed with no pause
(and with short pauses) ends in the state the same sequence reaches typed slowly, each key
after the previous one's answer is on the page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotator.models import Nugget, TurnLabel
from tests.factories import make_campaign
from tests.workspace.conftest import build_paper

pytestmark = pytest.mark.django_db(transaction=True)

# accept, grade, next suggestion, dismiss, label, undo, next nugget, delete: every kind of
# key that sends an edit, and the moving keys whose result depends on the answers before them
SEQUENCE = "a 2 j a 1 d o j a 0 u 2 x n 1 j d a 2 u o k a Delete u".split()

IDLE = """() => !document.querySelector('.htmx-request')
  && document.getElementById('workspace').getAttribute('aria-busy') !== 'true'"""


def open_fresh_conversation(page, live_server, login, run: int):
    """A new annotator on a new copy of the paper's conversation, the focus on its text."""
    conversation, annotator, _ = build_paper(annotated=False, username=f"typist{run}",
                                             campaign=make_campaign(slug=f"typing{run}"))
    login(f"typist{run}", f"typist{run}-pw")
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/")
    page.wait_for_load_state("networkidle")
    page.locator('#turns .w[tabindex="0"]').focus()
    expect(page.locator("#turns .w:focus")).to_have_count(1)
    return conversation, annotator


def state_after_reload(page, conversation, annotator) -> dict:
    page.wait_for_function(IDLE)
    page.reload()
    page.wait_for_load_state("networkidle")
    positions = {t.pk: t.position for t in conversation.turns.all()}
    return {
        "nuggets": sorted(
            (positions[n.turn_id], n.start_word, n.end_word, n.entity.grade.level if n.entity.grade else None)
            for n in Nugget.objects.filter(annotator=annotator).select_related("entity__grade")
        ),
        "labels": sorted((positions[t.turn_id], t.label) for t in TurnLabel.objects.filter(annotator=annotator)),
        "badges": page.locator("#turns a.wc").all_inner_texts(),
        "pressed labels": page.locator('#turns .label-btn[aria-pressed="true"]').evaluate_all(
            "bs => bs.map(b => b.closest('.turn').querySelector('h3').textContent + ' ' + b.dataset.label)"),
        "suggestions": page.locator("#turns .line.candidate").evaluate_all(
            "ls => ls.map(l => l.closest('.turn').dataset.role + l.dataset.start)"),
        "scores": page.locator("#score-figures dl").inner_text(),
        "table 1": page.locator("#score-panel .nugget-table").inner_text(),
    }


def test_a_long_key_sequence_typed_without_pauses_ends_as_it_does_typed_slowly(page, live_server, login):
    page.set_viewport_size({"width": 1500, "height": 1000})
    conversation, annotator = open_fresh_conversation(page, live_server, login, 0)
    for key in SEQUENCE:
        page.keyboard.press(key)
        page.wait_for_function(IDLE)
    slowly = state_after_reload(page, conversation, annotator)
    assert len(slowly["nuggets"]) >= 3 and slowly["labels"], "the sequence judges something"

    # no pause at all (several times: the race it guards against hit about one run in two),
    # then the 20-40 ms between keys of a fast typist
    for run, pause_ms in enumerate([0, 0, 0, 0, 20, 40], start=1):
        page.context.clear_cookies()
        conversation, annotator = open_fresh_conversation(page, live_server, login, run)
        for key in SEQUENCE:
            page.keyboard.press(key)
            if pause_ms:
                page.wait_for_timeout(pause_ms)
        assert state_after_reload(page, conversation, annotator) == slowly, f"run {run}, {pause_ms} ms between keys"
