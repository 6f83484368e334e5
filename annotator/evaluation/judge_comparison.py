"""An automatic judge against the gold: how far its annotation is from the human one, down to
the system ranking. What the console's judges page, `compare_judges` and the API report.

    comparison = compare_judge(campaign, judge)              # gold: each conversation's adjudicated gold
    comparison = compare_judge(campaign, judge, gold=alice)  # gold: one human annotator

The conversations compared are those assigned to the judge whose gold is someone else. The
maths is `scoring.rankings` (spans, rankings, the paired test) and `scoring.agreement`
(Krippendorff's alpha, membership JSD/L1); scores come from `annotator.scores.campaign_tables.score_table`,
one vectorised pass for the gold and one for the judge, in a fixed number of queries.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from django.contrib.auth import get_user_model

from scoring import agreement
from annotator.interchange.csvsafe import frame_csv
from annotator.models import AnnotatorProfile, Assignment, Campaign, Conversation, Grade, LlmJudgeRun, Membership, Nugget
from annotator.scores.campaign_tables import score_columns, score_table
from annotator.scores.per_conversation import gold_annotators
from scoring import rankings, significance

ADJUDICATED = "adjudicated"
CAMPAIGN_COLUMNS = ["measure", "runs", "kendall_tau_b", "tau_ap", "flips", "mean_abs_error"]


@dataclass(frozen=True)
class Flip:
    above: str  # the run the gold ranks higher
    below: str
    significant: bool | None  # does the gold tell them apart (randomised Tukey HSD; None: cannot say)


@dataclass
class MeasureRanking:
    measure: str
    runs: list[str]
    gold_means: list[float]
    judge_means: list[float]
    ranking: rankings.RankingComparison
    flips: list[Flip]
    mean_abs_error: float
    mean_signed_error: float

    @property
    def rows(self) -> list[dict]:
        """The runs in the gold's order, with the judge's rank beside."""
        gold_rank = _ranks(self.gold_means)
        judge_rank = _ranks(self.judge_means)
        order = sorted(range(len(self.runs)), key=lambda i: gold_rank[i])
        return [
            {"run": self.runs[i], "gold": self.gold_means[i], "judge": self.judge_means[i],
             "gold_rank": gold_rank[i], "judge_rank": judge_rank[i]}
            for i in order
        ]


@dataclass
class JudgeComparison:
    campaign: Campaign
    judge: object
    gold: str  # a username, or "adjudicated"
    conversations: pd.DataFrame  # one row per conversation compared
    exact: rankings.PRF = rankings.EMPTY
    overlap: rankings.PRF = rankings.EMPTY
    grade_labels: list[str] = field(default_factory=list)
    confusion: list[list[int]] = field(default_factory=list)  # gold level x judge level, "ungraded" last
    grade_alpha: float = float("nan")
    grade_pairs: int = 0
    memberships: dict[str, agreement.VectorDistance] = field(default_factory=dict)
    measures: list[MeasureRanking] = field(default_factory=list)
    produced_by: str = ""  # an LLM judge's latest run: model, server, prompt version, temperature, seed

    @property
    def confusion_rows(self) -> list[dict]:
        labels = self.grade_labels + ["ungraded"]
        return [{"gold": labels[i], "counts": row} for i, row in enumerate(self.confusion)]

    @property
    def conversation_rows(self) -> list[dict]:
        return self.conversations.to_dict(orient="records")

    def campaign_frame(self) -> pd.DataFrame:
        """One row per measure: measure, runs, kendall_tau_b, tau_ap, flips, mean_abs_error."""
        return pd.DataFrame(
            [
                {"measure": m.measure, "runs": m.ranking.runs, "kendall_tau_b": m.ranking.tau_b,
                 "tau_ap": m.ranking.tau_ap, "flips": len(m.flips), "mean_abs_error": m.mean_abs_error}
                for m in self.measures
            ],
            columns=CAMPAIGN_COLUMNS,
        )

    def campaign_csv(self) -> str:
        return _csv(self.campaign_frame())

    def conversations_csv(self) -> str:
        return _csv(self.conversations)

    def as_dict(self) -> dict:
        """Everything, for JSON: the campaign-level figures and every conversation's."""
        return {
            "campaign": self.campaign.slug,
            "judge": self.judge.get_username(),
            "gold": self.gold,
            "produced_by": self.produced_by,
            "conversations_compared": len(self.conversations),
            "nuggets": {
                name: {"precision": _number(prf.precision), "recall": _number(prf.recall), "f1": _number(prf.f1),
                       "gold": prf.gold, "judge": prf.judge}
                for name, prf in (("exact", self.exact), ("overlap", self.overlap))
            },
            "grades": {
                "pairs": self.grade_pairs,
                "krippendorff_alpha_ordinal": _number(self.grade_alpha),
                "labels": self.grade_labels + ["ungraded"],
                "confusion": self.confusion,
            },
            "memberships": {
                name: {"pairs": d.pairs, "mean_jsd": _number(d.mean_jsd), "mean_l1": _number(d.mean_l1)}
                for name, d in self.memberships.items()
            },
            "measures": [
                {
                    "measure": m.measure,
                    "runs": m.ranking.runs,
                    "kendall_tau_b": _number(m.ranking.tau_b),
                    "kendall_p": _number(m.ranking.p_value),
                    "tau_ap": _number(m.ranking.tau_ap),
                    "mean_abs_error": _number(m.mean_abs_error),
                    "mean_signed_error": _number(m.mean_signed_error),
                    "ranking": [{k: _number(v) for k, v in row.items()} for row in m.rows],
                    "flips": [{"above": f.above, "below": f.below, "gold_significant": f.significant} for f in m.flips],
                }
                for m in self.measures
            ],
            "per_conversation": self.conversations.astype(object).where(self.conversations.notna(), None)
            .to_dict(orient="records"),
        }


