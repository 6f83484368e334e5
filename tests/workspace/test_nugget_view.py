"""One nugget: GET selects it for the editor, POST moves it to other words of its turn."""

import pytest
from django.urls import reverse

from annotator.judgments import edits
from annotator.models import Nugget
from tests.factories import make_user
from tests.workspace.conftest import HTMX, changed

pytestmark = pytest.mark.django_db


def _first(conversation):
    return Nugget.objects.filter(turn__conversation=conversation).order_by("turn__position", "start_word").first()


def test_selecting_a_nugget_returns_the_editor_for_it_and_no_turn(client, paper):
    conversation, annotator, _ = paper
    nugget = _first(conversation)
    client.force_login(annotator)
    response = client.get(reverse("nugget", args=[conversation.pk, nugget.pk]), headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "Nugget in S1 · WC 35" in html and "HX-Trigger" not in response
    # nothing in the column changes: annotate.js marks the selection
    assert response["HX-Reswap"] == "none" and '<section class="turn' not in html
    assert f'<div id="selected-holder" hidden data-selected="{nugget.pk}" hx-swap-oob="true">' in html
    plain = client.get(reverse("nugget", args=[conversation.pk, nugget.pk]))
    assert plain["Location"].endswith(f"?nugget={nugget.pk}#editor")


def test_moving_a_nugget_to_other_words_changes_its_wc(client, paper):
    conversation, annotator, _ = paper
    nugget = _first(conversation)
    client.force_login(annotator)
    response = client.post(reverse("nugget", args=[conversation.pk, nugget.pk]),
                           {"first": 30, "last": 34, "version": nugget.version}, headers=HTMX)
    assert response.status_code == 200 and changed(response)
    nugget.refresh_from_db()
    assert (nugget.start_word, nugget.end_word) == (12, 16) and "WC 34" in response.content.decode()


def test_moving_a_nugget_outside_its_turn_is_refused_with_a_message(client, paper):
    conversation, annotator, _ = paper
    nugget = _first(conversation)
    client.force_login(annotator)
    response = client.post(reverse("nugget", args=[conversation.pk, nugget.pk]),
                           {"first": 5, "last": 20, "version": nugget.version}, headers=HTMX)
    assert response.status_code == 422 and "stays inside its turn" in response.content.decode()


def test_a_stale_edit_shows_a_clear_message_and_the_latest_state(client, paper):
    conversation, annotator, _ = paper
    nugget = _first(conversation)
    seen = nugget.version
    edits.update_nugget(nugget, actor=annotator, expected_version=seen, start_word=12, end_word=17)  # other tab
    client.force_login(annotator)
    response = client.post(reverse("nugget", args=[conversation.pk, nugget.pk]),
                           {"first": 31, "last": 35, "version": seen}, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 409
    assert "changed by someone else in the meantime" in html and 'value="30"' in html  # latest: words 30-35
    nugget.refresh_from_db()
    assert (nugget.start_word, nugget.end_word) == (12, 17)


def test_an_annotator_cannot_open_another_annotators_nugget(client, paper):
    conversation, _, _ = paper
    nugget = _first(conversation)
    client.force_login(make_user("stranger"))
    assert client.get(reverse("nugget", args=[conversation.pk, nugget.pk]), headers=HTMX).status_code == 404
    assert client.post(reverse("nugget", args=[conversation.pk, nugget.pk]),
                       {"first": 30, "last": 34, "version": 1}).status_code == 404
