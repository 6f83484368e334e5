"""Bulk assignment: hand conversations to annotators round-robin, one or more per conversation.

`plan` is pure (ids in, pairs out) so the rule is easy to test; `assign` writes the plan.
Conversations already assigned to an annotator keep that assignment and count towards the
number wanted, so running it twice adds nothing, and raising 1 -> 2 per conversation adds the
second annotator only. Automatic judges (the `citations` a harvest brings, an LLM) are nobody's
colleague: their assignments do not count.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from django.db import transaction

from annotator.models import AnnotatorProfile, Assignment, Conversation


class AssignmentRefused(ValueError):
    pass


def plan(
    conversations: Sequence[int],
    annotators: Sequence[int],
    per_conversation: int,
    existing: dict[int, set[int]] | None = None,
) -> list[tuple[int, int]]:
    """(conversation, annotator) pairs to add so each conversation has `per_conversation`
    distinct annotators, spreading the load evenly (least-loaded first, ties round-robin)."""
    if per_conversation < 1:
        raise AssignmentRefused("Give at least one annotator per conversation.")
    if len(set(annotators)) < per_conversation:
        raise AssignmentRefused(
            f"{per_conversation} annotators per conversation need at least {per_conversation} annotators."
        )
    existing = existing or {}
    order = list(dict.fromkeys(annotators))
    load = Counter({a: 0 for a in order})
    for holders in existing.values():
        for a in holders:
            if a in load:
                load[a] += 1
    turn = 0
    result = []
    for conversation in conversations:
        holders = set(existing.get(conversation, set()))
        while len(holders) < per_conversation:
            candidates = [a for a in order if a not in holders]
            if not candidates:
                break
            # round-robin start so equal loads rotate through the list
            rotated = candidates[turn % len(candidates):] + candidates[: turn % len(candidates)]
            chosen = min(rotated, key=lambda a: load[a])
            holders.add(chosen)
            load[chosen] += 1
            result.append((conversation, chosen))
            turn += 1
    return result


@transaction.atomic
def assign(conversations: Sequence[Conversation], annotators: Sequence, per_conversation: int) -> int:
    """Create the planned assignments; returns how many were added."""
    ids = [c.pk for c in conversations]
    existing: dict[int, set[int]] = defaultdict(set)
    for conversation_id, annotator_id in (
        Assignment.objects.filter(conversation_id__in=ids).exclude(AnnotatorProfile.automatic("annotator__"))
        .values_list("conversation_id", "annotator_id")
    ):
        existing[conversation_id].add(annotator_id)
    pairs = plan(ids, [a.pk for a in annotators], per_conversation, existing)
    Assignment.objects.bulk_create(
        [Assignment(conversation_id=c, annotator_id=a) for c, a in pairs], ignore_conflicts=True
    )
    return len(pairs)
