"""The conversation page: turns in order with word positions, the topic at hand, suggestions,
and untrusted text shown as text."""

import re

import pytest
from django.urls import reverse

from annotator.judgments import edits
from annotator.models import AttributeSet, Entity, Topic
from tests.factories import make_campaign, make_conversation, make_user, mark
from tests.workspace.conftest import HTMX, build_harvest

pytestmark = pytest.mark.django_db


def test_opening_a_conversation_requires_login(client, paper):
    conversation, _, _ = paper
    response = client.get(reverse("conversation", args=[conversation.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_an_annotator_cannot_open_another_annotators_conversation(client, paper):
    conversation, _, _ = paper
    client.force_login(make_user("stranger"))
    assert client.get(reverse("conversation", args=[conversation.pk])).status_code == 404


def position_of(word: str, html: str) -> int:
    """The conversation-wide position the page gives a word: its turn's data-offset, plus its
    index in the run of text holding it (annotate.js numbers the word spans the same way)."""
    for section in re.finditer(r'<section class="turn[^>]*data-offset="(\d+)"[^>]*>(.*?)</section>', html, re.S):
        for run in re.finditer(r'<span class="lazy" data-i="(\d+)">([^<]*)</span>', section.group(2)):
            words = run.group(2).split(" ")
            if word in words:
                return int(section.group(1)) + int(run.group(1)) + words.index(word) + 1
    raise AssertionError(f"{word} is not on the page")


def test_the_turns_come_in_order_with_each_words_position_and_the_running_word_count(client, paper):
    conversation, annotator, _ = paper
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    order = [html.index(f'id="turn-{t.pk}"') for t in conversation.turns.order_by("position")]
    assert order == sorted(order)
    assert position_of("Please", html) == 1  # U1 starts the count
    assert position_of("https://www.imdb.com/title/tt0088763/", html) == 35
    assert "Σ 17" in html and "Σ 67" in html and "Σ 123" in html  # running word count at each turn's end
    assert "WC 35 · L2" in html and "WC 107 · L2" in html
    assert 'id="show-positions"' in html


def test_the_topic_description_and_its_attribute_sets_are_at_hand(client, paper):
    conversation, annotator, _ = paper
    Topic.objects.filter(pk=conversation.topic_id).update(description="Time-travel movies listed in IMDb")
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert "Time-travel movies listed in IMDb" in html
    assert "RATINGS" in html and "ORIGIN" in html and "Middle East" in html and "target 24.5%" in html


def test_every_url_line_of_a_system_turn_is_suggested_until_it_is_marked(client, bare_paper):
    conversation, annotator, nuggets = bare_paper
    client.force_login(annotator)
    response = client.get(reverse("conversation", args=[conversation.pk]))
    assert len(response.context["candidates"]) == 10
    assert response.content.decode().count("data-accept") == 10
    n = nuggets[0]
    mark(conversation, annotator, n["turn"], n["start"], n["end"])
    assert len(client.get(reverse("conversation", args=[conversation.pk])).context["candidates"]) == 9


def test_a_suggestion_whose_url_the_topic_already_knows_says_so(client, bare_paper):
    conversation, annotator, nuggets = bare_paper
    n = nuggets[0]
    nugget = mark(conversation, annotator, n["turn"], n["start"], n["end"], "L2")
    edits.delete_nugget(nugget, actor=annotator, expected_version=nugget.version)
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert "known · L2" in html


def test_selecting_a_nugget_shows_it_in_the_editor(client, paper):
    conversation, annotator, _ = paper
    nugget = conversation.turns.get(position=2).nuggets.order_by("start_word")[1]
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk]) + f"?nugget={nugget.pk}").content.decode()
    assert "Nugget in S1 · WC 39" in html
    assert "The Terminator (1984)" in html and "(0,1/2,0,0,0,1/2,0,0)" in html


def test_an_htmx_request_for_the_page_gets_the_fragments_only(client, paper):
    conversation, annotator, _ = paper
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk]), headers=HTMX).content.decode()
    assert html.lstrip().startswith('<div id="turns"') and "<html" not in html


HOSTILE = (
    "<script>alert('turn')</script> **bold** <img src=x onerror=alert(1)> "
    "[click](javascript:alert(2)) https://evil.example/<b>x</b>"
)


