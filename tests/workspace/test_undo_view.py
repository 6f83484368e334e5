"""Undo: the annotator's last change in this conversation is put back."""

import pytest
from django.urls import reverse

from annotator.models import Nugget, TurnLabel
from tests.factories import make_user
from tests.workspace.conftest import HTMX, line_span

pytestmark = pytest.mark.django_db


def test_undo_takes_back_the_last_change(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    s1 = conversation.turns.get(position=2)
    turn, start, end = line_span(conversation, 2, "Groundhog")
    client.post(reverse("nugget-create", args=[conversation.pk]), {"turn": turn, "start": start, "end": end})
    client.post(reverse("turn-label", args=[conversation.pk, s1.pk]), {"label": "o", "version": ""})
    response = client.post(reverse("undo", args=[conversation.pk]), headers=HTMX)
    assert response.status_code == 200 and response["HX-Trigger"] == "annotations-changed"
    assert "Undid: created turn label" in response.content.decode()
    assert not TurnLabel.objects.exists() and Nugget.objects.count() == 1
    client.post(reverse("undo", args=[conversation.pk]), headers=HTMX)
    assert not Nugget.objects.exists()


def test_undo_with_nothing_to_undo_says_so(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    response = client.post(reverse("undo", args=[conversation.pk]), headers=HTMX)
    assert response.status_code == 200 and "Nothing to undo." in response.content.decode()
    assert "HX-Trigger" not in response


def test_an_annotator_cannot_undo_in_another_annotators_conversation(client, paper):
    conversation, _, _ = paper
    client.force_login(make_user("stranger"))
    assert client.post(reverse("undo", args=[conversation.pk])).status_code == 404
    assert Nugget.objects.count() == 10
