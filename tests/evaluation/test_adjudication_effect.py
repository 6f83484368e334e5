"""The preview of each adjudication choice: computed in memory, writing and locking nothing,
and exactly what the decision gives once taken (the conversation's scores, the run's mean,
the pairs of runs whose order flips), for every kind of disagreement."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from annotator.evaluation import adjudication_effect
from annotator.judgments import adjudication
from annotator.judgments.edits import AnnotationRefused
from annotator.scores.campaign_tables import score_table
from tests.judgments.three_annotators import three_annotators

pytestmark = pytest.mark.django_db

MEASURES = ["R", "GF", "GFRC"]


def previews(case):
    adjudicated = adjudication.adjudication(case.conversation, case.annotators)
    return adjudicated, adjudication_effect.effects(adjudicated, adjudication_effect.RunMeans.of_topic(case.conversation),
                                                   judge=judge_of(case))


def judge_of(case):
    case.conversation.refresh_from_db()
    return case.conversation.gold_annotator_id or case.ann.pk


def decided(case, unit, annotator):
    """What taking `annotator`'s value gives, once applied for real (then rolled back): the
    conversation's scores, every run's means, or why it was refused."""
    before = score_table(case.campaign).groupby("run")[MEASURES].mean()
    with transaction.atomic():
        try:
            adjudication.decide(case.conversation, unit, actor=case.organiser, judge=judge_of(case), take=annotator)
        except AnnotationRefused as refused:
            return str(refused)
        table = score_table(case.campaign)
        after = table.groupby("run")[MEASURES].mean()
        row = table.set_index("conversation").loc[case.conversation.pk]
        transaction.set_rollback(True)
    case.conversation.refresh_from_db()
    flips = sorted((m, a, b) for m in MEASURES for a, b in adjudication_effect.flipped_pairs(before[m], after[m]))
    return {m: float(row[m]) for m in MEASURES}, after, flips


def assert_each_preview_is_what_its_decision_gives(case):
    adjudicated, found = previews(case)
    kinds = set()
    for d in adjudicated.disagreements:
        for choice in found[d.unit]:
            kinds.add(d.kind)
            applied = decided(case, d.unit, choice.annotators[0])
            effect = choice.effect
            if isinstance(applied, str):
                assert effect.refused == applied, d.what
                continue
            scores, means, flips = applied
            assert not effect.refused, d.what
            assert {m: effect.conversation[m][1] for m in MEASURES} == pytest.approx(scores), (d.what, choice.shown)
            run = case.conversation.run.name
            assert {m: effect.run_mean[m][1] for m in MEASURES} == pytest.approx(dict(means.loc[run])), d.what
            assert sorted(effect.flips) == flips, d.what
    assert kinds == {"span", "grade", "membership", "label"}


def test_each_preview_of_a_first_decision_is_what_the_decision_gives():
    assert_each_preview_is_what_its_decision_gives(three_annotators())


def test_each_preview_on_a_gold_in_use_across_the_topic_is_what_the_decision_gives():
    case = three_annotators()
    gold = adjudication.start(case.other, actor=case.organiser, judge=case.ann.pk)  # a grade now moves `other` too
    listed = adjudication.adjudication(case.conversation, case.annotators).disagreements
    looper = next(d for d in listed if d.kind == "span" and "Looper" in d.what)
    adjudication.decide(case.conversation, looper.unit, actor=case.organiser, judge=case.ann.pk, take=case.bob)
    case.conversation.refresh_from_db()
    assert case.conversation.gold_annotator == gold
    _adjudicated, found = previews(case)
    grade = next(d for d in listed if d.kind == "grade")
    assert {c.effect.conversations for c in found[grade.unit]} == {2}
    assert_each_preview_is_what_its_decision_gives(case)


def test_a_choice_the_gold_cannot_take_is_refused_in_the_preview_as_the_decision_refuses_it():
    case = three_annotators()
    adjudicated, found = previews(case)
    primer = next(d for d in adjudicated.disagreements if "Primer" in d.what)
    carols = next(c for c in found[primer.unit] if c.annotators == [case.carol])
    assert "overlap" in carols.effect.refused
    assert decided(case, primer.unit, case.carol) == carols.effect.refused


def test_a_preview_writes_nothing_and_takes_no_write_lock():
    case = three_annotators()
    adjudicated = adjudication.adjudication(case.conversation, case.annotators)
    means = adjudication_effect.RunMeans.of_topic(case.conversation)
    with CaptureQueriesContext(connection) as queries:
        found = adjudication_effect.effects(adjudicated, means, judge=case.ann.pk)
    assert len(found) == len(adjudicated.disagreements)
    statements = [q["sql"].lstrip().split()[0].upper() for q in queries.captured_queries]
    assert set(statements) == {"SELECT"}, statements
    assert len(statements) <= 6, [q["sql"] for q in queries.captured_queries]
