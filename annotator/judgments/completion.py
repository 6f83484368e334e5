"""When a conversation is done for its annotator: the one definition of "done", and the one
place that writes it.

"Done" is `Assignment.done_at`: the annotator said so (the workspace's Done button or key,
`POST /conversations/<id>/done/`, the API), or an import of their finished judgments did. Every
page, export and the API read that field and nothing else: the overview's and the progress
page's counts, the queue and its "next unfinished", the assignments export, the API.

A conversation may be said done when nothing the campaign needs is missing from the annotator's
judgments there (`done_problems`):

- every nugget's entity has a grade;
- when the campaign refuses relevant nuggets without memberships (`missing_membership` is
  `refuse`), every entity that is not graded nonrelevant has a membership in each attribute set
  of its topic type (annotator.rules.relevance); with `uniform` a missing membership counts as
  uniform, as it does in the scores.

Turn usefulness labels are not required: a campaign may not use them. Saying done records the
guidelines version in force; the annotator can reopen it, and an edit that leaves a done
conversation short of the rule reopens it.
"""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotator.models import AnnotatorProfile, Assignment, AttributeSet, Campaign, Guidelines, Membership, Nugget
from annotator.rules.relevance import needs_every_membership

__all__ = ["NotDone", "done_problems", "mark_done", "reopen", "mark_done_if_ready", "reopen_if_short",
           "people_assignments"]

SHOWN = 5  # entities named in a refusal
CHUNK = 500  # conversations (or entities) per query


def people_assignments(campaign: Campaign) -> QuerySet[Assignment]:
    """The campaign's assignments of people: what "assignments done" counts everywhere (the
    overview, the progress page, the assignments export, the API). Automatic judges' work is on
    the judges page."""
    return Assignment.objects.filter(conversation__topic__campaign=campaign).exclude(AnnotatorProfile.automatic("annotator__"))


class NotDone(ValueError):
    """The conversation cannot be said done yet: `problems` say what is missing."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("Not done yet: " + "; ".join(problems) + ".")


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def done_problems(assignment: Assignment) -> list[str]:
    """What the annotator's judgments of the conversation still lack (empty: it may be done)."""
    conversation = assignment.conversation
    key = (assignment.annotator_id, conversation.pk)
    return _problems(conversation.topic.campaign, [key])[key]


def _problems(campaign: Campaign, pairs: list[tuple[int, int]]) -> dict[tuple[int, int], list[str]]:
    """`done_problems` of each (annotator id, conversation id) of the campaign, in bulk: per 500
    conversations, their nuggets with entities and grades, and (when the campaign requires
    memberships) the memberships of those entities; the attribute sets once."""
    found: dict[tuple[int, int], list[str]] = {pair: [] for pair in pairs}
    wanted = set(pairs)
    conversations = sorted({c for _a, c in pairs})
    requires = campaign.missing_membership == Campaign.MissingMembership.REFUSE
    sets: dict[int, dict[int, str]] = defaultdict(dict)
    if requires:
        for pk, type_id, name in AttributeSet.objects.filter(topic_type__campaign=campaign).values_list(
                "pk", "topic_type_id", "name"):
            sets[type_id][pk] = name
    for i in range(0, len(conversations), CHUNK):
        entities: dict[tuple[int, int], dict[int, tuple[str, float | None, bool, int]]] = defaultdict(dict)
        # every annotator's nuggets of these conversations, the wanted ones kept below: asked for
        # by annotator, SQLite (no statistics) would walk the annotator's nuggets of the whole
        # campaign by its index on annotator, for each chunk
        for annotator_id, conversation_id, type_id, entity_id, name, key, grade_id, gain in (
            Nugget.objects.filter(turn__conversation_id__in=conversations[i:i + CHUNK])
            .order_by("turn__conversation_id", "turn__position", "start_word")
            .values_list("annotator_id", "turn__conversation_id", "turn__conversation__topic__topic_type_id",
                         "entity_id", "entity__name", "entity__key", "entity__grade_id", "entity__grade__gain")
        ):
            if (annotator_id, conversation_id) in wanted:
                entities[(annotator_id, conversation_id)].setdefault(entity_id, (name or key, gain, grade_id is not None, type_id))
        given: dict[int, set[int]] = defaultdict(set)
        if requires:
            ids = [pk for held in entities.values() for pk in held]
            for j in range(0, len(ids), CHUNK):
                for entity_id, set_id in Membership.objects.filter(entity_id__in=ids[j:j + CHUNK]).values_list(
                        "entity_id", "attribute_set_id"):
                    given[entity_id].add(set_id)
        for pair, held in entities.items():
            found[pair] = _lacking(held, sets if requires else None, given)
    return found


