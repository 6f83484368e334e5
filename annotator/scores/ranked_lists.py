"""Ranked-list runs scored with GFR (FairWeb-1, as NTCIREVAL computes it) from the campaign's
entity judgments: the database side of `scoring.gfr`.

A ranked list's document is an entity of its topic by key (the normalised URL, else the
document id: `rules.identity.document_key`), so a page judged once, from a qrels file or as a
conversation's nugget, counts in every run that ranks it, whoever judged it: for each topic
and key, one annotator's judgment counts (`document_judgments`: people before automatic
judges, then whoever judged more of the topic, then the earliest account). Unjudged documents
gain 0 and are uniform in every attribute set; a judged one without a membership in a set is
uniform there (`as_ntcireval`: uniform as NTCIREVAL writes it, six decimals).

Lists are stored as arrays of document numbers (models.RankedList, TopicDocument): scoring
builds each topic's gains and memberships indexed by number and gathers every list of a topic
type through them, all runs x topics vectorised, every cutoff in one pass
(`scoring.gfr.score_cutoffs`), in chunks of bounded memory.

Figures are stored per topic and cutoff (models.RankedListFigures) with a digest of what they
were computed from (`_inputs`: the topic's entities, memberships, lists, its type's attribute
sets, the campaign's gains and automatic judges): `score_ranked_lists` reads them and
re-scores only the topics whose digest moved, so an edited judgment, a re-imported run or a
changed target re-scores its topic only, whoever wrote the change (edit service, API, an
import, the console's settings, the admin).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from django.db.models import Count, Max, Q, Sum, TextField
from django.db.models.functions import Cast

from annotator.models import (
    AnnotatorProfile,
    AttributeSet,
    Campaign,
    Entity,
    Grade,
    Membership,
    RankedList,
    RankedListFigures,
    Run,
    Topic,
    TopicDocument,
)
from scoring import gfr

if TYPE_CHECKING:
    import pandas as pd

LONG_COLUMNS = ["run", "topic", "attribute_set", "measure", "value"]
NO_ATTRIBUTE_SET = "-"
# The campaign-wide measures of a run (reports, run comparison): for a topic type without a
# nominal attribute set, a "+JSD" variant takes that type's variant without "+JSD" (its JSD
# part is empty), so every topic has one figure per variant.
MEASURES = ["ERR", "iRBU", *gfr.variant_names(True)]
WIDE_COLUMNS = ["run", "topic", "topic_type", *MEASURES]
CHUNK = 300_000  # ranks x lists gathered at once: memory stays bounded (about 10 MB an array)
IN_BATCH = 500  # ids in one IN (...): SQLite caps the parameters of a query


@dataclass
class RankedListScores:
    """`figures`: one row per run, topic, attribute set and measure (NTCIREVAL's figures, the
    LONG_COLUMNS); `table`: one row per run and topic (run, topic, topic_type, MEASURES). Both are
    kept as whole columns (`long`, `wide`: name -> numpy array) and made frames when first read:
    `score_runs` writes the columns and never imports pandas, much of a command's start
    (docs/benchmarks-history.md, "Ranked-list runs")."""

    long: dict[str, np.ndarray]
    wide: dict[str, np.ndarray]
    cutoff: int

    @cached_property
    def figures(self) -> pd.DataFrame:
        return _frame(self.long, LONG_COLUMNS)

    @cached_property
    def table(self) -> pd.DataFrame:
        return _frame(self.wide, WIDE_COLUMNS)


def _frame(columns: dict[str, np.ndarray], names: list[str]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(columns) if columns else pd.DataFrame(columns=names)


@dataclass
class TopicFigures:
    """Every figure of one topic's lists at one cutoff: one row of `values` per run of `runs`
    (those with a list), one column per `measures` entry (measure, attribute set or "-")."""

    evaluated: bool  # False: no relevant judged document, no figure
    runs: np.ndarray
    measures: list[tuple[str, str]]
    values: np.ndarray


def ranked_list_gains(campaign: Campaign) -> tuple[dict[int, float], float]:
    """Grade id -> ranked-list gain, and the largest gain (g_max of the stopping probability)."""
    gains = dict(Grade.objects.filter(campaign=campaign).values_list("pk", "ranked_list_gain"))
    return gains, max(gains.values(), default=0.0)


JUDGMENT_COLUMNS = ["entity_id", "topic_id", "annotator_id", "key", "grade_id"]


def document_judgments(campaign: Campaign, judge=None, topic_ids=None) -> pd.DataFrame:
    """The judgment that counts for each (topic, key) a document can have (JUDGMENT_COLUMNS):
    of the entities graded or given a membership, `judge`'s, or by default the one of the
    annotator first in line for the topic: people before automatic judges, then the one who
    graded more of the topic's entities, then the earliest account. By topic and key, except
    `judge`'s (as read)."""
    import pandas as pd

    entities = pd.DataFrame(judgment_rows(campaign, judge, topic_ids), columns=JUDGMENT_COLUMNS)
    if judge is not None or entities.empty:
        return entities
    return entities.sort_values(["topic_id", "key"], kind="stable", ignore_index=True)


