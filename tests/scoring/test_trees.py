"""GFRC of conversations that branch (`scoring.trees`): the worked example of docs/scoring.md
("Conversations that branch"), linear conversations scored as before, bad trees refused with
their conversation and turn row, and the rules for the probability of a branch.

The worked example (L = 100, N = 50.5; GENDER: female / male, uniform target, JSD):

    U1  words 1-5
    S1a words 6-30  (p 0.7)  A at 10 (g 1, female), B at 20 (g 1, male)
    S1b words 6-25  (p 0.3)  A at 12 (g 0.5, female)
      after S1a: U2a 31-35, S2a 36-60   A at 40 again (a duplicate on this path), C at 50 (g 1, female)
      after S1b: U2b 26-30, S2b 31-50   B at 35 (g 1, male: a first mention on this path), D at 45 (g 0.5, male)
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.gfrc import AttributeSet, NuggetTable, Settings, TurnTable, score
from scoring.trees import Tree, TreeError, path_probabilities, per_path_tables, score_trees

GENDER = AttributeSet("GENDER", ("female", "male"), np.array([0.5, 0.5]), "jsd")
FEMALE, MALE = (1.0, 0.0), (0.0, 1.0)
A, B, C, D = range(4)
EXAMPLE = Settings(patience=100)
ONE_HOT_SIM = 0.688722  # 1 - JSD((1, 0) || (1/2, 1/2)) = 1 - (0.415037 + 0.207519) / 2
TWO_THIRDS_SIM = 0.979279  # 1 - JSD((2/3, 1/3) || (1/2, 1/2))


def example_tables() -> tuple[TurnTable, NuggetTable]:
    """Rows: 0 S1a, 1 S1b, 2 S2a (child of S1a), 3 S2b (child of S1b)."""
    turns = TurnTable(conversation=np.zeros(4, dtype=int), end_wc=np.array([30, 25, 60, 50]))
    rows = [(0, 10, 1.0, A, FEMALE), (0, 20, 1.0, B, MALE), (1, 12, 0.5, A, FEMALE),
            (2, 40, 1.0, A, FEMALE), (2, 50, 1.0, C, FEMALE), (3, 35, 1.0, B, MALE), (3, 45, 0.5, D, MALE)]
    nuggets = NuggetTable(
        turn=np.array([r[0] for r in rows]), wc=np.array([r[1] for r in rows]),
        gain=np.array([r[2] for r in rows]), entity=np.array([r[3] for r in rows]),
        membership={"GENDER": np.array([r[4] for r in rows])},
    )
    return turns, nuggets


def example(p=(0.7, 0.3, np.nan, np.nan), settings: Settings = EXAMPLE):
    turns, nuggets = example_tables()
    return score_trees(turns, nuggets, Tree(parent=np.array([-1, -1, 0, 1]), p=np.array(p)), [GENDER], settings, 1)


# --- the worked example -------------------------------------------------------------------


def test_the_worked_example_has_one_path_per_regeneration_each_with_its_own_follow_up():
    paths = example().paths
    assert [paths.rows(k).tolist() for k in range(len(paths))] == [[0, 2], [1, 3]]
    assert paths.probability.tolist() == [0.7, 0.3]
    assert paths.leaf.tolist() == [2, 3]
    assert paths.conversation.tolist() == [0, 0]


def test_the_worked_example_scores_each_path_as_the_linear_conversation_it_is():
    scores = example().per_path
    # path a: A 0.91, B 0.81, C 0.51 (A again at 40 is a duplicate); path b: 0.89 x 0.5, 0.66, 0.56 x 0.5
    assert scores.R.tolist() == pytest.approx([2.23 / 50.5, 1.385 / 50.5])
    assert scores.R.tolist() == pytest.approx([0.044158, 0.027426], abs=1e-6)
    # S1a (1/2, 1/2) 1, S2a (1, 0); S1b (1, 0), S2b (0, 1)
    assert scores.distr_sim[:, 0].tolist() == pytest.approx([1.0, ONE_HOT_SIM, ONE_HOT_SIM, ONE_HOT_SIM], abs=1e-6)
    assert scores.GF.tolist() == pytest.approx([0.844361, 0.688722], abs=1e-6)
    assert scores.GFRC.tolist() == pytest.approx([0.444260, 0.358074], abs=1e-6)


def test_a_duplicate_counts_only_along_its_own_path():
    tree = example()
    duplicate = dict(zip(zip(tree.nugget_rows.tolist(), tree.turns.conversation[tree.nuggets.turn].tolist()),
                         tree.per_path.duplicate.tolist()))
    assert duplicate[(3, 0)]  # A at 40 on path a: named at 10 by S1a
    assert not duplicate[(5, 1)]  # B at 35 on path b: S1a, which named B, is not on path b


def test_the_worked_example_expects_seven_tenths_of_one_path_and_three_tenths_of_the_other():
    tree = example()
    assert tree.R[0] == pytest.approx((0.7 * 2.23 + 0.3 * 1.385) / 50.5)
    assert tree.R[0] == pytest.approx(0.039139, abs=1e-6)
    assert tree.GF[0] == pytest.approx(0.7 * (1 + ONE_HOT_SIM) / 2 + 0.3 * ONE_HOT_SIM, abs=1e-6)
    assert tree.GF[0] == pytest.approx(0.797669, abs=1e-6)
    assert tree.GF_by_set()["GENDER"].tolist() == tree.GF.tolist()
    assert tree.GFRC[0] == pytest.approx(0.418404, abs=1e-6)
    assert tree.GFRC[0] == pytest.approx(0.5 * tree.R[0] + 0.5 * tree.GF[0])


def test_the_worked_example_without_p_weighs_the_two_regenerations_equally():
    tree = example(p=(np.nan,) * 4)
    assert tree.paths.probability.tolist() == [0.5, 0.5]
    assert tree.R[0] == pytest.approx(0.035792, abs=1e-6)
    assert tree.GF[0] == pytest.approx(0.766541, abs=1e-6)
    assert tree.GFRC[0] == pytest.approx(0.401167, abs=1e-6)


def test_the_worked_example_under_the_cumulative_method_pools_only_the_turns_of_each_path():
    tree = example(settings=Settings(patience=100, method="cumulative"))
    # S2a pools A, B (S1a) and C: (2/3, 1/3); S2b pools A (S1b), B and D: (1/3, 2/3), never S1a's nuggets
    assert tree.per_path.achieved["GENDER"][[1, 3]].ravel().tolist() == pytest.approx([2 / 3, 1 / 3, 1 / 3, 2 / 3])
    assert tree.per_path.GF.tolist() == pytest.approx([0.989640, 0.834001], abs=1e-6)
    assert tree.GF[0] == pytest.approx(0.7 * (1 + TWO_THIRDS_SIM) / 2 + 0.3 * (ONE_HOT_SIM + TWO_THIRDS_SIM) / 2, abs=1e-6)
    assert tree.GF[0] == pytest.approx(0.942948, abs=1e-6)
    assert tree.GFRC[0] == pytest.approx(0.491043, abs=1e-6)


# --- linear conversations -----------------------------------------------------------------


def test_a_linear_conversation_scores_as_it_did():
    turns, nuggets = example_tables()
    turns = TurnTable(conversation=np.zeros(2, dtype=int), end_wc=np.array([30, 60]))  # S1a, S2a
    keep = np.isin(nuggets.turn, [0, 2])
    nuggets = NuggetTable(turn=np.where(nuggets.turn[keep] == 2, 1, 0), wc=nuggets.wc[keep], gain=nuggets.gain[keep],
                          entity=nuggets.entity[keep], membership={"GENDER": nuggets.membership["GENDER"][keep]})
    before = score(turns, nuggets, [GENDER], EXAMPLE, 1)
    tree = score_trees(turns, nuggets, Tree.linear(turns), [GENDER], EXAMPLE, 1)
    for name in ("R", "GF_m", "GF", "GFRC"):
        assert np.array_equal(getattr(tree, name), getattr(before, name))
    assert tree.R[0] == example().per_path.R[0]  # path a of the worked example, scored alone


def test_a_linear_campaign_goes_to_score_as_it_is():
    turns, nuggets = example_tables()
    turns = TurnTable(conversation=np.array([0, 1, 1, 2]), end_wc=turns.end_wc)
    paths = path_probabilities(turns, Tree.linear(turns), 4)  # conversation 3 has no turn
    assert paths.identity and paths.linear.tolist() == [True] * 4
    assert paths.probability.tolist() == [1.0] * 4
    assert paths.leaf.tolist() == [0, 2, 3, -1]
    assert [paths.rows(k).tolist() for k in range(4)] == [[0], [1, 2], [3], []]
    path_turns, path_nuggets, rows = per_path_tables(turns, nuggets, paths)
    assert path_turns is turns and path_nuggets is nuggets and rows.tolist() == list(range(len(nuggets)))


def test_a_conversation_without_turns_has_one_empty_path_scored_zero_beside_a_branching_one():
    turns, nuggets = example_tables()
    tree = score_trees(turns, nuggets, Tree(parent=np.array([-1, -1, 0, 1])), [GENDER], EXAMPLE, 2)
    assert tree.paths.conversation.tolist() == [0, 0, 1]
    assert tree.paths.leaf.tolist() == [2, 3, -1]
    assert tree.paths.probability.tolist() == [0.5, 0.5, 1.0]
    assert (tree.R[1], tree.GF[1], tree.GFRC[1]) == (0.0, 0.0, 0.0)


def test_probabilities_multiply_down_a_path():
    #   0 (root) -> 1 (p 0.25), 2 (p 0.75); 2 -> 3, 4 (no p: 1/2 each); 4 -> 5 (an only child)
    turns = TurnTable(conversation=np.zeros(6, dtype=int), end_wc=np.array([10, 20, 20, 30, 30, 40]))
    tree = Tree(parent=np.array([-1, 0, 0, 2, 2, 4]), p=np.array([np.nan, 0.25, 0.75, np.nan, np.nan, np.nan]))
    paths = path_probabilities(turns, tree, 1)
    assert [paths.rows(k).tolist() for k in range(len(paths))] == [[0, 1], [0, 2, 3], [0, 2, 4, 5]]
    assert paths.probability.tolist() == [0.25, 0.375, 0.375]


# --- bad trees ----------------------------------------------------------------------------


def refusal(parent, conversation=None, p=None) -> TreeError:
    parent = np.array(parent)
    conversation = np.zeros(parent.size, dtype=int) if conversation is None else np.array(conversation)
    turns = TurnTable(conversation=conversation, end_wc=np.arange(1, parent.size + 1) * 10)
    with pytest.raises(TreeError) as caught:
        path_probabilities(turns, Tree(parent=parent, p=None if p is None else np.array(p, dtype=float)),
                           int(conversation.max()) + 1)
    assert isinstance(caught.value, ValueError)
    return caught.value


def test_a_parent_in_another_conversation_is_refused_naming_the_conversation_and_the_turn():
    error = refusal([-1, 0, -1, 0], conversation=[0, 0, 1, 1])
    assert (error.conversation, error.turn) == (1, 3)
    assert str(error) == "conversation 1, turn row 3: its parent, row 0, is not a turn of conversation 1"


@pytest.mark.parametrize("parent", [7, -2])
def test_a_parent_that_is_no_row_at_all_is_refused(parent):
    error = refusal([-1, 0, parent])
    assert (error.conversation, error.turn) == (0, 2)
    assert f"its parent, row {parent}, is not a turn of conversation 0" in str(error)


@pytest.mark.parametrize("parent, turn", [
    ([-1, 2, 0], 1),  # a parent listed after its child
    ([-1, 1, 0], 1),  # a turn its own parent
    ([-1, 2, 1], 1),  # a loop: 1 -> 2 -> 1
])
def test_a_parent_after_its_child_or_a_loop_is_refused_at_the_first_row_out_of_order(parent, turn):
    error = refusal(parent, conversation=[3, 3, 3])
    assert (error.conversation, error.turn) == (3, turn)
    assert "does not come before it" in str(error)


def test_rows_not_grouped_by_conversation_are_refused():
    error = refusal([-1, -1, -1], conversation=[0, 1, 0])
    assert (error.conversation, error.turn) == (0, 2)
    assert "grouped by conversation" in str(error)


def test_a_tree_of_another_length_than_the_turn_table_is_refused():
    turns, _ = example_tables()
    with pytest.raises(ValueError, match="the tree has 3 rows but the TurnTable 4"):
        path_probabilities(turns, Tree(parent=np.array([-1, 0, 1])), 1)


# --- the probability of a branch ----------------------------------------------------------


def probabilities(parent, p) -> list[float]:
    turns = TurnTable(conversation=np.zeros(len(parent), dtype=int), end_wc=np.arange(1, len(parent) + 1))
    return path_probabilities(turns, Tree(parent=np.array(parent), p=np.array(p, dtype=float)), 1).probability.tolist()


def test_children_without_p_are_equally_likely():
    assert probabilities([-1, 0, 0, 0], [np.nan] * 4) == pytest.approx([1 / 3] * 3)
    assert probabilities([-1, -1], [np.nan, np.nan]) == [0.5, 0.5]  # two roots: regenerations of the first answer


def test_children_without_p_share_what_the_given_ones_leave():
    assert probabilities([-1, 0, 0, 0], [np.nan, 0.5, np.nan, np.nan]) == [0.5, 0.25, 0.25]
    assert probabilities([-1, 0, 0], [np.nan, 1.0, np.nan]) == [1.0, 0.0]  # nothing left: a path of probability 0


def test_given_p_are_used_as_given_when_they_sum_to_one_within_a_millionth():
    assert probabilities([-1, 0, 0], [np.nan, 0.7, 0.3]) == [0.7, 0.3]
    assert probabilities([-1, 0, 0], [np.nan, 0.7, 0.3 - 5e-7]) == [0.7, 0.3 - 5e-7]


def test_an_only_child_is_certain_whatever_its_p_within_a_millionth_of_one():
    assert probabilities([-1, 0], [1 - 5e-7, 1 - 5e-7]) == [1.0]


def test_given_p_that_do_not_sum_to_one_are_refused_naming_the_siblings():
    error = refusal([-1, 0, 0], p=[np.nan, 0.5, 0.4])
    assert (error.conversation, error.turn) == (0, 1)
    assert "the p of the children of turn row 0 (rows 1, 2) are all given and sum to 0.9" in str(error)
    error = refusal([-1, -1], p=[0.5, 0.4])
    assert "the p of the roots of conversation 0 (rows 0, 1) are all given and sum to 0.9" in str(error)
    assert "not 1" in str(refusal([-1, 0], p=[np.nan, 0.5]))  # an only child's given p is 1


def test_given_p_over_one_are_refused_even_when_siblings_lack_one():
    error = refusal([-1, 0, 0, 0], p=[np.nan, np.nan, 0.6, 0.5])
    assert (error.conversation, error.turn) == (0, 1)
    assert "the given p of the children of turn row 0 (rows 1, 2, 3) sum to 1.1" in str(error)


@pytest.mark.parametrize("p", [-0.1, 1.5, np.inf])
def test_a_p_that_is_no_probability_is_refused(p):
    error = refusal([-1, 0, 0], p=[np.nan, p, np.nan])
    assert (error.conversation, error.turn) == (0, 1)
    assert f"p = {p!r} is not a probability in [0, 1]" in str(error)


def test_the_system_tree_of_every_turn_folds_user_turns_into_the_answers_after_them():
    from scoring.trees import system_tree

    # U1 -> S1a (0.7) | S1b (0.3); S1a -> U2a -> S2a; S1b -> U2b (0.5) -> S2b and U2c (0.5), unanswered
    conversation = np.zeros(8, dtype=np.int64)
    parent = np.array([-1, 0, 0, 1, 3, 2, 5, 2])
    p = np.array([np.nan, 0.7, 0.3, np.nan, np.nan, 0.5, np.nan, 0.5])
    is_system = np.array([0, 1, 1, 0, 1, 0, 1, 0], dtype=bool)
    tree, rows = system_tree(conversation, parent, p, is_system, 1)
    assert rows.tolist() == [1, 2, 4, 6]
    assert tree.parent.tolist() == [-1, -1, 0, 1]
    # S2b had 0.5 of S1b's branches; the unanswered U2c's half goes to the answered one
    assert tree.p.tolist() == [0.7, 0.3, 1.0, 1.0]


def test_an_edited_question_makes_its_answers_siblings():
    from scoring.trees import system_tree

    # U1 -> S1 -> U2 (p 0.6) -> S2 | U2' (p 0.4) -> S2'
    conversation = np.zeros(6, dtype=np.int64)
    parent = np.array([-1, 0, 1, 2, 1, 4])
    p = np.array([np.nan, np.nan, 0.6, np.nan, 0.4, np.nan])
    is_system = np.array([0, 1, 0, 1, 0, 1], dtype=bool)
    tree, rows = system_tree(conversation, parent, p, is_system, 1)
    assert rows.tolist() == [1, 3, 5]
    assert tree.parent.tolist() == [-1, 0, 0]
    assert np.allclose(tree.p, [1.0, 0.6, 0.4])
