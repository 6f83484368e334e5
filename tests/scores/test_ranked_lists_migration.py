"""Migration 0014: the ranked documents of a database made before it become one list per run
and topic, judged documents by number and the others apart, in the same order."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotator", "0012_adjudication")]
AFTER = [("annotator", "0014_ranked_lists_as_arrays")]


@pytest.mark.django_db(transaction=True)
def test_ranked_documents_become_one_list_per_run_and_topic_with_judged_documents_by_number():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    Campaign, TopicType, Topic, Run = (apps.get_model("annotator", m) for m in ("Campaign", "TopicType", "Topic", "Run"))
    Entity, RankedDocument = apps.get_model("annotator", "Entity"), apps.get_model("annotator", "RankedDocument")
    User = apps.get_model("auth", "User")
    campaign = Campaign.objects.create(slug="c", name="c")
    topic = Topic.objects.create(campaign=campaign, topic_type=TopicType.objects.create(campaign=campaign, code="P"), code="P1")
    judge = User.objects.create(username="judge")
    Entity.objects.create(topic=topic, annotator=judge, key="b")
    Entity.objects.create(topic=topic, annotator=judge, key="d")
    for name, documents in (("one", ["a", "b", "c", "d"]), ("two", ["d", "e"])):
        run = Run.objects.create(campaign=campaign, name=name, kind="ranked_lists")
        for rank, document in enumerate(documents, 1):
            RankedDocument.objects.create(run=run, topic=topic, rank=rank, document=document, key=document,
                                          stated_rank=rank if name == "one" else 10 * rank, score=1.0 / rank)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    RankedList, TopicDocument = apps.get_model("annotator", "RankedList"), apps.get_model("annotator", "TopicDocument")
    assert sorted(TopicDocument.objects.values_list("number", "key")) == [(0, "b"), (1, "d")]
    lists = {row.run.name: row for row in RankedList.objects.select_related("run")}
    one, two = lists["one"], lists["two"]
    assert np.frombuffer(bytes(one.documents), dtype="<i4").tolist() == [-1, 0, -2, 1]
    assert one.unjudged.split("\n") == ["a", "c"] and one.length == 4 and bytes(one.stated_ranks) == b""
    assert np.frombuffer(bytes(one.scores), dtype="<f8").tolist() == [1.0, 0.5, 1 / 3, 0.25]
    assert np.frombuffer(bytes(two.documents), dtype="<i4").tolist() == [1, -1] and two.unjudged == "e"
    assert np.frombuffer(bytes(two.stated_ranks), dtype="<i8").tolist() == [10, 20]
    executor.loader.build_graph()
    executor.migrate(BEFORE)  # and back: the documents again, in order
    apps = executor.loader.project_state(BEFORE).apps
    RankedDocument = apps.get_model("annotator", "RankedDocument")
    assert list(RankedDocument.objects.filter(run__name="one").order_by("rank").values_list("key", "stated_rank")) == [
        ("a", 1), ("b", 2), ("c", 3), ("d", 4)]
    assert list(RankedDocument.objects.filter(run__name="two").order_by("rank").values_list("key", "stated_rank", "score")) == [
        ("d", 10, 1.0), ("e", 20, 0.5)]
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db
def test_postgresql_keeps_a_ranked_lists_arrays_uncompressed():
    # migration 0019: pglz on 5,000 lists cost the server 2 s of a FairWeb-size import
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL storage setting; SQLite has none")
    with connection.cursor() as cursor:
        cursor.execute("SELECT attname, attstorage FROM pg_attribute WHERE attrelid = 'annotator_rankedlist'::regclass "
                       "AND attname IN ('documents', 'unjudged', 'scores', 'stated_ranks')")
        assert dict(cursor.fetchall()) == {"documents": "e", "unjudged": "e", "scores": "e", "stated_ranks": "e"}
