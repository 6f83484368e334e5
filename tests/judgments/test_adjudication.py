"""Adjudication entity by entity: the gold takes one side or a written value, each decision is
in the history, undoable, and the reports follow the gold."""

import pytest

from annotator.judgments import adjudication
from annotator.judgments.edits import AnnotationRefused
from annotator.models import AdjudicationDecision, AnnotationEvent, Grade, Membership, Nugget, TurnLabel
from annotator.judgments import edits
from annotator.scores.campaign_tables import score_table
from annotator.scores.per_conversation import gold_annotators, score_conversation
from tests.factories import make_campaign, make_conversation, make_user, mark

TEXT = ("Here are films: Interstellar (2014): https://www.imdb.com/title/tt0816692/ is great. "
        "Looper (2012): https://www.imdb.com/title/tt1276104/ is fun. "
        "Primer (2004): https://www.imdb.com/title/tt0390384/ is clever.")
# words: 0 Here 1 are 2 films: 3 Interstellar 4 (2014): 5 url 6 is 7 great. 8 Looper 9 (2012): 10 url 11 is 12 fun.
#        13 Primer 14 (2004): 15 url 16 is 17 clever.
RATINGS_HIGH, RATINGS_LOW = [0, 0, 0, 1], [0, 1, 0, 0]


@pytest.fixture
def two_annotators(db):
    organiser, ann, bob = make_user("org"), make_user("ann"), make_user("bob")
    campaign = make_campaign("fw", organiser=organiser)
    conversation = make_conversation(campaign, [("U", "Time travel films?"), ("S", TEXT)], annotators=[ann, bob])
    other = make_conversation(campaign, [("U", "Time travel films?"), ("S", TEXT)], run="bard-trial1", annotators=[ann, bob])
    for who, interstellar in ((ann, "L2"), (bob, "L1")):
        mark(conversation, who, 2, 3, 5, interstellar, {"RATINGS": RATINGS_HIGH})
        mark(other, who, 2, 3, 5, None)
    mark(conversation, ann, 2, 8, 10, "L2", {"RATINGS": RATINGS_HIGH})
    mark(conversation, bob, 2, 8, 10, "L2", {"RATINGS": RATINGS_LOW})
    mark(conversation, ann, 2, 13, 15, "L1", {"RATINGS": RATINGS_LOW})  # bob skipped Primer
    turn = conversation.turns.get(position=2)
    edits.set_turn_label(turn, annotator=ann, actor=ann, label="o", expected_version=None)
    edits.set_turn_label(turn, annotator=bob, actor=bob, label="x", expected_version=None)
    return campaign, organiser, ann, bob, conversation, other


def found(conversation, ann, bob):
    return adjudication.adjudication(conversation, [ann, bob])


def test_each_disagreement_is_listed_once_in_the_order_of_the_conversation_with_wc_positions(two_annotators):
    _campaign, _org, ann, bob, conversation, _other = two_annotators
    listed = found(conversation, ann, bob).disagreements
    assert [(d.what, d.said[0].shown, d.said[1].shown) for d in listed] == [
        ("grade of Interstellar (2014)", "L2", "L1"),
        ("RATINGS of Looper (2012)", "(0,0,0,1)", "(0,1,0,0)"),
        ("Primer (2004) in S1", "WC 17-19", "no nugget here"),
        ("label of S1", "o", "x"),
    ]


def test_taking_the_right_grade_changes_only_the_gold_and_the_reports_follow(two_annotators):
    campaign, org, ann, bob, conversation, _other = two_annotators
    unit = found(conversation, ann, bob).disagreements[0].unit
    decision = adjudication.decide(conversation, unit, actor=org, judge=ann.pk, take=bob)
    gold = adjudication.gold_account()
    assert decision.description == "grade of Interstellar (2014) L2 -> L1"
    conversation.refresh_from_db()
    assert conversation.gold_annotator == gold
    assert gold_annotators([conversation])[conversation.pk] == gold.pk
    gold_score, bob_grade = score_conversation(conversation, gold), score_conversation(conversation, ann)
    assert gold_score.R < bob_grade.R  # Interstellar now L1 in the gold; ann's judgments untouched
    assert Nugget.objects.filter(annotator=ann).count() == 4
    row = score_table(campaign).set_index("conversation").loc[conversation.pk]
    assert row["judge"] == gold.pk and row["R"] == pytest.approx(gold_score.R)
    events = AnnotationEvent.objects.filter(annotator=gold, conversation=conversation, actor=org)
    assert events.filter(kind="entity", action="update").exists()


def test_the_gold_starts_as_a_copy_of_the_judge_so_no_score_moves_before_a_decision(two_annotators):
    _campaign, org, ann, bob, conversation, _other = two_annotators
    before = score_conversation(conversation, ann)
    gold = adjudication.start(conversation, actor=org, judge=ann.pk)
    after = score_conversation(conversation, gold)
    assert (after.R, after.GF, after.GFRC) == pytest.approx((before.R, before.GF, before.GFRC))
    assert TurnLabel.objects.get(annotator=gold).label == "o"


