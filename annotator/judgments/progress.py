"""How far an annotator has got with their conversations: what the queue (and the console) show.

A conversation is finished for an annotator when
- every system turn has a usefulness label (o / x / -),
- every nugget's entity has a grade,
- every entity named by a nugget has a membership in every attribute set of the topic type
  unless it is graded nonrelevant (annotator.rules.relevance).

`progress_for(annotator, conversations)` counts all of it in three queries however many
conversations, turns and nuggets there are; `campaign_progress(campaign, pairs)` does for every
annotator of a campaign at once. The database counts the nuggets and entities (GROUP BY): at
100,000 conversations, reading them to count in Python cost the progress page 2 s.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, F, Q, QuerySet

from annotator.models import AttributeSet, Campaign, Conversation, Membership, Nugget, Turn, TurnLabel
from annotator.rules.relevance import needs_every_membership_sql


@dataclass(frozen=True)
class Progress:
    system_turns: int = 0
    turns_labelled: int = 0
    nuggets: int = 0
    nuggets_graded: int = 0
    entities: int = 0
    entities_complete: int = 0

    @property
    def finished(self) -> bool:
        return (
            self.turns_labelled >= self.system_turns
            and self.nuggets_graded >= self.nuggets
            and self.entities_complete >= self.entities
        )

    @property
    def started(self) -> bool:
        return bool(self.turns_labelled or self.nuggets)

    @property
    def steps_done(self) -> int:
        return self.turns_labelled + self.nuggets_graded + self.entities_complete

    @property
    def steps(self) -> int:
        return self.system_turns + self.nuggets + self.entities

    @property
    def percent(self) -> int:
        return 100 if not self.steps else int(100 * self.steps_done / self.steps)


def progress_for(annotator, conversations: Iterable[Conversation | int]) -> dict[int, Progress]:
    """Progress of `annotator` on each conversation, by conversation id (three queries)."""
    ids = [getattr(c, "pk", c) for c in conversations]  # conversations or their ids
    if not ids:
        return {}
    annotator_id = getattr(annotator, "pk", annotator)
    found = _progress(
        [(annotator_id, pk) for pk in ids],
        Turn.objects.filter(conversation_id__in=ids),
        TurnLabel.objects.filter(turn__conversation_id__in=ids, annotator_id=annotator_id),
        Nugget.objects.filter(turn__conversation_id__in=ids, annotator_id=annotator_id),
        Membership.objects.filter(entity__annotator_id=annotator_id,
                                  entity__topic_id__in=Conversation.objects.filter(pk__in=ids).values("topic_id")),
    )
    return {pk: found[(annotator_id, pk)] for pk in ids}


def campaign_progress(campaign: Campaign, pairs: Iterable[tuple[int, int]]) -> dict[tuple[int, int], Progress]:
    """Progress of each (annotator id, conversation id) of the campaign, in three queries by
    campaign (no lists of ids: the console's progress page reads a whole campaign so)."""
    return _progress(
        list(pairs),
        Turn.objects.filter(conversation__topic__campaign=campaign),
        TurnLabel.objects.filter(turn__conversation__topic__campaign=campaign),
        Nugget.objects.filter(turn__conversation__topic__campaign=campaign),
        Membership.objects.filter(entity__topic__campaign=campaign),
    )


def _progress(pairs: list[tuple[int, int]], turns: QuerySet, labels: QuerySet, nuggets: QuerySet,
              memberships: QuerySet) -> dict[tuple[int, int], Progress]:
    """Progress of each (annotator id, conversation id) from these turns, labels, nuggets and
    memberships (those of the nuggets' entities, at least)."""
    # 1. system turns per conversation
    system_turns = dict(
        turns.order_by().values("conversation_id").annotate(system=Count("id", filter=Q(role=Turn.Role.SYSTEM)))
        .values_list("conversation_id", "system")
    )
    # 2. labelled system turns
    labelled = {
        (annotator_id, conversation_id): n for annotator_id, conversation_id, n in (
            labels.filter(turn__role=Turn.Role.SYSTEM).order_by()
            .values("annotator_id", "turn__conversation_id").annotate(n=Count("id"))
            .values_list("annotator_id", "turn__conversation_id", "n")
        )
    }
    # 3. nuggets, graded, entities and complete entities, counted by the database
    counted = _nugget_counts(nuggets, memberships)
    result = {}
    for key in pairs:
        count, graded, entities, complete = counted.get(key, (0, 0, 0, 0))
        result[key] = Progress(system_turns=system_turns.get(key[1], 0), turns_labelled=labelled.get(key, 0),
                               nuggets=count, nuggets_graded=graded, entities=entities, entities_complete=complete)
    return result


def _nugget_counts(nuggets: QuerySet, memberships: QuerySet) -> dict[tuple[int, int], tuple[int, int, int, int]]:
    """(annotator id, conversation id) -> (nuggets, nuggets whose entity is graded, entities,
    complete entities) in one GROUP BY: an entity is complete unless it needs every membership
    (annotator.rules.relevance) and lacks one in an attribute set of its conversation's topic
    type. A campaign's 300,000 nuggets are counted where they are, not read."""
    named = nuggets.order_by().values(
        a=F("annotator_id"), c=F("turn__conversation_id"), e=F("entity_id"), g=F("entity__grade_id"),
        gain=F("entity__grade__gain"), tt=F("turn__conversation__topic__topic_type_id"))
    given = (memberships.order_by().values(e=F("entity_id"), tt=F("attribute_set__topic_type_id"))
             .annotate(given=Count("pk")))
    required = AttributeSet.objects.order_by().values(tt=F("topic_type_id")).annotate(required=Count("pk"))
    sqls, params = zip(*(query.query.sql_with_params() for query in (named, given, required)))
    complete = (f"NOT {needs_every_membership_sql('n.gain')}"
                " OR COALESCE(m.given, 0) >= COALESCE(r.required, 0)")
    sql = ("SELECT n.a, n.c, COUNT(*), COUNT(n.g), COUNT(DISTINCT n.e),"
           f" COUNT(DISTINCT CASE WHEN {complete} THEN n.e END)"
           f" FROM ({sqls[0]}) AS n"
           f" LEFT JOIN ({sqls[1]}) AS m ON m.e = n.e AND m.tt = n.tt"
           f" LEFT JOIN ({sqls[2]}) AS r ON r.tt = n.tt"
           " GROUP BY n.a, n.c")
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params[0], *params[1], *params[2]])
        return {(a, c): tuple(counts) for a, c, *counts in cursor.fetchall()}
