"""A conversation that branches in the workspace: the page shows one path of its tree at a time
(the branch the chat showed, or the one through a chosen turn), and at each turn with siblings
which branch it is and a link to each."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.models import Assignment
from tests.factories import make_branching_conversation, make_campaign, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def tree(client):
    annotator = make_user("ann")
    conversation = make_branching_conversation(make_campaign(), annotator)
    assert Assignment.objects.filter(conversation=conversation, annotator=annotator).exists()
    client.force_login(annotator)
    return conversation, {t.position: t.pk for t in conversation.turns.all()}


def test_the_page_shows_the_branch_the_chat_showed_and_says_which_branch_each_turn_is(client, tree):
    conversation, pk = tree
    html = client.get(reverse("conversation", args=[conversation.pk])).content.decode()
    assert "Film Beta" in html and "Film Gamma" in html and "Film Alpha" not in html
    assert 'aria-label="Branches at S1">branch 2 of 2' in html
    assert f'href="?branch={pk[2]}"' in html and f'href="?branch={pk[3]}" class="branch" aria-current="true"' in html


def test_a_chosen_branch_shows_its_own_path_with_words_counted_along_it(client, tree):
    conversation, pk = tree
    html = client.get(reverse("conversation", args=[conversation.pk]), {"branch": pk[2]}).content.decode()
    assert "Film Alpha" in html and "Film Beta" not in html and "Film Gamma" not in html
    assert f'id="turn-{pk[2]}"' in html and 'data-offset="1"' in html  # after "Films?" alone
    assert 'aria-label="Branches at S1">branch 1 of 2' in html


def test_a_branch_that_is_no_turn_of_the_conversation_shows_the_shown_one(client, tree):
    conversation, _pk = tree
    html = client.get(reverse("conversation", args=[conversation.pk]), {"branch": "99999x"}).content.decode()
    assert "Film Beta" in html and "Film Alpha" not in html


def test_the_panel_scores_the_path_shown_and_gives_the_expectation_over_every_path(client, tree):
    from annotator.scores.per_conversation import score_conversation
    from tests.factories import mark

    conversation, pk = tree
    annotator = conversation.assignments.get().annotator
    mark(conversation, annotator, 2, 0, 1, "L2")  # Film Alpha, on the branch not shown
    mark(conversation, annotator, 3, 0, 1, "L1")  # Film Beta
    response = client.get(reverse("conversation", args=[conversation.pk]))
    expected = score_conversation(conversation, annotator)
    shown = score_conversation(conversation, annotator, path=frozenset({pk[1], pk[3], pk[4], pk[5]}))
    context = response.context
    assert context["score"].R == shown.R and context["expected"].R == expected.R
    assert expected.R != shown.R
    assert f'data-expected="GFRC">{expected.GFRC:.4f}' in response.content.decode()
    # the branch chosen is kept for the next page and for an edit's answer
    client.get(reverse("conversation", args=[conversation.pk]), {"branch": pk[2]})
    again = client.get(reverse("conversation", args=[conversation.pk]))
    assert "Film Alpha" in again.content.decode() and again.context["score"].nuggets[0].nugget.turn_id == pk[2]
