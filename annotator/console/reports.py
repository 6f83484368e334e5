"""What the organiser's console reports: score tables with confidence intervals, the R-vs-GF
scatter plot, the topic x run usefulness grid and agreement (progress: console.progress_report).

Everything is computed live from the campaign's current settings and judgments (scores come
from annotator.scores.campaign_tables), so a changed setting shows at once.
"""

from __future__ import annotations

import io
import math
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd
from django.db.models import Count, Prefetch, QuerySet

from scoring import agreement
from annotator.interchange.csvsafe import frame_csv
from annotator.judgments.adjudication import system_turn_offsets
from annotator.models import (
    AnnotatorProfile,
    Assignment,
    Campaign,
    Conversation,
    Membership,
    Nugget,
    Turn,
    TurnLabel,
)
from annotator.models.conversations import path_through
from annotator.scores.campaign_tables import score_columns, score_table, with_usernames
from annotator.scores.per_conversation import gold_annotator_rows
from annotator.scores.ranked_lists import MEASURES as RANKED_MEASURES, score_ranked_lists
from scoring import usefulness
from scoring.intervals import MeanIntervals, mean_intervals
from scoring.words import word_position

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# matplotlib is imported where it is used: it adds seconds to every process start
# (manage.py commands, gunicorn workers) that never draws a plot.


# -- score report -----------------------------------------------------------------------------


def groups_of(table: pd.DataFrame, key: str) -> list[tuple[object, np.ndarray]]:
    """(value, row positions) of each value of `key`, sorted: the rows `groupby(key)` gives each
    group, in their order, without a frame per group (2,000 topics x 5 measures of frames cost
    most of a 100,000-conversation report)."""
    positions = table.groupby(key, sort=True).indices
    return [(value, positions[value]) for value in sorted(positions)]


def intervals_of(table: pd.DataFrame, groups: list[tuple[object, np.ndarray]], column: str) -> MeanIntervals:
    """The mean of `column` and its t confidence interval in each group (`groups_of`), in order."""
    values = table[column].to_numpy(dtype=float)
    return mean_intervals(values[positions] for _, positions in groups)


def distinct_in(table: pd.DataFrame, groups: list[tuple[object, np.ndarray]], column: str) -> list[int]:
    """How many distinct values of `column` each group holds (a run's topics, a topic's runs)."""
    codes = pd.factorize(table[column])[0]
    return [int(np.unique(codes[positions]).size) for _, positions in groups]


def run_summary(table: pd.DataFrame, columns: list[str] | None = None) -> pd.DataFrame:
    """One row per run: topics, then mean, ci_low, ci_high of each score column (by default
    the conversation measures)."""
    runs = groups_of(table, "run")
    rows: list[dict] = [{"run": run, "topics": topics} for (run, _), topics in zip(runs, distinct_in(table, runs, "topic"))]
    for column in columns or score_columns(table):
        intervals = intervals_of(table, runs, column)
        for i, row in enumerate(rows):
            row[column], row[f"{column}_ci_low"], row[f"{column}_ci_high"] = intervals.mean_and_bounds(i)
    return pd.DataFrame(rows)


@dataclass
class Cell:
    mean: float
    low: float
    high: float

    @property
    def half(self) -> float:
        return (self.high - self.low) / 2 if not math.isnan(self.low) else float("nan")


@dataclass
class Summary:
    """Per-run means with confidence intervals and per-topic means of some measures."""

    table: pd.DataFrame
    columns: list[str]
    runs: list[dict] = field(default_factory=list)  # {"run", "topics", "cells": {column: Cell}}
    topics: list[dict] = field(default_factory=list)  # {"topic", "runs", "cells": {column: Cell}}


@dataclass
class Report(Summary):
    campaign: Campaign | None = None
    rows: list[dict] = field(default_factory=list)  # one page of the conversations (CONVERSATIONS_PAGE)
    ranked: Summary | None = None  # the ranked-list runs (GFR), when the campaign has some
    cutoff: int = 0
    as_ntcireval: bool = False  # the ranked lists' uniform vectors as NTCIREVAL writes them
    page: int = 1
    pages: int = 1
    sort: str = "topic"
    descending: bool = False

    @property
    def sort_columns(self) -> list[dict]:
        """The conversation table's headers, each a sort link: topic, run, the measures."""
        return [{"name": "topic", "number": False}, {"name": "run", "number": False},
                *({"name": c, "number": True} for c in self.columns)]


