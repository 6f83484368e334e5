"""The organiser's history page and its CSV / JSON exports."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.judgments import edits
from annotator.models import AnnotationEvent, Campaign, Conversation, Entity, Nugget
from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db

EVIL = '<script>alert("x")</script><b onmouseover=alert(1)>bold</b>'
TURNS = [
    ("U", "Recommend time travel movies"),
    ("S", f"{EVIL} https://example.org/evil and =HYPERLINK(\"http://bad\") Primer https://www.imdb.com/title/tt0390384/ ok"),
]


@pytest.fixture
def setup():
    alice, bob, olga = make_user("alice"), make_user("bob"), make_user("olga")
    campaign = make_campaign(organiser=olga)
    conversation = make_conversation(campaign, TURNS, annotators=[alice])
    turn = conversation.turns.get(position=2)
    # words: 0-2 the evil markup + its URL; 4 the formula; 5-6 Primer + URL
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=turn, start_word=0, end_word=2)
    edits.update_entity(nugget.entity, actor=alice, expected_version=1, conversation=conversation,
                              name=EVIL, grade=campaign.grades.get(label="L2"), comment="=cmd|' /C calc'!A0")
    entity = Entity.objects.get(pk=nugget.entity_id)
    origin = conversation.topic.topic_type.attribute_sets.get(name="ORIGIN")
    edits.set_membership(entity, origin, actor=alice, expected_version=entity.version,
                               vector=[0, 0.5, 0, 0, 0, 0.5, 0, 0], evidence=f"UK, US {EVIL}")
    primer = edits.create_nugget(annotator=alice, actor=alice, turn=turn, start_word=5, end_word=6)
    edits.update_nugget(primer, actor=olga, expected_version=1, start_word=6)
    edits.set_turn_label(turn, annotator=alice, actor=alice, label="o", expected_version=None)
    edits.undo_last(conversation, alice, actor=alice)
    return conversation, alice, bob, olga


def urls(conversation):
    return [reverse(f"history:{name}", args=[conversation.pk])
            for name in ("conversation", "conversation-csv", "conversation-json")]


def test_organiser_sees_who_when_what_before_and_after(client, setup):
    conversation, alice, bob, olga = setup
    client.force_login(olga)
    response = client.get(reverse("history:conversation", args=[conversation.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "created nugget" in html and "updated entity" in html and "created membership" in html
    assert "updated nugget" in html and "judgments of alice" in html  # Olga moved Alice's nugget
    assert "Undo:" in html and "turn label" in html
    assert "<del>(none)</del> → <ins>L2 (1)</ins>" in html  # the grade, by its label
    assert "<del>6</del> → <ins>7</ins>" in html  # first word, counted from 1
    assert "(0, 0.5, 0, 0, 0, 0.5, 0, 0)" in html
    assert 'href="/history/conversations/%d/export.csv"' % conversation.pk in html


def test_untrusted_text_is_escaped_on_the_page(client, setup):
    conversation, alice, bob, olga = setup
    client.force_login(olga)
    html = client.get(reverse("history:conversation", args=[conversation.pk])).content.decode()
    assert "<script>alert" not in html and "<b onmouseover" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "&lt;b onmouseover=alert(1)&gt;" in html


def test_csv_export(client, setup):
    conversation, alice, bob, olga = setup
    client.force_login(olga)
    response = client.get(reverse("history:conversation-csv", args=[conversation.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["action"], r["kind"]) for r in rows] == [
        ("create", "entity"), ("create", "nugget"), ("update", "entity"), ("create", "membership"),
        ("create", "entity"), ("create", "nugget"), ("update", "nugget"), ("create", "label"), ("delete", "label"),
    ]
    assert rows[6]["actor"] == "olga" and rows[6]["annotator"] == "alice"
    assert json.loads(rows[6]["before"])["start_word"] == 5 and json.loads(rows[6]["after"])["start_word"] == 6
    assert rows[8]["undo_of"] == rows[7]["id"]
    # Cells a spreadsheet would run as formulas are neutralised.
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "@")), value


def test_json_export(client, setup):
    conversation, alice, bob, olga = setup
    client.force_login(olga)
    response = client.get(reverse("history:conversation-json", args=[conversation.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    data = json.loads(response.content)
    assert data["conversation"]["topic"] == "M002"
    assert len(data["events"]) == 9
    entity_update = data["events"][2]
    assert entity_update["after"]["name"] == EVIL  # raw data in JSON (JSON is not HTML)
    assert entity_update["before"]["grade"] is None
    assert {e["actor"] for e in data["events"]} == {"alice", "olga"}


def test_topic_level_entity_edits_show_in_the_conversations_that_mention_it(client, setup):
    conversation, alice, bob, olga = setup
    entity = Entity.objects.get(name=EVIL)
    edits.update_entity(entity, actor=alice, expected_version=entity.version, comment="renamed elsewhere")
    client.force_login(olga)
    data = json.loads(client.get(reverse("history:conversation-json", args=[conversation.pk])).content)
    assert data["events"][-1]["after"]["comment"] == "renamed elsewhere"
    # ...but not in another conversation of the campaign that does not mention it.
    other = make_conversation(conversation.topic.campaign, TURNS, run="other-run", annotators=[alice])
    data = json.loads(client.get(reverse("history:conversation-json", args=[other.pk])).content)
    assert data["events"] == []


@pytest.mark.parametrize("who", ["alice", "bob"])
def test_annotators_get_404(client, setup, who):
    conversation, alice, bob, olga = setup
    client.force_login({"alice": alice, "bob": bob}[who])
    for url in urls(conversation):
        assert client.get(url).status_code == 404


def test_organiser_of_another_campaign_gets_404(client, setup):
    conversation, *_ = setup
    other = make_user("oscar")
    make_campaign(slug="other", organiser=other)
    client.force_login(other)
    for url in urls(conversation):
        assert client.get(url).status_code == 404


def test_anonymous_is_sent_to_login(client, setup):
    conversation, *_ = setup
    for url in urls(conversation):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_superuser_sees_every_campaign(client, setup):
    conversation, *_ = setup
    client.force_login(make_user("root", is_superuser=True, is_staff=True))
    assert client.get(urls(conversation)[0]).status_code == 200


def test_history_is_read_only(client, setup):
    conversation, alice, bob, olga = setup
    client.force_login(olga)
    for url in urls(conversation):
        assert client.post(url).status_code == 405


def test_the_history_shows_the_judgments_an_import_wrote_as_imported(client):
    from annotator.interchange.imports.conversations import import_files
    from annotator.models import Conversation
    from tests.commands.helpers import EXAMPLE, load_fairweb
    from annotator.models import Campaign

    load_fairweb()
    campaign = Campaign.objects.get(slug="fairweb1")
    organiser = make_user("importer")
    campaign.organisers.add(organiser)
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], actor=organiser)
    conversation = Conversation.objects.get()
    client.force_login(organiser)
    html = client.get(reverse("history:conversation", args=[conversation.pk])).content.decode()
    assert html.count('<span class="badge">import</span>') >= 10  # ten nuggets at least
    rows = client.get(reverse("history:conversation-json", args=[conversation.pk])).json()["events"]
    assert rows and all(row["imported"] for row in rows)


def add_grade_events(conversation, alice, count: int) -> None:
    entity = Entity.objects.filter(annotator=alice).first()
    AnnotationEvent.objects.bulk_create(
        AnnotationEvent(kind="entity", action="update", object_id=entity.pk, topic_id=conversation.topic_id,
                        conversation=conversation, annotator=alice, actor=alice,
                        before={"comment": f"note {i}"}, after={"comment": f"note {i + 1}"})
        for i in range(count)
    )


def history_page_queries(client, conversation, page=None) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("history:conversation", args=[conversation.pk]), {"page": page} if page else {})
    assert response.status_code == 200
    return len(queries), response.content.decode()


def test_a_long_history_is_shown_a_page_at_a_time_in_the_same_few_queries(client, setup):
    conversation, alice, bob, olga = setup
    client.force_login(olga)
    add_grade_events(conversation, alice, 150)
    short, _ = history_page_queries(client, conversation)
    add_grade_events(conversation, alice, 4_850)
    long, html = history_page_queries(client, conversation)
    assert long == short <= 16
    assert html.count('<tr class="event') == 100
    assert "of 5009 (page 1 of 51)" in html and 'href="?page=2"' in html and 'hx-get="?page=2"' in html
    assert "created nugget" in html  # oldest first
    _, last = history_page_queries(client, conversation, page=51)
    assert last.count('<tr class="event') == 9 and "note 4850" in last


@pytest.mark.parametrize("page", ["abc", "0", "99999999999999999999999"])
def test_a_page_number_that_is_no_page_shows_a_page(client, setup, page):
    conversation, alice, bob, olga = setup
    client.force_login(olga)
    _, html = history_page_queries(client, conversation, page=page)
    assert '<tr class="event' in html


def test_an_htmx_page_request_gets_the_page_alone(client, setup):
    conversation, alice, bob, olga = setup
    client.force_login(olga)
    response = client.get(reverse("history:conversation", args=[conversation.pk]), {"page": 1}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="history-page">') and "<h1>" not in html


def test_a_replaced_conversations_history_shows_on_its_replacements_page(client, db):
    from annotator.interchange.imports.conversations import import_files
    from tests.commands.helpers import EXAMPLE, load_fairweb

    load_fairweb()
    campaign = Campaign.objects.get(slug="fairweb1")
    gold, olga = make_user("gold"), make_user("olga")
    campaign.organisers.add(olga)
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold)
    nugget = Nugget.objects.select_related("entity").first()
    edits.update_entity(nugget.entity, actor=gold, expected_version=nugget.entity.version,
                              conversation=nugget.turn.conversation, comment="checked by hand")
    import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes())], annotator=gold, replace=True)
    client.force_login(olga)
    replacement = Conversation.objects.get()
    response = client.get(reverse("history:conversation", args=[replacement.pk]), {"page": 1})
    html = response.content.decode()
    assert "checked by hand" in html
    assert "replaced conversation" in html and "by an import of M002-bing-trial1.txt" in html
