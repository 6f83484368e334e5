"""The queue: an annotator's conversations grouped by topic, with their progress."""

import pytest
from django.urls import reverse

from annotator.models import Assignment
from annotator.judgments.progress import progress_for
from tests.factories import make_campaign, make_conversation, make_user, mark
from tests.workspace.conftest import build_paper

pytestmark = pytest.mark.django_db


def test_the_queue_requires_login(client):
    response = client.get(reverse("queue"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_an_annotator_sees_their_conversations_grouped_by_topic_with_progress(client):
    conversation, annotator, _ = build_paper(annotated=True)
    campaign = conversation.topic.campaign
    other_topic = make_conversation(campaign, [("U", "q"), ("S", "a")], topic="M007", run="bard", annotators=[annotator])
    client.force_login(annotator)
    response = client.get(reverse("queue"))
    html = response.content.decode()
    assert response.status_code == 200
    assert html.index(">M002 ") < html.index(">M007 ")
    # M002: 0/2 turns labelled, 10/10 nuggets graded, 10/10 entities with memberships
    assert "0/2" in html and "10/10" in html
    assert reverse("conversation", args=[other_topic.pk]) in html


def test_another_annotators_conversations_are_not_in_my_queue(client):
    conversation, _annotator, _ = build_paper(annotated=False)
    stranger = make_user("stranger")
    client.force_login(stranger)
    html = client.get(reverse("queue")).content.decode()
    assert reverse("conversation", args=[conversation.pk]) not in html
    assert "Nothing is assigned to you yet." in html


def test_two_annotators_assigned_the_same_conversation_annotate_it_independently(client):
    conversation, first, nuggets = build_paper(annotated=False)
    second = make_user("second")
    Assignment.objects.create(conversation=conversation, annotator=second)
    n = nuggets[0]
    mark(conversation, first, n["turn"], n["start"], n["end"], "L2")
    progress = {
        user.username: progress_for(user, [conversation])[conversation.pk] for user in (first, second)
    }
    assert (progress["ann"].nuggets, progress["second"].nuggets) == (1, 0)
    client.force_login(second)
    page = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert "WC 35" not in page


def test_the_next_unfinished_button_points_at_the_first_unfinished_conversation(client):
    annotator = make_user("ann")
    campaign = make_campaign()
    done = make_conversation(campaign, [("U", "q"), ("S", "nothing here")], topic="M001", run="a", annotators=[annotator])
    todo = make_conversation(campaign, [("U", "q"), ("S", "nothing here")], topic="M002", run="a", annotators=[annotator])
    client.force_login(annotator)
    client.post(reverse("conversation-done", args=[done.pk]))
    response = client.get(reverse("queue"))
    assert response.context["next"].conversation_id == todo.pk
    assert f'id="next-unfinished" href="{reverse("conversation", args=[todo.pk])}"' in response.content.decode()


def test_progress_is_counted_in_the_same_queries_for_one_conversation_as_for_many(django_assert_num_queries):
    annotator = make_user("ann")
    campaign = make_campaign()
    conversations = [
        make_conversation(campaign, [("U", "q"), ("S", f"Film {i}: https://imdb.com/title/tt{i}/")], topic=f"M{i:03d}",
                          run="r", annotators=[annotator])
        for i in range(5)
    ]
    for c in conversations:
        mark(c, annotator, 2, 0, 2, "L2", {"RATINGS": [0, 0, 1, 0]})
    # 1 system turns, 2 labels, 3 nuggets, grades and entities counted with their memberships
    with django_assert_num_queries(3):
        one = progress_for(annotator, conversations[:1])
    with django_assert_num_queries(3):
        many = progress_for(annotator, conversations)
    assert one[conversations[0].pk] == many[conversations[0].pk]
    p = many[conversations[3].pk]
    assert (p.system_turns, p.turns_labelled, p.nuggets, p.nuggets_graded, p.entities, p.entities_complete) == (
        1, 0, 1, 1, 1, 0  # ORIGIN is missing
    )
    assert not p.finished