def judgment_rows(campaign: Campaign, judge=None, topic_ids=None) -> list[tuple]:
    """`document_judgments` as plain rows (JUDGMENT_COLUMNS), in no particular order."""
    query = Entity.objects.filter(topic__campaign=campaign).filter(Q(grade__isnull=False) | Q(memberships__isnull=False))
    if topic_ids is not None:
        query = query.filter(topic_id__in=list(topic_ids))
    if judge is not None:
        query = query.filter(annotator=judge)
    rows = list(query.order_by().distinct().values_list("pk", "topic_id", "annotator_id", "key", "grade_id"))
    if judge is not None or len({(topic_id, key) for _, topic_id, _, key, _ in rows}) == len(rows):
        return rows  # one judge a document (a qrels round): none to choose
    import pandas as pd

    entities = pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)
    automatic = set(AnnotatorProfile.objects.filter(is_automatic=True).values_list("user_id", flat=True))
    graded = entities.assign(graded=entities["grade_id"].notna()).groupby(["topic_id", "annotator_id"])["graded"].sum()
    order = entities.assign(
        automatic=entities["annotator_id"].isin(automatic),
        graded=-entities.set_index(["topic_id", "annotator_id"]).index.map(graded).to_numpy(dtype=float),
    ).sort_values(["topic_id", "key", "automatic", "graded", "annotator_id"], kind="stable")
    chosen = order.drop_duplicates(["topic_id", "key"])
    return list(zip(*(chosen[column].tolist() for column in JUDGMENT_COLUMNS)))


def ranked_list_runs(campaign: Campaign) -> list[Run]:
    return list(Run.objects.filter(campaign=campaign, kind=Run.Kind.RANKED_LISTS).order_by("name"))


def _ranked(campaign: Campaign):
    return RankedList.objects.filter(run__campaign=campaign, run__kind=Run.Kind.RANKED_LISTS)


def _batches(ids):
    ids = sorted(ids)
    for start in range(0, len(ids), IN_BATCH):
        yield ids[start : start + IN_BATCH]


# -- the figures, computed -------------------------------------------------------------------


