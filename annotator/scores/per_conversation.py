"""The thin Django layer over the GFRC maths: database rows in, `scoring.gfrc` tables out.

It reads a fixed number of queries however many nuggets there are (turns, nuggets with their
entities and grades, memberships, attribute sets), turns them into the columnar `TurnTable`
and `NuggetTable`, and lets `scoring.gfrc.score` do the arithmetic for every conversation of a
topic type at once. Word positions come from `scoring.words`, the one place words are decided.

Whose judgments are scored: in the workspace, the annotator's own (live); in reports, each
conversation's gold annotator (set by adjudication), else its earliest assigned annotator.
A relevant nugget whose entity has no membership yet in an attribute set counts as uniform
there (FairWeb's convention for an entity of unknown group); the workspace flags it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models import IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from annotator.models import AnnotatorProfile, Assignment, AttributeSet, Campaign, Conversation, Membership, Nugget, Turn
from annotator.models.conversations import parent_position, word_offsets
from annotator.models.rows import EntityRow, GradeRow, NuggetRow, TurnRow
from annotator.rules.relevance import needs_every_membership
from annotator.scores.compiled_reads import CompiledRows
from scoring import gfrc, trees
from scoring.words import turn_offsets, word_count, word_position


def campaign_settings(campaign: Campaign) -> gfrc.Settings:
    return gfrc.Settings(
        patience=campaign.patience,
        alpha=campaign.alpha,
        method=campaign.method,
        empty_turns=campaign.empty_turns,
        turn_weight=campaign.turn_weight,
        duplicates_count_once=campaign.duplicates_count_once,
    )


def attribute_specs(attribute_sets: Iterable[AttributeSet]) -> tuple[gfrc.AttributeSet, ...]:
    return tuple(
        gfrc.AttributeSet(
            name=a.name,
            groups=tuple(a.groups),
            target=np.asarray(a.target, dtype=float),
            divergence=a.divergence,
            weight=a.weight,
        )
        for a in attribute_sets
    )


@dataclass
class NuggetScore:
    nugget: NuggetRow | Nugget  # a light read-only row in score_conversation
    wc: int
    pw: float
    gain: float
    effective_gain: float
    contribution: float
    duplicate: bool
    incomplete: tuple[str, ...]  # attribute sets with no membership given for its entity

    @property
    def missing(self) -> tuple[str, ...]:
        """The attribute sets its entity still needs a membership in (none once it is graded
        nonrelevant: annotator.rules.relevance)."""
        grade = self.nugget.entity.grade
        return self.incomplete if needs_every_membership(grade.gain if grade is not None else None) else ()


@dataclass
class TurnScore:
    turn: TurnRow | Turn  # a light read-only row in score_conversation
    offset: int  # words before the turn
    end_wc: int  # position of its last word: the running word count at its end
    scored: bool = False
    weight: float = 0.0
    achieved: dict[str, list[float]] = field(default_factory=dict)
    distr_sim: dict[str, float] = field(default_factory=dict)


@dataclass
class ConversationScore:
    """Everything the score panel shows: the paper's Table 1 (nuggets) and Table 2 (turns)."""

    conversation: Conversation
    settings: gfrc.Settings
    attribute_sets: tuple[gfrc.AttributeSet, ...]
    attribute_weights: dict[str, float]
    turns: list[TurnScore]
    nuggets: list[NuggetScore]
    R: float
    GF: float
    GF_m: dict[str, float]
    GFRC: float
    normaliser: float
    # the maths tables of this conversation alone (score_conversation): what stored figures keep
    tables: tuple[gfrc.TurnTable, gfrc.NuggetTable] | None = field(default=None, repr=False, compare=False)

    @property
    def system_turns(self) -> list[TurnScore]:
        return [t for t in self.turns if t.turn.is_system]



_NUGGET_COLUMNS = (
    "pk", "turn_id", "start_word", "end_word", "entity_id", "version", "annotator_id",
    "entity__key", "entity__name", "entity__comment", "entity__version", "entity__grade_id",
    "entity__topic_id", "entity__annotator_id", "entity__grade__label", "entity__grade__level",
    "entity__grade__gain",
)


