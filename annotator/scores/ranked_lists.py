"""Ranked-list runs scored with GFR (FairWeb-1, as NTCIREVAL computes it) from the campaign's
entity judgments: the database side of `scoring.gfr`.

A ranked list's document is an entity of its topic by key (the normalised URL, else the
document id: `rules.identity.document_key`), so a page judged once, from a qrels file or as a
conversation's nugget, counts in every run that ranks it, whoever judged it: for each topic
and key, one annotator's judgment counts (`document_judgments`: people before automatic
judges, then whoever judged more of the topic, then the earliest account). Unjudged documents
gain 0 and are uniform in every attribute set; a judged one without a membership in a set is
uniform there.

Every (run, topic) of a topic type is one row of padded arrays scored in one vectorised call
per topic type; the queries are a handful per campaign, whatever its size.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pandas as pd
from django.db.models import Q

from annotator.models import AnnotatorProfile, AttributeSet, Campaign, Entity, Grade, Membership, RankedDocument, Run, Topic
from scoring import gfr

LONG_COLUMNS = ["run", "topic", "attribute_set", "measure", "value"]
NO_ATTRIBUTE_SET = "-"
# The campaign-wide measures of a run (reports, run comparison): for a topic type without a
# nominal attribute set, a "+JSD" variant takes that type's variant without "+JSD" (its JSD
# part is empty), so every topic has one figure per variant.
MEASURES = ["ERR", "iRBU", *gfr.variant_names(True)]


@dataclass
class RankedListScores:
    """`figures`: one row per run, topic, attribute set and measure (NTCIREVAL's figures, the
    LONG_COLUMNS); `table`: one row per run and topic (run, topic, topic_type, MEASURES)."""

    figures: pd.DataFrame
    table: pd.DataFrame
    cutoff: int


def ranked_list_gains(campaign: Campaign) -> tuple[dict[int, float], float]:
    """Grade id -> ranked-list gain, and the largest gain (g_max of the stopping probability)."""
    gains = dict(Grade.objects.filter(campaign=campaign).values_list("pk", "ranked_list_gain"))
    return gains, max(gains.values(), default=0.0)


JUDGMENT_COLUMNS = ["entity_id", "topic_id", "annotator_id", "key", "grade_id"]


def document_judgments(campaign: Campaign, judge=None, topic_ids=None) -> pd.DataFrame:
    """The judgment that counts for each (topic, key) a document can have (JUDGMENT_COLUMNS):
    of the entities graded or given a membership, `judge`'s, or by default the one of the
    annotator first in line for the topic: people before automatic judges, then the one who
    graded more of the topic's entities, then the earliest account."""
    query = Entity.objects.filter(topic__campaign=campaign).filter(Q(grade__isnull=False) | Q(memberships__isnull=False))
    if topic_ids is not None:
        query = query.filter(topic_id__in=topic_ids)
    if judge is not None:
        query = query.filter(annotator=judge)
    entities = pd.DataFrame(query.distinct().values_list("pk", "topic_id", "annotator_id", "key", "grade_id"),
                            columns=JUDGMENT_COLUMNS)
    if judge is not None or entities.empty:
        return entities
    automatic = set(AnnotatorProfile.objects.filter(is_automatic=True).values_list("user_id", flat=True))
    graded = entities.assign(graded=entities["grade_id"].notna()).groupby(["topic_id", "annotator_id"])["graded"].sum()
    order = entities.assign(
        automatic=entities["annotator_id"].isin(automatic),
        graded=-entities.set_index(["topic_id", "annotator_id"]).index.map(graded).to_numpy(dtype=float),
    ).sort_values(["topic_id", "key", "automatic", "graded", "annotator_id"], kind="stable")
    return order.drop_duplicates(["topic_id", "key"])[JUDGMENT_COLUMNS].reset_index(drop=True)


def ranked_list_runs(campaign: Campaign) -> list[Run]:
    return list(Run.objects.filter(campaign=campaign, kind=Run.Kind.RANKED_LISTS).order_by("name"))


