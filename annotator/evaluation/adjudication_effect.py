"""What a decision of the adjudication would do to the scores, before the organiser takes it.

Nothing is written, not even in a savepoint rolled back: a preview takes no write lock, so
the annotators' saves never wait on an organiser reading the adjudication page. The gold a
decision would start from (annotator.judgments.adjudication.start: the gold as it is, or a
copy of the judge's judgments) is modelled in memory from what the page has read; each choice
is applied to that model as `adjudication.decide` applies it (the same span rule refuses what
it refuses), and the conversations it touches (this one; for a grade or membership, every
conversation of the topic scored from the adjudicated gold, since an entity is judged once per
topic) are rescored by the scoring maths, every choice of the page in one vectorised call.
The run means and the order of runs then follow from the campaign's score table
incrementally: only the rescored rows change. tests/evaluation/test_adjudication_effect.py
holds each preview to what the decision, once taken, gives.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from annotator.judgments import adjudication
from annotator.judgments.edits import AnnotationRefused, check_span_among
from annotator.judgments.run_totals import run_totals
from annotator.models import Conversation, Membership, Nugget, Turn
from annotator.models.rows import TurnRow
from annotator.scores.campaign_tables import measure_columns
from annotator.scores.per_conversation import gold_annotators, score_rows
from annotator.scores.stored import totals as totals_of


@dataclass
class Effect:
    """One choice's effect: its conversation's scores and its run's means, before -> after."""

    conversation: dict[str, tuple[float, float]] = field(default_factory=dict)
    run_mean: dict[str, tuple[float, float]] = field(default_factory=dict)
    flips: list[tuple[str, str, str]] = field(default_factory=list)  # (measure, run now ahead, run now behind)
    conversations: int = 0  # how many conversations the choice rescored
    refused: str = ""  # why the gold cannot take it


@dataclass
class Choice:
    """One value the gold could take for a disagreement: who gave it, and what taking it does."""

    annotators: list[Any]  # users who gave this value
    shown: str
    effect: Effect


def flipped_pairs(before: pd.Series, after: pd.Series) -> list[tuple[str, str]]:
    """Pairs of runs (a, b) that were ordered one way and now are ordered the other (or tie):
    `a` is the run ahead after the change."""
    runs = list(before.index)
    return _flips(runs, before.to_numpy(dtype=float), after.reindex(runs).to_numpy(dtype=float))


def _flips(runs: list[str], b: np.ndarray, a: np.ndarray) -> list[tuple[str, str]]:
    """Vectorised over every pair at once."""
    sign_before = np.sign(b[:, None] - b[None, :])
    sign_after = np.sign(a[:, None] - a[None, :])
    changed = np.triu(sign_before != sign_after, k=1) & ~np.isnan(sign_before) & ~np.isnan(sign_after)
    pairs = []
    for i, j in zip(*np.nonzero(changed)):
        first, second = (runs[i], runs[j]) if a[i] >= a[j] else (runs[j], runs[i])
        pairs.append((first, second))
    return pairs