def gfrc_tables(
    turn_lists: Sequence[Sequence[Turn]],
    nugget_lists: Sequence[Sequence[Nugget]],
    memberships: dict[int, dict[int, list[float]]],
    attribute_sets: Sequence[AttributeSet],
) -> tuple[gfrc.TurnTable, gfrc.NuggetTable, list[list[TurnScore]], list[list[tuple[Nugget, int, tuple[str, ...]]]]]:
    """Flatten conversations into the maths tables; remember where each row came from (the
    per-conversation scores here and the campaign tables of annotator.console.reports share it)."""
    turn_conversation: list[int] = []
    turn_end: list[int] = []
    turn_rows: dict[int, int] = {}
    turn_views: list[list[TurnScore]] = []
    for c, turns in enumerate(turn_lists):
        if any(turn.follows is not None for turn in turns):  # a tree: words counted along each turn's path
            offsets = word_offsets(turns)
            ends = [offset + word_count(turn.text) for offset, turn in zip(offsets, turns)]
        else:
            bounds = turn_offsets([*(turn.text for turn in turns), ""])  # turn i holds words bounds[i]+1..bounds[i+1]
            offsets, ends = bounds[:-1], bounds[1:]
        views = []
        for i, turn in enumerate(turns):
            view = TurnScore(turn=turn, offset=int(offsets[i]), end_wc=int(ends[i]))
            views.append(view)
            if turn.is_system:
                turn_rows[turn.pk] = len(turn_end)
                turn_conversation.append(c)
                turn_end.append(view.end_wc)
        turn_views.append(views)
    offsets = {view.turn.pk: view.offset for views in turn_views for view in views}

    nugget_turn, nugget_wc, nugget_gain, nugget_entity = [], [], [], []
    # (id, name, uniform vector, its rows) per attribute set, read once: not per nugget
    sets = [(a.pk, a.name, [1.0 / a.size] * a.size, []) for a in attribute_sets]
    vectors: dict[int, list] = {pk: rows for pk, _name, _uniform, rows in sets}
    all_given: tuple[str, ...] = ()
    none_given = tuple(name for _pk, name, _uniform, _rows in sets)
    nugget_rows: list[list[tuple[Nugget, int, tuple[str, ...]]]] = []
    for nuggets in nugget_lists:
        rows = []
        for nugget in nuggets:
            wc = word_position(offsets[nugget.turn_id], nugget.end_word)
            given = memberships.get(nugget.entity_id)
            if not given:
                missing = none_given
                for _pk, _name, uniform, set_rows in sets:
                    set_rows.append(uniform)
            else:
                missing = all_given
                for pk, name, uniform, set_rows in sets:
                    if pk not in given:
                        missing += (name,)
                    set_rows.append(given.get(pk) or uniform)
            nugget_turn.append(turn_rows[nugget.turn_id])
            nugget_wc.append(wc)
            grade = nugget.entity.grade
            nugget_gain.append(grade.gain if grade is not None else 0.0)
            nugget_entity.append(nugget.entity_id)
            rows.append((nugget, wc, missing))
        nugget_rows.append(rows)

    turn_table = gfrc.TurnTable(
        conversation=np.asarray(turn_conversation, dtype=np.int64), end_wc=np.asarray(turn_end, dtype=np.int64)
    )
    nugget_table = gfrc.NuggetTable(
        turn=np.asarray(nugget_turn, dtype=np.int64),
        wc=np.asarray(nugget_wc, dtype=np.int64),
        gain=np.asarray(nugget_gain, dtype=float),
        entity=np.asarray(nugget_entity, dtype=np.int64),
        membership={
            a.name: np.asarray(vectors[a.pk], dtype=float).reshape(-1, a.size) for a in attribute_sets
        },
    )
    return turn_table, nugget_table, turn_views, nugget_rows


def attribute_sets_of(topic_type_id: int) -> list[AttributeSet]:
    """The attribute sets of a topic type, in their order."""
    # AttributeSet's ordering without its first key: one topic type's sets need no join to sort
    return list(AttributeSet.objects.filter(topic_type_id=topic_type_id).order_by("position", "name"))


