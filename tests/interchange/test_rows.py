"""interchange.imports.rows: plain-row INSERTs store what the model's fields would."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.utils import timezone

from annotator.interchange.imports.rows import insert_rows
from annotator.models import AnnotationEvent, Topic, TopicType
from tests.factories import make_campaign, make_user

pytestmark = pytest.mark.django_db

STATES = [
    {"topic": 1, "key": "https://example.org/a?b=c", "name": "Zoë \u2014 \"quoted\" \\ \n\t\u0001 \U0001f600", "grade": None, "comment": ""},
    {"entity": 2, "attribute_set": 3, "vector": [1 / 3, 1 / 3, 1 / 3], "evidence": ""},
    {"vector": [0.0, -0.0, 1.0, 1, True, 1e-07, 0.1 + 0.2], "nested": {"a": [[], {}], "b": None}},
    [],
    [0.25, 0.25, 0.25, 0.25],
]


def _events(rows):
    campaign = make_campaign()
    topic = Topic.objects.create(campaign=campaign, topic_type=TopicType.objects.create(campaign=campaign, code="R"), code="T1")
    user, now = make_user("writer"), timezone.now()
    insert_rows(AnnotationEvent, ["topic_id", "annotator_id", "at", "action", "kind", "object_id", "before", "after", "imported"],
                [(topic.pk, user.pk, now, "create", "entity", i, before, after, True) for i, (before, after) in enumerate(rows)])
    return list(AnnotationEvent.objects.order_by("object_id").values_list("before", "after"))


def test_json_values_are_stored_as_the_fields_store_them():
    shared = [0.0, 1.0]
    rows = [(None, state) for state in STATES] + [(shared, shared), (shared, [0.0, 1.0])]
    assert _events(rows) == [(before, after) for before, after in rows]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the JSON text as stored: SQLite keeps it as written")
def test_on_sqlite_the_stored_json_text_is_what_json_dumps_gives_byte_for_byte():
    shared = [0.0, 1.0]
    rows = [(None, state) for state in STATES] + [(shared, shared)]
    _events(rows)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT before, after FROM {AnnotationEvent._meta.db_table} ORDER BY object_id")
        stored = cursor.fetchall()
    assert stored == [(None if before is None else json.dumps(before), json.dumps(after)) for before, after in rows]


def test_lists_given_again_are_stored_right_across_batches_and_statements(monkeypatch):
    monkeypatch.setattr("annotator.interchange.imports.rows.BATCH", 7)  # statements of 7 rows, then 6: each list in several
    lists = [[float(i), 1.0 - i] for i in range(5)]
    rows = [(lists[i % 5], lists[(i * 3) % 5]) for i in range(20)]
    assert _events(rows) == rows


def test_columns_the_same_for_every_row_are_stored_in_each_row_given_once(monkeypatch):
    monkeypatch.setattr("annotator.interchange.imports.rows.BATCH", 4)  # full statements and a shorter last one
    campaign = make_campaign()
    topic = Topic.objects.create(campaign=campaign, topic_type=TopicType.objects.create(campaign=campaign, code="R"), code="T1")
    user, now = make_user("writer"), timezone.now()
    states = [{"i": i} if i % 2 else None for i in range(11)]
    count = insert_rows(AnnotationEvent, ["object_id", "action", "before"], [(i, f"a{i}", state) for i, state in enumerate(states)],
                        same={"topic_id": topic.pk, "annotator_id": user.pk, "at": now, "kind": "entity", "after": [1, "x"],
                              "imported": True})
    assert count == 11
    assert list(AnnotationEvent.objects.order_by("pk").values_list(
        "object_id", "action", "before", "topic_id", "annotator_id", "at", "kind", "after", "imported", "conversation_id")) == [
        (i, f"a{i}", state, topic.pk, user.pk, now, "entity", [1, "x"], True, None) for i, state in enumerate(states)]


def test_rows_written_under_djangos_debug_cursor_are_logged_as_the_statements_run():
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        stored = _events([(None, [i]) for i in range(3)])
    assert stored == [(None, [i]) for i in range(3)]
    assert any("INSERT INTO" in query["sql"] for query in queries.captured_queries)


@pytest.mark.parametrize("column", [
    [{"i": i, "s": "\u2014"} for i in range(5)],  # only dicts: encoded all together
    [[0.5, 0.5], [1.0, 0.0], [0.5, 0.5]] + [[0.0, 1.0]] * 2,  # only lists, some given again
    [{"i": 1}, [1.0], None, 3, "text", [1.0]],  # anything: a value at a time
], ids=["dicts", "lists", "mixed"])
def test_a_json_column_of_dicts_lists_or_anything_is_stored_as_the_field_stores_it(column):
    rows = [(None, value) for value in column]
    assert _events(rows) == rows