def compute_figures(campaign: Campaign, topic_ids, cutoffs, as_ntcireval: bool = False,
                    judge=None) -> dict[tuple[int, int], TopicFigures]:
    """(topic id, cutoff) -> the topic's figures, for every topic of `topic_ids` some ranked-list
    run has a list for, at every cutoff, from the lists and judgments as they are now."""
    cutoffs = sorted({int(c) for c in cutoffs})
    lists: dict[int, list[tuple[int, np.ndarray, str]]] = defaultdict(list)  # topic -> (run, places, unjudged)
    for batch in _batches(topic_ids):
        # in (topic, run) order, sorted here: an ORDER BY has SQLite copy every list's arrays
        # into a sort before reading them (docs/benchmarks-history.md, "Ranked-list runs")
        rows = sorted(_ranked(campaign).filter(topic_id__in=batch).order_by().values_list(
            "topic_id", "run_id", "documents", "unjudged"), key=lambda row: row[:2])
        for topic_id, run_id, documents, unjudged in rows:
            lists[topic_id].append((run_id, np.frombuffer(bytes(documents), dtype="<i4"), unjudged))
    catalogue: dict[int, list[str]] = defaultdict(list)
    for batch in _batches(lists):
        for topic_id, key in TopicDocument.objects.filter(topic_id__in=batch).order_by("topic_id", "number").values_list("topic_id", "key"):
            catalogue[topic_id].append(key)
    gain_of, max_gain = ranked_list_gains(campaign)
    judged: dict[int, dict[str, tuple[int, float]]] = defaultdict(dict)  # topic -> key -> (entity, gain)
    relevant: set[int] = set()
    for entity_id, topic_id, _annotator_id, key, grade_id in judgment_rows(campaign, judge, lists):
        gain = float(gain_of.get(grade_id) or 0.0)  # ungraded: 0
        judged[topic_id][key] = (entity_id, gain)
        if gain:  # a relevant document (gains are never negative): its topic is evaluated
            relevant.add(topic_id)
    memberships = _membership_rows(judged)

    out: dict[tuple[int, int], TopicFigures] = {}
    topics = list(Topic.objects.filter(pk__in=list(lists)).select_related("topic_type").order_by("code"))
    by_type: dict[int, list[Topic]] = defaultdict(list)
    for topic in topics:
        if topic.pk in relevant:
            by_type[topic.topic_type_id].append(topic)
        else:
            for cutoff in cutoffs:
                out[(topic.pk, cutoff)] = TopicFigures(False, np.zeros(0, dtype=np.int64), [], np.zeros((0, 0)))
    for type_topics in by_type.values():
        sets = list(AttributeSet.objects.filter(topic_type_id=type_topics[0].topic_type_id).order_by("position", "name"))
        out.update(_score_type(type_topics, sets, lists, catalogue, judged, memberships, max_gain, cutoffs, as_ntcireval))
    return out


def _membership_rows(judged: dict[int, dict[str, tuple[int, float]]]) -> dict[int, dict[int, list[float]]]:
    """attribute set id -> entity id -> vector, for the judged entities (topic -> key ->
    (entity, gain)): read by topic as JSON text (a campaign's vectors repeat: one-hot and uniform
    ones), each distinct text parsed once."""
    result: dict[int, dict[int, list[float]]] = defaultdict(dict)
    wanted = {entity_id for keys in judged.values() for entity_id, _ in keys.values()}
    parsed: dict[str, list[float]] = {}
    for batch in _batches(judged):
        for entity_id, attribute_set_id, text in Membership.objects.filter(entity__topic_id__in=batch).annotate(
                text=Cast("vector", TextField())).values_list("entity_id", "attribute_set_id", "text"):
            if entity_id in wanted:
                vector = parsed.get(text)
                if vector is None:
                    vector = parsed[text] = json.loads(text)
                result[attribute_set_id][entity_id] = vector
    return result


_NOT_JUDGED = (-1, 0.0)


def _membership_table(row_entities: np.ndarray, vectors: dict[int, list[float]], uniform: np.ndarray) -> np.ndarray:
    """Each row's membership vector in one attribute set: its entity's, else uniform (no entity,
    or none given in the set)."""
    table = np.tile(uniform, (row_entities.size, 1))
    if vectors:
        ids = np.fromiter(vectors, dtype=np.int64, count=len(vectors))
        order = np.argsort(ids)
        ids = ids[order]
        at = np.minimum(np.searchsorted(ids, row_entities), ids.size - 1)
        given = ids[at] == row_entities
        table[given] = np.asarray(list(vectors.values()), dtype=float)[order][at[given]]
    return table


def measures_of(sets: list[AttributeSet]) -> list[tuple[str, str]]:
    """The figures of a topic type, in NTCIREVAL's order: ERR, iRBU, GF-JSD/NMD/RNOD per set, GFR variants."""
    has_nominal = any(s.kind == AttributeSet.Kind.NOMINAL for s in sets)
    return ([("ERR", NO_ATTRIBUTE_SET), ("iRBU", NO_ATTRIBUTE_SET)]
            + [(f"GF-{name}", s.name) for s in sets for name in gfr.DIVERGENCE_NAMES]
            + [(name, NO_ATTRIBUTE_SET) for name in gfr.variant_names(has_nominal)])