def _nugget_rows(rows: Sequence[tuple]) -> list[NuggetRow]:
    result = []
    grades: dict[int, GradeRow] = {}
    for (pk, turn_id, start, end, entity_id, version, annotator_id, key, name, comment, e_version, grade_id,
         topic_id, e_annotator_id, g_label, g_level, g_gain) in rows:
        grade = None
        if grade_id is not None:
            grade = grades.get(grade_id)
            if grade is None:
                grade = grades[grade_id] = GradeRow(grade_id, g_label, g_level, float(g_gain))
        entity = EntityRow(entity_id, key, name, comment, e_version, grade_id, topic_id, e_annotator_id, grade)
        result.append(NuggetRow(pk, turn_id, start, end, entity_id, version, annotator_id, entity))
    return result


def score_conversation(
    conversation: Conversation, annotator, attribute_sets: Sequence[AttributeSet] | None = None,
    path: frozenset[int] | None = None,
) -> ConversationScore:
    """Score one conversation under its campaign's settings from one annotator's judgments.

    Four queries (turns, nuggets with entity and grade, memberships, attribute sets), whatever
    the number of nuggets; pass `attribute_sets` to save the last one. Turns and nuggets come
    back as read-only rows (`TurnRow`, `NuggetRow` with `.entity` and `.entity.grade`) that
    keep the model's attribute names. `path`: the ids of the turns of one path of a conversation
    that branches, scored alone (its figures are that path's, not the expectation).
    """
    annotator_id = getattr(annotator, "pk", annotator)
    campaign = conversation.topic.campaign
    if attribute_sets is None:
        attribute_sets = attribute_sets_of(conversation.topic.topic_type_id)
    turn_rows = _TURNS.rows(conversation.pk)
    nugget_rows = _NUGGETS.rows(conversation.pk, annotator_id)
    memberships: dict[int, dict[int, list[float]]] = defaultdict(dict)
    for entity_id, attribute_set_id, vector in _MEMBERSHIPS.rows(conversation.topic_id, annotator_id):
        memberships[entity_id][attribute_set_id] = vector
    turns, nuggets = [TurnRow(*row) for row in turn_rows], _nugget_rows(nugget_rows)
    if path is not None:  # one path of a conversation that branches, scored as the line it is
        turns = [replace(turn, follows=None, p=None) for turn in turns if turn.pk in path]
        nuggets = [nugget for nugget in nuggets if nugget.turn_id in path]
    return _score(conversation, turns, nuggets, memberships, attribute_sets, campaign_settings(campaign),
                  attribute_specs(attribute_sets))


# score_conversation's three reads, compiled once (compiled_reads: compiling them cost more than
# running them)
_TURNS = CompiledRows(lambda conversation_id: Turn.objects.filter(conversation_id=conversation_id)
                      .order_by("position").values_list("pk", "conversation_id", "position", "role", "number", "text", "follows", "p", "shown"))
_NUGGETS = CompiledRows(lambda conversation_id, annotator_id: Nugget.objects.filter(
    turn__conversation_id=conversation_id, annotator_id=annotator_id,
).order_by("turn__position", "start_word").values_list(*_NUGGET_COLUMNS))
# by topic and annotator rather than by a list of entity ids: one join, no parameter list that
# grows with the nuggets
_MEMBERSHIPS = CompiledRows(lambda topic_id, annotator_id: Membership.objects.filter(
    entity__topic_id=topic_id, entity__annotator_id=annotator_id,
).values_list("entity_id", "attribute_set_id", "vector"))


def _score(conversation, turns, nuggets, memberships, attribute_sets, settings, specs) -> ConversationScore:
    return _score_many([conversation], [turns], [nuggets], memberships, attribute_sets, settings, specs)[0]