def test_taking_the_side_without_a_nugget_removes_it_from_the_gold(two_annotators):
    _campaign, org, ann, bob, conversation, _other = two_annotators
    primer = next(d for d in found(conversation, ann, bob).disagreements if d.kind == "span")
    adjudication.decide(conversation, primer.unit, actor=org, judge=ann.pk, take=bob)
    gold = adjudication.gold_account()
    assert not Nugget.objects.filter(annotator=gold, start_word=13).exists()
    again = found(conversation, ann, bob).find(primer.unit)
    assert again.settled and again.gold_matches == [bob]


def test_a_written_membership_and_label_become_the_gold(two_annotators):
    _campaign, org, ann, bob, conversation, _other = two_annotators
    listed = found(conversation, ann, bob).disagreements
    adjudication.decide(conversation, listed[1].unit, actor=org, judge=ann.pk, written=[0, 0.5, 0, 0.5])
    adjudication.decide(conversation, listed[3].unit, actor=org, judge=ann.pk, written="-")
    gold = adjudication.gold_account()
    assert Membership.objects.get(entity__annotator=gold, entity__name="Looper (2012)").vector == [0, 0.5, 0, 0.5]
    assert TurnLabel.objects.get(annotator=gold).label == "-"
    assert found(conversation, ann, bob).find(listed[3].unit).gold_matches == []


def test_a_span_cannot_be_written(two_annotators):
    _campaign, org, ann, bob, conversation, _other = two_annotators
    primer = next(d for d in found(conversation, ann, bob).disagreements if d.kind == "span")
    with pytest.raises(AnnotationRefused):
        adjudication.decide(conversation, primer.unit, actor=org, judge=ann.pk, written=None)


def test_undoing_a_decision_puts_the_gold_back_and_reopens_it(two_annotators):
    _campaign, org, ann, bob, conversation, _other = two_annotators
    unit = found(conversation, ann, bob).disagreements[0].unit
    adjudication.decide(conversation, unit, actor=org, judge=ann.pk, take=bob)
    undone = adjudication.undo_last_decision(conversation, actor=org)
    assert undone.description == "Undid: grade of Interstellar (2014) L2 -> L1"
    assert undone.unit == unit
    gold = adjudication.gold_account()
    again = found(conversation, ann, bob).find(unit)
    assert not again.settled and again.gold_matches == [ann]
    assert AnnotationEvent.objects.filter(annotator=gold, undo_of__isnull=False).count() == 1
    assert not AdjudicationDecision.objects.exists()
    assert adjudication.undo_last_decision(conversation, actor=org) is None


def test_a_grade_decision_applies_in_every_gold_conversation_of_the_topic(two_annotators):
    _campaign, org, ann, bob, conversation, other = two_annotators
    gold = adjudication.start(other, actor=org, judge=ann.pk)
    unit = found(conversation, ann, bob).disagreements[0].unit
    adjudication.decide(conversation, unit, actor=org, judge=ann.pk, take=bob)
    interstellar = Nugget.objects.get(annotator=gold, turn__conversation=other).entity
    assert interstellar.grade == Grade.objects.get(campaign=conversation.topic.campaign, label="L1")


def test_the_gold_account_cannot_log_in_and_is_nobodys_assignee(two_annotators):
    gold = adjudication.gold_account()
    assert not gold.is_active and not gold.has_usable_password()
    assert adjudication.gold_account() == gold


def test_exports_and_judge_comparisons_use_the_adjudicated_gold(two_annotators):
    from annotator.evaluation.judge_comparison import compare_judge
    from annotator.interchange.exports import catalogue as exporting
    from annotator.models import Assignment, AnnotatorProfile

    campaign, org, ann, bob, conversation, _other = two_annotators
    unit = found(conversation, ann, bob).disagreements[0].unit
    adjudication.decide(conversation, unit, actor=org, judge=ann.pk, take=bob)
    tsv = "".join(exporting.stream(campaign, "nuggets-tsv"))
    header, *rows = [line.split("\t") for line in tsv.splitlines()]
    interstellar = [dict(zip(header, row)) for row in rows if any("tt0816692" in cell for cell in row)]
    assert {(row["run"], row["grade"]) for row in interstellar} >= {("bing-trial1", "L1")}, tsv
    robot = make_user("robot")
    AnnotatorProfile.mark(robot)
    Assignment.objects.create(conversation=conversation, annotator=robot)
    mark(conversation, robot, 2, 3, 5, "L1", {"RATINGS": RATINGS_HIGH})
    comparison = compare_judge(campaign, robot)
    row = comparison.conversations.set_index("conversation").loc[conversation.pk]
    assert row["gold_R"] == pytest.approx(score_conversation(conversation, adjudication.gold_account()).R)


