"""'Next unfinished' from a conversation: the next unfinished one in queue order, else the queue."""

import pytest
from django.urls import reverse

from annotator.judgments import edits
from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db


def _three(annotator):
    campaign = make_campaign()
    return [
        make_conversation(campaign, [("U", "q"), ("S", "a")], topic=f"M00{i}", run="r", annotators=[annotator])
        for i in range(1, 4)
    ]


def test_next_unfinished_goes_to_the_next_unfinished_conversation_after_the_current_one(client):
    annotator = make_user("ann")
    first, second, third = _three(annotator)
    edits.set_turn_label(second.turns.get(position=2), annotator=annotator, actor=annotator, label="o",
                               expected_version=None)
    client.force_login(annotator)
    response = client.get(reverse("queue-next") + f"?after={first.pk}")
    assert response["Location"] == reverse("conversation", args=[third.pk])
    response = client.get(reverse("queue-next") + f"?after={third.pk}")
    assert response["Location"] == reverse("conversation", args=[first.pk])


def test_next_unfinished_goes_back_to_the_queue_when_everything_is_finished(client):
    annotator = make_user("ann")
    for c in _three(annotator):
        edits.set_turn_label(c.turns.get(position=2), annotator=annotator, actor=annotator, label="o",
                                   expected_version=None)
    client.force_login(annotator)
    assert client.get(reverse("queue-next"))["Location"] == reverse("queue")


def test_next_unfinished_requires_login(client):
    assert "/accounts/login/" in client.get(reverse("queue-next"))["Location"]