def test_conversation_text_entity_names_and_evidence_are_shown_as_text_never_run(client):
    annotator = make_user("ann")
    campaign = make_campaign()
    conversation = make_conversation(campaign, [("U", "<script>alert('user')</script>"), ("S", HOSTILE)],
                                     annotators=[annotator])
    nugget = mark(conversation, annotator, 2, 0, len(HOSTILE.split()) - 1, "L2")
    entity = nugget.entity
    entity = edits.update_entity(entity, actor=annotator, expected_version=entity.version,
                                       name="<script>alert('name')</script>")
    ratings = AttributeSet.objects.get(name="RATINGS")
    edits.set_membership(entity, ratings, actor=annotator, expected_version=entity.version,
                               vector=[0, 0, 1, 0], evidence="<script>alert('evidence')</script>")
    client.force_login(annotator)
    for url in (
        reverse("conversation", args=[conversation.pk]) + f"?nugget={nugget.pk}",
        reverse("score-panel", args=[conversation.pk]),
    ):
        html = client.get(url).content.decode()
        assert "<script>alert" not in html and "<img src=x" not in html and "<b>x</b>" not in html
        assert "&lt;script&gt;alert(" in html
    page = client.get(reverse("conversation", args=[conversation.pk]) + f"?nugget={nugget.pk}").content.decode()
    assert "&lt;script&gt;alert(&#x27;evidence&#x27;)&lt;/script&gt;" in page or "&lt;script&gt;alert(&#39;evidence&#39;)" in page
    assert 'href="javascript:' not in page and "**bold**" in page


def _huge_conversation(lines: int, per_line: int):
    """A system turn of lines x per_line words ("w0 w1 ..."), with markup among its words."""
    annotator = make_user("reader")
    words = [f"w{i}" if i % 1000 else "<script>alert(1)</script>" for i in range(lines * per_line)]
    text = "\n".join(" ".join(words[k : k + per_line]) for k in range(0, len(words), per_line))
    conversation = make_conversation(make_campaign(), [("U", "Tell me everything."), ("S", text)], annotators=[annotator])
    return conversation, annotator


@pytest.mark.parametrize("lines, per_line", [(10_000, 20), (1, 200_000)])
def test_a_turn_of_200000_words_is_sent_as_runs_of_text_marked_for_lazy_word_spans(client, lines, per_line):
    conversation, annotator = _huge_conversation(lines, per_line)
    mark(conversation, annotator, 2, 100_001, 100_003, "L2")
    client.force_login(annotator)
    response = client.get(reverse("conversation", args=[conversation.pk]))
    html = response.content.decode()
    assert response.status_code == 200 and len(html) < 4_000_000  # with a span per word: over 20 MB
    # the huge turn tells annotate.js to make word spans only where they are needed
    assert html.count("data-lazy-words") == 1
    assert '<mark class="nugget g2 incomplete" id="mk-' in html and '<span class="lazy" data-i="100001">w100001 w100002 w100003</span></mark>' in html
    assert position_of("w100001", html) == 100_005  # U1 has 3 words
    assert "WC 100007 · L2" in html
    assert '<span class="lazy" data-i="1000">&lt;script&gt;alert(1)&lt;/script&gt; w1001 w1002' in html
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<span class="w"' not in html
    assert max(len(run.split(" ")) for run in re.findall(r'<span class="lazy" data-i="\d+">([^<]*)</span>', html)) <= 500


def test_a_turn_of_ordinary_length_is_sent_as_runs_that_annotate_js_makes_word_spans_at_once(client, paper):
    conversation, annotator, _ = paper
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert "data-lazy-words" not in html and '<span class="w"' not in html
    runs = re.findall(r'<span class="lazy" data-i="\d+">([^<]*)</span>', html)
    assert sum(len(run.split(" ")) for run in runs) == 123  # every word of the conversation, once


def test_the_spans_a_system_cited_are_suggested_as_cited_by_the_system(client, db):
    conversation, gold = build_harvest()
    client.force_login(gold)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    s2 = conversation.turns.get(position=4)
    assert html.count("cited by the system:") == 2 and "2 suggestions left" in html
    volver_line = html[html.index(f'id="accept-{s2.pk}-11"') - 2000: html.index(f'id="accept-{s2.pk}-11"')]
    assert 'name="start" value="12"' in volver_line and 'name="end" value="17"' in volver_line
    assert 'href="https://imdb.com/title/tt0441909" target="_blank" rel="noopener noreferrer nofollow"' in html
    assert "Google grounding redirect, not resolved offline" in html
    assert '<span class="cited"><span class="lazy" data-i="12">**Volver** (2006) is a comedy-drama.' in html


def test_a_cited_title_with_markup_is_shown_as_text(client, db):
    conversation, gold = build_harvest()
    Entity.objects.filter(annotator__username="citations").update(name="<script>alert(1)</script>")
    client.force_login(gold)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_each_wc_badges_accessible_name_begins_with_the_text_it_shows(client, paper):
    conversation, annotator, _ = paper
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    badges = re.findall(r'<a class="wc[^"]*"[^>]*aria-label="([^"]*)"[^>]*>([^<]*)</a>', html)
    assert len(badges) == 10
    for label, text in badges:
        assert label.startswith(text), (label, text)
        assert "nugget ending at word" in label


def test_table_1s_scrolling_box_can_be_reached_by_keyboard_and_is_named(client, paper):
    conversation, annotator, _ = paper
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    box = re.search(r'<div class="table-wrap"[^>]*>', html).group(0)
    assert 'tabindex="0"' in box and 'aria-label="Table 1: nuggets (scrolls)"' in box
