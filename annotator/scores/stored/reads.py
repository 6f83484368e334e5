"""Reading stored figures: each conversation's judge's row (gold, else first human assignee,
decided here at read time: assigning or adjudicating invalidates nothing) as plain rows into
arrays (`judge_figures`), turn tables and the paper's Tables 1 and 2 of many conversations
scored from their stored inputs (`turn_table`, `judge_tables`); a conversation with no stored
row is stored first (writes.store_missing)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from django.db.models import F
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import JSONObject

from annotator.models import Campaign, Conversation, StoredFigures
from annotator.scores.per_conversation import attribute_specs, campaign_settings, gold_annotator_rows
from annotator.scores.stored.figures import attribute_sets_by_type, score_input_paths, score_inputs
from annotator.scores.stored.sql import chunks, decoded, stored_rows
from annotator.scores.stored.writes import store_missing
from scoring import gfrc

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["JudgeFigures", "judge_figures", "turn_table", "figures_and_turns", "figures_and_lowest_turns", "JudgeTables",
           "judge_tables", "judge_inputs", "PathFigures", "judge_paths"]


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
    inputs = decoded([(rows[k][5],) for k in picked], ("inputs",))
    subset = [conversations[k] for k in picked]
    return figures, _turn_frame(campaign, subset, _by_type(subset, [i for i, in inputs]))


_TURN_COLUMNS = ["conversation", "topic", "run", "turn", "attribute_set", "distr_sim"]


def _turn_frame(campaign: Campaign, conversations: Sequence[tuple], chosen: Mapping[int, list[tuple]]) -> pd.DataFrame:
    """The turn table of `turn_table` from each topic type's (conversation, inputs)."""
    import pandas as pd  # here, not at the top: the import commands reach this module and need no pandas

    info = {row[0]: row for row in conversations}
    sets = attribute_sets_by_type(campaign)
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
    sets = attribute_sets_by_type(campaign) if memberships else {}
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
    for chunk in chunks(sorted(wanted)) if judges else ():
        # by (conversation, annotator) alone: the unique index's lookups (the ids are the
        # campaign's; with the campaign too, SQLite takes a slower index)
        for conversation_id, annotator_id, picked in stored_rows.filter(
                conversation_id__in=chunk, annotator_id__in=judges).values_list(
                "conversation_id", "annotator_id", "picked"):
            if annotator_id == judge_of.get(conversation_id):
                found[conversation_id] = inputs_of(picked)
    rest = sorted(wanted - found.keys())
    for attempt in range(2):
        for chunk in chunks(rest):
            for conversation_id, picked in stored_rows.filter(
                    campaign=campaign, annotator_id__isnull=True, conversation_id__in=chunk).values_list(
                    "conversation_id", "picked"):
                found[conversation_id] = inputs_of(picked)
        rest = sorted(wanted - found.keys())
        if not rest or attempt:
            break
        store_missing(campaign, rest)
    return found


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


def _missing(campaign: Campaign, conversations: Sequence[tuple], rows: Mapping[tuple, tuple]) -> list[int]:
    return [row[0] for row in conversations if (row[0], None) not in rows]


def _judge_rows(campaign: Campaign, conversations: Sequence[tuple], judge_of: Mapping[int, int | None],
                columns: Sequence[str], decode: Sequence[str] | None = None) -> list[tuple]:
    """The stored `columns` of each conversation's judge (its row, else the no-annotator row),
    in the conversations' order, JSON decoded (only those of `decode`, if given: the others
    stay text, for `decoded`); conversations with no stored row are stored first."""
    annotators = set(judge_of.values())
    rows = stored_rows(campaign, columns, annotators)
    missing = _missing(campaign, conversations, rows)
    if missing:
        store_missing(campaign, missing)
        rows = stored_rows(campaign, columns, annotators)
    return decoded([rows.get((row[0], judge_of.get(row[0]))) or rows[(row[0], None)] for row in conversations],
                    columns if decode is None else [c if c in decode else "" for c in columns])


def _figures(campaign, conversations, judge_of, *, rescore: bool, settings):
    """R, GF, GFRC arrays and GF per attribute set of each conversation's judge, in order."""
    if rescore:
        info = {row[0]: row for row in conversations}
        chosen = _chosen_inputs(campaign, info, judge_of)
        sets = attribute_sets_by_type(campaign)
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


def _chosen_inputs(campaign: Campaign, info: Mapping[int, tuple], judge_of: Mapping[int, int | None]):
    """topic type id -> [(conversation, inputs of its judge's row)], in conversation order."""
    conversations = list(info.values())
    return _by_type(conversations, [row[0] for row in _judge_rows(campaign, conversations, judge_of, ("inputs",))])


def _by_type(conversations: Sequence[tuple], inputs: Sequence[dict]) -> dict[int, list[tuple]]:
    by_type: dict[int, list[tuple]] = defaultdict(list)
    for row, found in zip(conversations, inputs):
        by_type[row[4]].append((row[0], found))
    return by_type


@dataclass(frozen=True)
class PathFigures:
    """One root-to-leaf path of a conversation as its judge judged it: the index of its leaf among
    the conversation's system turns (-1: none), its probability and its figures."""

    leaf: int
    probability: float
    R: float
    GF_m: dict[str, float]
    GF: float
    GFRC: float


def judge_paths(campaign: Campaign, conversations: Sequence[tuple[int, int]],
                judge_of: Mapping[int, int | None]) -> dict[int, list[PathFigures]]:
    """conversation id -> the figures of each of its paths (one for a linear conversation, whose
    figures are its own), from its judge's stored inputs: a conversation that branches scored
    path by path (scoring.trees), in the order of the paths' leaves."""
    inputs = judge_inputs(campaign, [c for c, _type in conversations], judge_of)
    sets = attribute_sets_by_type(campaign)
    settings = campaign_settings(campaign)
    by_type: dict[int, list[int]] = defaultdict(list)
    for conversation_id, type_id in conversations:
        by_type[type_id].append(conversation_id)
    found: dict[int, list[PathFigures]] = defaultdict(list)
    for type_id, ids in by_type.items():
        specs = attribute_specs(sets.get(type_id, []))
        scored = score_input_paths([inputs[c] for c in ids], specs, settings)
        paths, figures = scored.paths, scored.per_path
        first = np.zeros(len(ids) + 1, dtype=np.int64)  # each conversation's first TurnTable row
        np.cumsum([len(inputs[c]["t"]) for c in ids], out=first[1:])
        names = [spec.name for spec in specs]
        for k, (c, leaf, probability) in enumerate(zip(paths.conversation.tolist(), paths.leaf.tolist(),
                                                        paths.probability.tolist())):
            found[ids[c]].append(PathFigures(
                leaf - int(first[c]) if leaf >= 0 else -1, probability, float(figures.R[k]),
                dict(zip(names, figures.GF_m[k].tolist())), float(figures.GF[k]), float(figures.GFRC[k])))
    return found