def _lacking(entities: dict[int, tuple[str, float | None, bool, int]], sets: dict[int, dict[int, str]] | None,
             given: dict[int, set[int]]) -> list[str]:
    problems = []
    ungraded = [name for name, _gain, graded, _type in entities.values() if not graded]
    if ungraded:
        problems.append(f"{len(ungraded)} nugget{'s have' if len(ungraded) != 1 else ' has'} no grade ({_names(ungraded)})")
    if sets is not None:
        lacking = []
        for pk, (name, gain, graded, type_id) in entities.items():
            missing = set(sets[type_id]) - given[pk]
            if graded and needs_every_membership(gain) and missing:
                lacking.append(f"{name}: {', '.join(sets[type_id][s] for s in sorted(missing))}")
        if lacking:
            problems.append(f"the campaign requires every membership of a relevant nugget: {_names(lacking)}")
    return problems


def mark_done(assignment: Assignment) -> Assignment:
    """Say the conversation is done (NotDone saying why not); records when, and the guidelines
    version in force. Saying it again changes nothing."""
    problems = done_problems(assignment)
    if problems:
        raise NotDone(problems)
    if assignment.done_at is None:
        guidelines = Guidelines.in_force(assignment.conversation.topic.campaign_id)
        assignment.done_at = timezone.now()
        assignment.guidelines_version = guidelines.version if guidelines else None
        Assignment.objects.filter(pk=assignment.pk, done_at__isnull=True).update(
            done_at=assignment.done_at, guidelines_version=assignment.guidelines_version)
    return assignment


def reopen(assignment: Assignment) -> Assignment:
    """The conversation is not done any more (the annotator goes back to it)."""
    assignment.done_at = assignment.guidelines_version = None
    Assignment.objects.filter(pk=assignment.pk).update(done_at=None, guidelines_version=None)
    return assignment


def reopen_if_short(touched: dict[int, set[int]]) -> int:
    """After a save (annotator id -> the conversations it touched, annotator.judgments.edits):
    a done conversation the save left short of the rule is reopened; returns how many. One
    query when none of them was done."""
    done = list(Assignment.objects.filter(done_at__isnull=False, annotator_id__in=list(touched),
                                          conversation_id__in={c for cs in touched.values() for c in cs})
                .select_related("conversation__topic__campaign").order_by())
    done = [a for a in done if a.conversation_id in touched.get(a.annotator_id, ())]
    reopened = 0
    for assignment in done:
        if done_problems(assignment):
            reopen(assignment)
            reopened += 1
    return reopened


def mark_done_if_ready(campaign: Campaign, annotator_id: int, conversation_ids: list[int]) -> int:
    """An import's finished judgments: each of the annotator's conversations that passes the
    rule is done (the others stay open, as the annotator would find them); returns how many.
    In bulk: a few queries per 500 conversations, one UPDATE per 500 done."""
    problems = _problems(campaign, [(annotator_id, pk) for pk in conversation_ids])
    ready = [pk for (_a, pk), lacking in problems.items() if not lacking]
    guidelines = Guidelines.in_force(campaign.pk)
    now, done = timezone.now(), 0
    for i in range(0, len(ready), CHUNK):
        with transaction.atomic():
            done += Assignment.objects.filter(annotator_id=annotator_id, conversation_id__in=ready[i:i + CHUNK],
                                              done_at__isnull=True).update(
                done_at=now, guidelines_version=guidelines.version if guidelines else None)
    return done
