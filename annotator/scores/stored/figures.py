"""What a stored row holds and how it is computed: a conversation's figures under the campaign's
settings from one annotator's judgments read as plain rows (`rows_from_judgments`), or as the
workspace's panel scores a save (`scored_as_the_panel`), with the inputs a re-score needs
(`distinct_vectors`), and stored inputs scored again (`score_inputs`, one `gfrc.score` per
topic type)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from annotator.models import AttributeSet, Campaign, Conversation, Membership, Nugget, Turn
from annotator.models.conversations import word_offsets
from annotator.models.rows import TurnRow
from annotator.scores.per_conversation import (
    ConversationScore, attribute_sets_of, attribute_specs, campaign_settings, score_conversation, system_tree_of,
)
from annotator.scores.stored.sql import chunks
from scoring import gfrc, trees
from scoring.words import word_count, word_position

__all__ = ["StoredScore", "rows_from_judgments", "scored_as_the_panel", "score_inputs", "score_input_paths", "distinct_vectors",
           "lowest_distr_sims", "attribute_sets_by_type", "has_sets", "campaign_of", "WHOLE_CAMPAIGN"]

WHOLE_CAMPAIGN = 2000  # more conversations than this, and half the campaign or more: read the campaign's rows


@dataclass(frozen=True)
class StoredScore:
    """What `store_saved` stored: one annotator's score of one conversation, as the workspace's
    panel shows it, with the topic type's attribute sets it was scored with. The save's answer
    shows both instead of reading and scoring the same judgments again."""

    score: ConversationScore
    annotator_id: int
    attribute_sets: list[AttributeSet]


def campaign_of(campaign: Campaign | int) -> Campaign:
    return campaign if isinstance(campaign, Campaign) else Campaign.objects.get(pk=campaign)


def has_sets(inputs: dict, specs) -> bool:
    return all(spec.name in inputs["m"] for spec in specs)


def attribute_sets_by_type(campaign: Campaign) -> dict[int, list[AttributeSet]]:
    sets: dict[int, list[AttributeSet]] = defaultdict(list)
    for attribute_set in AttributeSet.objects.filter(topic_type__campaign=campaign):
        sets[attribute_set.topic_type_id].append(attribute_set)
    return sets


def rows_in(query, field: str, ids: Sequence[int] | None, columns: Sequence[str]) -> list[tuple]:
    """The rows of `query` whose `field` is one of `ids` (all with None), read in chunks."""
    if ids is None:
        return list(query.values_list(*columns))
    rows: list[tuple] = []
    for chunk in chunks(ids):
        rows.extend(query.filter(**{f"{field}__in": chunk}).values_list(*columns))
    return rows


def rows_from_judgments(campaign: Campaign, ids: list[int] | None, annotators: list[int] | None) -> list[tuple]:
    """The rows to store for these conversations (all with None), from the judgments read as
    plain rows: (conversation, annotator, r, gf, gfrc, gf_sets, inputs)."""
    whole = ids is None or (len(ids) > WHOLE_CAMPAIGN and 2 * len(ids) >= _campaign_size(campaign))
    wanted = None if ids is None else set(ids)
    wanted_annotators = None if annotators is None else set(annotators)
    in_campaign = {"conversation__topic__campaign": campaign} if whole else {}
    conversations, branching_ids = {}, set()
    # by id: the conversations alone, their campaign checked here (a join from the campaign's
    # side would probe every topic of the campaign for each id); .order_by(): the model's
    # ordering would join topics and runs
    query = Conversation.objects.filter(topic__campaign=campaign) if whole else Conversation.objects.order_by()
    for pk, campaign_id, type_id, is_tree in rows_in(query, "pk", None if whole else ids,
                                                     ("pk", "topic__campaign_id", "topic__topic_type_id", "is_tree")):
        if (wanted is None or pk in wanted) and campaign_id == campaign.pk:
            conversations[pk] = type_id
            if is_tree:
                branching_ids.add(pk)
    # turns: word counts -> each system turn's end position, and where each turn's words start
    turn_rows = rows_in(Turn.objects.filter(**in_campaign).order_by("conversation_id", "position"), "conversation_id",
                         None if whole else ids, ("pk", "conversation_id", "role", "number", "text", "position", "follows", "p"))
    place: dict[int, tuple[int, int]] = {}  # turn id -> (system turn index in its conversation, words before it)
    ends: dict[int, list[int]] = defaultdict(list)
    numbers: dict[int, list[int]] = defaultdict(list)
    branching: dict[int, list[TurnRow]] = defaultdict(list)  # the turns of conversations that branch
    current, offset = None, 0
    for pk, conversation_id, role, number, text, position, follows, p in turn_rows:
        if conversation_id not in conversations:
            continue
        if conversation_id != current:
            current, offset = conversation_id, 0
        words = word_count(text)
        if conversation_id in branching_ids:
            branching[conversation_id].append(TurnRow(pk, conversation_id, position, role, number, text, follows, p))
        if role == Turn.Role.SYSTEM:
            place[pk] = (len(ends[conversation_id]), offset)
            ends[conversation_id].append(offset + words)
            numbers[conversation_id].append(number)
        offset += words
    trees = _branching(branching, place, ends)
    nugget_query = Nugget.objects.filter(**({"turn__conversation__topic__campaign": campaign} if whole else {}))
    if annotators is not None and whole:
        nugget_query = nugget_query.filter(annotator_id__in=annotators)
    # by id, the annotators are kept below, not asked of the database: SQLite (no statistics)
    # would walk the annotator's nuggets of the whole campaign by its index on annotator
    nugget_rows = rows_in(nugget_query.order_by("turn_id", "start_word"), "turn__conversation_id",
                           None if whole else ids,
                           ("turn_id", "turn__conversation_id", "annotator_id", "end_word", "entity_id", "entity__grade__gain"))
    judged: dict[tuple[int, int | None], list[tuple]] = defaultdict(list)
    entity_ids: set[int] = set()
    for turn_id, conversation_id, annotator_id, end_word, entity_id, gain in nugget_rows:
        if conversation_id not in conversations or (wanted_annotators is not None and annotator_id not in wanted_annotators):
            continue
        index, before = place[turn_id]
        judged[(conversation_id, annotator_id)].append((index, word_position(before, end_word), float(gain or 0.0), entity_id))
        entity_ids.add(entity_id)
    membership_query = Membership.objects.filter(**({"entity__topic__campaign": campaign} if whole else {}))
    memberships: dict[int, dict[int, list[float]]] = defaultdict(dict)
    for entity_id, set_id, vector in rows_in(membership_query, "entity_id", None if whole else sorted(entity_ids),
                                              ("entity_id", "attribute_set_id", "vector")):
        memberships[entity_id][set_id] = vector

    keys: list[tuple[int, int | None]] = sorted(judged, key=lambda k: (k[0], k[1] or 0))
    if annotators is None:
        keys += [(c, None) for c in conversations]
    sets = attribute_sets_by_type(campaign)
    by_type: dict[int, list[tuple[int, int | None, dict]]] = defaultdict(list)
    for conversation_id, annotator_id in keys:
        type_sets = sets.get(conversations[conversation_id], [])
        nuggets = judged.get((conversation_id, annotator_id), [])
        inputs = {
            "t": ends.get(conversation_id, []),
            "s": numbers.get(conversation_id, []),
            **({"tree": trees[conversation_id]} if conversation_id in trees else {}),
            "n": [list(n) for n in nuggets],
            "m": {a.name: distinct_vectors([memberships.get(n[3], {}).get(a.pk) or [1.0 / a.size] * a.size
                                            for n in nuggets])
                  for a in type_sets},
        }
        by_type[conversations[conversation_id]].append((None, conversation_id, annotator_id, inputs))
    settings = campaign_settings(campaign)
    rows = []
    for type_id, group in by_type.items():
        specs = attribute_specs(sets.get(type_id, []))
        rows.extend(rows_of(group, score_inputs([i for *_, i in group], specs, settings), specs))
    return rows


def _campaign_size(campaign: Campaign) -> int:
    return Conversation.objects.filter(topic__campaign=campaign).order_by().count()


def _branching(branching: dict[int, list[TurnRow]], place: dict[int, tuple[int, int]],
               ends: dict[int, list[int]]) -> dict[int, dict]:
    """Conversations that branch: their words counted again along each turn's path (in `place`
    and `ends`, which counted them in a line), and each one's system tree as stored inputs
    keep it ({"parent": system turn index or -1, "p": its probability from there})."""
    found = {}
    for conversation_id, turns in branching.items():
        offsets = word_offsets(turns)
        system = [(turn, offset) for turn, offset in zip(turns, offsets) if turn.is_system]
        ends[conversation_id] = [offset + word_count(turn.text) for turn, offset in system]
        for index, (turn, offset) in enumerate(system):
            place[turn.pk] = (index, offset)
        tree = system_tree_of([turns])
        found[conversation_id] = {"parent": tree.parent.tolist(), "p": [float(v) for v in tree.p.tolist()]}
    return found


def scored_as_the_panel(conversation: Conversation, annotator_id: int) -> tuple[list[tuple], StoredScore]:
    """The row of one annotator's judgments of one conversation, scored as the workspace's panel
    scores it (no row when the annotator has no nugget there), and that score."""
    conversation_id = conversation.pk
    attribute_sets = attribute_sets_of(conversation.topic.topic_type_id)
    score = score_conversation(conversation, annotator_id, attribute_sets)
    saved = StoredScore(score, annotator_id, attribute_sets)
    if not score.nuggets:
        return [], saved
    turn_table, nugget_table = score.tables
    # the nuggets in the order `rows_from_judgments` stores them (turn id, start word), not the panel's
    order = sorted(range(len(score.nuggets)),
                   key=lambda k: (score.nuggets[k].nugget.turn_id, score.nuggets[k].nugget.start_word))
    rows = list(zip(nugget_table.turn.tolist(), nugget_table.wc.tolist(), nugget_table.gain.tolist(),
                    nugget_table.entity.tolist()))
    turns = [view.turn for view in score.turns]
    tree = system_tree_of([turns]) if any(turn.follows is not None for turn in turns) else None
    inputs = {
        "t": turn_table.end_wc.tolist(),
        "s": [view.turn.number for view in score.system_turns],
        **({"tree": {"parent": tree.parent.tolist(), "p": [float(v) for v in tree.p.tolist()]}} if tree is not None else {}),
        "n": [list(rows[k]) for k in order],
        "m": {name: distinct_vectors([vectors[k] for k in order])
              for name, vectors in ((name, vectors.tolist()) for name, vectors in nugget_table.membership.items())},
    }
    lowest = {}  # as lowest_distr_sims: a set's lowest over the scored turns, NaN never lowest
    for spec in score.attribute_sets:
        values = [v for view in score.system_turns if view.scored and (v := view.distr_sim[spec.name]) == v]
        if values:
            lowest[spec.name] = min(values)
    return [(conversation_id, annotator_id, score.R, score.GF, score.GFRC, dict(score.GF_m), inputs, lowest)], saved


def distinct_vectors(vectors: Sequence[Sequence[float]]) -> dict:
    """Each nugget's membership vector in one attribute set, as stored: the distinct vectors
    ("v") and, per nugget, which one is its ("i"). A conversation's nuggets share a handful of
    vectors (uniform, one-hot), so the JSON a save writes and a re-score reads stays small."""
    index: dict[tuple, int] = {}
    which = [index.setdefault(tuple(vector), len(index)) for vector in vectors]
    return {"v": [list(vector) for vector in index], "i": which}


def rows_of(group, scores: gfrc.Scores, specs) -> list[tuple]:
    r, gf, gfrc_values = scores.R.tolist(), scores.GF.tolist(), scores.GFRC.tolist()
    gf_m = scores.GF_m.tolist()
    names = [s.name for s in specs]
    lowest = lowest_distr_sims([inputs for *_, inputs in group], scores, specs)
    return [(conversation_id, annotator_id, r[i], gf[i], gfrc_values[i], dict(zip(names, gf_m[i])), inputs, lowest[i])
            for i, (_pk, conversation_id, annotator_id, inputs) in enumerate(group)]


def lowest_distr_sims(inputs: Sequence[dict], scores: gfrc.Scores, specs) -> list[dict[str, float]]:
    """Per conversation of `score_inputs(inputs, ...)`: attribute set name -> the lowest DistrSim
    of its scored system turns (a set none of whose turns has one is left out)."""
    counts = np.fromiter((len(i["t"]) for i in inputs), dtype=np.int64, count=len(inputs))
    lowest = np.full((len(inputs), len(specs)), np.inf)
    if len(specs) and counts.sum():
        values = np.where(np.asarray(scores.scored, dtype=bool)[:, None], scores.distr_sim, np.nan)
        np.fmin.at(lowest, np.repeat(np.arange(len(inputs)), counts), values)  # fmin: NaN never wins
    names = [s.name for s in specs]
    return [{name: v for name, v in zip(names, row) if v != np.inf} for row in lowest.tolist()]


def score_inputs(inputs: Sequence[dict], specs: Sequence[gfrc.AttributeSet], settings: gfrc.Settings) -> gfrc.Scores:
    """Stored inputs of conversations of one topic type, scored in one `gfrc.score` call (every
    path of those that branch: their figures are the expected ones, scoring.trees)."""
    turns, table, turn_counts = _input_tables(inputs, specs)
    if not any("tree" in i for i in inputs):
        return gfrc.score(turns, table, specs, settings, len(inputs))
    return trees.score_trees(turns, table, stored_tree(inputs, turn_counts), specs, settings, len(inputs)).on_first_paths()


def score_input_paths(inputs: Sequence[dict], specs: Sequence[gfrc.AttributeSet], settings: gfrc.Settings) -> trees.TreeScores:
    """Stored inputs scored path by path: a linear conversation is one path of probability 1."""
    turns, table, turn_counts = _input_tables(inputs, specs)
    return trees.score_trees(turns, table, stored_tree(inputs, turn_counts), specs, settings, len(inputs))


def _input_tables(inputs: Sequence[dict], specs: Sequence[gfrc.AttributeSet]) -> tuple[gfrc.TurnTable, gfrc.NuggetTable, np.ndarray]:
    turn_counts = np.fromiter((len(i["t"]) for i in inputs), dtype=np.int64, count=len(inputs))
    nugget_counts = np.fromiter((len(i["n"]) for i in inputs), dtype=np.int64, count=len(inputs))
    end_wc = np.fromiter((wc for i in inputs for wc in i["t"]), dtype=np.int64, count=int(turn_counts.sum()))
    nuggets = np.array([row for i in inputs for row in i["n"]], dtype=float).reshape(-1, 4)
    first_turn = np.concatenate(([0], np.cumsum(turn_counts)[:-1])) if len(inputs) else turn_counts
    turn = nuggets[:, 0].astype(np.int64) + np.repeat(first_turn, nugget_counts)
    membership = {}
    for spec in specs:
        stored_sets = [i["m"][spec.name] for i in inputs]
        vectors = np.array([v for m in stored_sets for v in m["v"]], dtype=float).reshape(-1, spec.n_groups)
        distinct = np.fromiter((len(m["v"]) for m in stored_sets), dtype=np.int64, count=len(stored_sets))
        first = np.concatenate(([0], np.cumsum(distinct)[:-1])) if len(stored_sets) else distinct
        which = np.fromiter((k for m in stored_sets for k in m["i"]), dtype=np.int64, count=int(nugget_counts.sum()))
        membership[spec.name] = vectors[which + np.repeat(first, nugget_counts)]
    turns = gfrc.TurnTable(conversation=np.repeat(np.arange(len(inputs)), turn_counts), end_wc=end_wc)
    table = gfrc.NuggetTable(turn=turn, wc=nuggets[:, 1].astype(np.int64), gain=nuggets[:, 2],
                             entity=nuggets[:, 3].astype(np.int64), membership=membership)
    return turns, table, turn_counts


def stored_tree(inputs: Sequence[dict], turn_counts: np.ndarray) -> trees.Tree:
    """The system tree of stored inputs laid end to end: a conversation's own ("tree"), else a
    line (each turn follows the one before)."""
    parent, p = [], []
    first = 0
    for i, count in zip(inputs, turn_counts.tolist()):
        tree = i.get("tree")
        if tree is None:
            parent.extend([-1, *range(first, first + count - 1)] if count else [])
            p.extend([np.nan] * count)
        else:
            parent.extend(first + up if up >= 0 else -1 for up in tree["parent"])
            p.extend(tree["p"])
        first += count
    return trees.Tree(np.asarray(parent, dtype=np.int64), np.asarray(p, dtype=float))
