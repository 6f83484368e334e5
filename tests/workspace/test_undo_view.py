"""Undo: the annotator's last change in this conversation is put back."""

import pytest
from django.urls import reverse

from annotator.models import Nugget, TurnLabel
from tests.factories import make_user
from tests.workspace.conftest import HTMX, line_span, changed

pytestmark = pytest.mark.django_db


def test_undo_takes_back_the_last_change(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    s1 = conversation.turns.get(position=2)
    turn, start, end = line_span(conversation, 2, "Groundhog")
    client.post(reverse("nugget-create", args=[conversation.pk]), {"turn": turn, "start": start, "end": end})
    client.post(reverse("turn-label", args=[conversation.pk, s1.pk]), {"label": "o", "version": ""})
    response = client.post(reverse("undo", args=[conversation.pk]), headers=HTMX)
    assert response.status_code == 200 and changed(response)
    assert "Undid: label of S1 none -&gt; o" in response.content.decode()
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


def test_an_undo_after_an_api_edit_is_a_409_with_the_latest_state_not_a_silent_revert(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Interstellar")
    client.post(reverse("nugget-create", args=[conversation.pk]), {"turn": turn, "start": start, "end": end})
    nugget = Nugget.objects.select_related("entity").get()
    client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                {"grade": 2, "version": nugget.entity.version}, headers=HTMX)
    nugget.entity.refresh_from_db()
    api = client.patch(f"/api/entities/{nugget.entity_id}/", {"comment": "seen on IMDb", "version": nugget.entity.version},
                       content_type="application/json")
    assert api.status_code == 200
    response = client.post(reverse("undo", args=[conversation.pk]), {"selected": nugget.pk}, headers=HTMX)
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed by someone else" in html and "seen on IMDb" in html
    nugget.entity.refresh_from_db()
    assert (nugget.entity.comment, nugget.entity.grade.label) == ("seen on IMDb", "L2")


def test_undo_names_the_grade_it_took_back(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Interstellar")
    client.post(reverse("nugget-create", args=[conversation.pk]), {"turn": turn, "start": start, "end": end})
    nugget = Nugget.objects.select_related("entity").get()
    for level in (2, 1):
        nugget.entity.refresh_from_db()
        client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
                    {"grade": level, "version": nugget.entity.version}, headers=HTMX)
    response = client.post(reverse("undo", args=[conversation.pk]), {"selected": nugget.pk}, headers=HTMX)
    assert f"Undid: grade of {nugget.entity.name} L2 -&gt; L1" in response.content.decode()


def test_undoing_a_delete_selects_the_nugget_it_restored(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Interstellar")
    client.post(reverse("nugget-create", args=[conversation.pk]), {"turn": turn, "start": start, "end": end})
    nugget = Nugget.objects.get()
    client.post(reverse("nugget-delete", args=[conversation.pk, nugget.pk]), {"version": nugget.version}, headers=HTMX)
    response = client.post(reverse("undo", args=[conversation.pk]), headers=HTMX)
    html = response.content.decode()
    assert "Undid: deleting nugget" in html
    assert f'name="selected" value="{nugget.pk}"' in html, "the restored nugget is selected: the grade keys act on it"
