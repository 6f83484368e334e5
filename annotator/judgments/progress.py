"""How far an annotator has got with their conversations: what the queue (and the console) show.

A conversation is finished for an annotator when
- every system turn has a usefulness label (o / x / -),
- every nugget's entity has a grade,
- every entity named by a nugget has a membership in every attribute set of the topic type
  unless it is graded nonrelevant (annotator.rules.relevance).

`progress_for(annotator, conversations)` counts all of it in five queries however many
conversations, turns and nuggets there are; `campaign_progress(campaign, pairs)` does for every
annotator of a campaign at once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from annotator.models import AttributeSet, Campaign, Conversation, Membership, Nugget, Turn, TurnLabel
from annotator.rules.relevance import needs_every_membership


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
    """Progress of `annotator` on each conversation, by conversation id (five queries)."""
    ids = [getattr(c, "pk", c) for c in conversations]  # conversations or their ids
    if not ids:
        return {}
    annotator_id = getattr(annotator, "pk", annotator)
    found = _progress(
        [(annotator_id, pk) for pk in ids],
        Turn.objects.filter(conversation_id__in=ids),
        TurnLabel.objects.filter(turn__conversation_id__in=ids, annotator_id=annotator_id),
        Nugget.objects.filter(turn__conversation_id__in=ids, annotator_id=annotator_id),
        lambda entity_ids: Membership.objects.filter(entity_id__in=entity_ids),
    )
    return {pk: found[(annotator_id, pk)] for pk in ids}


def campaign_progress(campaign: Campaign, pairs: Iterable[tuple[int, int]]) -> dict[tuple[int, int], Progress]:
    """Progress of each (annotator id, conversation id) of the campaign, in five queries by
    campaign (no lists of ids: the console's progress page reads a whole campaign so)."""
    return _progress(
        list(pairs),
        Turn.objects.filter(conversation__topic__campaign=campaign),
        TurnLabel.objects.filter(turn__conversation__topic__campaign=campaign),
        Nugget.objects.filter(turn__conversation__topic__campaign=campaign),
        lambda _entity_ids: Membership.objects.filter(entity__topic__campaign=campaign),
    )


def _progress(pairs: list[tuple[int, int]], turns: QuerySet, labels: QuerySet, nuggets_query: QuerySet,
              memberships: Callable[[set[int]], QuerySet]) -> dict[tuple[int, int], Progress]:
    """Progress of each (annotator id, conversation id) from these turns, labels, nuggets and
    (of the entities the nuggets name) memberships."""
    # 1. system turns per conversation, with the topic type each conversation belongs to
    system_turns: dict[int, int] = {}
    topic_type_of: dict[int, int] = {}
    for conversation_id, topic_type_id, system in (
        turns.order_by().values("conversation_id", "conversation__topic__topic_type_id")
        .annotate(system=Count("id", filter=Q(role=Turn.Role.SYSTEM)))
        .values_list("conversation_id", "conversation__topic__topic_type_id", "system")
    ):
        system_turns[conversation_id] = system
        topic_type_of[conversation_id] = topic_type_id
    # 2. labelled system turns
    labelled = {
        (annotator_id, conversation_id): n for annotator_id, conversation_id, n in (
            labels.filter(turn__role=Turn.Role.SYSTEM).order_by()
            .values("annotator_id", "turn__conversation_id").annotate(n=Count("id"))
            .values_list("annotator_id", "turn__conversation_id", "n")
        )
    }
    # 3. nuggets with their entity's grade
    nuggets: dict[tuple[int, int], list[tuple[int, int | None, float | None]]] = defaultdict(list)
    entity_ids: set[int] = set()
    for annotator_id, conversation_id, entity_id, grade_id, gain in nuggets_query.order_by().values_list(
        "annotator_id", "turn__conversation_id", "entity_id", "entity__grade_id", "entity__grade__gain"
    ):
        nuggets[(annotator_id, conversation_id)].append((entity_id, grade_id, gain))
        entity_ids.add(entity_id)
    # 4. memberships of those entities
    given: dict[int, set[int]] = defaultdict(set)
    if entity_ids:
        for entity_id, attribute_set_id in memberships(entity_ids).values_list("entity_id", "attribute_set_id"):
            given[entity_id].add(attribute_set_id)
    # 5. attribute sets per topic type
    sets_of: dict[int, set[int]] = defaultdict(set)
    for pk, topic_type_id in AttributeSet.objects.filter(topic_type_id__in=set(topic_type_of.values())).values_list(
        "pk", "topic_type_id"
    ):
        sets_of[topic_type_id].add(pk)

    result = {}
    for key in pairs:
        pk = key[1]
        rows = nuggets.get(key, [])
        required = sets_of.get(topic_type_of.get(pk), set())
        entities = {}
        for entity_id, _grade_id, gain in rows:
            entities[entity_id] = gain
        complete = sum(
            1 for entity_id, gain in entities.items()
            if not needs_every_membership(gain) or required <= given.get(entity_id, set())
        )
        result[key] = Progress(
            system_turns=system_turns.get(pk, 0),
            turns_labelled=labelled.get(key, 0),
            nuggets=len(rows),
            nuggets_graded=sum(1 for _e, grade_id, _g in rows if grade_id is not None),
            entities=len(entities),
            entities_complete=complete,
        )
    return result
