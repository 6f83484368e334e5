"""Linking a nugget to another entity of the topic: reuse by URL or name, else a new one."""

import re

import pytest
from django.urls import reverse

from annotator.models import Entity, Nugget
from tests.factories import make_user
from tests.workspace.conftest import HTMX, changed

pytestmark = pytest.mark.django_db


def _nuggets(conversation):
    return list(Nugget.objects.filter(turn__conversation=conversation).order_by("turn__position", "start_word"))


def test_picking_an_existing_entity_by_name_reuses_it_with_its_grade(client, paper):
    conversation, annotator, _ = paper
    first, second = _nuggets(conversation)[:2]
    client.force_login(annotator)
    response = client.post(reverse("nugget-entity", args=[conversation.pk, second.pk]),
                           {"entity": "back to the future (1985)", "version": second.version}, headers=HTMX)
    assert response.status_code == 200 and changed(response)
    second.refresh_from_db()
    assert second.entity_id == first.entity_id
    assert "WC 39 · L2 · dup" in response.content.decode()  # now a second mention of Back to the Future


def test_a_url_names_the_entity_with_that_normalised_url(client, paper):
    conversation, annotator, _ = paper
    first, second = _nuggets(conversation)[:2]
    client.force_login(annotator)
    client.post(reverse("nugget-entity", args=[conversation.pk, second.pk]),
                {"entity": "http://IMDB.com/title/tt0088763", "version": second.version}, headers=HTMX)
    second.refresh_from_db()
    assert second.entity_id == first.entity_id


def test_an_unknown_name_makes_a_new_entity(client, paper):
    conversation, annotator, _ = paper
    nugget = _nuggets(conversation)[0]
    client.force_login(annotator)
    before = Entity.objects.count()
    client.post(reverse("nugget-entity", args=[conversation.pk, nugget.pk]),
                {"entity": "Back to the Future Part II", "version": nugget.version}, headers=HTMX)
    nugget.refresh_from_db()
    assert Entity.objects.count() == before + 1
    assert nugget.entity.key == "name:back to the future part ii" and nugget.entity.grade is None


def test_an_empty_entity_is_refused(client, paper):
    conversation, annotator, _ = paper
    nugget = _nuggets(conversation)[0]
    client.force_login(annotator)
    response = client.post(reverse("nugget-entity", args=[conversation.pk, nugget.pk]),
                           {"entity": "  ", "version": nugget.version}, headers=HTMX)
    assert response.status_code == 422


def test_an_annotator_cannot_relink_another_annotators_nugget(client, paper):
    conversation, _, _ = paper
    nugget = _nuggets(conversation)[0]
    client.force_login(make_user("stranger"))
    assert client.post(reverse("nugget-entity", args=[conversation.pk, nugget.pk]),
                       {"entity": "x", "version": nugget.version}).status_code == 404


def test_linking_re_renders_the_nuggets_turn_and_the_marks_of_both_entities_and_no_others(client, paper):
    """The answer carries only what can look different (out of band), not the whole column:
    here S2's nugget becomes a second mention of S1's Back to the Future: S2 whole, and of S1
    the mark and badge of Back to the Future."""
    conversation, annotator, _ = paper
    nuggets = _nuggets(conversation)
    first = nuggets[0]
    in_s2 = next(n for n in nuggets if n.turn.position == 4)
    client.force_login(annotator)
    response = client.post(reverse("nugget-entity", args=[conversation.pk, in_s2.pk]),
                           {"entity": "back to the future (1985)", "version": in_s2.version}, headers=HTMX)
    assert response.status_code == 200 and response["HX-Reswap"] == "none"
    html = response.content.decode()
    s1, s2 = first.turn, in_s2.turn
    assert f'id="turn-{s1.pk}"' not in html and f'id="turn-{s2.pk}"' in html
    assert f'id="mk-{first.pk}-{first.start_word}"' in html and f'id="badge-{first.pk}"' in html
    assert html.count('<section class="turn') == 1 and html.count('hx-swap-oob=') >= 7  # + holder, editor, progress
    u1 = conversation.turns.get(position=1)
    assert f'id="turn-{u1.pk}"' not in html and 'id="turns"' not in html
    assert "· dup" in html


def _table_1_bodies(html: str) -> dict[str, str]:
    """Table 1's rows by turn: <tbody id="t1-<turn>"> -> its rows."""
    return {m.group(1): m.group(2) for m in re.finditer(r'<tbody id="t1-(\d+)"[^>]*>(.*?)</tbody>', html, re.S)}


def test_linking_answers_with_the_table_1_rows_of_those_turns_as_the_page_then_shows_them(client, paper):
    conversation, annotator, _ = paper
    nuggets = _nuggets(conversation)
    in_s2 = next(n for n in nuggets if n.turn.position == 4)
    s1, s2 = nuggets[0].turn, in_s2.turn
    client.force_login(annotator)
    response = client.post(reverse("nugget-entity", args=[conversation.pk, in_s2.pk]),
                           {"entity": "back to the future (1985)", "version": in_s2.version}, headers=HTMX)
    html = response.content.decode()
    sent = _table_1_bodies(html)
    assert set(sent) == {str(s2.pk)}  # the turn whose nugget was relinked, whole
    assert f'<template><tbody id="t1-{s2.pk}" hx-swap-oob="true">' in html  # a lone <tbody> needs a <template>
    # of S1, the row of the entity S2's nugget now names: no other row can have changed
    rows = re.findall(r'<tr id="t1r-(\d+)"[^>]*hx-swap-oob="morph">(.*?)</tr>', html, re.S)  # its cells' text changes
    assert [pk for pk, _ in rows] == [str(nuggets[0].pk)]
    page_html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    page = _table_1_bodies(page_html)
    assert sent[str(s2.pk)] == page[str(s2.pk)]
    assert f'<tr id="t1r-{nuggets[0].pk}">{rows[0][1]}</tr>' in page[str(s1.pk)]
    assert '<td class="ename">Back to the Future (1985) <span class="badge dup">dup</span>' in sent[str(s2.pk)]
