"""Saying a conversation is done, in the workspace (button, key f) and through the API: refused
with what is missing while a nugget lacks a grade or a membership the campaign requires;
reopened by the annotator, or by a save that leaves it short; the guidelines version recorded."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.judgments import edits, guidelines
from annotator.models import Assignment, Campaign, Entity, Membership
from tests.factories import mark

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def done_url(conversation) -> str:
    return reverse("conversation-done", args=[conversation.pk])


def assignment_of(conversation, annotator) -> Assignment:
    return Assignment.objects.get(conversation=conversation, annotator=annotator)


def test_the_page_offers_done_with_its_key_and_the_keys_help_says_so(paper, as_user):
    conversation, ann, _ = paper
    page = as_user(ann).get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert 'id="done-button"' in page and done_url(conversation) in page and "(f)" in page
    assert "<kbd>f</kbd>" in page and "<kbd>g</kbd>" in page


def test_a_finished_conversation_is_done_with_the_guidelines_version_in_force(paper, as_user):
    conversation, ann, _ = paper
    guidelines.write(conversation.topic.campaign, text="Grade every movie.", notes={}, author=None)
    second = guidelines.write(conversation.topic.campaign, text="Grade every movie, twice.", notes={}, author=None)
    html = as_user(ann).post(done_url(conversation), **HTMX).content.decode()
    assignment = assignment_of(conversation, ann)
    assert assignment.done_at is not None and assignment.guidelines_version == second.version == 2
    assert "✓ Done" in html and 'id="done-control" class="done-control" hx-swap-oob="true"' in html
    assert reverse("conversation-reopen", args=[conversation.pk]) in html


def test_done_is_refused_while_a_nugget_has_no_grade_saying_which(paper, as_user):
    conversation, ann, _ = paper
    entity = Entity.objects.filter(annotator=ann, name__startswith="Interstellar").first() or Entity.objects.filter(annotator=ann).first()
    edits.update_entity(entity, actor=ann, expected_version=entity.version, grade=None)
    response = as_user(ann).post(done_url(conversation), **HTMX)
    assert response.status_code == 422
    assert "1 nugget has no grade" in response.content.decode() and entity.name in response.content.decode()
    assert assignment_of(conversation, ann).done_at is None


def test_memberships_are_required_only_when_the_campaign_refuses_nuggets_without_them(paper, as_user):
    conversation, ann, _ = paper
    entity = Entity.objects.filter(annotator=ann, grade__gain__gt=0).first()
    Membership.objects.filter(entity=entity, attribute_set__name="ORIGIN").delete()
    client = as_user(ann)
    Campaign.objects.filter(pk=conversation.topic.campaign_id).update(missing_membership="refuse")
    response = client.post(done_url(conversation), **HTMX)
    assert response.status_code == 422 and f"{entity.name}: ORIGIN" in response.content.decode()
    Campaign.objects.filter(pk=conversation.topic.campaign_id).update(missing_membership="uniform")
    assert client.post(done_url(conversation), **HTMX).status_code == 200  # counted uniform, as the scores do
    assert assignment_of(conversation, ann).done_at is not None


def test_a_conversation_with_nothing_relevant_in_it_can_be_done(bare_paper, as_user):
    conversation, ann, _ = bare_paper
    assert as_user(ann).post(done_url(conversation)).status_code == 302
    assert assignment_of(conversation, ann).done_at is not None


def test_the_annotator_reopens_it(paper, as_user):
    conversation, ann, _ = paper
    client = as_user(ann)
    client.post(done_url(conversation))
    html = client.post(reverse("conversation-reopen", args=[conversation.pk]), **HTMX).content.decode()
    assert assignment_of(conversation, ann).done_at is None and "Done ✓" in html


def test_a_save_that_leaves_a_done_conversation_short_reopens_it_and_the_answer_says_so(paper, as_user):
    conversation, ann, _ = paper
    client = as_user(ann)
    client.post(done_url(conversation))
    turn = conversation.turns.get(position=2)
    html = client.post(reverse("nugget-create", args=[conversation.pk]), {"turn": turn.pk, "start": 0, "end": 1},
                       **HTMX).content.decode()
    assert assignment_of(conversation, ann).done_at is None  # a new nugget without a grade
    assert 'id="done-control"' in html and "Done ✓" in html


def test_a_save_that_keeps_a_done_conversation_finished_keeps_it_done(paper, as_user):
    conversation, ann, _ = paper
    client = as_user(ann)
    client.post(done_url(conversation))
    entity = Entity.objects.filter(annotator=ann, grade__label="L1").first()
    nugget = entity.nuggets.first()
    client.post(reverse("nugget-grade", args=[conversation.pk, nugget.pk]), {"grade": 2, "version": entity.version}, **HTMX)
    assert assignment_of(conversation, ann).done_at is not None


def test_only_the_conversations_annotator_says_it_is_done(paper, client):
    from tests.factories import make_user

    conversation, ann, _ = paper
    client.force_login(make_user("mallory"))
    assert client.post(done_url(conversation)).status_code == 404
    assert client.get(done_url(conversation)).status_code in (404, 405)
    assert assignment_of(conversation, ann).done_at is None


def test_the_api_says_done_by_the_same_rule_and_reopens(paper):
    from rest_framework.test import APIClient

    conversation, ann, _ = paper
    api = APIClient()
    api.force_authenticate(ann)
    url = f"/api/conversations/{conversation.pk}/done/"
    entity = Entity.objects.filter(annotator=ann).first()
    Entity.objects.filter(pk=entity.pk).update(grade=None)
    refused = api.post(url)
    assert refused.status_code == 400 and refused.json()["missing"][0].startswith("1 nugget has no grade")
    Entity.objects.filter(pk=entity.pk).update(grade=conversation.topic.campaign.grades.get(label="L1"))
    assert api.post(url).json()["done_at"] is not None
    listed = api.get("/api/conversations/").json()["results"]
    assert [c["done_at"] is not None for c in listed if c["id"] == conversation.pk] == [True]
    assert api.delete(url).json()["done_at"] is None
    assert assignment_of(conversation, ann).done_at is None


def test_the_heartbeat_and_every_save_are_signs_of_work_on_the_assignment(paper, as_user):
    conversation, ann, _ = paper
    client = as_user(ann)
    assert client.post(reverse("heartbeat", args=[conversation.pk])).status_code == 204
    first = assignment_of(conversation, ann).last_active
    assert first is not None
    client.post(reverse("conversation-reopen", args=[conversation.pk]), **HTMX)  # any workspace POST
    assert assignment_of(conversation, ann).last_active >= first
    page = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert 'hx-trigger="load, every 30s [window.gfrcActive &amp;&amp; gfrcActive()]"' in page


def test_the_guidelines_open_beside_the_conversation_and_their_markdown_is_cleaned(paper, as_user):
    conversation, ann, _ = paper
    guidelines.write(conversation.topic.campaign, author=None, notes={"M": "Movies: **grade** by the [page](https://imdb.com)."},
                     text="# How to judge\n\n<script>alert(1)</script> [x](javascript:alert(1))")
    page = as_user(ann).get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert 'id="guidelines"' in page and "<h3>How to judge</h3>" in page and "version 1" in page
    assert "<strong>grade</strong>" in page and 'href="https://imdb.com"' in page
    assert "<script>alert(1)</script>" not in page and 'href="javascript' not in page
