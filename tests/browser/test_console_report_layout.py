"""The score report at 1280 px with several topic types and 20 runs: no table under the plot,
"–" where a value is missing, run names on one line (bounding boxes, as the browser lays them out)."""

import pytest

from annotator.models import AttributeSet, TopicType
from tests.console.demo import build_demo
from tests.factories import make_conversation, mark

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = "Here: Ada Lovelace https://example.org/ada and Alan Turing https://example.org/alan are two."


def several_topic_types_and_twenty_runs():
    campaign = build_demo(n_topics=2)[0]
    ann = campaign.topics.first().conversations.first().assignments.first().annotator
    for code, sets in (("Y", [("SUBSCS", 4)]), ("R", [("HINDEX", 3), ("GENDER", 2)])):
        topic_type = TopicType.objects.create(campaign=campaign, code=code, name=code)
        for position, (name, size) in enumerate(sets):
            AttributeSet.objects.create(topic_type=topic_type, name=name, kind="ordinal", divergence="rnod",
                                        position=position, groups=[f"g{i}" for i in range(size)], target=[1 / size] * size)
    for i in range(17):
        run = f"perplexity-pro-search-{i:02d}-trial{1 + i % 2}"
        for topic in ("M001", "Y001", "R001") if i % 3 else ("M001",):
            conversation = make_conversation(campaign, [("U", "Who?"), ("S", TEXT)], topic=topic, run=run, annotators=[ann])
            mark(conversation, ann, 2, 1, 3, "L2")
    return campaign


def overlaps(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and \
        a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def test_at_1280_px_no_table_runs_under_the_plot_and_every_figure_shows(page, live_server, login):
    several_topic_types_and_twenty_runs()
    page.set_viewport_size({"width": 1280, "height": 900})
    login("org", "org-pw")
    page.goto(f"{live_server.url}/console/fw/report/")
    page.wait_for_function("() => { const img = document.querySelector('figure.plot img'); return img.complete && img.naturalWidth > 0; }")
    plot = page.locator("figure.plot img").bounding_box()
    for table in page.locator("table.scores").all():
        if table.is_visible():
            assert not overlaps(table.bounding_box(), plot)
    run_table = page.locator("#run-table")
    assert run_table.locator("tbody tr").count() == 20
    header = [h.inner_text() for h in run_table.locator("thead th").all()]
    assert {"GF_SUBSCS", "GF_HINDEX", "GF_GENDER", "GF", "GFRC"} <= set(header)
    # every column is reachable: the table fits its card or scrolls inside it, never under the plot
    card = page.locator("section.table-card").bounding_box()
    assert card["x"] + card["width"] <= 1280
    text = page.locator("#report-body").inner_text()
    assert "nan" not in text.split() and "–" in text
    lines = page.evaluate("""() => [...document.querySelectorAll('#run-table th.run-name')].map(th => {
        const range = document.createRange(); range.selectNodeContents(th);
        return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size; })""")
    assert lines and set(lines) == {1}, "each run name on one line"
    page.screenshot(path="test-results/report-1280.png", full_page=True)
