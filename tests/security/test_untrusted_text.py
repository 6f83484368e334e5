"""Conversation text, entity names, comments and evidence are untrusted (LLM output, annotators'
typing): every page and fragment of the site renders them inert. The walk over the URL
resolver visits every GET URL as the annotator and as the organiser, so new views are covered."""

from __future__ import annotations

import pytest

from annotator.judgments import edits
from annotator.models import Entity, Topic, Turn
from tests.security.conftest import all_urls

pytestmark = pytest.mark.django_db

PAYLOADS = [
    "<script>alert('gfrc-xss')</script>",
    "<img src=x onerror=alert('gfrc-img')>",
    "</textarea></script><svg onload=alert('gfrc-svg')>",
    '" autofocus onfocus="alert(\'gfrc-attr\')',
]
EVIL = " ".join(PAYLOADS)


@pytest.fixture
def poisoned(site):
    turn = site.turn
    turn.text = f"{EVIL} https://www.imdb.com/title/tt0088763/ and Primer https://www.imdb.com/title/tt0390384/"
    Turn.objects.filter(pk=turn.pk).update(text=turn.text)
    user_turn = site.conversation.turns.get(position=1)
    Turn.objects.filter(pk=user_turn.pk).update(text=f"Tell me {EVIL}")
    Topic.objects.filter(pk=site.conversation.topic_id).update(description=EVIL)
    edits.delete_nugget(site.nugget, actor=site.alice, expected_version=site.nugget.version)
    turn.refresh_from_db()
    words = len(turn.text.split())
    nugget = edits.create_nugget(annotator=site.alice, actor=site.alice, turn=turn, start_word=0,
                                       end_word=words - 4)
    entity = Entity.objects.get(pk=nugget.entity_id)
    edits.update_entity(entity, actor=site.alice, expected_version=entity.version, conversation=site.conversation,
                              name=EVIL, comment=EVIL, grade=site.campaign.grades.get(label="L2"))
    entity.refresh_from_db()
    edits.set_membership(entity, site.attribute_set, actor=site.alice, expected_version=entity.version,
                               vector=[0, 1, 0, 0, 0, 0, 0, 0], evidence=EVIL, conversation=site.conversation)
    edits.set_turn_label(turn, annotator=site.alice, actor=site.alice, label="o", expected_version=None)
    site.nugget = nugget
    return site


def raw_payloads(body: str) -> list[str]:
    return [p for p in PAYLOADS if p in body]


def check_every_page(client, ids, who) -> list[str]:
    client.raise_request_exception = False  # collect every failing page, not just the first
    problems = []
    for name, url in all_urls(ids):
        if name.startswith("admin:") or name in {"logout"}:
            continue
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = client.get(url, **headers)
            if response.status_code >= 500:
                problems.append(f"{who} GET {url} ({name}) {headers or ''}: server error {response.status_code}")
                continue
            content_type = response.get("Content-Type", "")
            if response.status_code != 200 or not any(t in content_type for t in ("html", "svg", "xml")):
                continue
            body = b"".join(response).decode(errors="replace") if response.streaming else response.content.decode(errors="replace")
            for payload in raw_payloads(body):
                problems.append(f"{who} GET {url} ({name}) {headers or ''}: unescaped {payload!r}")
    return problems


def test_every_page_renders_untrusted_text_inert_for_the_annotator(client, poisoned):
    client.force_login(poisoned.alice)
    problems = check_every_page(client, poisoned.ids_for("alice"), "alice")
    assert not problems, "\n".join(problems)


def test_every_page_renders_untrusted_text_inert_for_the_organiser(client, poisoned):
    client.force_login(poisoned.organiser)
    ids = poisoned.ids_for("alice")
    problems = check_every_page(client, ids, "olga")
    assert not problems, "\n".join(problems)


def test_the_workspace_and_history_do_show_the_text_escaped(client, poisoned):
    """The text is there (escaped), not dropped: annotators must see what the LLM said."""
    from django.urls import reverse

    client.force_login(poisoned.organiser)
    html = client.get(reverse("history:conversation", args=[poisoned.conversation.pk])).content.decode()
    assert "&lt;script&gt;alert(&#x27;gfrc-xss&#x27;)&lt;/script&gt;" in html

