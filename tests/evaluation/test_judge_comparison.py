"""annotator.evaluation.judge_comparison: an automatic judge against the gold, checked against the app's other
ways of computing the same figures (score_conversation, the agreement maths, scipy)."""

import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scoring import agreement
from annotator.evaluation.judge_comparison import CAMPAIGN_COLUMNS, _measure_ranking, compare_judge
from annotator.scores.stored import writes
from annotator.models import AnnotatorProfile, Conversation, Nugget
from annotator.scores.per_conversation import score_conversation
from tests.console.demo import build_demo


@pytest.fixture
def demo(db):
    campaign, _, (ann, bob) = build_demo(n_topics=3)
    AnnotatorProfile.mark(bob, description="test judge")
    return campaign, ann, bob


def shared(ann, bob):
    return list(Conversation.objects.filter(assignments__annotator=bob).filter(assignments__annotator=ann)
                .select_related("topic__campaign", "run"))


def test_every_conversation_the_judge_shares_with_the_gold_is_compared_and_no_other(demo):
    campaign, ann, bob = demo
    comparison = compare_judge(campaign, bob, ann)
    assert sorted(comparison.conversations["conversation"]) == sorted(c.pk for c in shared(ann, bob))


def test_score_errors_are_the_judges_score_minus_the_golds_conversation_by_conversation(demo):
    campaign, ann, bob = demo
    frame = compare_judge(campaign, bob).conversations.set_index("conversation")
    for conversation in shared(ann, bob):
        gold, judge = score_conversation(conversation, ann), score_conversation(conversation, bob)
        assert frame.loc[conversation.pk, "error_GFRC"] == pytest.approx(judge.GFRC - gold.GFRC, abs=1e-12)
        assert frame.loc[conversation.pk, "error_R"] == pytest.approx(judge.R - gold.R, abs=1e-12)
        assert frame.loc[conversation.pk, "error_GF_ORIGIN"] == pytest.approx(judge.GF_m["ORIGIN"] - gold.GF_m["ORIGIN"], abs=1e-12)


def test_run_rankings_are_compared_on_run_means_over_topics_with_kendalls_tau_b(demo):
    campaign, ann, bob = demo
    comparison = compare_judge(campaign, bob)
    gold, judge = defaultdict(list), defaultdict(list)
    for conversation in shared(ann, bob):
        gold[conversation.run.name].append(score_conversation(conversation, ann).GFRC)
        judge[conversation.run.name].append(score_conversation(conversation, bob).GFRC)
    runs = sorted(gold)
    expected = stats.kendalltau([np.mean(gold[r]) for r in runs], [np.mean(judge[r]) for r in runs])
    gfrc = next(m for m in comparison.measures if m.measure == "GFRC")
    assert gfrc.runs == runs
    assert gfrc.ranking.tau_b == pytest.approx(expected.statistic, abs=1e-12)
    frame = comparison.campaign_frame()
    assert list(frame.columns) == CAMPAIGN_COLUMNS
    assert frame.set_index("measure").loc["GFRC", "flips"] == len(gfrc.flips)


def test_nugget_detection_counts_the_spans_of_both_sides(demo):
    campaign, ann, bob = demo
    comparison = compare_judge(campaign, bob)
    conversations = shared(ann, bob)

    def spans(who):
        return {(n.turn.conversation_id, n.turn_id, n.start_word, n.end_word)
                for n in Nugget.objects.filter(annotator=who, turn__conversation__in=conversations).select_related("turn")}

    gold, judge = spans(ann), spans(bob)
    assert (comparison.exact.gold, comparison.exact.judge) == (len(gold), len(judge))
    assert comparison.exact.recall == pytest.approx(len(gold & judge) / len(gold))
    assert comparison.exact.precision == pytest.approx(len(gold & judge) / len(judge))
    assert comparison.exact.recall < 1  # bob misses a film the gold marked


