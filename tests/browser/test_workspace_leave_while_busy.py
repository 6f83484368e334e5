"""Keys typed faster than the server answers wait in the workspace's queue (aria-busy="true"):
leaving the page then (a click on another link, a reload, closing the tab) would drop them, so
the browser asks first (beforeunload); once every answer is on the page, leaving asks nothing.
The server is made slow by holding the edits' requests until the test lets them go."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotator.models import Nugget
from tests.factories import make_campaign
from tests.workspace.conftest import build_paper

pytestmark = pytest.mark.django_db(transaction=True)

IDLE = """() => !document.querySelector('.htmx-request')
  && document.getElementById('workspace').getAttribute('aria-busy') !== 'true'"""


def until_held(page, held: list, seconds: float = 15) -> None:
    """Let the page run until a request is held (route handlers run while Playwright waits)."""
    for _ in range(int(seconds * 20)):
        if held:
            return
        page.wait_for_timeout(50)
    raise AssertionError("no request was held")


def test_leaving_while_keys_wait_asks_first_and_once_answered_leaves_freely(page, live_server, login):
    conversation, annotator, _ = build_paper(annotated=False, username="leaver", campaign=make_campaign(slug="leaver"))
    login("leaver", "leaver-pw")
    held = []  # the edits' POSTs, answered only when the test says: a slow server

    def hold_posts(route):
        # the edits' POSTs; the heartbeat (time on task) is no edit: it never holds the keys
        if route.request.method == "POST" and "/heartbeat/" not in route.request.url:
            held.append(route)
        else:
            route.continue_()

    page.route(f"{live_server.url}/conversations/**", hold_posts)
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/")
    page.wait_for_load_state("networkidle")
    page.locator('#turns .w[tabindex="0"]').focus()
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))  # dismiss: stay on the page

    page.keyboard.press("a")  # accept the first suggestion: an edit, held
    page.keyboard.press("2")  # its grade: queued behind it
    expect(page.locator("#workspace")).to_have_attribute("aria-busy", "true")
    assert len(held) == 1
    here = page.url

    page.get_by_role("link", name="Queue", exact=True).click()  # another link
    page.wait_for_timeout(300)
    assert asked == ["beforeunload"] and page.url == here
    page.evaluate("location.reload()")  # a reload
    page.wait_for_timeout(300)
    assert asked == ["beforeunload", "beforeunload"] and page.url == here
    expect(page.locator("#workspace")).to_have_attribute("aria-busy", "true")

    # the server answers: the queued grade is sent (held too), then answered; nothing waits
    held.pop(0).continue_()
    until_held(page, held)
    held.pop(0).continue_()
    page.wait_for_function(IDLE)
    nugget = Nugget.objects.filter(annotator=annotator).select_related("entity__grade").get()
    assert nugget.entity.grade.level == 2  # the key that waited was applied, not lost

    page.get_by_role("link", name="Queue", exact=True).click()
    page.wait_for_url(f"{live_server.url}/queue/**")
    assert asked == ["beforeunload", "beforeunload"]  # nothing waiting: nothing asked