class RunMeans:
    """The runs' means of a campaign, kept as sums and counts (NaN-aware, like
    `groupby(...).mean()`), with the rows of the conversations a decision can rescore, so that
    replacing a few conversations' rows costs those rows only."""

    def __init__(self, runs: list[str], sums: np.ndarray, counts: np.ndarray,
                 rows: dict[int, tuple[int, np.ndarray]], measures: list[str]):
        self.measures, self.runs, self.sums, self.counts, self.rows = measures, runs, sums, counts, rows
        self.before = self._means(sums, counts)

    @classmethod
    def of_table(cls, table: pd.DataFrame, measures: list[str]) -> RunMeans:
        """From a campaign's whole score table (annotator.scores.campaign_tables.score_table)."""
        runs = sorted(table["run"].unique()) if len(table) else []
        run_of = {run: i for i, run in enumerate(runs)}
        rows = np.asarray([run_of[run] for run in table["run"]], dtype=np.int64)
        values = table[measures].to_numpy(dtype=float) if len(table) else np.zeros((0, len(measures)))
        sums = np.zeros((len(runs), len(measures)))
        counts = np.zeros((len(runs), len(measures)))
        np.add.at(sums, rows, np.nan_to_num(values))
        np.add.at(counts, rows, ~np.isnan(values))
        return cls(runs, sums, counts, {int(c): (int(r), v) for c, r, v in zip(table["conversation"], rows, values)},
                   measures)

    @classmethod
    def of_topic(cls, conversation: Conversation) -> RunMeans:
        """What the adjudication of `conversation` needs, without the campaign's rows: the runs'
        sums and counts summed by the database, and the rows of the conversation's topic (a
        decision rescores this conversation and, for a grade or membership, other conversations
        of the topic, never another topic's)."""
        campaign = conversation.topic.campaign
        totals = run_totals(campaign)
        topic = list(Conversation.objects.filter(topic_id=conversation.topic_id).only("pk", "gold_annotator_id"))
        run_of = {run: i for i, run in enumerate(totals.runs)}
        rows = {c: (run_of[run], np.asarray(values, dtype=float))
                for c, (run, values) in totals_of.judge_rows(campaign, gold_annotators(topic)).items()}
        measures = measure_columns(())  # R, GF, GFRC: the stored r, gf, gfrc the totals sum
        assert len(measures) == len(totals_of.COLUMNS)
        return cls(totals.runs, totals.sums, totals.counts, rows, measures)

    @staticmethod
    def _means(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)

    def now(self, conversation_id: int) -> np.ndarray:
        row = self.rows.get(conversation_id)
        return row[1] if row is not None else np.full(len(self.measures), np.nan)

    def effect(self, rescored: dict[int, np.ndarray], run: str) -> Effect:
        """The effect on `run`'s means and on the order of runs of replacing the rows of
        `rescored` (conversation id -> scores in the order of `measures`)."""
        sums, counts = self.sums.copy(), self.counts.copy()
        for conversation_id, after in rescored.items():
            if conversation_id not in self.rows:
                continue
            r, before = self.rows[conversation_id]
            sums[r] += np.nan_to_num(after) - np.nan_to_num(before)
            counts[r] += ~np.isnan(after) * 1.0 - ~np.isnan(before) * 1.0
        after_means = self._means(sums, counts)
        effect = Effect(conversations=len(rescored))
        for m, measure in enumerate(self.measures):
            if run in self.runs:
                i = self.runs.index(run)
                effect.run_mean[measure] = (float(self.before[i, m]), float(after_means[i, m]))
            effect.flips.extend((measure, a, b) for a, b in _flips(self.runs, self.before[:, m], after_means[:, m]))
        return effect


# -- the gold a decision starts from, in memory ------------------------------------------------


@dataclass(frozen=True)
class GoldEntity:
    """An entity of the gold in the topic: its grade (anything with a gain) and memberships."""

    grade: Any
    memberships: dict[int, list[float]]  # attribute set id -> vector


class GoldNugget(NamedTuple):
    turn_id: int
    start_word: int
    end_word: int
    key: str


@dataclass
class GoldModel:
    """The adjudicated gold of the conversation and of the topic, as a decision would find it."""

    nuggets: dict[tuple, GoldNugget]  # (turn position, entity key, k-th) -> nugget, in this conversation
    entities: dict[str, GoldEntity]  # entity key -> the gold's entity of the topic
    others: list[Conversation]  # the topic's other conversations scored from the gold
    other_turns: dict[int, list[TurnRow]]
    other_nuggets: dict[int, list[GoldNugget]]


def _entity_of(side: adjudication.Side, key: str) -> GoldEntity:
    entity = side.entities[key]
    return GoldEntity(entity.grade, {m.attribute_set_id: m.vector for (k, _set), m in side.memberships.items() if k == key})


def gold_model(adjudicated: adjudication.Adjudication, judge: int | None, *, topic_wide: bool) -> GoldModel:
    """What `adjudication.start` leaves, without running it: the gold as it is (already this
    conversation's gold, begun here, or no judge to copy), else the judge's judgments with the
    gold's entities of the topic where it has them (`_gold_entity`), theirs copied where not.
    `topic_wide`: also read the other gold-scored conversations of the topic (four queries)."""
    conversation, gold = adjudicated.conversation, adjudicated.gold
    started = conversation.gold_annotator_id == adjudicated.gold_account.pk or gold.nuggets or gold.labels
    source = gold
    if not started and judge is not None:
        source = adjudicated.side_of(judge) or adjudication.read_side(conversation, judge)
        if adjudicated.side_of(judge) is None:  # the gold's entities of the judge's keys too
            gold = adjudication.read_side(conversation, adjudicated.gold_account.pk, set(source.entities))
    entities = {key: _entity_of(gold, key) for key in gold.entities}
    for key in source.entities:
        entities.setdefault(key, _entity_of(source, key))
    nuggets = {parts: GoldNugget(n.turn_id, n.start_word, n.end_word, parts[1]) for parts, n in source.nuggets.items()}
    model = GoldModel(nuggets, entities, [], {}, {})
    if topic_wide:
        _read_other_gold_conversations(adjudicated, model)
    return model


