"""Renaming the nugget's entity or commenting on it."""

import pytest
from django.urls import reverse

from annotator.models import Nugget
from tests.factories import make_user
from tests.workspace.conftest import HTMX

pytestmark = pytest.mark.django_db


def test_renaming_an_entity_shows_the_new_name_as_text(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.select_related("entity").first()
    client.force_login(annotator)
    response = client.post(reverse("nugget-details", args=[conversation.pk, nugget.pk]),
                           {"name": "<b>BTTF</b>", "comment": "wrong year?", "version": nugget.entity.version},
                           headers=HTMX)
    assert response.status_code == 200
    nugget.entity.refresh_from_db()
    assert (nugget.entity.name, nugget.entity.comment) == ("<b>BTTF</b>", "wrong year?")
    assert "&lt;b&gt;BTTF&lt;/b&gt;" in response.content.decode() and "<b>BTTF" not in response.content.decode()


def test_an_annotator_cannot_rename_another_annotators_entity(client, paper):
    conversation, _, _ = paper
    nugget = Nugget.objects.select_related("entity").first()
    client.force_login(make_user("stranger"))
    assert client.post(reverse("nugget-details", args=[conversation.pk, nugget.pk]),
                       {"name": "x", "version": nugget.entity.version}).status_code == 404
