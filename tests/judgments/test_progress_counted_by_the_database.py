"""The database counts progress (annotator.judgments.progress: one GROUP BY over the nuggets,
their entities' grades and memberships). An oracle counts the same rows in Python, entity by
entity, with the rule's Python form (annotator.rules.relevance.needs_every_membership), and the
queue's and the console's entrances must both give its figures."""

from __future__ import annotations

import random

import pytest

from annotator.judgments.progress import Progress, campaign_progress, progress_for
from annotator.models import Assignment, AttributeSet, Membership, Nugget, TopicType, Turn, TurnLabel
from annotator.rules.relevance import needs_every_membership
from bench.lib.seeding import movie_line
from tests.factories import make_campaign, make_conversation, make_user, mark

pytestmark = pytest.mark.django_db

SETS = {"RATINGS": [0, 0, 1, 0], "ORIGIN": [0, 1, 0, 0, 0, 0, 0, 0]}


def oracle(annotator_id: int, conversation) -> Progress:
    """Progress counted nugget by nugget from the rows, as the first implementation did."""
    nuggets = list(Nugget.objects.filter(annotator_id=annotator_id, turn__conversation=conversation)
                   .select_related("entity__grade"))
    required = set(AttributeSet.objects.filter(topic_type=conversation.topic.topic_type).values_list("pk", flat=True))
    gains = {n.entity_id: (n.entity.grade.gain if n.entity.grade else None) for n in nuggets}
    complete = sum(
        1 for entity_id, gain in gains.items()
        if not needs_every_membership(gain)
        or required <= set(Membership.objects.filter(entity_id=entity_id).values_list("attribute_set_id", flat=True))
    )
    return Progress(
        system_turns=conversation.turns.filter(role=Turn.Role.SYSTEM).count(),
        turns_labelled=TurnLabel.objects.filter(annotator_id=annotator_id, turn__conversation=conversation,
                                                turn__role=Turn.Role.SYSTEM).count(),
        nuggets=len(nuggets),
        nuggets_graded=sum(1 for n in nuggets if n.entity.grade_id is not None),
        entities=len(gains),
        entities_complete=complete,
    )


def random_campaign(seed: int):
    """Two annotators over conversations of two topics (entities shared within a topic), a
    topic type without attribute sets, random grades (or none) and random memberships."""
    rng = random.Random(seed)
    campaign = make_campaign()
    TopicType.objects.create(campaign=campaign, code="V", name="Videos")  # no attribute sets
    people = [make_user("first"), make_user("second")]
    conversations = []
    for topic in ("M001", "M002", "V001"):
        for run in ("bing-trial1", "chatgpt-trial1"):
            lines = [movie_line(rng.randrange(6)) for _ in range(3)]
            conversations.append(make_conversation(
                campaign, [("U", "Films?"), ("S", " ".join(lines[:2])), ("U", "More?"), ("S", lines[2])],
                topic=topic, run=run, annotators=people))
    for conversation in conversations:
        for annotator in people:
            for position, lines in ((2, 2), (4, 1)):
                for line in rng.sample(range(lines), rng.randrange(lines + 1)):
                    grade = rng.choice([None, None, "L0", "L1", "L2"])
                    sets = {} if topic_of(conversation) == "V" else {
                        name: vector for name, vector in SETS.items() if rng.random() < 0.6}
                    mark(conversation, annotator, position, 9 * line, 9 * line + 4, grade, sets)
    return campaign, people, conversations


def topic_of(conversation) -> str:
    return conversation.topic.code[0]


@pytest.mark.parametrize("seed", range(4))
def test_the_database_counts_progress_as_an_oracle_counting_entity_by_entity(seed):
    campaign, people, conversations = random_campaign(seed)
    pairs = [(a, c) for a, c in Assignment.objects.filter(conversation__topic__campaign=campaign)
             .values_list("annotator_id", "conversation_id")]
    by_console = campaign_progress(campaign, pairs)
    for annotator in people:
        by_queue = progress_for(annotator, conversations)
        for conversation in conversations:
            expected = oracle(annotator.pk, conversation)
            assert by_console[(annotator.pk, conversation.pk)] == expected
            assert by_queue[conversation.pk] == expected
    # the random data reached every case the rule has
    states = list(by_console.values())
    assert any(s.entities_complete < s.entities for s in states)
    assert any(0 < s.entities_complete for s in states)
    assert any(s.nuggets_graded < s.nuggets for s in states)


def test_an_assignment_without_nuggets_counts_its_system_turns_and_nothing_else():
    campaign = make_campaign()
    annotator = make_user("ann")
    conversation = make_conversation(campaign, [("U", "q"), ("S", "a"), ("U", "q"), ("S", "b")], annotators=[annotator])
    assert campaign_progress(campaign, [(annotator.pk, conversation.pk)])[(annotator.pk, conversation.pk)] == Progress(
        system_turns=2)