def _read_other_gold_conversations(adjudicated: adjudication.Adjudication, model: GoldModel) -> None:
    conversation, gold_id = adjudicated.conversation, adjudicated.gold_account.pk
    model.others = list(Conversation.objects.filter(topic_id=conversation.topic_id, gold_annotator_id=gold_id)
                        .exclude(pk=conversation.pk).select_related("run").order_by("pk"))
    if not model.others:
        return
    ids = [c.pk for c in model.others]
    for row in (Turn.objects.filter(conversation__topic_id=conversation.topic_id, conversation__gold_annotator_id=gold_id)
                .exclude(conversation_id=conversation.pk).order_by("conversation_id", "position")
                .values_list("pk", "conversation_id", "position", "role", "number", "text")):
        model.other_turns.setdefault(row[1], []).append(TurnRow(*row))
    grades = {grade.pk: grade for grade in adjudicated.grades.values()}
    read: dict[str, int | None] = {}
    for conversation_id, turn_id, start, end, key, grade_id in (
            Nugget.objects.filter(turn__conversation_id__in=ids, annotator_id=gold_id)
            .order_by("turn__conversation_id", "turn__position", "start_word")
            .values_list("turn__conversation_id", "turn_id", "start_word", "end_word", "entity__key", "entity__grade_id")):
        model.other_nuggets.setdefault(conversation_id, []).append(GoldNugget(turn_id, start, end, key))
        read[key] = grade_id
    missing = {key for key in read if key not in model.entities}
    if missing:
        vectors: dict[str, dict[int, list[float]]] = defaultdict(dict)
        for key, set_id, vector in (Membership.objects.filter(entity__topic_id=conversation.topic_id,
                                                              entity__annotator_id=gold_id, entity__key__in=missing)
                                    .values_list("entity__key", "attribute_set_id", "vector")):
            vectors[key][set_id] = vector
        for key in missing:
            model.entities[key] = GoldEntity(grades.get(read[key]), vectors.get(key, {}))


def taken(model: GoldModel, adjudicated: adjudication.Adjudication, disagreement: adjudication.Disagreement,
          side: adjudication.Side) -> GoldModel:
    """The gold after `decide` takes `side`'s value of `disagreement` (AnnotationRefused as it
    would be refused). The model given is left as it was."""
    kind, parts = disagreement.kind, disagreement.parts
    nuggets, entities = dict(model.nuggets), dict(model.entities)
    if kind == "span":
        theirs, key = side.nuggets.get(parts), parts[1]
        if theirs is None:
            nuggets.pop(parts, None)
        else:
            current = nuggets.get(parts)
            if current is None or (current.start_word, current.end_word) != (theirs.start_word, theirs.end_word):
                turn = next(t for t in adjudicated.turns if t.pk == theirs.turn_id)
                others = [(n.start_word, n.end_word) for p, n in nuggets.items() if p[0] == parts[0] and p != parts]
                check_span_among(turn, theirs.start_word, theirs.end_word, others)
            nuggets[parts] = GoldNugget(theirs.turn_id, theirs.start_word, theirs.end_word, key)
            if key not in entities:
                entities[key] = _entity_of(side, key)
    elif kind in ("grade", "membership"):
        key = parts[0]
        entity = entities.get(key) or _entity_of(side, key)
        if kind == "grade":
            entity = replace(entity, grade=side.entities[key].grade)
        else:
            set_id = next(a.pk for a in adjudicated.attribute_sets if a.name == parts[1])
            memberships = dict(entity.memberships)
            membership = side.memberships.get(parts)
            if membership is None:
                memberships.pop(set_id, None)
            else:
                memberships[set_id] = membership.vector
            entity = replace(entity, memberships=memberships)
        entities[key] = entity
    return replace(model, nuggets=nuggets, entities=entities)  # a label moves no score


# -- scoring the choices ---------------------------------------------------------------------


class _Entity(NamedTuple):
    grade: Any


class _Nugget(NamedTuple):
    """What scores.per_conversation.score_rows reads of a nugget."""

    turn_id: int
    start_word: int
    end_word: int
    entity_id: int
    entity: _Entity