def _score_type(topics: list[Topic], sets: list[AttributeSet], lists, catalogue, judged, memberships,
                max_gain: float, cutoffs: list[int], as_ntcireval: bool) -> dict[tuple[int, int], TopicFigures]:
    """The figures of one topic type's topics. Row 0 of the gathered tables is "nothing":
    gain 0, uniform (unjudged documents, the padding past a list's end); then each topic's
    judged documents by number, then the keys judged since a run ranking them was imported."""
    specs = [gfr.GroupSet(s.name, s.kind == AttributeSet.Kind.NOMINAL, s.target) for s in sets]
    gains: list[float] = [0.0]
    entities: list[int] = [-1]  # per row: the judged entity, -1 for none
    rows: list[np.ndarray] = []  # per list: indices into the tables
    owners: list[tuple[int, int]] = []  # per list: (topic, run)
    for topic in topics:
        mine = judged.get(topic.pk, {})
        offset = len(gains)
        for entity_id, gain in (mine.get(key, _NOT_JUDGED) for key in catalogue.get(topic.pk, [])):
            entities.append(entity_id)
            gains.append(gain)
        late: dict[str, int] = {}  # keys judged since: their rows
        for run_id, places, unjudged in lists[topic.pk]:
            index = np.where(places >= 0, places + offset, 0)
            if unjudged:
                keys = unjudged.split("\n")
                if not mine.keys().isdisjoint(keys):
                    for j, key in enumerate(keys):
                        if key in mine:
                            if key not in late:
                                late[key] = len(gains)
                                entities.append(mine[key][0])
                                gains.append(mine[key][1])
                            index[places == -(j + 1)] = late[key]
            rows.append(index)
            owners.append((topic.pk, run_id))

    gain_table = np.asarray(gains, dtype=float)
    row_entities = np.asarray(entities, dtype=np.int64)
    tables = [_membership_table(row_entities, memberships.get(s.pk, {}), gfr.uniform_membership(s.size, as_ntcireval))
              for s in sets]
    depth = min(max(cutoffs), max(len(r) for r in rows))
    results = {c: [] for c in cutoffs}
    chunk = max(1, CHUNK // depth)
    for start in range(0, len(rows), chunk):
        part = rows[start : start + chunk]
        index = np.zeros((len(part), depth), dtype=np.int64)
        for i, r in enumerate(part):
            index[i, : min(len(r), depth)] = r[:depth]
        scores = gfr.score_cutoffs(gain_table[index], [t[index] for t in tables], specs, max_gain, cutoffs)
        for cutoff, s in scores.items():
            results[cutoff].append(np.column_stack([s.ERR, s.iRBU, *(s.GF[(spec.name, name)] for spec in specs for name in gfr.DIVERGENCE_NAMES),
                                                    *s.GFR.values()]))
    measures = measures_of(sets)
    owner_topics = np.array([t for t, _ in owners], dtype=np.int64)
    owner_runs = np.array([r for _, r in owners], dtype=np.int64)
    out = {}
    for cutoff in cutoffs:
        values = np.vstack(results[cutoff])
        for topic in topics:
            mask = owner_topics == topic.pk
            out[(topic.pk, cutoff)] = TopicFigures(True, owner_runs[mask], measures, values[mask])
    return out


# -- the figures, stored -----------------------------------------------------------------------


def _inputs(campaign: Campaign, topic_ids) -> dict[int, str]:
    """topic id -> a digest of everything its figures are computed from: its entities (count,
    versions: a grade or membership edit moves the entity's version on, judgments.edits), their
    memberships, its lists, its catalogue, its type's attribute sets, the campaign's ranked-list
    gains and who is an automatic judge."""
    parts: dict[int, list] = defaultdict(list)
    topic_ids = list(topic_ids)
    for batch in _batches(topic_ids):
        for row in Entity.objects.filter(topic_id__in=batch).values("topic_id").annotate(
                n=Count("id"), v=Sum("version"), m=Max("id")).values_list("topic_id", "n", "v", "m"):
            parts[row[0]].append(("entities", *row[1:]))
        for row in Membership.objects.filter(entity__topic_id__in=batch).values("entity__topic_id").annotate(
                n=Count("id"), m=Max("id")).values_list("entity__topic_id", "n", "m"):
            parts[row[0]].append(("memberships", *row[1:]))
        for row in _ranked(campaign).filter(topic_id__in=batch).values("topic_id").annotate(
                n=Count("id"), m=Max("id"), r=Sum("run_id")).values_list("topic_id", "n", "m", "r"):
            parts[row[0]].append(("lists", *row[1:]))
        for row in TopicDocument.objects.filter(topic_id__in=batch).values("topic_id").annotate(
                n=Count("id")).values_list("topic_id", "n"):
            parts[row[0]].append(("catalogue", row[1]))
    types = dict(Topic.objects.filter(pk__in=topic_ids).values_list("pk", "topic_type_id"))
    sets: dict[int, list] = defaultdict(list)
    for row in AttributeSet.objects.filter(topic_type__campaign=campaign).order_by("pk").values_list(
            "topic_type_id", "pk", "name", "kind", "groups", "target", "position"):
        sets[row[0]].append(row[1:])
    campaign_wide = (sorted(Grade.objects.filter(campaign=campaign).values_list("pk", "ranked_list_gain")),
                     sorted(AnnotatorProfile.objects.filter(is_automatic=True).values_list("user_id", flat=True)))
    return {t: hashlib.sha256(repr((parts[t], sets[types.get(t)], campaign_wide)).encode()).hexdigest()
            for t in topic_ids}


def stored_figures(campaign: Campaign, cutoffs, as_ntcireval: bool = False) -> dict[tuple[int, int], TopicFigures]:
    """(topic id, cutoff) -> the figures of every topic some ranked-list run has a list for:
    the stored ones still matching their inputs, the others computed now (only those topics)
    and stored."""
    cutoffs = sorted({int(c) for c in cutoffs})
    topic_ids = set(_ranked(campaign).order_by().values_list("topic_id", flat=True).distinct())
    inputs = _inputs(campaign, topic_ids)
    out: dict[tuple[int, int], TopicFigures] = {}
    for batch in _batches(topic_ids):
        for topic_id, cutoff, digest, evaluated, runs, measures, values in RankedListFigures.objects.filter(
                topic_id__in=batch, cutoff__in=cutoffs, as_ntcireval=as_ntcireval).values_list(
                "topic_id", "cutoff", "inputs", "evaluated", "runs", "measures", "values"):
            if digest == inputs[topic_id]:
                runs = np.frombuffer(bytes(runs), dtype="<i8")
                out[(topic_id, cutoff)] = TopicFigures(evaluated, runs, [tuple(m) for m in measures],
                                                       np.frombuffer(bytes(values), dtype="<f8").reshape(runs.size, len(measures)))
    stale = {t for t in topic_ids for c in cutoffs if (t, c) not in out}
    if stale:
        computed = compute_figures(campaign, stale, cutoffs, as_ntcireval)
        RankedListFigures.objects.bulk_create(
            [RankedListFigures(topic_id=t, cutoff=c, as_ntcireval=as_ntcireval, inputs=inputs[t], evaluated=f.evaluated,
                               runs=f.runs.astype("<i8").tobytes(), measures=[list(m) for m in f.measures],
                               values=np.ascontiguousarray(f.values, dtype="<f8").tobytes())
             for (t, c), f in computed.items()],
            update_conflicts=True, unique_fields=["topic", "cutoff", "as_ntcireval"],
            update_fields=["inputs", "evaluated", "runs", "measures", "values"], batch_size=200)
        out.update(computed)
    return out


# -- the figures as tables ---------------------------------------------------------------------


def score_ranked_lists(campaign: Campaign, cutoff: int | None = None, judge=None,
                       as_ntcireval: bool = False) -> RankedListScores:
    """Every ranked-list run of the campaign on every topic it is evaluated on: the topics that
    some run ranks documents for and that have a relevant judged document (a topic without
    one gets no figure, as from NTCIREVAL); a run without a list for such a topic scores 0.
    `judge` (a user) scores from that annotator's judgments instead of each topic's document
    judge (computed, not stored); `as_ntcireval` with NTCIREVAL's six-decimal uniform vectors."""
    cutoff = campaign.ranked_list_cutoff if cutoff is None else int(cutoff)
    return score_ranked_lists_at(campaign, [cutoff], judge, as_ntcireval)[cutoff]


def score_ranked_lists_at(campaign: Campaign, cutoffs, judge=None, as_ntcireval: bool = False) -> dict[int, RankedListScores]:
    """score_ranked_lists at several cutoffs, scored in one pass."""
    cutoffs = sorted({int(c) for c in cutoffs})
    if judge is None:
        figures = stored_figures(campaign, cutoffs, as_ntcireval)
    else:
        topic_ids = set(_ranked(campaign).order_by().values_list("topic_id", flat=True).distinct())
        figures = compute_figures(campaign, topic_ids, cutoffs, as_ntcireval, judge)
    runs = ranked_list_runs(campaign)
    topics = {t.pk: t for t in Topic.objects.filter(pk__in={t for t, _ in figures}).select_related("topic_type")}
    return {cutoff: _tables(runs, topics, {t: f for (t, c), f in figures.items() if c == cutoff}, cutoff) for cutoff in cutoffs}


def _tables(runs: list[Run], topics: dict[int, Topic], figures: dict[int, TopicFigures], cutoff: int) -> RankedListScores:
    """The long and the wide table, rows in (run, topic, measure) order, built as whole columns:
    with runs by name and topics by code, run i's rows of topic t start at i * (all measures) +
    (measures of the topics before t), so no frame is built per topic and nothing is sorted
    (158,400 figures of a FairWeb-size round: docs/benchmarks.md)."""
    runs = sorted(runs, key=lambda run: run.name)
    run_index = {run.pk: i for i, run in enumerate(runs)}
    run_names = np.array([run.name for run in runs], dtype=object)
    blocks, codes, measure_names, set_names, wide_columns = [], [], [], [], {name: [] for name in MEASURES}
    type_codes = []
    for topic in sorted((topics[t] for t, f in figures.items() if f.evaluated), key=lambda t: t.code):
        f = figures[topic.pk]
        values = np.zeros((len(runs), len(f.measures)))  # a run without a list scores 0
        known = np.array([run_index.get(int(r), -1) for r in f.runs], dtype=np.int64)
        values[known[known >= 0]] = f.values[known >= 0]
        blocks.append(values)
        codes.extend([topic.code] * len(f.measures))
        measure_names.extend(m for m, _ in f.measures)
        set_names.extend(s for _, s in f.measures)
        type_codes.append((topic.code, topic.topic_type.code))
        column = {m: i for i, (m, s) in enumerate(f.measures) if s == NO_ATTRIBUTE_SET}
        for name in MEASURES:
            wide_columns[name].append(values[:, column[name if name in column else name.removesuffix("+JSD")]])
    if not blocks:
        return RankedListScores({}, {}, cutoff)
    per_run = len(codes)
    long = {
        "run": np.repeat(run_names, per_run), "topic": np.tile(np.array(codes, dtype=object), len(runs)),
        "attribute_set": np.tile(np.array(set_names, dtype=object), len(runs)),
        "measure": np.tile(np.array(measure_names, dtype=object), len(runs)), "value": np.hstack(blocks).ravel(),
    }
    wide = {
        "run": np.repeat(run_names, len(type_codes)),
        "topic": np.tile(np.array([code for code, _ in type_codes], dtype=object), len(runs)),
        "topic_type": np.tile(np.array([kind for _, kind in type_codes], dtype=object), len(runs)),
        **{name: np.column_stack(columns).ravel() for name, columns in wide_columns.items()},
    }
    return RankedListScores(long, wide, cutoff)
