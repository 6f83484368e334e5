"""Conversations that branch, as a trial within a conversation: a regenerated answer is the
system asked again. For each, the spread of its paths' figures of a measure (each path scored
as the linear conversation it is, scoring.trees) around its expected figure, and its worst path."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from annotator.models import Campaign, Conversation, Turn
from annotator.models.conversations import path_names
from annotator.scores.campaign_tables import path_measures
from annotator.scores.per_conversation import gold_annotator_rows
from annotator.scores.stored.reads import judge_paths

__all__ = ["BranchSpread", "branch_spreads"]


@dataclass(frozen=True)
class BranchSpread:
    conversation_id: int
    topic: str
    run: str
    paths: int
    measure: str
    expected: float  # E[measure] over the paths
    lowest: float
    highest: float
    worst_path: str  # its turns' ids from the first, joined by ">"

    @property
    def spread(self) -> float:
        return self.highest - self.lowest


def branch_spreads(campaign: Campaign, measure: str = "GFRC") -> list[BranchSpread]:
    """Every conversation of the campaign that branches, widest spread of `measure` first (none
    for a measure conversations have not)."""
    rows = list(Conversation.objects.filter(topic__campaign=campaign, is_tree=True)
                .values_list("pk", "topic__code", "topic__topic_type_id", "run__name", "gold_annotator_id"))
    if not rows:
        return []
    judge_of = gold_annotator_rows(campaign, [(pk, gold) for pk, _code, _type, _run, gold in rows])
    figures = judge_paths(campaign, [(pk, type_id) for pk, _code, type_id, _run, _gold in rows], judge_of)
    turns: dict[int, list[tuple]] = defaultdict(list)
    for conversation_id, *turn in Turn.objects.filter(conversation_id__in=[row[0] for row in rows]).order_by(
            "conversation_id", "position").values_list("conversation_id", "position", "role", "follows", "key"):
        turns[conversation_id].append(tuple(turn))
    spreads = []
    for pk, code, _type, run, _gold in rows:
        paths = figures.get(pk, [])
        values = [path_measures(path).get(measure) for path in paths]
        if not paths or None in values:
            continue
        worst = min(range(len(paths)), key=values.__getitem__)
        spreads.append(BranchSpread(pk, code, run, len(paths), measure,
                                    sum(path.probability * value for path, value in zip(paths, values)),
                                    values[worst], max(values), path_names(turns[pk])(paths[worst].leaf)))
    return sorted(spreads, key=lambda s: (-s.spread, s.topic, s.run))