def test_grades_of_matched_nuggets_give_the_agreement_modules_ordinal_alpha_and_a_confusion_matrix(demo):
    campaign, ann, bob = demo
    comparison = compare_judge(campaign, bob)
    levels = {"gold": [], "judge": []}
    conversations = shared(ann, bob)
    for who, key in ((ann, "gold"), (bob, "judge")):
        for n in Nugget.objects.filter(annotator=who, turn__conversation__in=conversations).select_related("entity__grade"):
            levels[key].append(((n.turn.conversation_id, n.turn_id, n.start_word), n.entity.grade.level))
    judge_of = dict(levels["judge"])
    pairs = [(g, judge_of[span]) for span, g in levels["gold"] if span in judge_of]
    assert comparison.grade_pairs == len(pairs)
    assert sum(map(sum, comparison.confusion)) == len(pairs)
    assert comparison.confusion[2][1] == sum(1 for g, j in pairs if (g, j) == (2, 1))  # bob grades two films lower
    expected = agreement.krippendorff_alpha([[g for g, _ in pairs], [j for _, j in pairs]], "ordinal")
    assert comparison.grade_alpha == pytest.approx(expected)
    assert comparison.memberships["ORIGIN"].pairs == len(pairs) and comparison.memberships["ORIGIN"].mean_jsd == 0


def test_a_judge_compared_with_itself_as_gold_compares_nothing(demo):
    campaign, _, bob = demo
    comparison = compare_judge(campaign, bob, bob)
    assert comparison.conversations.empty and comparison.measures == []
    assert math.isnan(comparison.exact.precision)



@pytest.mark.parametrize("topics", [1, 4])
def test_the_comparison_reads_a_fixed_number_of_queries_however_many_conversations(db, topics, django_assert_num_queries):
    campaign, _, (ann, bob) = build_demo(n_topics=topics)
    AnnotatorProfile.mark(bob)
    writes.refresh_campaign(campaign)  # the stored figures, as every save and import keeps them
    # 1 the judge's conversations; 2 their first human assignees (gold_annotators); 3-4 the gold's score
    # table (annotator.scores.stored: the conversations, their stored figures); 5-6 the judge's, the
    # same two; 7 both sides' nuggets; 8 their memberships; 9 the campaign's grades; 10 what produced
    # the judge (its latest LLM run)
    with django_assert_num_queries(10):
        comparison = compare_judge(campaign, bob)
    assert len(comparison.conversations) == len(shared(ann, bob))


def _tables(gold_a, gold_b, topics):
    """Gold and judge score tables for runs a and b; the judge ranks them the other way round."""
    gold = pd.DataFrame({"topic": topics * 2, "run": ["a"] * len(topics) + ["b"] * len(topics), "GFRC": gold_a + gold_b})
    judge = gold.assign(GFRC=gold["GFRC"].where(gold["run"] == "a", gold["GFRC"] + 10))
    return gold, judge


def test_a_flip_between_runs_the_gold_separates_on_every_topic_is_marked_significant():
    topics = [f"M{i:03}" for i in range(8)]
    gold, judge = _tables([0.9, 0.8, 0.85, 0.95, 0.9, 0.88, 0.92, 0.87], [0.1, 0.2, 0.15, 0.05, 0.1, 0.12, 0.08, 0.13], topics)
    (flip,) = _measure_ranking("GFRC", gold, judge).flips
    assert (flip.above, flip.below, flip.significant) == ("a", "b", True)


def test_a_flip_between_runs_the_gold_cannot_separate_is_not_marked_significant():
    topics = [f"M{i:03}" for i in range(8)]
    gold, judge = _tables([0.5, 0.2, 0.7, 0.1, 0.6, 0.3, 0.4, 0.5], [0.4, 0.3, 0.6, 0.2, 0.5, 0.4, 0.3, 0.45], topics)
    (flip,) = _measure_ranking("GFRC", gold, judge).flips
    assert flip.significant is False


def test_with_one_topic_the_gold_cannot_say_whether_a_flip_is_significant():
    gold, judge = _tables([0.9], [0.1], ["M001"])
    (flip,) = _measure_ranking("GFRC", gold, judge).flips
    assert flip.significant is None
