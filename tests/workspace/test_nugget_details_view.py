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


def test_a_rename_answers_with_the_entitys_head_and_details_form_and_the_other_forms_new_version(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.select_related("entity").first()
    client.force_login(annotator)
    html = client.post(reverse("nugget-details", args=[conversation.pk, nugget.pk]),
                       {"name": "Back to the Future", "comment": "", "version": nugget.entity.version},
                       headers=HTMX).content.decode()
    version = nugget.entity.version + 1
    assert 'id="editor"' not in html
    head = html.split('<div id="entity-head" hx-swap-oob="morph">')[1].split("</div>")[0]
    assert "Entity: Back to the Future" in head
    details = html.split('id="details-form" hx-swap-oob="morph">')[1].split("</form>")[0]
    assert 'value="Back to the Future"' in details
    assert f'<input type="hidden" form="details-form" name="version" value="{version}">' in html
    assert 'id="grade-form"' not in html
    summary = html.split('<div id="editor-summary" hx-swap-oob="morph">')[1]
    assert "Entity saved." in summary.split('<div id="flash"')[1].split("</div>")[0]