def score_ranked_lists(campaign: Campaign, cutoff: int | None = None, judge=None) -> RankedListScores:
    """Every ranked-list run of the campaign on every topic it is evaluated on: the topics that
    some run ranks documents for and that have a relevant judged document (a topic without
    one gets no figure, as from NTCIREVAL); a run without a list for such a topic scores 0.
    `judge` (a user) scores from that annotator's judgments instead of each topic's document judge."""
    cutoff = campaign.ranked_list_cutoff if cutoff is None else cutoff
    runs = ranked_list_runs(campaign)
    documents = pd.DataFrame(
        RankedDocument.objects.filter(run__campaign=campaign, run__kind=Run.Kind.RANKED_LISTS, rank__lte=cutoff)
        .values_list("run_id", "topic_id", "rank", "key"),
        columns=["run_id", "topic_id", "rank", "key"],
    )
    gain_of, max_gain = ranked_list_gains(campaign)
    entities = document_judgments(campaign, judge, set(documents["topic_id"]))
    entities = entities.assign(gain=entities["grade_id"].map(gain_of).fillna(0.0).astype(float))
    relevant_topics = set(entities.loc[entities["gain"] > 0, "topic_id"])
    topics = {t.pk: t for t in Topic.objects.filter(pk__in=relevant_topics & set(documents["topic_id"])).select_related("topic_type")}
    documents = documents[documents["topic_id"].isin(topics)].merge(
        entities[["topic_id", "key", "entity_id", "gain"]], on=["topic_id", "key"], how="left")
    documents["gain"] = documents["gain"].fillna(0.0)
    memberships = _membership_rows(entities)

    figure_frames, table_frames = [], []
    by_type: dict[int, list[Topic]] = defaultdict(list)
    for topic in sorted(topics.values(), key=lambda t: t.code):
        by_type[topic.topic_type_id].append(topic)
    for type_topics in by_type.values():
        topic_type = type_topics[0].topic_type
        sets = list(AttributeSet.objects.filter(topic_type=topic_type).order_by("position", "name"))
        figures, table = _score_type(runs, type_topics, sets, documents, memberships, max_gain, cutoff)
        table.insert(2, "topic_type", topic_type.code)
        figure_frames.append(figures)
        table_frames.append(table)
    if not figure_frames:
        return RankedListScores(pd.DataFrame(columns=LONG_COLUMNS),
                                pd.DataFrame(columns=["run", "topic", "topic_type", *MEASURES]), cutoff)
    figures = pd.concat(figure_frames, ignore_index=True)
    figures["order"] = range(len(figures))
    figures = figures.sort_values(["run", "topic", "order"], kind="stable").drop(columns="order").reset_index(drop=True)
    table = pd.concat(table_frames, ignore_index=True).sort_values(["run", "topic"], ignore_index=True)
    return RankedListScores(figures, table, cutoff)


def _membership_rows(entities: pd.DataFrame) -> dict[int, dict[int, list[float]]]:
    """attribute set id -> entity id -> vector, for the judged entities (in batches: SQLite caps
    the parameters of one query)."""
    result: dict[int, dict[int, list[float]]] = defaultdict(dict)
    ids = entities["entity_id"].tolist()
    for start in range(0, len(ids), 5000):
        for entity_id, attribute_set_id, vector in Membership.objects.filter(
            entity_id__in=ids[start : start + 5000]
        ).values_list("entity_id", "attribute_set_id", "vector"):
            result[attribute_set_id][entity_id] = vector
    return result


def _score_type(runs: list[Run], topics: list[Topic], sets: list[AttributeSet], documents: pd.DataFrame,
                memberships: dict[int, dict[int, list[float]]], max_gain: float, cutoff: int):
    """The figures and the per-list table of one topic type: row r * len(topics) + t of the
    padded arrays is run r's list for topic t."""
    n_topics = len(topics)
    n = len(runs) * n_topics
    run_index = {run.pk: i for i, run in enumerate(runs)}
    topic_index = {topic.pk: i for i, topic in enumerate(topics)}
    mine = documents[documents["topic_id"].isin(topic_index) & documents["run_id"].isin(run_index)]
    rows = (mine["run_id"].map(run_index) * n_topics + mine["topic_id"].map(topic_index)).to_numpy(dtype=int)
    ranks = mine["rank"].to_numpy(dtype=int) - 1
    depth = max(int(ranks.max()) + 1 if ranks.size else 1, 1)
    gains = np.zeros((n, depth))
    gains[rows, ranks] = mine["gain"].to_numpy(dtype=float)
    entity_ids = mine["entity_id"].to_numpy(dtype=float)  # NaN: an unjudged document
    vectors, specs = [], []
    for attribute_set in sets:
        k = attribute_set.size
        known = memberships.get(attribute_set.pk, {})
        lookup = {entity_id: i for i, entity_id in enumerate(known)}
        table = np.vstack([np.full((1, k), 1.0 / k), np.asarray(list(known.values()), dtype=float).reshape(-1, k)])
        # row 0 of `table` is the uniform vector: unjudged documents and missing memberships
        which = np.array([lookup.get(int(e), -1) + 1 if e == e else 0 for e in entity_ids], dtype=int)
        padded = np.full((n, depth, k), 1.0 / k)
        padded[rows, ranks] = table[which]
        vectors.append(padded)
        specs.append(gfr.GroupSet(attribute_set.name, attribute_set.kind == AttributeSet.Kind.NOMINAL, attribute_set.target))
    scores = gfr.score(gains, vectors, specs, max_gain, cutoff)

    run_names = np.repeat([run.name for run in runs], n_topics)
    topic_codes = np.tile([topic.code for topic in topics], len(runs))
    parts = [("ERR", NO_ATTRIBUTE_SET, scores.ERR), ("iRBU", NO_ATTRIBUTE_SET, scores.iRBU)]
    for spec in specs:
        parts += [(f"GF-{name}", spec.name, scores.GF[(spec.name, name)]) for name in gfr.DIVERGENCE_NAMES]
    parts += [(name, NO_ATTRIBUTE_SET, values) for name, values in scores.GFR.items()]
    figures = pd.concat(
        [pd.DataFrame({"run": run_names, "topic": topic_codes, "attribute_set": attribute_set, "measure": measure,
                       "value": values}) for measure, attribute_set, values in parts],
        ignore_index=True,
    )
    table = pd.DataFrame({"run": run_names, "topic": topic_codes, "ERR": scores.ERR, "iRBU": scores.iRBU})
    has_nominal = any(spec.nominal for spec in specs)
    for name in gfr.variant_names(True):
        table[name] = scores.GFR[name if has_nominal else name.removesuffix("+JSD")]
    return figures, table
