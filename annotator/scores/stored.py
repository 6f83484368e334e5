"""Stored figures: every conversation's GFRC figures, kept with the judgments they come from.

One row of `StoredFigures` per conversation and annotator who has nuggets in it, and one with
no annotator (the conversation scored with no judgments: what a judge who marked nothing
gets). Each row holds R, GF per attribute set, GF and GFRC under the campaign's settings, and
the inputs a re-score needs (`inputs`: each system turn's end position and number, each
nugget's turn, word position, gain and entity, and per attribute set the conversation's
distinct membership vectors with each nugget's: `distinct_vectors`), so that

- a save writes its conversation's figures in its own transaction (`refresh_conversations`,
  called by `annotator.judgments.edits` for the annotator it touched), and an import writes
  those of the topics it touched (`refresh_topics`);
- a campaign page reads them as plain rows into arrays (`judge_figures`, through `campaign_tables.score_table`), never a model
  instance per conversation;
- a settings change recomputes what it invalidates (`settings_changed`): alpha alone
  recombines stored R and GF in one UPDATE; L, method, empty turns, turn weight, duplicates,
  targets, divergences and weights re-score the stored inputs; grades and attribute sets
  (gains, groups, names) read the judgments again. Each is one vectorised `scoring.gfrc.score`
  per topic type;
- the report's quick L / alpha (`judge_figures(..., settings=...)`) re-scores the stored inputs
  in memory, without writing.

Nothing is kept in a process's memory: every worker and app server reads the same rows.
Whose row counts for a conversation (its gold, else its first human assignee) is decided at
read time (`per_conversation.gold_annotator_rows`), so assigning or adjudicating invalidates
nothing here.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from typing import TYPE_CHECKING

import numpy as np
from django.db import IntegrityError, connection, transaction
from django.db.models import F, TextField
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Cast, JSONObject

from annotator.models import AttributeSet, Campaign, Conversation, Membership, Nugget, StoredFigures, Turn
from annotator.scores.per_conversation import (
    ConversationScore, attribute_sets_of, attribute_specs, campaign_settings, gold_annotator_rows, score_conversation,
)
from scoring import gfrc
from scoring.words import word_count, word_position

if TYPE_CHECKING:
    import pandas as pd

CHUNK = 500  # ids of one IN (...): under SQLite's cap on parameters
MISSING_CHUNK = 250  # conversations a reader stores per transaction: short, a save waits little
WHOLE_CAMPAIGN = 2000  # more conversations than this: read the campaign's rows and keep the wanted ones

# The campaign fields each kind of change touches (console forms and the campaign file call
# settings_changed with the names of the fields that changed).
RECOMBINE = {"alpha"}
RESCORE = {"patience", "method", "empty_turns", "turn_weight", "duplicates_count_once"}


# -- writing --------------------------------------------------------------------------------


def refresh_conversations(campaign: Campaign | int, conversation_ids: Iterable[int],
                          annotator_ids: Iterable[int] | None = None) -> int:
    """(Re)compute and store the figures of these conversations from their judgments, in the
    caller's transaction; with `annotator_ids`, only those annotators' rows (a save changes
    only its annotator's). Returns how many rows were written."""
    ids = sorted(set(conversation_ids))
    if not ids:
        return 0
    annotators = None if annotator_ids is None else sorted(set(annotator_ids) - {None})
    if annotators == []:
        return 0
    if annotators is not None and len(ids) == len(annotators) == 1:
        return 1 if store_saved(ids[0], annotators[0], campaign).score.nuggets else 0
    campaign = _campaign(campaign)
    with transaction.atomic(savepoint=False):
        _lock(ids)
        rows = _build(campaign, ids, annotators)
        _delete(ids, annotators)
        return _insert(campaign.pk, rows)


@dataclass(frozen=True)
class StoredScore:
    """What `store_saved` stored: one annotator's score of one conversation, as the workspace's
    panel shows it, with the topic type's attribute sets it was scored with. The save's answer
    shows both instead of reading and scoring the same judgments again."""

    score: ConversationScore
    annotator_id: int
    attribute_sets: list[AttributeSet]


def store_saved(conversation_id: int, annotator_id: int, campaign: Campaign | int | None = None) -> StoredScore:
    """What a save changes: one annotator's row of one conversation, in the save's transaction,
    scored as the workspace's panel scores it (the score is returned, for the save's answer);
    written by one INSERT ... ON CONFLICT UPDATE, or deleted when the annotator has no nugget
    there. The campaign, when not given, comes with the conversation's row."""
    with transaction.atomic(savepoint=False):
        query = Conversation.objects.select_related("topic__campaign" if campaign is None else "topic")
        if connection.features.has_select_for_update:
            query = query.select_for_update(no_key=True, of=("self",))  # read and locked at once: see _lock
        conversation = query.get(pk=conversation_id)
        if campaign is not None:
            conversation.topic.campaign = _campaign(campaign)  # its settings as the caller has them
        rows, saved = _scored_as_the_panel(conversation, annotator_id)
        if not rows:
            _delete([conversation_id], [annotator_id])
        else:
            _insert(conversation.topic.campaign_id, rows, replace=True)
        return saved


def _lock(ids: Sequence[int]) -> None:
    """Serialise the stores of these conversations (PostgreSQL; SQLite serialises writers
    already): a second save waits here, then reads what the first committed, so neither stores
    figures without the other's change, nor inserts a row the other has just inserted. NO KEY
    UPDATE: other saves' foreign-key checks (FOR KEY SHARE) do not wait on it."""
    if connection.features.has_select_for_update:
        for chunk in _chunks(ids):
            list(Conversation.objects.select_for_update(no_key=True, of=("self",)).filter(pk__in=chunk)
                 .order_by("pk").values_list("pk", flat=True))


def forget_conversations(conversation_ids: Iterable[int]) -> None:
    """Delete the stored rows of these conversations, in the caller's transaction (a short one:
    one DELETE a chunk). Until they are stored again (`refresh_conversations`), a page that reads
    one finds no row and stores it then, so nothing reads figures of judgments that changed."""
    _delete(sorted(set(conversation_ids)), None)


def refresh_topics(campaign: Campaign | int, topic_ids: Iterable[int]) -> int:
    """Every conversation of these topics (an import changes entities a topic shares)."""
    campaign = _campaign(campaign)
    topic_ids = sorted(set(topic_ids))
    ids: list[int] = []
    for chunk in _chunks(topic_ids):
        ids.extend(Conversation.objects.filter(topic_id__in=chunk).values_list("pk", flat=True))
    return refresh_conversations(campaign, ids)


def refresh_campaign(campaign: Campaign | int) -> int:
    """Every conversation of the campaign, from its judgments (grades or attribute sets changed)."""
    campaign = _campaign(campaign)
    rows = _build(campaign, None, None)
    with transaction.atomic():
        StoredFigures.objects.filter(campaign_id=campaign.pk).delete()
        return _insert(campaign.pk, rows)


def rescore_campaign(campaign: Campaign | int) -> int:
    """Every stored row re-scored from its stored inputs under the campaign's settings and
    attribute sets (L, method, empty turns, turn weight, duplicates, targets, weights)."""
    campaign = _campaign(campaign)
    stored = _stored_inputs(campaign)
    sets = _attribute_sets(campaign)
    settings = campaign_settings(campaign)
    rows = []
    for type_id, group in stored.items():
        specs = attribute_specs(sets.get(type_id, []))
        if any(not _has_sets(inputs, specs) for _pk, _c, _a, inputs in group):
            return refresh_campaign(campaign)  # an attribute set the inputs do not know
        inputs = [inputs for *_, inputs in group]
        scores = score_inputs(inputs, specs, settings)
        names = [s.name for s in specs]
        r, gf, gfrc_values, gf_m = scores.R.tolist(), scores.GF.tolist(), scores.GFRC.tolist(), scores.GF_m.tolist()
        lowest = lowest_distr_sims(inputs, scores, specs)
        rows.extend((r[i], gf[i], gfrc_values[i], dict(zip(names, gf_m[i])), lowest[i], pk)
                    for i, (pk, *_rest) in enumerate(group))
    return _update(rows)  # the figures only: the inputs stay as they are


def recombine_alpha(campaign: Campaign | int) -> int:
    """GFRC = alpha R + (1 - alpha) GF of every stored row, in one UPDATE."""
    campaign = _campaign(campaign)
    alpha = float(campaign.alpha)
    with connection.cursor() as cursor:
        table = connection.ops.quote_name(StoredFigures._meta.db_table)
        cursor.execute(f"UPDATE {table} SET gfrc = %s * r + %s * gf WHERE campaign_id = %s",
                       [alpha, 1.0 - alpha, campaign.pk])
        return cursor.rowcount


def settings_changed(campaign: Campaign, fields: Iterable[str] = (), *, judgments: bool = False) -> None:
    """Recompute what a change of these campaign fields invalidates; `judgments` says the
    gains or the attribute sets changed (their names, groups or number), which the stored
    inputs carry: the judgments are read again."""
    fields = set(fields)
    if judgments:
        refresh_campaign(campaign)
    elif fields & RESCORE or "attribute_sets" in fields:
        rescore_campaign(campaign)
    elif fields & RECOMBINE:
        recombine_alpha(campaign)


# -- reading --------------------------------------------------------------------------------


@dataclass
class JudgeFigures:
    """The stored figures of each conversation's judge, as arrays in conversation order."""

    conversations: list[tuple]  # (id, topic code, topic type code, run name, topic type id, gold id)
    judge: list[int | None]
    R: np.ndarray
    GF: np.ndarray
    GFRC: np.ndarray
    GF_sets: list[dict[str, float]]  # attribute set name -> GF (the sets of the conversation's topic type)


def judge_figures(campaign: Campaign, whose: Mapping[int, int] | None = None,
                  settings: gfrc.Settings | None = None) -> JudgeFigures:
    """Each conversation's figures from its judge (gold, else first human assignee), read as
    plain rows; `whose` (conversation id -> annotator id): just those conversations from those
    annotators. Other `settings` (the report's quick L / alpha) re-score the stored inputs
    without writing; alpha alone recombines R and GF."""
    conversations, judge_of = _conversations_and_judges(campaign, whose)
    stored_settings = campaign_settings(campaign)
    rescore = settings is not None and replace(settings, alpha=stored_settings.alpha) != stored_settings
    r, gf, gfrc_values, gf_sets = _figures(campaign, conversations, judge_of, rescore=rescore, settings=settings)
    if settings is not None:
        gfrc_values = settings.alpha * r + (1.0 - settings.alpha) * gf
    return JudgeFigures(conversations, [judge_of.get(row[0]) for row in conversations], r, gf, gfrc_values, gf_sets)


def turn_table(campaign: Campaign, whose: Mapping[int, int] | None = None) -> pd.DataFrame:
    """One row per scored system turn and attribute set of each conversation's judge:
    conversation, topic, run, turn ("S1"), attribute_set, distr_sim: the stored inputs
    re-scored in one `gfrc.score` per topic type."""
    conversations, judge_of = _conversations_and_judges(campaign, whose)
    return _turn_frame(campaign, conversations, _chosen_inputs(campaign, {row[0]: row for row in conversations}, judge_of))


def figures_and_turns(campaign: Campaign, whose: Mapping[int, int] | None = None) -> tuple[JudgeFigures, pd.DataFrame]:
    """`judge_figures` and `turn_table` (the campaign's settings) from one read of the stored rows."""
    conversations, judge_of = _conversations_and_judges(campaign, whose)
    rows = _judge_rows(campaign, conversations, judge_of, ("r", "gf", "gfrc", "gf_sets", "inputs"))
    r, gf, gfrc_values, gf_sets = _arrays(rows)
    figures = JudgeFigures(conversations, [judge_of.get(row[0]) for row in conversations], r, gf, gfrc_values, gf_sets)
    return figures, _turn_frame(campaign, conversations, _by_type(conversations, [row[4] for row in rows]))


def figures_and_lowest_turns(campaign: Campaign, lowest: int) -> tuple[JudgeFigures, pd.DataFrame]:
    """`judge_figures` (the campaign's settings), and the `turn_table` of just the conversations
    that can hold an attribute set's `lowest` lowest DistrSim turns (ties by run and topic
    kept), found by their stored lowest DistrSim: only those are re-scored. A row stored without
    it (before migration 0017) is always re-scored."""
    conversations, judge_of = _conversations_and_judges(campaign, None)
    columns = ("r", "gf", "gfrc", "gf_sets", "lowest_distr_sim", "inputs")
    rows = _judge_rows(campaign, conversations, judge_of, columns, decode=columns[:5])
    r, gf, gfrc_values, gf_sets = _arrays(rows)
    figures = JudgeFigures(conversations, [judge_of.get(row[0]) for row in conversations], r, gf, gfrc_values, gf_sets)
    chosen = {k for k, row in enumerate(rows) if row[4] is None}
    keyed: dict[str, list[tuple]] = defaultdict(list)  # set -> (lowest, run, topic, index): the worst page's order
    for k, (row, conversation) in enumerate(zip(rows, conversations)):
        for name, value in (row[4] or {}).items():
            keyed[name].append((value, conversation[3], conversation[1], k))
    for candidates in keyed.values():
        candidates.sort()
        # Any turn of a conversation past these has `lowest` turns before it (each of these
        # conversations' lowest): it cannot be among the `lowest` lowest.
        last = candidates[min(lowest, len(candidates)) - 1][:3] if lowest > 0 else None
        chosen.update(k for *key, k in candidates if last is not None and tuple(key) <= last)
    picked = sorted(chosen)
    inputs = _decoded([(rows[k][5],) for k in picked], ("inputs",))
    subset = [conversations[k] for k in picked]
    return figures, _turn_frame(campaign, subset, _by_type(subset, [i for i, in inputs]))


_TURN_COLUMNS = ["conversation", "topic", "run", "turn", "attribute_set", "distr_sim"]


def _turn_frame(campaign: Campaign, conversations: Sequence[tuple], chosen: Mapping[int, list[tuple]]) -> pd.DataFrame:
    """The turn table of `turn_table` from each topic type's (conversation, inputs)."""
    import pandas as pd  # here, not at the top: the import commands reach this module and need no pandas

    info = {row[0]: row for row in conversations}
    sets = _attribute_sets(campaign)
    settings = campaign_settings(campaign)
    frames = []
    for type_id, group in chosen.items():
        specs = attribute_specs(sets.get(type_id, []))
        if not specs:
            continue
        inputs = [i for _c, i in group]
        scores = score_inputs(inputs, specs, settings)
        counts = np.array([len(i["t"]) for i in inputs], dtype=np.int64)
        conversation = np.repeat(np.array([c for c, _i in group], dtype=np.int64), counts)
        numbers = np.array([n for i in inputs for n in i["s"]], dtype=np.int64)
        scored = scores.scored
        ids = conversation[scored]
        topics = [info[c][1] for c in ids.tolist()]
        runs = [info[c][3] for c in ids.tolist()]
        turns = ["S" + str(n) for n in numbers[scored].tolist()]
        for m, spec in enumerate(specs):
            frames.append(pd.DataFrame({
                "conversation": ids,
                "topic": topics,
                "run": runs,
                "turn": turns,
                "attribute_set": spec.name,
                "distr_sim": scores.distr_sim[scored, m],
            }))
    if not frames:
        return pd.DataFrame(columns=_TURN_COLUMNS)
    return pd.concat(frames, ignore_index=True).sort_values(["conversation", "attribute_set"], kind="stable",
                                                          ignore_index=True)[_TURN_COLUMNS]


@dataclass
class JudgeTables:
    """Some conversations' judges' stored inputs, scored (one `gfrc.score` per topic type): what
    the paper's Tables 1 and 2 of each show, without reading a judgment or a turn's text.

    `where[c]` = (scores of its topic type, its row among them, its first system turn's row,
    its first nugget's row); `inputs[c]` its judge's inputs: system turn end positions ("t")
    and numbers ("s"), nuggets in (turn id, start word) order ("n": turn, WC, gain, entity)."""

    inputs: dict[int, dict]
    where: dict[int, tuple[gfrc.Scores, int, int, int]]


def judge_tables(campaign: Campaign, conversations: Sequence[tuple[int, int]], judge_of: Mapping[int, int | None],
                 *, memberships: bool = True) -> JudgeTables:
    """`conversations` as (id, topic type id; a few hundred at a time), each scored from its
    judge's stored row (the row with no annotator when the judge has none there). Without
    `memberships` (Table 1's figures: pw, gain, duplicate, pw x g need none), the inputs'
    membership vectors, most of their bytes, are neither read nor decoded, and no attribute set
    is scored."""
    parts = None if memberships else ("t", "s", "n")
    inputs = judge_inputs(campaign, [c for c, _type in conversations], judge_of, parts)
    sets = _attribute_sets(campaign) if memberships else {}
    settings = campaign_settings(campaign)
    by_type: dict[int, list[int]] = defaultdict(list)
    for conversation_id, type_id in conversations:
        by_type[type_id].append(conversation_id)
    where: dict[int, tuple[gfrc.Scores, int, int, int]] = {}
    for type_id, ids in by_type.items():
        group = [inputs[c] for c in ids]
        scores = score_inputs(group, attribute_specs(sets.get(type_id, [])), settings)
        turn = nugget = 0
        for k, (conversation_id, i) in enumerate(zip(ids, group)):
            where[conversation_id] = (scores, k, turn, nugget)
            turn += len(i["t"])
            nugget += len(i["n"])
    return JudgeTables(inputs, where)


def judge_inputs(campaign: Campaign, conversation_ids: Sequence[int], judge_of: Mapping[int, int | None],
                 parts: Sequence[str] | None = None) -> dict[int, dict]:
    """conversation id -> the stored inputs of its judge (see `judge_tables`), whole or just
    these `parts` ("t", "s", "n", "m": read as JSON keys, the rest not decoded): the judges'
    rows in one query (no row of another annotator is decoded), the no-annotator rows of those
    whose judge has none in a second; conversations with no stored row are stored first."""
    wanted = set(conversation_ids)
    # the parts as one JSON object built by the database: one value to decode a row, not one a part
    stored_rows = StoredFigures.objects.annotate(
        picked=F("inputs") if parts is None else JSONObject(**{part: KeyTransform(part, "inputs") for part in parts}))

    def inputs_of(picked: dict) -> dict:
        return picked if parts is None else {part: picked.get(part) or [] for part in parts}

    judges = sorted({judge_of.get(c) for c in wanted} - {None})
    found: dict[int, dict] = {}
    for chunk in _chunks(sorted(wanted)) if judges else ():
        # by (conversation, annotator) alone: the unique index's lookups (the ids are the
        # campaign's; with the campaign too, SQLite takes a slower index)
        for conversation_id, annotator_id, picked in stored_rows.filter(
                conversation_id__in=chunk, annotator_id__in=judges).values_list(
                "conversation_id", "annotator_id", "picked"):
            if annotator_id == judge_of.get(conversation_id):
                found[conversation_id] = inputs_of(picked)
    rest = sorted(wanted - found.keys())
    for attempt in range(2):
        for chunk in _chunks(rest):
            for conversation_id, picked in stored_rows.filter(
                    campaign=campaign, annotator_id__isnull=True, conversation_id__in=chunk).values_list(
                    "conversation_id", "picked"):
                found[conversation_id] = inputs_of(picked)
        rest = sorted(wanted - found.keys())
        if not rest or attempt:
            break
        _store_missing(campaign, rest)
    return found


def score_inputs(inputs: Sequence[dict], specs: Sequence[gfrc.AttributeSet], settings: gfrc.Settings) -> gfrc.Scores:
    """Stored inputs of conversations of one topic type, scored in one `gfrc.score` call."""
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
    return gfrc.score(turns, table, specs, settings, len(inputs))


# -- the parts -------------------------------------------------------------------------------


def _campaign(campaign: Campaign | int) -> Campaign:
    return campaign if isinstance(campaign, Campaign) else Campaign.objects.get(pk=campaign)


def _chunks(items: Sequence, size: int = CHUNK):
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _has_sets(inputs: dict, specs) -> bool:
    return all(spec.name in inputs["m"] for spec in specs)


def _attribute_sets(campaign: Campaign) -> dict[int, list[AttributeSet]]:
    sets: dict[int, list[AttributeSet]] = defaultdict(list)
    for attribute_set in AttributeSet.objects.filter(topic_type__campaign=campaign):
        sets[attribute_set.topic_type_id].append(attribute_set)
    return sets


def _conversations_and_judges(campaign: Campaign, whose: Mapping[int, int] | None):
    """The campaign's conversation rows (just those of `whose`, when given) and whose judgments
    count in each: its gold, else its first human assignee, unless `whose` says."""
    conversations = _conversation_rows(campaign)
    if whose is None:
        return conversations, gold_annotator_rows(campaign, [(row[0], row[5]) for row in conversations])
    conversations = [row for row in conversations if row[0] in whose]
    return conversations, {row[0]: whose[row[0]] for row in conversations}


def _conversation_rows(campaign: Campaign) -> list[tuple]:
    """(id, topic code, topic type code, run name, topic type id, gold annotator id) of each
    conversation of the campaign: one query."""
    return list(Conversation.objects.filter(topic__campaign=campaign).order_by("pk").values_list(
        "pk", "topic__code", "topic__topic_type__code", "run__name", "topic__topic_type_id", "gold_annotator_id"))


def _rows_in(query, field: str, ids: Sequence[int] | None, columns: Sequence[str]) -> list[tuple]:
    """The rows of `query` whose `field` is one of `ids` (all with None), read in chunks."""
    if ids is None:
        return list(query.values_list(*columns))
    rows: list[tuple] = []
    for chunk in _chunks(ids):
        rows.extend(query.filter(**{f"{field}__in": chunk}).values_list(*columns))
    return rows


def _build(campaign: Campaign, ids: list[int] | None, annotators: list[int] | None) -> list[tuple]:
    """The rows to store for these conversations (all with None), from the judgments read as
    plain rows: (conversation, annotator, r, gf, gfrc, gf_sets, inputs)."""
    whole = ids is None or len(ids) > WHOLE_CAMPAIGN
    wanted = None if ids is None else set(ids)
    in_campaign = {"conversation__topic__campaign": campaign} if whole else {}
    conversations = {
        pk: type_id for pk, type_id in _rows_in(
            Conversation.objects.filter(topic__campaign=campaign), "pk", None if whole else ids, ("pk", "topic__topic_type_id"))
        if wanted is None or pk in wanted
    }
    # turns: word counts -> each system turn's end position, and where each turn's words start
    turn_rows = _rows_in(Turn.objects.filter(**in_campaign).order_by("conversation_id", "position"),
                         "conversation_id", None if whole else ids, ("pk", "conversation_id", "role", "number", "text"))
    place: dict[int, tuple[int, int]] = {}  # turn id -> (system turn index in its conversation, words before it)
    ends: dict[int, list[int]] = defaultdict(list)
    numbers: dict[int, list[int]] = defaultdict(list)
    current, offset = None, 0
    for pk, conversation_id, role, number, text in turn_rows:
        if conversation_id not in conversations:
            continue
        if conversation_id != current:
            current, offset = conversation_id, 0
        words = word_count(text)
        if role == Turn.Role.SYSTEM:
            place[pk] = (len(ends[conversation_id]), offset)
            ends[conversation_id].append(offset + words)
            numbers[conversation_id].append(number)
        offset += words
    nugget_query = Nugget.objects.filter(**({"turn__conversation__topic__campaign": campaign} if whole else {}))
    if annotators is not None:
        nugget_query = nugget_query.filter(annotator_id__in=annotators)
    nugget_rows = _rows_in(nugget_query.order_by("turn_id", "start_word"), "turn__conversation_id",
                           None if whole else ids,
                           ("turn_id", "turn__conversation_id", "annotator_id", "end_word", "entity_id", "entity__grade__gain"))
    judged: dict[tuple[int, int | None], list[tuple]] = defaultdict(list)
    entity_ids: set[int] = set()
    for turn_id, conversation_id, annotator_id, end_word, entity_id, gain in nugget_rows:
        if conversation_id not in conversations:
            continue
        index, before = place[turn_id]
        judged[(conversation_id, annotator_id)].append((index, word_position(before, end_word), float(gain or 0.0), entity_id))
        entity_ids.add(entity_id)
    membership_query = Membership.objects.filter(**({"entity__topic__campaign": campaign} if whole else {}))
    memberships: dict[int, dict[int, list[float]]] = defaultdict(dict)
    for entity_id, set_id, vector in _rows_in(membership_query, "entity_id", None if whole else sorted(entity_ids),
                                              ("entity_id", "attribute_set_id", "vector")):
        memberships[entity_id][set_id] = vector

    keys: list[tuple[int, int | None]] = sorted(judged, key=lambda k: (k[0], k[1] or 0))
    if annotators is None:
        keys += [(c, None) for c in conversations]
    sets = _attribute_sets(campaign)
    by_type: dict[int, list[tuple[int, int | None, dict]]] = defaultdict(list)
    for conversation_id, annotator_id in keys:
        type_sets = sets.get(conversations[conversation_id], [])
        nuggets = judged.get((conversation_id, annotator_id), [])
        inputs = {
            "t": ends.get(conversation_id, []),
            "s": numbers.get(conversation_id, []),
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
        rows.extend(_rows_of(group, score_inputs([i for *_, i in group], specs, settings), specs))
    return rows


def _scored_as_the_panel(conversation: Conversation, annotator_id: int) -> tuple[list[tuple], StoredScore]:
    """The row of one annotator's judgments of one conversation, scored as the workspace's panel
    scores it (no row when the annotator has no nugget there), and that score."""
    conversation_id = conversation.pk
    attribute_sets = attribute_sets_of(conversation.topic.topic_type_id)
    score = score_conversation(conversation, annotator_id, attribute_sets)
    saved = StoredScore(score, annotator_id, attribute_sets)
    if not score.nuggets:
        return [], saved
    turn_table, nugget_table = score.tables
    # the nuggets in the order `_build` stores them (turn id, start word), not the panel's
    order = sorted(range(len(score.nuggets)),
                   key=lambda k: (score.nuggets[k].nugget.turn_id, score.nuggets[k].nugget.start_word))
    rows = list(zip(nugget_table.turn.tolist(), nugget_table.wc.tolist(), nugget_table.gain.tolist(),
                    nugget_table.entity.tolist()))
    inputs = {
        "t": turn_table.end_wc.tolist(),
        "s": [view.turn.number for view in score.system_turns],
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


def _rows_of(group, scores: gfrc.Scores, specs) -> list[tuple]:
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


def _stored_inputs(campaign: Campaign) -> dict[int, list[tuple]]:
    """topic type id -> [(row id, conversation, annotator, inputs)] of every stored row."""
    by_type: dict[int, list[tuple]] = defaultdict(list)
    for pk, conversation_id, annotator_id, type_id, inputs in StoredFigures.objects.filter(campaign=campaign).values_list(
        "pk", "conversation_id", "annotator_id", "conversation__topic__topic_type_id", "inputs"
    ):
        by_type[type_id].append((pk, conversation_id, annotator_id, inputs))
    return by_type


def _delete(ids: list[int], annotators: list[int] | None) -> None:
    for chunk in _chunks(ids):
        query = StoredFigures.objects.filter(conversation_id__in=chunk)
        if annotators is not None:
            query = query.filter(annotator_id__in=annotators)
        query._raw_delete(query.db)  # no cascades, no signals: one DELETE


_COLUMNS = ("campaign_id", "conversation_id", "annotator_id", "r", "gf", "gfrc", "gf_sets", "inputs", "lowest_distr_sim")
_ROWS_PER_STATEMENT = 100  # 900 parameters: under SQLite's 999


def _insert(campaign_id: int, rows: Sequence[tuple], *, replace: bool = False) -> int:
    """INSERT the rows, many a statement, the JSON columns through their field's preparation;
    `replace`: a row of a (conversation, annotator) already stored takes the new values (rows of
    annotators: the one without is not unique by that key)."""
    if not rows:
        return 0
    meta = StoredFigures._meta
    quote = connection.ops.quote_name
    tail = ""
    if replace:
        key = ", ".join(quote(meta.get_field(c).column) for c in ("conversation_id", "annotator_id"))
        tail = f" ON CONFLICT ({key}) DO UPDATE SET " + ", ".join(
            f"{quote(meta.get_field(c).column)} = excluded.{quote(meta.get_field(c).column)}"
            for c in _COLUMNS if c not in ("conversation_id", "annotator_id"))
    gf_sets, inputs, lowest = meta.get_field("gf_sets"), meta.get_field("inputs"), meta.get_field("lowest_distr_sim")
    head = (f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(meta.get_field(c).column) for c in _COLUMNS)}) VALUES ")
    group = "(" + ", ".join(["%s"] * len(_COLUMNS)) + ")"
    values = [
        [campaign_id, c, a, r, gf, g, gf_sets.get_db_prep_save(sets, connection), inputs.get_db_prep_save(i, connection),
         lowest.get_db_prep_save(low, connection)]
        for c, a, r, gf, g, sets, i, low in rows
    ]
    with connection.cursor() as cursor:
        whole = len(values) - len(values) % _ROWS_PER_STATEMENT
        if whole:
            many = head + ", ".join([group] * _ROWS_PER_STATEMENT) + tail
            cursor.executemany(many, [[v for row in values[i:i + _ROWS_PER_STATEMENT] for v in row]
                                      for i in range(0, whole, _ROWS_PER_STATEMENT)])
        if whole < len(values):
            rest = values[whole:]
            cursor.execute(head + ", ".join([group] * len(rest)) + tail, [v for row in rest for v in row])
    return len(values)


def _update(rows: Sequence[tuple]) -> int:
    """UPDATE r, gf, gfrc, gf_sets, lowest_distr_sim of rows given as (r, gf, gfrc, gf_sets,
    lowest, id), one executemany."""
    meta = StoredFigures._meta
    quote = connection.ops.quote_name
    gf_sets, lowest = meta.get_field("gf_sets"), meta.get_field("lowest_distr_sim")
    sql = (f"UPDATE {quote(meta.db_table)} SET r = %s, gf = %s, gfrc = %s, gf_sets = %s, lowest_distr_sim = %s "
           f"WHERE {quote(meta.pk.column)} = %s")
    with transaction.atomic(), connection.cursor() as cursor:
        for start in range(0, len(rows), 5000):
            cursor.executemany(sql, [(r, gf, g, gf_sets.get_db_prep_save(sets, connection),
                                      lowest.get_db_prep_save(low, connection), pk)
                                     for r, gf, g, sets, low, pk in rows[start:start + 5000]])
    return len(rows)


def _judged_rows(campaign: Campaign, columns: Sequence[str], annotators: set | None) -> dict[tuple, tuple]:
    """(conversation, annotator) -> the row's `columns`, its JSON columns (gf_sets, inputs) as
    their text: a campaign has a row per annotator and one with none, and only the rows a page
    keeps are decoded (`_decoded`), once."""
    texts = {c: Cast(c, output_field=TextField()) for c in columns if c in _JSON_COLUMNS}
    query = StoredFigures.objects.filter(campaign=campaign).annotate(**{f"{c}_text": t for c, t in texts.items()})
    rows = {}
    for row in query.values_list("conversation_id", "annotator_id", *(f"{c}_text" if c in texts else c for c in columns)):
        if annotators is None or row[1] is None or row[1] in annotators:
            rows[(row[0], row[1])] = row[2:]
    return rows


_JSON_COLUMNS = ("gf_sets", "inputs", "lowest_distr_sim")


def _decoded(rows: list[tuple], columns: Sequence[str]) -> list[tuple]:
    """The rows (of `_judged_rows`) with their JSON columns decoded: one `json.loads` per column
    for all of them."""
    rows = [list(row) for row in rows]
    for k, column in enumerate(columns):
        if column in _JSON_COLUMNS and rows:
            for row, value in zip(rows, json.loads("[" + ",".join(row[k] or "null" for row in rows) + "]")):
                row[k] = value
    return [tuple(row) for row in rows]


def _missing(campaign: Campaign, conversations: Sequence[tuple], rows: Mapping[tuple, tuple]) -> list[int]:
    return [row[0] for row in conversations if (row[0], None) not in rows]


def _judge_rows(campaign: Campaign, conversations: Sequence[tuple], judge_of: Mapping[int, int | None],
                columns: Sequence[str], decode: Sequence[str] | None = None) -> list[tuple]:
    """The stored `columns` of each conversation's judge (its row, else the no-annotator row),
    in the conversations' order, JSON decoded (only those of `decode`, if given: the others
    stay text, for `_decoded`); conversations with no stored row are stored first."""
    annotators = set(judge_of.values())
    rows = _judged_rows(campaign, columns, annotators)
    missing = _missing(campaign, conversations, rows)
    if missing:
        _store_missing(campaign, missing)
        rows = _judged_rows(campaign, columns, annotators)
    return _decoded([rows.get((row[0], judge_of.get(row[0]))) or rows[(row[0], None)] for row in conversations],
                    columns if decode is None else [c if c in decode else "" for c in columns])


def _figures(campaign, conversations, judge_of, *, rescore: bool, settings):
    """R, GF, GFRC arrays and GF per attribute set of each conversation's judge, in order."""
    if rescore:
        info = {row[0]: row for row in conversations}
        chosen = _chosen_inputs(campaign, info, judge_of)
        sets = _attribute_sets(campaign)
        figures: dict[int, tuple] = {}
        for type_id, group in chosen.items():
            specs = attribute_specs(sets.get(type_id, []))
            scores = score_inputs([i for _c, i in group], specs, settings)
            names = [s.name for s in specs]
            for k, (conversation_id, _i) in enumerate(group):
                figures[conversation_id] = (float(scores.R[k]), float(scores.GF[k]), float(scores.GFRC[k]),
                                            dict(zip(names, scores.GF_m[k].tolist())))
        ordered = [figures[row[0]] for row in conversations]
    else:
        ordered = _judge_rows(campaign, conversations, judge_of, ("r", "gf", "gfrc", "gf_sets"))
    return _arrays(ordered)


def _arrays(ordered: Sequence[tuple]):
    """(r, gf, gfrc, gf_sets, ...) rows -> R, GF, GFRC arrays and the GF per attribute set."""
    r = np.array([f[0] for f in ordered], dtype=float)
    gf = np.array([f[1] for f in ordered], dtype=float)
    gfrc_values = np.array([f[2] for f in ordered], dtype=float)
    return r, gf, gfrc_values, [f[3] for f in ordered]


def _store_missing(campaign: Campaign, conversation_ids: list[int]) -> None:
    """Conversations made before the figures were stored (or by a path that bypasses the edit
    service and the importer): store them now, once. Two readers doing it at once: the second
    finds the first's rows (the unique constraints) and keeps them."""
    for chunk in _chunks(conversation_ids, MISSING_CHUNK):  # short transactions: SQLite's one writer
        try:
            with transaction.atomic():
                refresh_conversations(campaign, chunk)
        except IntegrityError:
            pass


def _chosen_inputs(campaign: Campaign, info: Mapping[int, tuple], judge_of: Mapping[int, int | None]):
    """topic type id -> [(conversation, inputs of its judge's row)], in conversation order."""
    conversations = list(info.values())
    return _by_type(conversations, [row[0] for row in _judge_rows(campaign, conversations, judge_of, ("inputs",))])


def _by_type(conversations: Sequence[tuple], inputs: Sequence[dict]) -> dict[int, list[tuple]]:
    by_type: dict[int, list[tuple]] = defaultdict(list)
    for row, found in zip(conversations, inputs):
        by_type[row[4]].append((row[0], found))
    return by_type
