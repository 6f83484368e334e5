"""The workspace's reads compiled once (annotator.scores.compiled_reads): the same rows as the
queryset they were compiled from, for any ids, on every thread's connection."""

import threading

import pytest
from django.db import connections

from annotator.models import Membership, Nugget, Turn
from annotator.scores import per_conversation
from annotator.scores.compiled_reads import CompiledRows
from tests.factories import make_user
from tests.workspace.conftest import build_list

pytestmark = pytest.mark.django_db


def _two_conversations():
    for k in range(5):  # user ids other than the conversations' ids: ids bound in the wrong places find nothing
        make_user(f"padding{k}")
    first, annotator = build_list(4, username="first")
    second, other = build_list(2, username="second")
    assert {first.pk, second.pk}.isdisjoint({annotator.pk, other.pk})
    return (first, annotator), (second, other)


def test_each_read_gives_the_rows_of_its_queryset_for_one_id_and_then_another():
    conversations = _two_conversations()
    for conversation, annotator in conversations:  # the second call reuses the first's SQL
        assert per_conversation._TURNS.rows(conversation.pk) == list(
            Turn.objects.filter(conversation_id=conversation.pk).order_by("position")
            .values_list("pk", "conversation_id", "position", "role", "number", "text", "follows", "p", "shown"))
        assert per_conversation._NUGGETS.rows(conversation.pk, annotator.pk) == list(
            Nugget.objects.filter(turn__conversation_id=conversation.pk, annotator_id=annotator.pk)
            .order_by("turn__position", "start_word").values_list(*per_conversation._NUGGET_COLUMNS))
        memberships = per_conversation._MEMBERSHIPS.rows(conversation.topic_id, annotator.pk)
        assert memberships == list(Membership.objects.filter(
            entity__topic_id=conversation.topic_id, entity__annotator_id=annotator.pk,
        ).values_list("entity_id", "attribute_set_id", "vector"))
        assert memberships and all(isinstance(vector, list) for *_ids, vector in memberships)  # JSON decoded


def test_the_ids_are_bound_in_the_order_given_not_the_order_compiled():
    (conversation, annotator), (_second, other) = _two_conversations()
    assert per_conversation._NUGGETS.rows(conversation.pk, annotator.pk)
    assert per_conversation._NUGGETS.rows(conversation.pk, other.pk) == []  # the other's nuggets are elsewhere


def test_a_read_counts_as_one_query(django_assert_num_queries):
    (conversation, annotator), _ = _two_conversations()
    per_conversation._TURNS.rows(conversation.pk)
    with django_assert_num_queries(1):
        per_conversation._TURNS.rows(conversation.pk)


def test_an_id_the_query_does_not_use_is_refused_when_compiled():
    make_user("anyone")
    ignoring = CompiledRows(lambda user_id: Turn.objects.values_list("pk"))
    with pytest.raises(ValueError, match="every id must be a parameter"):
        ignoring.rows(1)


@pytest.mark.django_db(transaction=True)  # another thread has its own connection: it sees committed rows
def test_another_thread_compiles_for_its_own_connection_and_reads_the_same_rows():
    (conversation, annotator), _ = _two_conversations()
    here = per_conversation._NUGGETS.rows(conversation.pk, annotator.pk)
    compiled = per_conversation._NUGGETS._by_connection
    test_connection = connections["default"]
    there: list = []

    def read():
        try:
            there.append(per_conversation._NUGGETS.rows(conversation.pk, annotator.pk))
            own = connections["default"]
            # its own entry beside the test's (other finished threads' entries may not be collected yet)
            there.append(own is not test_connection and own in compiled and compiled[own] is not compiled[test_connection])
        finally:
            connections.close_all()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert there == [here, True]


@pytest.mark.django_db(transaction=True)
def test_what_a_thread_compiled_goes_with_its_connection_when_the_thread_ends():
    import gc
    import weakref

    (conversation, annotator), _ = _two_conversations()
    gone: list = []

    def read():  # a server that gives each request a thread of its own (runserver) does this per request
        try:
            per_conversation._NUGGETS.rows(conversation.pk, annotator.pk)
            per_conversation._MEMBERSHIPS.rows(conversation.topic_id, annotator.pk)  # a JSON column: converters
            gone.append(weakref.ref(connections["default"]))
        finally:
            connections.close_all()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    del thread
    gc.collect()
    assert gone[0]() is None  # the thread's connection is not kept alive by what was compiled on it
