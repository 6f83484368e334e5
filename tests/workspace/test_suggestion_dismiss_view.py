"""Dismissing a suggested nugget: kept server-side in the session, so a reload keeps it."""

import pytest
from django.urls import reverse

from annotator.models import Nugget
from tests.factories import make_user
from tests.workspace.conftest import HTMX, build_harvest, line_span

pytestmark = pytest.mark.django_db


def test_a_dismissed_suggestion_disappears_and_stays_dismissed_after_a_reload(client, bare_paper):
    conversation, annotator, _ = bare_paper
    client.force_login(annotator)
    turn, start, end = line_span(conversation, 2, "Groundhog Day")
    response = client.post(reverse("suggestion-dismiss", args=[conversation.pk]),
                           {"turn": turn, "start": start, "end": end}, headers=HTMX)
    assert response.status_code == 200 and f'id="accept-{turn}-{start}"' not in response.content.decode()
    page = client.get(reverse("conversation", args=[conversation.pk]))
    assert len(page.context["candidates"]) == 9
    assert f'id="line-{turn}-{start}"' in page.content.decode()  # it can still be marked by hand
    assert not Nugget.objects.exists()


def test_an_annotator_cannot_dismiss_suggestions_in_another_annotators_conversation(client, bare_paper):
    conversation, _, _ = bare_paper
    client.force_login(make_user("stranger"))
    turn, start, end = line_span(conversation, 2, "Groundhog Day")
    response = client.post(reverse("suggestion-dismiss", args=[conversation.pk]), {"turn": turn, "start": start, "end": end})
    assert response.status_code == 404


def test_a_dismissed_cited_span_is_no_longer_suggested(client, db):
    conversation, gold = build_harvest()
    client.force_login(gold)
    cited = Nugget.objects.get(annotator__username="citations", start_word=19)
    client.post(reverse("suggestion-dismiss", args=[conversation.pk]),
                {"turn": cited.turn_id, "start": 19, "end": 29, "cited": cited.pk}, headers={"HX-Request": "true"})
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert html.count("cited by the system:") == 1 and "Google grounding redirect" not in html