def _score_many(
    conversations, turn_lists, nugget_lists, memberships, attribute_sets, settings, specs
) -> list[ConversationScore]:
    """Conversations of one topic type in one `gfrc.score` call, each laid out as its panel shows it."""
    turn_table, nugget_table, turn_views, nugget_rows = gfrc_tables(turn_lists, nugget_lists, memberships, attribute_sets)
    scores = score_tables(turn_lists, turn_table, nugget_table, specs, settings)
    pw, effective, contribution, duplicate = (
        scores.pw.tolist(), scores.effective_gain.tolist(), scores.contribution.tolist(), scores.duplicate.tolist()
    )
    gain = nugget_table.gain.tolist()
    attribute_weights = {s.name: float(w) for s, w in zip(specs, scores.attribute_weights)}
    results = []
    turn_row = nugget_row = 0  # rows of the flat tables, conversation after conversation
    for c, conversation in enumerate(conversations):
        for view in turn_views[c]:
            if not view.turn.is_system:
                continue
            view.scored = bool(scores.scored[turn_row])
            view.weight = float(scores.turn_weight[turn_row])
            if view.scored:
                for m, spec in enumerate(specs):
                    view.achieved[spec.name] = scores.achieved[spec.name][turn_row].tolist()
                    view.distr_sim[spec.name] = float(scores.distr_sim[turn_row, m])
            turn_row += 1
        nugget_scores = []
        for nugget, wc, missing in nugget_rows[c]:
            i = nugget_row
            nugget_scores.append(
                NuggetScore(
                    nugget=nugget,
                    wc=wc,
                    pw=pw[i],
                    gain=gain[i],
                    effective_gain=effective[i],
                    contribution=contribution[i],
                    duplicate=duplicate[i],
                    incomplete=missing,
                )
            )
            nugget_row += 1
        results.append(
            ConversationScore(
                conversation=conversation,
                settings=settings,
                attribute_sets=specs,
                attribute_weights=attribute_weights,
                turns=turn_views[c],
                nuggets=nugget_scores,
                R=float(scores.R[c]),
                GF=float(scores.GF[c]),
                GF_m={s.name: float(scores.GF_m[c, m]) for m, s in enumerate(specs)},
                GFRC=float(scores.GFRC[c]),
                normaliser=float(scores.normaliser),
                tables=(turn_table, nugget_table) if len(conversations) == 1 else None,
            )
        )
    return results


def score_rows(
    turn_lists: Sequence[Sequence[Turn | TurnRow]],
    nugget_lists: Sequence[Sequence],
    memberships: dict[int, dict[int, list[float]]],
    attribute_sets: Sequence[AttributeSet],
    campaign: Campaign,
) -> gfrc.Scores:
    """The scores alone (no panel) of conversations given as plain rows, in one `gfrc.score`:
    what a preview of judgments that are not in the database scores (turn and entity ids need
    only be distinct across the lists; see gfrc_tables for what a row carries)."""
    turn_table, nugget_table, _views, _rows = gfrc_tables(turn_lists, nugget_lists, memberships, attribute_sets)
    return score_tables(turn_lists, turn_table, nugget_table, attribute_specs(attribute_sets), campaign_settings(campaign))


def score_tables(turn_lists, turn_table: gfrc.TurnTable, nugget_table: gfrc.NuggetTable, specs, settings) -> gfrc.Scores:
    """`gfrc.score` of the tables of `gfrc_tables`; when a conversation branches, every path of
    it (scoring.trees): its figures are then the expectation over its paths, and each turn and
    nugget shows as scored on the first path through it."""
    if not any(turn.follows is not None for turns in turn_lists for turn in turns):
        return gfrc.score(turn_table, nugget_table, specs, settings, len(turn_lists))
    tree = system_tree_of(turn_lists)
    return trees.score_trees(turn_table, nugget_table, tree, specs, settings, len(turn_lists)).on_first_paths()


def system_tree_of(turn_lists) -> trees.Tree:
    """The `scoring.trees.Tree` of the system turns of conversations (rows as `gfrc_tables` lays
    them out), from each turn's `follows` and `p`."""
    conversation, parent, p, is_system = [], [], [], []
    for c, turns in enumerate(turn_lists):
        first = len(parent)
        row_of = {turn.position: first + i for i, turn in enumerate(turns)}
        for turn in turns:
            up = parent_position(turn.position, turn.follows)
            conversation.append(c)
            parent.append(-1 if up is None else row_of[up])
            p.append(np.nan if turn.p is None else turn.p)
            is_system.append(turn.is_system)
    tree, _rows = trees.system_tree(np.asarray(conversation, dtype=np.int64), np.asarray(parent, dtype=np.int64),
                                    np.asarray(p, dtype=float), np.asarray(is_system, dtype=bool), len(turn_lists))
    return tree