def automatic_judges(campaign: Campaign) -> list:
    """The campaign's automatic judges: accounts marked so that hold assignments in it."""
    return list(
        get_user_model().objects.filter(
            AnnotatorProfile.automatic(), assignments__conversation__topic__campaign=campaign
        ).distinct().select_related("annotator_profile").order_by("username")
    )


def produced_by(campaign: Campaign, judge) -> str:
    """What produced an LLM judge's judgments in the campaign: its latest finished run (model,
    server, prompt version, temperature, seed), else nothing."""
    run = LlmJudgeRun.objects.filter(campaign=campaign, judge=judge, status=LlmJudgeRun.Status.DONE).order_by(
        "-finished_at", "-pk").first()
    return run.describe() if run is not None else ""


def compare_judge(campaign: Campaign, judge, gold=None) -> JudgeComparison:
    """The judge's annotation of its conversations against the gold's (`gold`: a user, or None
    for each conversation's adjudicated gold, else its first human annotator)."""
    conversations = list(
        Conversation.objects.filter(topic__campaign=campaign, assignments__annotator=judge).select_related("topic", "run")
    )
    if gold is None:
        gold_of = gold_annotators(conversations)
    else:
        holders = set(
            Assignment.objects.filter(conversation__in=conversations, annotator=gold).values_list("conversation_id", flat=True)
        )
        gold_of = {c.pk: gold.pk if c.pk in holders else None for c in conversations}
    gold_of = {pk: g for pk, g in gold_of.items() if g is not None and g != judge.pk}
    judge_of = {pk: judge.pk for pk in gold_of}
    comparison = JudgeComparison(
        campaign=campaign, judge=judge, gold=ADJUDICATED if gold is None else gold.get_username(),
        conversations=pd.DataFrame(), produced_by=produced_by(campaign, judge),
    )
    gold_table = score_table(campaign, gold_of).set_index("conversation")
    judge_table = score_table(campaign, judge_of).set_index("conversation")
    measures = score_columns(gold_table) if len(gold_table) else []

    per_conversation = _compare_annotations(comparison, campaign, gold_of, judge.pk)
    frame = gold_table[["topic", "run"]].copy()
    frame.insert(0, "conversation", frame.index)
    for column in ("nuggets_gold", "nuggets_judge", "exact_precision", "exact_recall", "exact_f1",
                   "overlap_precision", "overlap_recall", "overlap_f1"):
        frame[column] = [per_conversation.get(pk, {}).get(column, float("nan")) for pk in frame.index]
    for measure in measures:
        frame[f"gold_{measure}"] = gold_table[measure]
        frame[f"judge_{measure}"] = judge_table[measure]
        frame[f"error_{measure}"] = judge_table[measure] - gold_table[measure]
    comparison.conversations = frame.sort_values(["topic", "run"]).reset_index(drop=True)
    comparison.measures = [_measure_ranking(measure, gold_table, judge_table) for measure in measures]
    return comparison


