"""A save (its answer includes the score panel) and the panel alone cost the same queries for 3
nuggets as for 300.

How long they take is measured by bench/bench_http.py (docs/benchmarks.md), not asserted here:
a timed test on a shared machine says more about the neighbours than about the code."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotator.models import Nugget
from tests.workspace.conftest import HTMX, build_list

pytestmark = pytest.mark.django_db

# A grade save (htmx), query by query:
#   1 session, 2 user, 3 assignment (with conversation, topic, campaign, run),
#   4 the nugget (with turn, conversation, topic, entity), 5 the campaign's grades,
#   6 BEGIN, 7 entity version bump (UPDATE ... WHERE version = expected), 8 event INSERT,
#   then the stored figures of the conversation the edit touched, in the same transaction
#   (annotator.scores.stored.writes.store_saved), scored as the panel scores it: 9 which conversations
#   and annotators, 10 whether one of them was done (a done conversation the save leaves short
#   is reopened: annotator.judgments.completion), 11 the conversation with its topic and
#   campaign, 12 attribute sets, 13 turns, 14 nuggets with entity and grade (one values_list:
#   rows, not model instances), 15 memberships, 16 its row (INSERT ... ON CONFLICT UPDATE),
#   17 COMMIT, 18 the time on task (one UPDATE of the assignment: annotator.judgments.activity),
#   then the refreshed workbench, whose panel shows the score just stored (not read and scored
#   again, with the attribute sets the save read): 19 turn labels, 20 grades, 21 the spans the
#   systems cited, 22 the selected entity's memberships (the entities that suggestions name are
#   read only when there are suggestions: none here, every line is marked). The answer carries
#   only the marks and badges of the entity's nuggets and the score changes (out of band).
SAVE_QUERIES = 22
# The score panel: 1 session, 2 user, 3 assignment, 4 attribute sets, 5 turns,
#   6 nuggets with entity and grade, 7 memberships.
PANEL_QUERIES = 7


@pytest.mark.django_db(transaction=True)  # the save commits: its answer reuses the score it stored
@pytest.mark.parametrize("size", [3, 300])
def test_a_save_and_the_panel_refresh_take_the_same_queries_for_3_nuggets_as_for_300(
    size, client, django_assert_num_queries
):
    conversation, annotator = build_list(size, username=f"u{size}")
    client.force_login(annotator)
    nuggets = list(Nugget.objects.filter(turn__conversation=conversation).select_related("entity"))
    assert len(nuggets) == size
    client.get(reverse("conversation", args=[conversation.pk]))  # warm up templates and URL resolver
    nugget = nuggets[len(nuggets) // 2]
    with django_assert_num_queries(SAVE_QUERIES):
        response = client.post(
            reverse("nugget-grade", args=[conversation.pk, nugget.pk]),
            {"grade": 1, "version": nugget.entity.version},
            headers={"HX-Request": "true"},
        )
    # the answer does not grow with the conversation: the entity's nugget's mark and badge, its
    # row of Table 1, no turn, no line
    html = response.content.decode()
    assert html.count('<section class="turn') == 0 and html.count('<div class="line') == 0
    assert html.count('<mark ') == 1 and html.count('<a class="wc') == 1 and html.count("<tr ") == 1
    with django_assert_num_queries(PANEL_QUERIES):
        client.get(reverse("score-panel", args=[conversation.pk]), headers={"HX-Request": "true"})


# The default orderings of Turn, Nugget, Entity and AttributeSet start from the campaign, topic
# or run: sorting by them joins those tables into a query that needs no order (the form's turns,
# the overlap check, the one entity with a key), a few tenths of a millisecond each in a save.
SORT_JOINS = ('"annotator_campaign"."slug"', '"annotator_topic"."code"', '"annotator_run"."name"',
              '"annotator_topictype"."code"')


@pytest.mark.django_db(transaction=True)
def test_a_nugget_save_sorts_nothing_by_campaign_topic_or_run(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    conversation, annotator = build_list(3, username="sorter")
    client.force_login(annotator)
    turn = conversation.turns.get(position=2)
    with CaptureQueriesContext(connection) as captured:
        response = client.post(reverse("nugget-create", args=[conversation.pk]),
                               {"turn": turn.pk, "start": 0, "end": 3}, headers=HTMX)
    assert response.status_code == 200 and Nugget.objects.filter(turn=turn, start_word=0).exists()
    sorted_by = [q["sql"] for q in captured.captured_queries
                 if any(column in q["sql"].partition("ORDER BY")[2] for column in SORT_JOINS)]
    assert sorted_by == []