def score_conversations(
    conversations: Sequence[Conversation],
    turns: dict[int, Sequence[Turn]],
    nuggets: dict[int, Sequence[Nugget]],
    memberships: dict[int, dict[int, list[float]]],
    campaign: Campaign,
) -> list[ConversationScore]:
    """What `score_conversation` gives each of many conversations, from rows already read.

    `turns` and `nuggets` map a conversation id to its turns (in order) and to the judgments to
    score (in turn and word order); `memberships` maps an entity id to attribute set id ->
    vector. One query for the attribute sets of each topic type, one `gfrc.score` per type;
    the result keeps the order of `conversations`.
    """
    settings = campaign_settings(campaign)
    by_type: dict[int, list[Conversation]] = defaultdict(list)
    for conversation in conversations:
        by_type[conversation.topic.topic_type_id].append(conversation)
    result: dict[int, ConversationScore] = {}
    for topic_type_id, group in by_type.items():
        attribute_sets = attribute_sets_of(topic_type_id)
        scored = _score_many(
            group, [turns.get(c.pk, []) for c in group], [nuggets.get(c.pk, []) for c in group],
            memberships, attribute_sets, settings, attribute_specs(attribute_sets),
        )
        result.update((c.pk, score) for c, score in zip(group, scored))
    return [result[c.pk] for c in conversations]


def human_assignments_in_order(**which) -> QuerySet:
    """The assignments (`which`: filters) whose annotator may be a conversation's gold, first
    assigned first: the one definition of "the first human assignee" (an automatic judge is
    compared with the gold, never taken for it; its accounts are one list the database builds
    once, not a join per assignment)."""
    automatic = get_user_model().objects.filter(AnnotatorProfile.automatic()).values("pk")
    return Assignment.objects.filter(**which).exclude(annotator_id__in=automatic).order_by("assigned_at", "id")


def judge_of_conversation() -> Coalesce:
    """`gold_annotators` as an expression of a Conversation query: what a GROUP BY of the stored
    figures joins each conversation's judge's row by (annotator.scores.stored.totals)."""
    first = human_assignments_in_order(conversation_id=OuterRef("pk")).values("annotator_id")[:1]
    return Coalesce("gold_annotator_id", Subquery(first), output_field=IntegerField())


def gold_annotators(conversations: Sequence[Conversation]) -> dict[int, int | None]:
    """Whose judgments count for each conversation: the adjudicated gold, else the first human
    assignee (`human_assignments_in_order`)."""
    return _first_assignees({c.pk: c.gold_annotator_id for c in conversations})


def gold_annotator_rows(campaign: Campaign, conversations: Sequence[tuple[int, int | None]]) -> dict[int, int | None]:
    """`gold_annotators` for a whole campaign given as (conversation id, gold annotator id)
    rows: the assignments read in one query by campaign, not by lists of ids."""
    result: dict[int, int | None] = dict(conversations)
    for conversation_id, annotator_id in (
        human_assignments_in_order(conversation__topic__campaign=campaign, conversation__gold_annotator__isnull=True)
        .values_list("conversation_id", "annotator_id")
    ):
        if conversation_id in result and result[conversation_id] is None:
            result[conversation_id] = annotator_id
    return result


def _first_assignees(result: dict[int, int | None]) -> dict[int, int | None]:
    pending = [pk for pk, judge in result.items() if judge is None]
    # In batches: SQLite caps the parameters of one query.
    for start in range(0, len(pending), 5000):
        for conversation_id, annotator_id in (
            human_assignments_in_order(conversation_id__in=pending[start : start + 5000])
            .values_list("conversation_id", "annotator_id")
        ):
            if result[conversation_id] is None:
                result[conversation_id] = annotator_id
    return result
