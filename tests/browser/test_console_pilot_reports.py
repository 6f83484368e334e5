"""The FairWeb-1 pilot campaign shipped in fixtures/ (four topic types; R-GENDER's target sums to
0.999999 and is used as given) holding conversations and ranked lists together: every report
page works in a browser, the run comparison standardised included, and the CSVs download whole."""

from __future__ import annotations

import csv
import io

import pytest
from playwright.sync_api import expect

from tests.console.pilot import MOVIES, PEOPLE, pilot_campaign

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_pilot_campaign_with_conversations_and_ranked_lists_has_working_report_pages(page, live_server, login):
    # chat-a and chat-b each on the R topic P001 and the M topic P002; the pilot's three web runs
    campaign, _ = pilot_campaign(PEOPLE, MOVIES, PEOPLE | {"run": "chat-b", "nuggets": PEOPLE["nuggets"][:1]}, MOVIES | {"run": "chat-a"})
    page.set_viewport_size({"width": 1280, "height": 900})
    login("pilot-org", "pilot-org-pw")
    base = f"{live_server.url}/console/{campaign.slug}"

    page.goto(f"{base}/report/")
    run_table = page.locator("#run-table")
    expect(run_table.locator("tbody tr")).to_have_count(2)
    assert {"GF_GENDER", "GF_HINDEX", "GF_ORIGIN", "GF_RATINGS", "GFRC"} <= set(run_table.locator("thead th").all_inner_texts())
    expect(page.locator("#ranked-run-table tbody tr")).to_have_count(3)
    page.wait_for_function("() => { const img = document.querySelector('figure.plot img'); return img && img.complete && img.naturalWidth > 0; }")
    page.screenshot(path="test-results/pilot-report.png", full_page=True)

    report = page.request.get(f"{base}/report.csv")
    assert report.ok
    rows = list(csv.DictReader(io.StringIO(report.text())))
    assert [r["run"] for r in rows] == ["chat-a", "chat-b"] and all(0 <= float(r["GF_GENDER"]) <= 1 for r in rows)

    page.goto(f"{base}/report/significance/?measure=GFRC&permutations=1000&standardise=on")
    expect(page.get_by_test_id("compared")).to_contain_text("2 runs")
    expect(page.locator("#pairs")).to_be_visible()
    page.screenshot(path="test-results/pilot-significance.png", full_page=True)
    page.goto(f"{base}/report/significance/?measure=GF_ORIGIN&standardise=on")
    expect(page.get_by_test_id("not-compared")).to_contain_text("fewer than two topics that every run has with a GF_ORIGIN score")
    page.goto(f"{base}/report/significance/?measure=ERR&permutations=1000&standardise=on")
    expect(page.get_by_test_id("compared")).to_contain_text("3 runs")

    for name, heading in (("trials", "Trial"), ("worst", "Worst")):
        response = page.goto(f"{base}/report/{name}/")
        assert response.status == 200, name
        expect(page.get_by_role("heading", level=1)).to_contain_text(heading)
    page.goto(f"{base}/report/worst/?measure=GF_GENDER")
    expect(page.locator("main")).to_contain_text("chat-a")
