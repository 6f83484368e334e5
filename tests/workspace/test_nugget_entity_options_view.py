"""The entity link field's suggestions: the annotator's other entities of the topic, loaded
when the "Link to another entity" details open instead of with every edit."""

import pytest
from django.urls import reverse

from annotator.models import Entity, Nugget
from tests.factories import make_user
from tests.workspace.conftest import HTMX

pytestmark = pytest.mark.django_db


def _first(conversation):
    return Nugget.objects.filter(turn__conversation=conversation).order_by("turn__position", "start_word").first()


def test_the_options_are_the_other_entities_of_the_topic_with_their_grades(client, paper):
    conversation, annotator, _ = paper
    nugget = _first(conversation)
    client.force_login(annotator)
    response = client.get(reverse("nugget-entity-options", args=[conversation.pk, nugget.pk]), headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    others = Entity.objects.filter(annotator=annotator).exclude(pk=nugget.entity_id)
    assert html.count("<option ") == others.count() == 9
    assert nugget.entity.key not in html
    assert "https://imdb.com/title/tt0816692 · L1" in html  # Interstellar, by its key, with its grade


def test_entity_names_in_the_options_are_inert(client, paper):
    conversation, annotator, _ = paper
    first, second = Nugget.objects.filter(turn__conversation=conversation).order_by("turn__position", "start_word")[:2]
    Entity.objects.filter(pk=second.entity_id).update(name='<img src=x onerror="alert(1)">')
    client.force_login(annotator)
    html = client.get(reverse("nugget-entity-options", args=[conversation.pk, first.pk])).content.decode()
    assert "<img" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html


def test_an_edit_no_longer_carries_the_options_but_the_way_to_load_them(client, paper):
    conversation, annotator, _ = paper
    nugget = _first(conversation)
    client.force_login(annotator)
    html = client.get(reverse("conversation", args=[conversation.pk]) + f"?nugget={nugget.pk}").content.decode()
    url = reverse("nugget-entity-options", args=[conversation.pk, nugget.pk])
    assert f'<datalist id="entity-names" hx-get="{url}" hx-trigger="toggle once from:closest details" hx-target="this"' in html
    assert "<option " not in html.split('id="entity-names"')[1].split("</datalist>")[0]


def test_a_refused_link_reopens_the_details_with_the_options_inline(client, paper):
    conversation, annotator, _ = paper
    nugget = _first(conversation)
    client.force_login(annotator)
    response = client.post(reverse("nugget-entity", args=[conversation.pk, nugget.pk]),
                           {"entity": "", "version": nugget.version}, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 422
    datalist = html.split('id="entity-names"')[1].split("</datalist>")[0]
    assert datalist.count("<option ") == 9 and "hx-get" not in datalist


def test_another_annotator_cannot_list_the_entities(client, paper):
    conversation, _, _ = paper
    nugget = _first(conversation)
    client.force_login(make_user("stranger"))
    assert client.get(reverse("nugget-entity-options", args=[conversation.pk, nugget.pk])).status_code == 404


def test_anonymous_visitors_are_sent_to_log_in(client, paper):
    conversation, _, _ = paper
    nugget = _first(conversation)
    response = client.get(reverse("nugget-entity-options", args=[conversation.pk, nugget.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