def _compare_annotations(comparison: JudgeComparison, campaign: Campaign, gold_of: dict[int, int], judge_id: int) -> dict:
    """Nuggets, grades and memberships of every conversation (two queries); fills the
    campaign-wide figures of `comparison` and returns per-conversation nugget figures."""
    annotators = set(gold_of.values()) | {judge_id}
    spans: dict[tuple[int, int], list] = defaultdict(list)  # (conversation, annotator) -> [(span, entity, level)]
    for conversation_id, number, start, end, annotator_id, entity_id, level in (
        Nugget.objects.filter(turn__conversation__topic__campaign=campaign, annotator_id__in=annotators)
        .order_by("turn__conversation_id", "turn__position", "start_word")
        .values_list("turn__conversation_id", "turn__number", "start_word", "end_word", "annotator_id", "entity_id",
                     "entity__grade__level")
    ):
        if conversation_id in gold_of and annotator_id in (gold_of[conversation_id], judge_id):
            spans[(conversation_id, annotator_id)].append(((number, start, end), entity_id, level))
    vectors: dict[int, dict[str, list[float]]] = defaultdict(dict)
    for entity_id, name, vector in Membership.objects.filter(
        entity__topic__campaign=campaign, entity__annotator_id__in=annotators
    ).values_list("entity_id", "attribute_set__name", "vector"):
        vectors[entity_id][name] = vector

    figures = {}
    grade_pairs: list[tuple[int | None, int | None]] = []
    membership_pairs: dict[str, list] = defaultdict(list)
    for conversation_id, gold_id in gold_of.items():
        gold, mine = spans.get((conversation_id, gold_id), []), spans.get((conversation_id, judge_id), [])
        result = rankings.compare_spans([s for s, _, _ in gold], [s for s, _, _ in mine])
        comparison.exact += result.exact
        comparison.overlap += result.overlap
        figures[conversation_id] = {
            "nuggets_gold": len(gold), "nuggets_judge": len(mine),
            "exact_precision": result.exact.precision, "exact_recall": result.exact.recall, "exact_f1": result.exact.f1,
            "overlap_precision": result.overlap.precision, "overlap_recall": result.overlap.recall,
            "overlap_f1": result.overlap.f1,
        }
        for g, j in result.pairs:
            (_, gold_entity, gold_level), (_, judge_entity, judge_level) = gold[g], mine[j]
            grade_pairs.append((gold_level, judge_level))
            for name in sorted(set(vectors.get(gold_entity, {})) & set(vectors.get(judge_entity, {}))):
                membership_pairs[name].append((vectors[gold_entity][name], vectors[judge_entity][name]))
    levels = list(Grade.objects.filter(campaign=campaign).order_by("level").values_list("level", "label"))
    position = {level: i for i, (level, _) in enumerate(levels)}
    comparison.grade_labels = [label for _, label in levels]
    comparison.grade_pairs = len(grade_pairs)
    comparison.confusion = rankings.confusion_matrix(
        [(position.get(g), position.get(j)) for g, j in grade_pairs], len(levels)
    ).tolist()
    if grade_pairs:
        comparison.grade_alpha = agreement.krippendorff_alpha(
            [[g for g, _ in grade_pairs], [j for _, j in grade_pairs]], "ordinal"
        )
    comparison.memberships = {name: agreement.membership_distance(pairs) for name, pairs in sorted(membership_pairs.items())}
    return figures


def _measure_ranking(measure: str, gold_table: pd.DataFrame, judge_table: pd.DataFrame) -> MeasureRanking:
    gold_means = gold_table.groupby("run")[measure].mean().dropna()
    judge_means = judge_table.groupby("run")[measure].mean().reindex(gold_means.index)
    runs = [r for r in gold_means.index if not math.isnan(judge_means[r])]
    x, y = gold_means[runs].to_numpy(), judge_means[runs].to_numpy()
    ranking = rankings.compare_rankings(x, y)
    p_values = _gold_p_values(gold_table, measure, runs) if ranking.flips else None
    flips = [
        Flip(runs[a], runs[b], None if p_values is None else bool(p_values[a, b] < SIGNIFICANCE_LEVEL))
        for a, b in ranking.flips
    ]
    errors = (judge_table[measure] - gold_table[measure]).dropna()
    return MeasureRanking(
        measure=measure, runs=runs, gold_means=x.tolist(), judge_means=y.tolist(), ranking=ranking, flips=flips,
        mean_abs_error=float(errors.abs().mean()) if len(errors) else float("nan"),
        mean_signed_error=float(errors.mean()) if len(errors) else float("nan"),
    )


SIGNIFICANCE_LEVEL = 0.05


def _gold_p_values(gold_table: pd.DataFrame, measure: str, runs: list[str]) -> np.ndarray | None:
    """Runs x runs p-values of the gold's scores by the significance report's test (randomised
    Tukey HSD over the topics every run has, seeded so a page and its CSV agree); None when
    fewer than two topics are complete."""
    by_topic = gold_table.pivot_table(index="topic", columns="run", values=measure, aggfunc="mean")
    complete = significance.complete_topics(by_topic[runs].to_numpy(), list(by_topic.index), runs)
    if len(complete.topics) < 2:
        return None
    return significance.randomised_tukey_hsd(complete.scores, seed=0)


def _ranks(values: list[float]) -> list[int]:
    """1 for the highest; ties share the better rank."""
    array = np.asarray(values, dtype=float)
    return [int((array > v).sum()) + 1 for v in array]


def _number(value):
    if isinstance(value, float | np.floating) and math.isnan(value):
        return None
    return float(value) if isinstance(value, np.floating) else value


def _csv(frame: pd.DataFrame) -> str:
    return frame_csv(frame, float_format="%.6f")
