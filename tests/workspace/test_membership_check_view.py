"""The live check under a membership being typed: the vector it gives, or why it cannot be
saved, by the same form rules as a save, and nothing written."""

import pytest
from django.urls import reverse

from annotator.models import AttributeSet, Membership
from tests.factories import make_user
from tests.workspace.conftest import HTMX

pytestmark = pytest.mark.django_db


def _check(client, conversation, name, **typed):
    attribute_set = AttributeSet.objects.get(name=name)
    data = {f"m{attribute_set.pk}-{k}": v for k, v in typed.items()}
    return client.post(reverse("membership-check", args=[conversation.pk, attribute_set.pk]), data, headers=HTMX)


def test_a_vector_that_does_not_sum_to_one_is_flagged_while_typing(client, paper):
    conversation, annotator, _ = paper
    client.force_login(annotator)
    response = _check(client, conversation, "ORIGIN", vector="(0,1/2,0,0,0,1/3,0,0)")
    assert response.status_code == 200 and "sums to 0.833333, not 1" in response.content.decode()
    ok = _check(client, conversation, "ORIGIN", vector="(0,1/2,0,0,0,1/2,0,0)").content.decode()
    assert "gives (0,1/2,0,0,0,1/2,0,0)" in ok


def test_evidence_is_previewed_as_the_vector_the_helper_gives(client, paper):
    conversation, annotator, _ = paper
    AttributeSet.objects.filter(name="RATINGS").update(helper={"bands": [100, 10000, 1000000]})
    client.force_login(annotator)
    before = Membership.objects.count()
    assert "gives (0,0,0,1)" in _check(client, conversation, "RATINGS", evidence="1.3M").content.decode()
    assert Membership.objects.count() == before


def test_nothing_typed_shows_nothing(client, paper):
    conversation, annotator, _ = paper
    client.force_login(annotator)
    assert _check(client, conversation, "ORIGIN", vector="  ").content == b""


def test_an_annotator_cannot_check_in_another_annotators_conversation(client, paper):
    conversation, _, _ = paper
    client.force_login(make_user("stranger"))
    assert _check(client, conversation, "ORIGIN", vector="(1,0,0,0,0,0,0,0)").status_code == 404