CONVERSATIONS_PAGE = 100  # rows of the report's table of every conversation (the CSV has them all)


def conversation_page(table: pd.DataFrame, columns: list[str], page: int = 1, sort: str = "topic",
                      descending: bool = False) -> tuple[list[dict], int, int, str]:
    """One page of the table's conversations sorted by `sort` (topic, run or a score column;
    ties by topic, run): (rows, page, pages, sort), the page clamped to those there are."""
    sort = sort if sort in ("topic", "run", *columns) else "topic"
    pages = max(1, math.ceil(len(table) / CONVERSATIONS_PAGE))
    page = min(max(1, page), pages)
    keys = [sort, *(k for k in ("topic", "run") if k != sort)]
    ordered = table.sort_values(keys, ascending=[not descending, True, True][: len(keys)], kind="stable",
                                na_position="last")
    chosen = ordered.iloc[(page - 1) * CONVERSATIONS_PAGE : page * CONVERSATIONS_PAGE]
    values = chosen[columns].to_numpy(dtype=float).tolist()
    rows = [{"topic": topic, "run": run, "conversation": conversation, "values": v}
            for topic, run, conversation, v in zip(chosen["topic"].tolist(), chosen["run"].tolist(),
                                                   chosen["conversation"].tolist(), values)]
    return rows, page, pages, sort


def summarise(table: pd.DataFrame, columns: list[str], summary: Summary | None = None) -> Summary:
    summary = summary or Summary(table, columns)
    for _, row in run_summary(table, columns).iterrows():
        summary.runs.append(
            {
                "run": row["run"],
                "topics": row["topics"],
                "cells": {c: Cell(row[c], row[f"{c}_ci_low"], row[f"{c}_ci_high"]) for c in columns},
            }
        )
    topics = groups_of(table, "topic")
    by_column = {c: intervals_of(table, topics, c) for c in columns}
    for i, ((topic, _), runs) in enumerate(zip(topics, distinct_in(table, topics, "run"))):
        cells = {c: Cell(*by_column[c].mean_and_bounds(i)) for c in columns}
        summary.topics.append({"topic": topic, "runs": runs, "cells": cells})
    return summary


def score_report(campaign: Campaign, page: int = 1, sort: str = "topic", descending: bool = False,
                 as_ntcireval: bool = False) -> Report:
    """The conversation runs' GFRC (one page of the conversations) and, beside them, the
    ranked-list runs' GFR (their stored figures, scores.ranked_lists; `as_ntcireval`: with
    NTCIREVAL's six-decimal uniform vectors)."""
    table = score_table(campaign)
    columns = score_columns(table)
    report = summarise(table, columns, Report(table, columns, campaign=campaign))
    report.rows, report.page, report.pages, report.sort = conversation_page(table, columns, page, sort, descending)
    report.descending = descending
    ranked = score_ranked_lists(campaign, as_ntcireval=as_ntcireval)
    report.cutoff, report.as_ntcireval = ranked.cutoff, as_ntcireval
    if not ranked.table.empty:
        report.ranked = summarise(ranked.table, list(RANKED_MEASURES))
    return report


def report_csv_rows(campaign: Campaign):
    """The conversation runs' per-run summary as CSV: one row per run, each score's mean over
    topics and its 95% t confidence interval (ci_low, ci_high; empty with a single topic)."""
    yield frame_csv(run_summary(score_table(campaign)), float_format="%.6f")


def conversations_csv_rows(campaign: Campaign):
    """Every conversation's scores as CSV, its judge by username (like the scores export)."""
    yield frame_csv(with_usernames(score_table(campaign)), float_format="%.6f")


def ranked_csv_rows(campaign: Campaign, per_topic: bool = False, as_ntcireval: bool = False):
    """The ranked-list runs' GFR figures as CSV, one table: per run (mean and 95% t confidence
    interval over topics), or with `per_topic` one row per run and topic; from the stored figures."""
    ranked = score_ranked_lists(campaign, as_ntcireval=as_ntcireval)
    table = ranked.table if per_topic else run_summary(ranked.table, list(RANKED_MEASURES))
    yield frame_csv(table, float_format="%.6f")


# -- the R-vs-GF plot ----------------------------------------------------------------------------


