"""'Next unfinished' from a conversation: the next one not done in queue order, else the queue."""

import pytest
from django.urls import reverse

from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db


def _three(annotator):
    campaign = make_campaign()
    return [
        make_conversation(campaign, [("U", "q"), ("S", "a")], topic=f"M00{i}", run="r", annotators=[annotator])
        for i in range(1, 4)
    ]


def test_next_unfinished_goes_to_the_next_conversation_not_done_after_the_current_one(client):
    annotator = make_user("ann")
    first, second, third = _three(annotator)
    client.force_login(annotator)
    assert client.post(reverse("conversation-done", args=[second.pk])).status_code == 302
    response = client.get(reverse("queue-next") + f"?after={first.pk}")
    assert response["Location"] == reverse("conversation", args=[third.pk])
    response = client.get(reverse("queue-next") + f"?after={third.pk}")
    assert response["Location"] == reverse("conversation", args=[first.pk])


def test_next_unfinished_goes_back_to_the_queue_when_everything_is_done(client):
    annotator = make_user("ann")
    client.force_login(annotator)
    for c in _three(annotator):
        client.post(reverse("conversation-done", args=[c.pk]))
    assert client.get(reverse("queue-next"))["Location"] == reverse("queue")


def test_next_unfinished_requires_login(client):
    assert "/accounts/login/" in client.get(reverse("queue-next"))["Location"]
