"""What a decision of the adjudication would do to the scores, before the organiser takes it.

Each choice (take the left annotator's value, take the right's) is applied for real through
annotator.judgments.adjudication inside a savepoint that is always rolled back: the preview
is exactly what the decision would write, never a second model of it. The conversations it
touches (this one; for a grade or membership, every conversation of the topic scored from the
adjudicated gold, since an entity is judged once per topic) are rescored; their rows replace
the campaign's score table's, and the run means before and after are compared.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from django.db import transaction

from annotator.judgments import adjudication
from annotator.judgments.edits import AnnotationRefused
from annotator.models import Conversation
from annotator.scores.campaign_tables import gf_column, score_columns
from annotator.scores.per_conversation import score_conversation


def previewed(table: pd.DataFrame) -> list[str]:
    """The measures a decision's preview shows: R, GF and GFRC (the per attribute set GF_<set>
    are in the score panels beside it)."""
    return [c for c in score_columns(table) if not c.startswith(gf_column(""))]


@dataclass
class Effect:
    """One choice's effect: its conversation's scores and its run's means, before -> after."""

    conversation: dict[str, tuple[float, float]] = field(default_factory=dict)
    run_mean: dict[str, tuple[float, float]] = field(default_factory=dict)
    flips: list[tuple[str, str, str]] = field(default_factory=list)  # (measure, run now ahead, run now behind)
    conversations: int = 0  # how many conversations the choice rescored
    refused: str = ""  # why the gold cannot take it

    @property
    def changes(self) -> bool:
        return any(abs(after - before) > 1e-12 for before, after in self.conversation.values()) or self.conversations > 1 and any(
            abs(after - before) > 1e-12 for before, after in self.run_mean.values())


def flipped_pairs(before: pd.Series, after: pd.Series) -> list[tuple[str, str]]:
    """Pairs of runs (a, b) that were ordered one way and now are ordered the other (or tie):
    `a` is the run ahead after the change. Vectorised over every pair at once."""
    runs = list(before.index)
    b = before.to_numpy(dtype=float)
    a = after.reindex(runs).to_numpy(dtype=float)
    sign_before = np.sign(b[:, None] - b[None, :])
    sign_after = np.sign(a[:, None] - a[None, :])
    changed = np.triu(sign_before != sign_after, k=1) & ~np.isnan(sign_before) & ~np.isnan(sign_after)
    pairs = []
    for i, j in zip(*np.nonzero(changed)):
        first, second = (runs[i], runs[j]) if a[i] >= a[j] else (runs[j], runs[i])
        pairs.append((first, second))
    return pairs


def effect_of(table: pd.DataFrame, rescored: dict[int, dict[str, float]], run: str) -> Effect:
    """The effect on `run`'s means and on the order of runs of replacing the rows of `rescored`
    (conversation id -> measure -> score) in the campaign's score `table`."""
    measures = previewed(table)
    after = table.copy()
    index = after.set_index("conversation").index
    for conversation_id, scores in rescored.items():
        rows = index == conversation_id
        for measure in measures:
            after.loc[rows, measure] = scores[measure]
    means_before = table.groupby("run")[measures].mean()
    means_after = after.groupby("run")[measures].mean()
    effect = Effect(conversations=len(rescored))
    for measure in measures:
        if run in means_before.index:
            effect.run_mean[measure] = (float(means_before.at[run, measure]), float(means_after.at[run, measure]))
        effect.flips.extend((measure, a, b) for a, b in flipped_pairs(means_before[measure], means_after[measure]))
    return effect


def effects(adjudicated: adjudication.Adjudication, table: pd.DataFrame, *, actor, judge: int | None) -> dict[str, dict[str, Effect]]:
    """unit -> "left" / "right" -> the Effect of taking that side, for every disagreement.

    `table` is the campaign's score table now (annotator.scores.campaign_tables.score_table);
    `judge` whose judgments score the conversation now. Nothing is written."""
    conversation = adjudicated.conversation
    run = conversation.run.name
    row = table[table["conversation"] == conversation.pk]
    measures = previewed(table)
    now = {m: float(row[m].iloc[0]) for m in measures} if len(row) else {m: float("nan") for m in measures}
    result: dict[str, dict[str, Effect]] = {}
    gold_before = conversation.gold_annotator_id
    with transaction.atomic():
        gold = adjudication.start(conversation, actor=actor, judge=judge)
        topic_gold = list(Conversation.objects.filter(topic_id=conversation.topic_id, gold_annotator=gold)
                          .exclude(pk=conversation.pk).select_related("topic__campaign", "run"))
        for disagreement in adjudicated.disagreements:
            choices: dict[str, Effect] = {}
            for side, annotator in (("left", adjudicated.left), ("right", adjudicated.right)):
                affected = [conversation] + (topic_gold if disagreement.kind in ("grade", "membership") else [])
                with transaction.atomic():
                    try:
                        adjudication.decide(conversation, disagreement.unit, actor=actor, judge=judge, take=annotator)
                    except AnnotationRefused as refused:
                        choices[side] = Effect(refused=str(refused))
                        transaction.set_rollback(True)
                        continue
                    rescored = {}
                    for c in affected:
                        score = score_conversation(c, gold, adjudicated.attribute_sets if c.topic.topic_type_id ==
                                                   conversation.topic.topic_type_id else None)
                        rescored[c.pk] = {m: getattr(score, m) for m in measures}
                    transaction.set_rollback(True)
                effect = effect_of(table, rescored, run)
                effect.conversation = {m: (now[m], rescored[conversation.pk][m]) for m in measures}
                choices[side] = effect
            result[disagreement.unit] = choices
        transaction.set_rollback(True)
    conversation.gold_annotator_id = gold_before  # the object too: the savepoint put the row back
    return result