def score_models(adjudicated: adjudication.Adjudication, models: list[GoldModel], measures: list[str],
                 *, topic_wide: list[bool]) -> list[dict[int, np.ndarray]]:
    """Each model's scores (conversation id -> `measures`) of this conversation and, where
    `topic_wide`, of the topic's other gold-scored conversations: all in one `gfrc.score`
    (scores.per_conversation.score_rows)."""
    conversation = adjudicated.conversation
    position = {t.pk: t.position for t in adjudicated.turns}
    turn_lists, nugget_lists, memberships, blocks = [], [], {}, []
    next_id = 0  # gfrc_tables knows turns and entities by id: each block has ids of its own

    def fresh() -> int:
        nonlocal next_id
        next_id += 1
        return next_id

    for m, model in enumerate(models):
        ids: dict[str, int] = {}  # entity key -> this model's id (memberships differ by model)

        def block(conversation_id: int, turns, nuggets) -> None:
            turn_ids = {t.pk: fresh() for t in turns}
            turn_lists.append([TurnRow(turn_ids[t.pk], conversation_id, t.position, t.role, t.number, t.text) for t in turns])
            rows = []
            for n in nuggets:
                if n.key not in ids:
                    ids[n.key] = fresh()
                    memberships[ids[n.key]] = model.entities[n.key].memberships
                rows.append(_Nugget(turn_ids[n.turn_id], n.start_word, n.end_word, ids[n.key], _Entity(model.entities[n.key].grade)))
            nugget_lists.append(rows)
            blocks.append((m, conversation_id))

        block(conversation.pk, adjudicated.turns,
              sorted(model.nuggets.values(), key=lambda n: (position[n.turn_id], n.start_word)))
        if topic_wide[m]:
            for other in model.others:
                block(other.pk, model.other_turns.get(other.pk, []), model.other_nuggets.get(other.pk, []))  # read in order
    scores = score_rows(turn_lists, nugget_lists, memberships, adjudicated.attribute_sets, conversation.topic.campaign)
    columns = np.column_stack([np.asarray(getattr(scores, measure), dtype=float) for measure in measures])
    result: list[dict[int, np.ndarray]] = [{} for _ in models]
    for b, (m, conversation_id) in enumerate(blocks):
        result[m][conversation_id] = columns[b]
    return result


def effects(adjudicated: adjudication.Adjudication, means: RunMeans, *, judge: int | None) -> dict[str, list[Choice]]:
    """unit -> the values the gold could take (annotators who gave the same value share one
    choice, in the order of the annotators), each with the Effect of taking it. `means` are
    the campaign's run means now (`RunMeans.of_topic`); `judge` whose judgments score the
    conversation now. Reads a few queries, writes nothing."""
    conversation = adjudicated.conversation
    measures = means.measures
    now = means.now(conversation.pk)
    topic_wide = any(d.kind in ("grade", "membership") for d in adjudicated.disagreements)
    base = gold_model(adjudicated, judge, topic_wide=topic_wide)
    pending: list[tuple[str, Choice, GoldModel | None]] = []
    for d in adjudicated.disagreements:
        groups: list[list[adjudication.Said]] = []
        for said in d.said:
            if said.takeable:
                group = next((g for g in groups if adjudication.same_value(d.kind, g[0].value, said.value)), None)
                group.append(said) if group is not None else groups.append([said])
        for group in groups:
            choice = Choice([s.annotator for s in group], group[0].shown, Effect())
            try:
                pending.append((d.unit, choice, taken(base, adjudicated, d, adjudicated.side_of(group[0].annotator.pk))))
            except AnnotationRefused as refused:
                choice.effect.refused = str(refused)
                pending.append((d.unit, choice, None))
    kinds = {d.unit: d.kind for d in adjudicated.disagreements}
    scored = [(unit, choice, model) for unit, choice, model in pending if model is not None]
    rescored = score_models(adjudicated, [model for _u, _c, model in scored], measures,
                            topic_wide=[kinds[unit] in ("grade", "membership") for unit, _c, _m in scored]) if scored else []
    for (_unit, choice, _model), after in zip(scored, rescored):
        choice.effect = means.effect(after, conversation.run.name)
        choice.effect.conversation = {m: (float(now[i]), float(after[conversation.pk][i])) for i, m in enumerate(measures)}
    result: dict[str, list[Choice]] = defaultdict(list)
    for unit, choice, _model in pending:
        result[unit].append(choice)
    return dict(result)