def scatter_figure(table: pd.DataFrame, title: str = "") -> Figure:
    """R (x) against GF (y): one small point per topic, a large labelled marker per run mean.

    Run, topic and campaign names are text, never mathtext: a run named ``a$\\x{$b`` is drawn
    as written (every Text takes text.parse_math when it is made)."""
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        return _scatter_figure(table, title)


def run_styles(runs: Sequence[str]) -> dict[str, tuple[int, int]]:
    """run -> (its system's colour index, its trial's marker index): a system keeps one colour
    across its trials, each trial its own marker (names like ``bing-trial2``, models.Run)."""
    from annotator.models import Run

    parts = {run: Run.system_and_trial_of(run) for run in runs}
    systems = sorted({system for system, _ in parts.values()})
    trials = sorted({trial for _, trial in parts.values()})
    return {run: (systems.index(system), trials.index(trial)) for run, (system, trial) in parts.items()}


LEGEND_ROWS = 24  # legend entries per column beside the plot


def _scatter_figure(table: pd.DataFrame, title: str) -> Figure:
    import matplotlib
    from matplotlib.figure import Figure  # the object-oriented API: no pyplot, no display needed

    runs = sorted(table["run"].unique()) if len(table) else []
    styles = run_styles(runs)
    systems = 1 + max((c for c, _ in styles.values()), default=0)
    # tab10 while it suffices, else tab20, else a continuous map: never two systems alike
    colours = (matplotlib.colormaps["tab10"] if systems <= 10 else matplotlib.colormaps["tab20"] if systems <= 20
               else matplotlib.colormaps["turbo"].resampled(systems))
    markers = "osD^vP*Xh<>"
    legend_columns = max(1, math.ceil(len(runs) / LEGEND_ROWS))
    longest = max((len(r) for r in runs), default=0)
    # the legend sits outside the axes, on the right: the figure grows with its columns
    figure = Figure(figsize=(6.4 + legend_columns * (0.9 + 0.075 * min(longest, 40)), 5.0 if len(runs) <= LEGEND_ROWS else 6.4),
                    dpi=100, layout="constrained")
    axes = figure.add_subplot()
    groups = groups_of(table, "run")
    r_intervals, gf_intervals = intervals_of(table, groups, "R"), intervals_of(table, groups, "GF")
    r_values, gf_values = table["R"].to_numpy(dtype=float), table["GF"].to_numpy(dtype=float)
    for i, ((run, positions), topics) in enumerate(zip(groups, distinct_in(table, groups, "topic"))):
        colour_index, marker_index = styles[run]
        colour = colours(colour_index % colours.N)
        marker = markers[marker_index % len(markers)]
        axes.scatter(r_values[positions], gf_values[positions], s=22, color=colour, alpha=0.45, marker=marker, linewidths=0)
        mean_r, low_r, high_r = r_intervals.mean_and_bounds(i)
        mean_gf, low_gf, high_gf = gf_intervals.mean_and_bounds(i)
        if not math.isnan(low_r):
            axes.errorbar(
                [mean_r], [mean_gf], xerr=[[mean_r - low_r], [high_r - mean_r]], yerr=[[mean_gf - low_gf], [high_gf - mean_gf]],
                color=colour, linewidth=1, capsize=3, zorder=2,
            )
        axes.scatter(
            [mean_r], [mean_gf], s=110, color=colour, marker=marker,
            edgecolors="black", linewidths=0.8, label=f"{run} (n={topics})", zorder=3,
        )
    axes.set_xlabel("R (relevance)")
    axes.set_ylabel("GF (group fairness)")
    axes.set_xlim(left=0)
    axes.set_ylim(0, 1)
    axes.grid(True, linewidth=0.4, alpha=0.5)
    if title:
        axes.set_title(title, fontsize=11)
    axes.text(0.99, 0.01, "large markers: run means, bars: 95% CI", ha="right", va="bottom", fontsize=7, color="0.4",
              transform=axes.transAxes)
    if len(table):
        figure.legend(fontsize=8, loc="outside right upper", ncols=legend_columns, frameon=False,
                      title="colour: system, marker: trial", title_fontsize=8, markerscale=0.7)
    else:
        axes.text(0.5, 0.5, "no conversations yet", ha="center", va="center", transform=axes.transAxes)
    return figure


