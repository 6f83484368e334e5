"""An organiser changes L and a target in the browser and sees the score report change."""

import pytest
from playwright.sync_api import expect

from tests.console.demo import build_demo

pytestmark = pytest.mark.django_db(transaction=True)


def run_cell(page, run: str, column: str) -> str:
    return page.locator(f"#run-table tr:has(th:text-is('{run}')) td[data-column='{column}'] .mean").inner_text()


def test_an_organiser_changes_L_and_a_target_and_sees_the_report_change(page, live_server, login):
    build_demo(n_topics=2)
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/")
    page.get_by_role("link", name="Score report").click()
    page.get_by_role("heading", name="Score report").wait_for()
    r_before = run_cell(page, "bing-trial1", "R")
    gf_before = run_cell(page, "bing-trial1", "GF_RATINGS")
    assert page.get_by_test_id("patience").inner_text() == "1250"

    page.get_by_role("link", name="Settings", exact=True).click()
    page.get_by_label("Patience L (words)").fill("200")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_text("Settings saved")).to_be_visible()

    page.get_by_role("link", name="Edit RATINGS").click()
    page.get_by_label("Target distribution D*").fill("(0, 0, 1/2, 1/2)")
    page.get_by_role("button", name="Save RATINGS").click()
    expect(page.get_by_text("RATINGS saved")).to_be_visible()

    page.get_by_role("link", name="Score report").click()
    assert page.get_by_test_id("patience").inner_text() == "200"
    assert float(run_cell(page, "bing-trial1", "R")) > float(r_before)
    assert run_cell(page, "bing-trial1", "GF_RATINGS") != gf_before
    page.wait_for_function("() => { const img = document.querySelector('figure.plot img'); return img.complete && img.naturalWidth > 0; }")


def test_a_wrong_target_is_explained_beside_the_field(page, live_server, login):
    build_demo(n_topics=1)
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/settings/")
    page.get_by_role("link", name="Edit RATINGS").click()
    page.get_by_label("Target distribution D*").fill("(1/3, 1/3, 1/3)")
    page.get_by_role("button", name="Save RATINGS").click()
    expect(page.get_by_text("The target has 3 values, expected 4.")).to_be_visible()


def test_an_organiser_derives_the_origin_target_from_a_country_mapping(page, live_server, login):
    from annotator.models import AttributeSet

    build_demo(n_topics=1)
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/settings/")
    page.get_by_role("link", name="Edit ORIGIN").click()
    assert not page.get_by_label("Value mapping:", exact=True).is_visible()  # only the chosen helper's fields show
    page.get_by_label("Nominal groups from a value mapping").check()
    page.get_by_label("Value mapping:", exact=True).fill("Nigeria = Africa\nUnited States = America\nTurkey = Europe, Middle East")
    page.get_by_label("Derive the target from the mapping", exact=False).check()
    page.get_by_role("button", name="Save ORIGIN").click()
    expect(page.get_by_text("ORIGIN saved")).to_be_visible()
    origin = AttributeSet.objects.get(name="ORIGIN")
    assert origin.target == [1 / 3, 1 / 3, 0, 0, 0, 1 / 6, 1 / 6, 0]


def test_the_quick_form_on_the_report_swaps_in_new_scores_with_htmx(page, live_server, login):
    build_demo(n_topics=1)
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/report/")
    r_before = run_cell(page, "bing-trial1", "R")
    page.evaluate("window.__not_reloaded = true")
    page.get_by_label("Patience L (words)").fill("100")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_function("() => document.querySelector('[data-testid=patience]').textContent === '100'")
    assert page.evaluate("window.__not_reloaded") is True  # swapped in place, no page load
    assert float(run_cell(page, "bing-trial1", "R")) > float(r_before)
