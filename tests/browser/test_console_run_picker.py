"""The run comparison with a partial run: the complete runs are compared on every topic, the
partial one is named with what it lacks, and picking it compares it on the topics it shares."""

import pytest
from playwright.sync_api import expect

from tests.console.demo import build_demo
from tests.factories import make_conversation

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_partial_run_is_left_out_and_can_be_picked(page, live_server, login):
    campaign = build_demo(n_topics=3)[0]
    make_conversation(campaign, [("U", "Films?"), ("S", "None.")], topic="M001", run="demo-trial1")
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/report/significance/?permutations=200")
    expect(page.get_by_test_id("compared")).to_contain_text("3 runs on 3 topics")
    expect(page.get_by_test_id("missing")).to_contain_text("demo-trial1 lacks 2 (M002, M003)")
    assert page.locator("#pairs tbody tr").count() == 3
    runs = page.locator("[data-field=runs]")
    runs.get_by_label("demo-trial1", exact=True).check()
    runs.get_by_label("bing-trial1", exact=True).check()
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_test_id("compared")).to_contain_text("2 runs (picked) on 1 topic")
    expect(page.get_by_test_id("not-compared")).to_contain_text("fewer than two topics")
    runs.get_by_label("demo-trial1", exact=True).uncheck()
    runs.get_by_label("bard-trial1", exact=True).check()
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_test_id("compared")).to_contain_text("2 runs (picked) on 3 topics")
    with page.expect_download() as download:
        page.get_by_role("link", name="CSV").click()
    lines = open(download.value.path()).read().strip().splitlines()
    assert len(lines) == 2 and lines[1].endswith(",3")