def scatter_bytes(campaign: Campaign, fmt: str) -> bytes:
    """The scatter as SVG (vector, for papers) or PNG (300 dpi)."""
    if fmt not in ("svg", "png"):
        raise ValueError(fmt)
    figure = scatter_figure(score_table(campaign), title=f"{campaign.name}: R vs GF per run")
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=300 if fmt == "png" else 100, metadata={"Date": None} if fmt == "svg" else None)
    return buffer.getvalue()


# -- the topic x run usefulness grid (paper, Figures 2-4) ----------------------------------------

LEGEND = [
    ("green", "o o", "both turns useful"),
    ("light-green", "o x", "first useful, second not"),
    ("yellow", "x o", "recovered: second useful"),
    ("orange", "x x", "neither useful"),
    ("grey", "x -", "broke down after a useless turn"),
]


def _percent(value: float | None) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.1f}%"


def usefulness_grid(campaign: Campaign) -> dict:
    """Topics x runs; each cell the judge's labels of the first two system turns, coloured as in
    the paper (scoring.usefulness), with %useful, ave%useful and %recovery per run underneath.
    Conversations whose system turns are not all labelled yet show "?" and stay out of the
    statistics."""
    from django.urls import reverse

    # plain rows, never a model instance per conversation: (id, topic, run, gold)
    conversations = list(Conversation.objects.filter(topic__campaign=campaign).order_by()
                         .values_list("pk", "topic__code", "run__name", "gold_annotator_id"))
    judge_of = gold_annotator_rows(campaign, [(pk, gold) for pk, _t, _r, gold in conversations])
    labels: dict[int, dict[int, str]] = defaultdict(dict)  # conversation -> system turn id -> label
    for conversation_id, turn_id, annotator_id, label in TurnLabel.objects.filter(
        turn__conversation__topic__campaign=campaign, turn__role=Turn.Role.SYSTEM
    ).values_list("turn__conversation_id", "turn_id", "annotator_id", "label"):
        if annotator_id == judge_of.get(conversation_id):
            labels[conversation_id][turn_id] = label
    system_turns = _system_turns_shown(campaign)

    topics = sorted({topic for _pk, topic, _r, _g in conversations})
    runs = sorted({run for _pk, _t, run, _g in conversations})
    adjudicate = reverse("console:adjudicate", args=[campaign.slug, 0]).removesuffix("0/")  # one reverse, not one a cell
    cells: dict[tuple[str, str], dict] = {}
    complete: dict[str, dict[str, list[str]]] = defaultdict(dict)  # run -> topic -> labels
    for pk, topic, run, _gold in conversations:
        given = labels.get(pk, {})
        sequence = [given.get(turn_id) for turn_id in system_turns.get(pk, ())]
        shown = (sequence + [usefulness.NO_TURN] * 2)[:2]
        if None in sequence or not sequence:
            css = "unlabelled"
        else:
            css = usefulness.cell_colour_of(sequence)
            complete[run][topic] = sequence
        cells[(topic, run)] = {
            "href": f"{adjudicate}{pk}/",
            "title": f"{topic} / {run}",
            "labels": " ".join(lab or "?" for lab in shown),
            "css": css,
        }
    summaries = {run: usefulness.summarise(complete[run]) for run in runs}
    positions = max((len(x.percent_useful) for x in summaries.values()), default=0)
    footer = [
        {
            "label": f"%useful S{p + 1}",
            "values": [
                _percent(summaries[r].percent_useful[p]) if p < len(summaries[r].percent_useful) else "–" for r in runs
            ],
        }
        for p in range(positions)
    ]
    footer.append({"label": "ave%useful", "strong": True, "values": [_percent(summaries[r].ave_percent_useful) for r in runs]})
    footer.append(
        {
            "label": "%recovery",
            "values": [
                f"{_percent(summaries[r].percent_recovery)} ({summaries[r].recovered}/{summaries[r].unsuccessful_first})"
                if summaries[r].unsuccessful_first else "–"
                for r in runs
            ],
        }
    )
    footer.append({"label": "topics labelled", "values": [str(summaries[r].n_topics) for r in runs]})
    return {
        "topics": topics,
        "runs": runs,
        "rows": [{"topic": t, "cells": [cells.get((t, r)) for r in runs]} for t in topics],
        "summaries": summaries,
        "footer": footer,
        "legend": LEGEND,
    }