def test_a_decision_that_keeps_the_gold_says_so_with_wc_positions(two_annotators):
    _campaign, org, ann, bob, conversation, _other = two_annotators
    primer = next(d for d in found(conversation, ann, bob).disagreements if d.kind == "span")
    decision = adjudication.decide(conversation, primer.unit, actor=org, judge=ann.pk, take=ann)
    assert decision.description == "Primer (2004) in S1 kept WC 17-19"


# -- three annotators -----------------------------------------------------------------------


@pytest.fixture
def three(db):
    from tests.judgments.three_annotators import three_annotators

    return three_annotators()


def test_with_three_annotators_every_value_is_shown_with_who_gave_it_and_the_majority_named(three):
    listed = adjudication.adjudication(three.conversation, three.annotators).disagreements
    rows = [(d.what, [s.shown for s in d.said], d.majority.annotator.username if d.majority else None,
             d.dissenter.annotator.username if d.dissenter else None) for d in listed]
    assert rows == [
        ("grade of Interstellar (2014)", ["L2", "L2", "L1"], "ann", "carol"),
        ("RATINGS of Interstellar (2014)", ["(0,0,0,1)", "(0,0,0,1)", "(0,1,0,0)"], "ann", "carol"),
        ("Looper (2012): is fun. in S1", ["WC 12-16", "WC 12-14", "WC 12-14"], "bob", "ann"),
        ("RATINGS of Looper (2012): is fun.", ["(0,0,0,1)", "(0,1,0,0)", "(0,0,1,0)"], None, None),
        ("fun. Primer (2004) in S1", ["no nugget here", "no nugget here", "WC 16-19"], "ann", "carol"),
        ("label of S1", ["o", "o", "x"], "ann", "carol"),
    ]
    # Interstellar's span and its ORIGIN (given by nobody) are agreed by all three: not listed


def test_a_grade_is_only_taken_from_an_annotator_who_marked_the_entity(three):
    from tests.judgments.three_annotators import LOW

    dave = make_user("dave")
    from annotator.models import Assignment

    Assignment.objects.create(conversation=three.conversation, annotator=dave)
    mark(three.conversation, dave, 2, 3, 5, "L0", {"RATINGS": LOW})
    listed = adjudication.adjudication(three.conversation, [*three.annotators, dave]).disagreements
    looper = next(d for d in listed if d.what.startswith("RATINGS of Looper"))
    assert [s.shown for s in looper.said][3] == adjudication.NOT_MARKED and not looper.said[3].takeable


def test_taking_the_third_annotators_value_makes_it_the_gold(three):
    listed = adjudication.adjudication(three.conversation, three.annotators).disagreements
    grade = next(d for d in listed if d.kind == "grade")
    decision = adjudication.decide(three.conversation, grade.unit, actor=three.organiser, judge=three.ann.pk,
                                   take=three.carol)
    assert decision.description == "grade of Interstellar (2014) L2 -> L1"
    again = adjudication.adjudication(three.conversation, three.annotators).find(grade.unit)
    assert again.settled and again.gold_matches == [three.carol]


def test_in_a_conversation_that_branches_each_regenerated_answer_is_its_own_turn_to_settle(db):
    from annotator.models import Turn

    organiser, ann, bob = make_user("org"), make_user("ann"), make_user("bob")
    campaign = make_campaign("fw", organiser=organiser)
    conversation = make_conversation(campaign, [("U", "Time travel films?"), ("S", TEXT), ("S", "Primer (2004) only.")],
                                     annotators=[ann, bob])
    Turn.objects.filter(conversation=conversation, position=3).update(follows=1, number=1)  # a regenerated S1
    conversation.is_tree = True
    conversation.save()
    first, second = conversation.turns.get(position=2), conversation.turns.get(position=3)
    for turn, (ann_label, bob_label) in ((first, ("o", "x")), (second, ("x", "o"))):
        edits.set_turn_label(turn, annotator=ann, actor=ann, label=ann_label, expected_version=None)
        edits.set_turn_label(turn, annotator=bob, actor=bob, label=bob_label, expected_version=None)
    mark(conversation, ann, 3, 0, 1, "L2", {"RATINGS": RATINGS_HIGH})
    mark(conversation, bob, 3, 0, 1, "L1", {"RATINGS": RATINGS_HIGH})
    listed = found(conversation, ann, bob).disagreements
    labels = [d for d in listed if d.kind == "label"]
    # in WC order: the regenerated answer ends at word 6, the first at word 21
    assert [(d.parts, d.what) for d in labels] == [((3,), "label of S1"), ((2,), "label of S1")]
    grade = next(d for d in listed if d.kind == "grade")
    # the regenerated answer's words come after U1 alone, not after the first answer
    assert grade.where == "WC 4"  # in a line it would be WC 22
    adjudication.decide(conversation, labels[0].unit, actor=organiser, judge=ann.pk, take=bob)
    gold = adjudication.gold_account()
    assert TurnLabel.objects.get(turn=second, annotator=gold).label == "o"
    assert TurnLabel.objects.get(turn=first, annotator=gold).label == "o"  # the gold started as ann's copy
