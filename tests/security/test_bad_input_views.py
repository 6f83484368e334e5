"""Bad numbers and spans typed into the workspace (htmx posts) and sent to the API: a clear
refusal (4xx with a message), and nothing changed."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.models import Entity, Membership, Nugget
from tests.security.conftest import judgment_counts

pytestmark = pytest.mark.django_db


def state():
    return judgment_counts(), sorted(Nugget.objects.values_list("id", "start_word", "end_word", "version")), sorted(
        Entity.objects.values_list("id", "version", "grade_id")), sorted(
        (m.entity_id, tuple(m.vector)) for m in Membership.objects.all())


@pytest.fixture
def alice(client, site):
    client.force_login(site.alice)
    client.raise_request_exception = False
    return client


@pytest.mark.parametrize("start, end", [
    ("0", "10000"), ("-1", "2"), ("-5", "-1"), ("nan", "3"), ("1e9", "1e9"), ("", ""), ("a", "b"), ("2.5", "3"),
    ("99999999999999999999", "3"),
])
def test_spans_outside_the_turn_or_not_numbers(alice, site, start, end):
    before = state()
    response = alice.post(reverse("nugget-create", args=[site.conversation.pk]),
                          {"turn": site.turn.pk, "start": start, "end": end}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422, response.status_code
    assert state() == before


def test_a_turn_of_another_conversation(alice, site):
    before = state()
    response = alice.post(reverse("nugget-create", args=[site.conversation.pk]),
                          {"turn": site.bobs_conversation.turns.get(position=2).pk, "start": 7, "end": 8},
                          HTTP_HX_REQUEST="true")
    assert response.status_code in (404, 422)
    assert state() == before


@pytest.mark.parametrize("vector", [
    "(1, 0)",  # too short
    "(0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2)",  # too long
    "(-1, 2, 0, 0, 0, 0, 0, 0)",  # negative
    "(nan, 1, 0, 0, 0, 0, 0, 0)",
    "(inf, 0, 0, 0, 0, 0, 0, 0)",
    "(0.5, 0.1, 0, 0, 0, 0, 0, 0)",  # does not sum to 1
    "(a, b, c, d, e, f, g, h)",
    "(0, 0, 0, 0, 0, 0, 0, 0)",
])
def test_bad_membership_vectors(alice, site, vector):
    entity = Entity.objects.get(pk=site.nugget.entity_id)
    before = state()
    prefix = f"m{site.attribute_set.pk}"
    response = alice.post(
        reverse("nugget-membership", args=[site.conversation.pk, site.nugget.pk, site.attribute_set.pk]),
        {f"{prefix}-vector": vector, f"{prefix}-do": "typed", f"{prefix}-version": entity.version},
        HTTP_HX_REQUEST="true")
    assert response.status_code == 422, response.status_code
    assert state() == before


@pytest.mark.parametrize("group", ["8", "-1", "nan", "1e3"])
def test_a_group_that_does_not_exist(alice, site, group):
    entity = Entity.objects.get(pk=site.nugget.entity_id)
    before = state()
    prefix = f"m{site.attribute_set.pk}"
    response = alice.post(
        reverse("nugget-membership", args=[site.conversation.pk, site.nugget.pk, site.attribute_set.pk]),
        {f"{prefix}-group": group, f"{prefix}-version": entity.version}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422, response.status_code
    assert state() == before


@pytest.mark.parametrize("version", ["0", "-1", "nan", "", "abc"])
def test_bad_versions_on_delete(alice, site, version):
    before = state()
    response = alice.post(reverse("nugget-delete", args=[site.conversation.pk, site.nugget.pk]),
                          {"version": version}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422, response.status_code
    assert state() == before


def test_a_stale_version_on_delete_is_a_409_with_the_latest_state(alice, site):
    before = state()
    response = alice.post(reverse("nugget-delete", args=[site.conversation.pk, site.nugget.pk]),
                          {"version": site.nugget.version + 5}, HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert "changed by someone else" in response.content.decode()
    assert state() == before


@pytest.mark.parametrize("label", ["maybe", "<script>", "oo", "1"])
def test_bad_turn_labels(alice, site, label):
    before = state()
    response = alice.post(reverse("turn-label", args=[site.conversation.pk, site.turn.pk]),
                          {"label": label}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422, response.status_code
    assert state() == before


@pytest.mark.parametrize("payload", [
    {"start_word": -1, "end_word": 2},
    {"start_word": 0, "end_word": 10_000},
    {"start_word": "nan", "end_word": 2},
    {"start_word": 3, "end_word": 1},
])
def test_api_nugget_create_with_bad_spans(alice, site, payload):
    before = state()
    response = alice.post("/api/nuggets/", {"turn": site.turn.pk, **payload}, content_type="application/json")
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert state() == before