def _system_turns_shown(campaign: Campaign) -> dict[int, list[int]]:
    """Per conversation, the ids of its system turns in order: a linear conversation's all of
    them, a branching one's those on the path the chat showed (the sequence its user read; the
    other branches are trials within the conversation, on the trials page)."""
    by_conversation: dict[int, list[int]] = defaultdict(list)
    turns = Turn.objects.filter(conversation__topic__campaign=campaign).order_by("conversation_id", "position")
    for conversation_id, turn_id in turns.filter(role=Turn.Role.SYSTEM, conversation__is_tree=False).values_list(
            "conversation_id", "pk"):
        by_conversation[conversation_id].append(turn_id)
    tree_turns: dict[int, list[_ShownTurn]] = defaultdict(list)
    for conversation_id, *turn in turns.filter(conversation__is_tree=True).values_list(
            "conversation_id", "pk", "position", "follows", "shown", "role"):
        tree_turns[conversation_id].append(_ShownTurn(*turn))
    for conversation_id, tree in tree_turns.items():
        by_conversation[conversation_id] = [tree[i].pk for i in path_through(tree) if tree[i].role == Turn.Role.SYSTEM]
    return by_conversation


class _ShownTurn(NamedTuple):
    pk: int
    position: int
    follows: int | None
    shown: bool
    role: str


# -- agreement -----------------------------------------------------------------------------------


@dataclass
class PairReport:
    conversation: Conversation
    first: object
    second: object
    spans: agreement.SpanAgreement
    grade_pairs: list[tuple[str, int | None, int | None]]
    disagreements: list[str]


def human_assignments() -> Prefetch:
    """A conversation's assignments to people: automatic judges are nobody's colleague."""
    return Prefetch(
        "assignments",
        queryset=Assignment.objects.exclude(AnnotatorProfile.automatic("annotator__")).select_related("annotator"),
    )


def doubly_annotated_ids(campaign: Campaign) -> QuerySet:
    """The ids of the campaign's conversations two or more people annotate (automatic judges
    aside), as a subquery: one level, scoped by campaign (SQLite runs a subquery nested in
    another's IN once per row, 10x slower at 1,000 conversations)."""
    return (
        Assignment.objects.filter(conversation__topic__campaign=campaign)
        .exclude(AnnotatorProfile.automatic("annotator__"))
        .values("conversation_id").annotate(people=Count("annotator_id")).filter(people__gte=2)
        .values("conversation_id")
    )


def doubly_annotated_conversations(campaign: Campaign) -> QuerySet[Conversation]:
    """Conversations two or more people annotate (automatic judges aside)."""
    return Conversation.objects.filter(pk__in=doubly_annotated_ids(campaign))


def doubly_annotated(campaign: Campaign) -> list[Conversation]:
    """doubly_annotated_conversations, their topic, run, gold and human assignments fetched."""
    return list(
        doubly_annotated_conversations(campaign)
        .select_related("topic", "run", "gold_annotator")
        .prefetch_related(human_assignments())
    )


@dataclass
class ConversationJudgments:
    """One conversation's judgments by its annotators: per annotator, spans (system turn position,
    start, end, entity key) and entity key -> (name, grade level, entity id); (annotator, key) ->
    {attribute set: vector}; and each system turn's word offset along its path (to give positions
    as the workspace's WC) and name (S1: a conversation that branches has several)."""

    spans: dict[int, set[tuple[int, int, int, str]]] = field(default_factory=lambda: defaultdict(set))
    keys: dict[int, dict[str, tuple[str, int | None, int]]] = field(default_factory=lambda: defaultdict(dict))
    vectors: dict[tuple[int, str], dict[str, list]] = field(default_factory=lambda: defaultdict(dict))
    offsets: dict[int, int] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)


class _TurnWords(NamedTuple):
    role: str
    number: int
    text: str
    position: int
    follows: int | None


