"""Migration 0023: a decision stored before names a system turn by its S-number; after, by the
turn's position (in a conversation that branches two turns are S1), and back."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotator", "0022_conversation_trees")]
AFTER = [("annotator", "0023_adjudication_units_by_turn_position")]
SEP = "\x1f"


@pytest.mark.django_db(transaction=True)
def test_a_decision_names_its_turn_by_position_after_the_migration_and_by_number_before():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    Campaign, TopicType, Topic, Run = (apps.get_model("annotator", m) for m in ("Campaign", "TopicType", "Topic", "Run"))
    Conversation, Turn = apps.get_model("annotator", "Conversation"), apps.get_model("annotator", "Turn")
    Decision = apps.get_model("annotator", "AdjudicationDecision")
    campaign = Campaign.objects.create(slug="c", name="c")
    topic = Topic.objects.create(campaign=campaign, topic_type=TopicType.objects.create(campaign=campaign, code="M"), code="M1")
    conversation = Conversation.objects.create(topic=topic, run=Run.objects.create(campaign=campaign, name="r"))
    for position, (role, number) in enumerate([("U", 1), ("S", 1), ("U", 2), ("S", 2)], start=1):
        Turn.objects.create(conversation=conversation, position=position, role=role, number=number, text="w")
    units = [SEP.join(["span", "2", "https://imdb.com/title/tt1", "0"]), SEP.join(["label", "1"]),
             SEP.join(["grade", "https://imdb.com/title/tt1"])]
    for unit in units:
        Decision.objects.create(conversation=conversation, unit=unit, description=unit, after_event=0)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    Decision = executor.loader.project_state(AFTER).apps.get_model("annotator", "AdjudicationDecision")
    assert sorted(Decision.objects.values_list("unit", flat=True)) == sorted([
        SEP.join(["span", "4", "https://imdb.com/title/tt1", "0"]), SEP.join(["label", "2"]), units[2]])
    executor.loader.build_graph()
    executor.migrate(BEFORE)
    Decision = executor.loader.project_state(BEFORE).apps.get_model("annotator", "AdjudicationDecision")
    assert sorted(Decision.objects.values_list("unit", flat=True)) == sorted(units)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
