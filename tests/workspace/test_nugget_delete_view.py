"""Deleting a nugget (undo brings it back)."""

import pytest
from django.urls import reverse

from annotator.models import Nugget
from tests.factories import make_user
from tests.workspace.conftest import HTMX, changed

pytestmark = pytest.mark.django_db


def test_deleting_a_nugget_removes_it_and_refreshes_the_score(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.filter(turn__conversation=conversation).first()
    client.force_login(annotator)
    response = client.post(reverse("nugget-delete", args=[conversation.pk, nugget.pk]),
                           {"version": nugget.version}, headers=HTMX)
    assert response.status_code == 200 and changed(response)
    assert "No nugget selected" in response.content.decode()
    assert not Nugget.objects.filter(pk=nugget.pk).exists()


def test_deleting_with_an_old_version_is_refused_with_409(client, paper):
    conversation, annotator, _ = paper
    nugget = Nugget.objects.filter(turn__conversation=conversation).first()
    client.force_login(annotator)
    response = client.post(reverse("nugget-delete", args=[conversation.pk, nugget.pk]),
                           {"version": nugget.version + 5}, headers=HTMX)
    assert response.status_code == 409 and "nothing was saved" in response.content.decode()
    assert Nugget.objects.filter(pk=nugget.pk).exists()


def test_an_annotator_cannot_delete_another_annotators_nugget(client, paper):
    conversation, _, _ = paper
    nugget = Nugget.objects.filter(turn__conversation=conversation).first()
    client.force_login(make_user("stranger"))
    assert client.post(reverse("nugget-delete", args=[conversation.pk, nugget.pk]),
                       {"version": nugget.version}).status_code == 404
    assert Nugget.objects.filter(pk=nugget.pk).exists()