def judgments_of(conversations: QuerySet, annotator_ids: Collection[int]) -> dict[int, ConversationJudgments]:
    """The judgments of `annotator_ids` in each of `conversations` (conversations, or their ids:
    `doubly_annotated_ids`), by conversation id, in three queries however many conversations
    there are (nuggets with their turn and entity, the entities' memberships, the turns' words),
    read as plain rows: the agreement page reads a whole campaign so."""
    found: dict[int, ConversationJudgments] = defaultdict(ConversationJudgments)
    nuggets = Nugget.objects.filter(turn__conversation__in=conversations, annotator_id__in=annotator_ids).order_by()
    for conversation_id, annotator_id, position, start, end, key, name, level, entity_id in nuggets.values_list(
        "turn__conversation_id", "annotator_id", "turn__position", "start_word", "end_word",
        "entity__key", "entity__name", "entity__grade__level", "entity_id",
    ):
        judged = found[conversation_id]
        judged.spans[annotator_id].add((position, start, end, key))  # nuggets sit in system turns
        judged.keys[annotator_id][key] = (name or key, level, entity_id)
    # an entity is topic-wide: the same one is judged in every run's conversation of its topic
    owners: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for judged_id, judged in found.items():
        for annotator_id, per in judged.keys.items():
            for key, (_, _, entity_id) in per.items():
                owners[entity_id].append((judged_id, annotator_id, key))
    memberships = Membership.objects.filter(entity__in=nuggets.values("entity_id")).values_list(
        "entity_id", "attribute_set__name", "vector")
    for entity_id, attribute, vector in memberships:
        for conversation_id, annotator_id, key in owners[entity_id]:
            found[conversation_id].vectors[(annotator_id, key)][attribute] = vector
    turns: dict[int, list[_TurnWords]] = defaultdict(list)
    for conversation_id, *row in Turn.objects.filter(conversation__in=conversations).order_by(
        "conversation_id", "position"
    ).values_list("conversation_id", "role", "number", "text", "position", "follows"):
        turns[conversation_id].append(_TurnWords(*row))
    for conversation_id, judged in found.items():
        judged.offsets = system_turn_offsets(None, turns[conversation_id])
        judged.names = {t.position: f"{t.role}{t.number}" for t in turns[conversation_id]}
    return found


def conversation_agreement(conversation: Conversation, first, second,
                           judged: ConversationJudgments | None = None) -> tuple[PairReport, list]:
    """Two annotators of a conversation compared: spans, grades, memberships, and the list of
    their disagreements. `judged` (judgments_of) saves the conversation's three queries."""
    if judged is None:
        judged = judgments_of(Conversation.objects.filter(pk=conversation.pk), [first.pk, second.pk])[conversation.pk]
    spans, keys, vectors, offsets, names = judged.spans, judged.keys, judged.vectors, judged.offsets, judged.names
    span = agreement.span_agreement({s[:3] for s in spans[first.pk]}, {s[:3] for s in spans[second.pk]})
    grade_pairs = []
    disagreements = []
    membership_pairs = []
    only_one: set[str] = set()  # entities one annotator did not mark at all: said once, not per span
    for key in sorted(set(keys[first.pk]) | set(keys[second.pk])):
        a = keys[first.pk].get(key)
        b = keys[second.pk].get(key)
        name = (a or b)[0]
        grade_pairs.append((name, a[1] if a else None, b[1] if b else None))
        if a is None or b is None:
            who = first if b is None else second
            where = ", ".join(f"{names[n]} WC {word_position(offsets[n], s)}-{word_position(offsets[n], e)}"
                              for n, s, e, k in sorted(spans[who.pk]) if k == key)
            disagreements.append(f"{name}: marked only by {who.get_username()} ({where})")
            only_one.add(key)
            continue
        if a[1] != b[1]:
            disagreements.append(
                f"{name}: grade L{a[1] if a[1] is not None else '?'} ({first.get_username()}) vs "
                f"L{b[1] if b[1] is not None else '?'} ({second.get_username()})"
            )
        va, vb = vectors.get((first.pk, key), {}), vectors.get((second.pk, key), {})
        for attribute in sorted(set(va) & set(vb)):
            membership_pairs.append((va[attribute], vb[attribute]))
            if np.abs(np.asarray(va[attribute]) - np.asarray(vb[attribute])).sum() > 1e-6:
                disagreements.append(f"{name}: {attribute} memberships differ")
    for position, start, end, key in sorted(spans[first.pk] ^ spans[second.pk]):
        if key in only_one:
            continue
        who = first if (position, start, end, key) in spans[first.pk] else second
        disagreements.append(
            f"{names[position]} WC {word_position(offsets[position], start)}-{word_position(offsets[position], end)}: "
            f"span only by {who.get_username()}")
    return PairReport(conversation, first, second, span, grade_pairs, disagreements), membership_pairs


