"""Labelling a system turn o / x / - (pressing the current label again clears it)."""

import pytest
from django.urls import reverse

from annotator.models import TurnLabel
from tests.factories import make_user
from tests.workspace.conftest import HTMX, changed

pytestmark = pytest.mark.django_db


def _label(client, conversation, turn, label, version=""):
    return client.post(reverse("turn-label", args=[conversation.pk, turn.pk]), {"label": label, "version": version},
                       headers=HTMX)


def test_labelling_a_system_turn_saves_it_and_shows_it_pressed(client, bare_paper):
    conversation, annotator, _ = bare_paper
    s1 = conversation.turns.get(position=2)
    client.force_login(annotator)
    response = _label(client, conversation, s1, "o")
    assert response.status_code == 200 and changed(response)
    assert TurnLabel.objects.get(turn=s1).label == "o"
    assert f'aria-pressed="true" data-label="o" id="label-{s1.pk}-o"' in response.content.decode()
    assert "1/2 system turns labelled" in response.content.decode()
    response = _label(client, conversation, s1, "x", version=1)
    assert TurnLabel.objects.get(turn=s1).label == "x"
    _label(client, conversation, s1, "", version=2)
    assert not TurnLabel.objects.exists()


def test_a_user_turn_cannot_be_labelled(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    response = _label(client, conversation, conversation.turns.get(position=1), "o")
    assert response.status_code == 422 and "Only system turns are labelled" in response.content.decode()


def test_labelling_from_an_old_page_is_a_conflict(client, bare_paper):
    conversation, annotator, _ = bare_paper
    s1 = conversation.turns.get(position=2)
    client.force_login(annotator)
    _label(client, conversation, s1, "o")
    response = _label(client, conversation, s1, "x")  # the page still thought there was no label
    assert response.status_code == 409 and "turn label was changed" in response.content.decode()
    assert TurnLabel.objects.get(turn=s1).label == "o"


def test_an_annotator_cannot_label_turns_of_another_annotators_conversation(client, bare_paper):
    conversation, _, _ = bare_paper
    client.force_login(make_user("stranger"))
    assert _label(client, conversation, conversation.turns.get(position=2), "o").status_code == 404


def test_a_label_answers_with_its_turn_only(client, bare_paper):
    conversation, annotator, _ = bare_paper
    s1, s2 = conversation.turns.get(position=2), conversation.turns.get(position=4)
    client.force_login(annotator)
    html = _label(client, conversation, s1, "o").content.decode()
    assert f'id="turn-{s1.pk}"' in html and f'id="turn-{s2.pk}"' not in html
    assert html.count('<section class="turn') == 1
