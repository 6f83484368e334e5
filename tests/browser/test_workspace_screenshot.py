"""The README's picture of the workspace (docs/img/workspace.png), taken from the demo-like
conversation: the paper's M002 Bing answer, annotated, with one nugget open in the editor."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.models import Topic
from tests.workspace.conftest import build_paper

pytestmark = pytest.mark.django_db(transaction=True)

DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def test_the_workspace_screenshot_for_the_readme_is_taken(page, live_server, login):
    conversation, annotator, _ = build_paper(annotated=True, username="annotator")
    Topic.objects.filter(pk=conversation.topic_id).update(
        description="Sci-fi movies that feature time travel, listed in IMDb (title and IMDb URL)."
    )
    # leave the last two suggestions open and one turn unlabelled, as mid-way through the work
    from annotator import annotations

    last_two = list(conversation.turns.get(position=4).nuggets.order_by("-start_word")[:2])
    for nugget in last_two:
        annotations.delete_nugget(nugget, actor=annotator, expected_version=nugget.version)
    annotations.set_turn_label(conversation.turns.get(position=2), annotator=annotator, actor=annotator,
                               label="o", expected_version=None)
    page.set_viewport_size({"width": 1600, "height": 1000})
    login("annotator", "annotator-pw")
    second = conversation.turns.get(position=2).nuggets.order_by("start_word")[1]
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/?nugget={second.pk}")
    page.wait_for_load_state("networkidle")
    DOCS_IMG.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOCS_IMG / "workspace.png"))
    assert page.locator("#score-panel [data-score=R]").is_visible()