def _human_annotators_of(campaign: Campaign) -> dict[int, list]:
    """Conversation id -> its human annotators (`human_annotators`) for every doubly annotated
    conversation of the campaign: two queries, one user instance per person."""
    annotator_ids: dict[int, list[int]] = defaultdict(list)
    for conversation_id, annotator_id in (
        Assignment.objects.filter(conversation_id__in=doubly_annotated_ids(campaign))
        .exclude(AnnotatorProfile.automatic("annotator__")).order_by().values_list("conversation_id", "annotator_id")
    ):
        annotator_ids[conversation_id].append(annotator_id)
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.in_bulk({a for ids in annotator_ids.values() for a in ids})
    return {conversation_id: [users[a] for a in sorted(ids)] for conversation_id, ids in annotator_ids.items()}


def human_annotators(conversation: Conversation) -> list:
    """The conversation's human annotators, in the order they joined the campaign's users.
    Prefetch `human_assignments()` to save the query."""
    if "assignments" in getattr(conversation, "_prefetched_objects_cache", {}):
        assignments = conversation.assignments.all()
    else:
        assignments = conversation.assignments.exclude(AnnotatorProfile.automatic("annotator__")).select_related("annotator")
    return sorted((a.annotator for a in assignments), key=lambda u: u.pk)


def annotator_pairs(conversation: Conversation) -> list[tuple]:
    """Every pair of the conversation's human annotators (see human_annotators)."""
    return list(combinations(human_annotators(conversation), 2))


def pair_reports(conversation: Conversation) -> list[PairReport]:
    """Every pair of the conversation's human annotators compared, their judgments read once."""
    pairs = annotator_pairs(conversation)
    people = {person.pk for pair in pairs for person in pair}
    judged = judgments_of(Conversation.objects.filter(pk=conversation.pk), people)[conversation.pk]
    return [conversation_agreement(conversation, first, second, judged)[0] for first, second in pairs]


def campaign_agreement(campaign: Campaign) -> dict:
    """Agreement over every conversation with two or more annotators: every pair of its
    annotators is compared (spans, grades, memberships, Cohen's kappa per pair), and
    Krippendorff's alpha takes every annotator of every unit at once."""
    pairs: list[PairReport] = []
    membership_pairs = []
    kappa_by_pair: dict[tuple[str, str], tuple[list, list]] = defaultdict(lambda: ([], []))
    units: dict[tuple[int, str], dict[int, int]] = defaultdict(dict)  # (topic, entity name) -> coder -> level
    coders: set[int] = set()
    conversations = list(doubly_annotated_conversations(campaign).select_related("topic", "run", "gold_annotator"))
    annotators_of = _human_annotators_of(campaign)
    judged = judgments_of(doubly_annotated_ids(campaign), {u.pk for people in annotators_of.values() for u in people})
    for conversation, (first, second) in (
        (conversation, pair) for conversation in conversations
        for pair in combinations(annotators_of.get(conversation.pk, []), 2)
    ):
        report, vectors = conversation_agreement(conversation, first, second, judged[conversation.pk])
        pairs.append(report)
        membership_pairs.extend(vectors)
        key = (first.get_username(), second.get_username())
        for name, a, b in report.grade_pairs:
            units[(conversation.topic_id, name)][first.pk] = a
            units[(conversation.topic_id, name)][second.pk] = b
            if a is not None and b is not None:
                kappa_by_pair[key][0].append(a)
                kappa_by_pair[key][1].append(b)
        coders.update((first.pk, second.pk))
    coder_list = sorted(coders)
    data = [[units[u].get(c) for u in units] for c in coder_list]
    spans_exact = [p.spans.exact_f1 for p in pairs]
    spans_words = [p.spans.word_dice for p in pairs]
    members = agreement.membership_distance(membership_pairs)
    return {
        "pairs": pairs,
        "alpha_ordinal": agreement.krippendorff_alpha(data, "ordinal") if data else float("nan"),
        "alpha_nominal": agreement.krippendorff_alpha(data, "nominal") if data else float("nan"),
        "units": len(units),
        "kappas": [
            {"pair": f"{a} / {b}", "kappa": agreement.cohen_kappa(x, y), "n": len(x)}
            for (a, b), (x, y) in sorted(kappa_by_pair.items())
        ],
        "span_exact_f1": float(np.mean(spans_exact)) if spans_exact else float("nan"),
        "span_word_dice": float(np.mean(spans_words)) if spans_words else float("nan"),
        "membership": members,
    }
