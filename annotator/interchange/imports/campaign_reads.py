"""What a conversation import reads of the campaign: only what its files name, in bulk.

An import's cost follows its file, not the campaign (issue 44: a second annotator's 5,000
conversations took 97 s in a campaign of 100,000, 4 s in one of 10,000, when its reads went by
topic). So the conversations, entities, memberships and judgments an import checks against are
asked for by the ids and keys the files name, a few hundred a query (SQLite's cap on
parameters): a topic and run pair by the unique index on (topic, run), an annotator's entity by
the one on (topic, annotator, key), an annotator's nuggets and turn labels on a conversation by
the ones on (turn, annotator, ...). Never by annotator alone: SQLite, without statistics,
walks an annotator's index over the whole campaign for `annotator = ? AND conversation IN (...)`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.db import connection
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

from annotator.models import AnnotatorProfile, Conversation, Entity, Membership, Nugget, TurnLabel

__all__ = ["by_pairs", "conversations_at", "judged_conversations", "annotator_entities", "memberships_of",
           "conversations_naming", "graded_keys"]

PARAMETERS = 500  # values of one query: under SQLite's cap (999)


def by_pairs(query: QuerySet, first: str, second: str, pairs: Iterable[tuple], **every: object) -> Iterator[QuerySet]:
    """`query` narrowed to the rows whose (`first`, `second`) columns are one of `pairs`, as
    querysets of at most PARAMETERS values each: ``first = a AND second IN (...) OR first = b
    AND ...``, which an index on (first, second) answers pair by pair. `every`: columns equal
    to one value in each term, for an index that holds them (`annotator_id` in (topic,
    annotator, key)): outside the OR, SQLite would walk their own index instead. The terms are
    written as SQL here: the ORM's Q objects cost 0.2 ms a term to build and compile, seconds
    for a file naming thousands of topics."""
    meta = query.model._meta
    quote = connection.ops.quote_name

    def column(name: str) -> str:
        return f"{quote(meta.db_table)}.{quote(meta.get_field(name).column)}"
    head = " AND ".join(f"{column(name)} = %s" for name in (first, *every))
    grouped: dict = defaultdict(set)
    for a, b in pairs:
        grouped[a].add(b)
    terms: list[str] = []
    params: list = []
    size = PARAMETERS - 1 - len(every)
    for a in sorted(grouped):
        values = sorted(grouped[a])
        for start in range(0, len(values), size):
            part = values[start : start + size]
            if terms and len(params) + 1 + len(every) + len(part) > PARAMETERS:
                yield query.filter(RawSQL(" OR ".join(terms), params, output_field=BooleanField()))
                terms, params = [], []
            terms.append(f"({head} AND {column(second)} IN ({', '.join(['%s'] * len(part))}))")
            params += [a, *every.values(), *part]
    if terms:
        yield query.filter(RawSQL(" OR ".join(terms), params, output_field=BooleanField()))


def conversations_at(pairs: Iterable[tuple[int, int]]) -> dict[tuple[int, int], tuple[int, str]]:
    """(topic id, run id) -> (conversation id, source) of the conversations at these pairs."""
    pairs = set(pairs)
    found = {}
    # grouped by whichever of topic and run the pairs have fewer of (fewer terms: a file of one
    # run over a thousand topics is one term); the unique index on (topic, run) answers either.
    # .order_by(): the model's ordering would join topics and runs
    by_run = len({run for _topic, run in pairs}) < len({topic for topic, _run in pairs})
    for query in (by_pairs(Conversation.objects.order_by(), "run_id", "topic_id", ((r, t) for t, r in pairs)) if by_run
                  else by_pairs(Conversation.objects.order_by(), "topic_id", "run_id", pairs)):
        for pk, topic_id, run_id, source in query.values_list("pk", "topic_id", "run_id", "source"):
            found[(topic_id, run_id)] = (pk, source)
    return found


def judged_conversations(annotator, turns: dict[int, list[int]], models=(Nugget, TurnLabel)) -> set[int]:
    """Which of these conversations (id -> its turns' ids) the annotator has a nugget or a turn
    label in (`models`): asked by turn and annotator (their unique indexes), never by annotator
    alone."""
    conversation_of = {turn: conversation for conversation, ids in turns.items() for turn in ids}
    judged: set[int] = set()
    turn_ids = sorted(conversation_of)
    for start in range(0, len(turn_ids), PARAMETERS):
        chunk = turn_ids[start : start + PARAMETERS]
        for model in models:
            judged.update(conversation_of[turn] for turn in model.objects.filter(turn_id__in=chunk, annotator=annotator)
                          .order_by().values_list("turn_id", flat=True))
    return judged


def annotator_entities(annotator, keys: Iterable[tuple[int, str]]) -> list[Entity]:
    """The annotator's entities at these (topic id, key), with their grades and topics."""
    entities = []
    query = Entity.objects.select_related("grade", "topic").order_by()
    for chunk in by_pairs(query, "topic_id", "key", keys, annotator_id=annotator.pk):
        entities.extend(chunk)
    return entities


def memberships_of(entity_ids: Iterable[int]) -> list[Membership]:
    """The memberships of these entities, with their attribute sets."""
    ids, found = sorted(set(entity_ids)), []
    for start in range(0, len(ids), PARAMETERS):
        found.extend(Membership.objects.filter(entity_id__in=ids[start : start + PARAMETERS]).select_related("attribute_set"))
    return found


def conversations_naming(entity_ids: Iterable[int]) -> set[tuple[int, int]]:
    """(entity id, conversation id) of every nugget naming one of these entities."""
    ids, found = sorted(set(entity_ids)), set()
    for start in range(0, len(ids), PARAMETERS):
        # .order_by(): the model's ordering would join topic and run into the DISTINCT
        found.update(Nugget.objects.filter(entity_id__in=ids[start : start + PARAMETERS]).order_by()
                     .values_list("entity_id", "turn__conversation_id").distinct())
    return found


def graded_keys(keys: Iterable[tuple[int, str]]) -> set[tuple[int, str]]:
    """Which of these (topic id, key) a person (not an automatic judge) has graded. Any
    person's: the index on (topic, annotator, key) narrows to the topic, whose entities the
    query walks for the keys (there is no index on (topic, key))."""
    query = Entity.objects.filter(grade__isnull=False).exclude(AnnotatorProfile.automatic("annotator__")).order_by()
    found: set[tuple[int, str]] = set()
    for chunk in by_pairs(query, "topic_id", "key", keys):
        found.update(chunk.values_list("topic_id", "key"))
    return found
