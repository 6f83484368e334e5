"""The README's picture of the workspace (docs/img/workspace.png), taken from the demo
(`manage.py load_demo`: the paper's M002 Bing conversation, annotated): two nuggets of S2 are
taken back so that their suggestions show, and The Terminator is open in the editor."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.core.management import call_command

from annotator.judgments import edits
from annotator.models import Assignment, Nugget

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
# The picture is written into docs/img only when asked (GFRC_SCREENSHOTS=1), so that running
# the browser tests does not touch a tracked file; otherwise it goes to test-results/.
DOCS_IMG = ROOT / "docs" / "img" if os.environ.get("GFRC_SCREENSHOTS") else ROOT / "test-results"


def test_the_workspace_screenshot_for_the_readme_is_taken(page, live_server, login):
    call_command("load_demo", stdout=open("/dev/null", "w"))
    assignment = Assignment.objects.select_related("conversation", "annotator").get(
        annotator__username="annotator", conversation__topic__code="M002", conversation__run__name="bing-trial1")
    conversation, annotator = assignment.conversation, assignment.annotator
    s2 = conversation.turns.get(position=4)
    for nugget in Nugget.objects.filter(turn=s2, annotator=annotator).order_by("-start_word")[:2]:
        edits.delete_nugget(nugget, actor=annotator, expected_version=nugget.version)
    terminator = Nugget.objects.filter(turn__conversation=conversation, turn__position=2, annotator=annotator).order_by("start_word")[1]
    page.set_viewport_size({"width": 1600, "height": 1000})
    login("annotator", "annotator")
    page.goto(f"{live_server.url}/conversations/{conversation.pk}/?nugget={terminator.pk}")
    page.wait_for_load_state("networkidle")
    page.locator(f"#badge-{terminator.pk}").focus()
    DOCS_IMG.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOCS_IMG / "workspace.png"))
    assert page.locator("#score-panel [data-score=R]").is_visible()
