"""Keys typed while the server is slow act as they do on a fast one: every edit reaches the
server in the order typed, and the annotator ends where the same keys typed slowly on a fast
server end (tests/browser/test_workspace_fast_typing.py), with every answer 0.4 s late."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.slow_server import SlowServer
from tests.browser.test_workspace_fast_typing import IDLE, SEQUENCE, state_after_reload
from tests.factories import make_campaign
from tests.workspace.conftest import build_paper

pytestmark = pytest.mark.django_db(transaction=True)

DELAY = 0.4  # seconds each POST takes on its way there and back


def open_through(page, base: str, run: int):
    conversation, annotator, _ = build_paper(annotated=False, username=f"slow{run}",
                                             campaign=make_campaign(slug=f"slow{run}"))
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(f"slow{run}")
    page.get_by_label("Password").fill(f"slow{run}-pw")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/**")
    page.goto(f"{base}/conversations/{conversation.pk}/")
    page.wait_for_load_state("networkidle")
    page.locator('#turns .w[tabindex="0"]').focus()
    expect(page.locator("#turns .w:focus")).to_have_count(1)
    return conversation, annotator


def test_keys_typed_without_pauses_on_a_slow_server_end_as_they_do_typed_slowly_on_a_fast_one(page, live_server):
    page.set_viewport_size({"width": 1500, "height": 1000})
    conversation, annotator = open_through(page, live_server.url, 0)
    for key in SEQUENCE:
        page.keyboard.press(key)
        page.wait_for_function(IDLE)
    fast = state_after_reload(page, conversation, annotator)

    page.context.clear_cookies()
    with SlowServer(live_server.url, DELAY) as slow:
        conversation, annotator = open_through(page, slow.url, 1)
        before = slow.posts
        for key in SEQUENCE:
            page.keyboard.press(key)
        answered_when_typed = slow.posts - before
        page.wait_for_function(IDLE, timeout=60_000)
        assert state_after_reload(page, conversation, annotator) == fast
        sent = slow.posts - before
        assert sent >= len(SEQUENCE) // 2, "the keys went through the slow server"
        # most keys were typed while earlier edits were still on their way: the page held them
        assert answered_when_typed <= sent // 2, (answered_when_typed, sent)
        assert slow.most_at_once == 1, "one edit on its way at a time: each waits for the answer before it"
