"""Each GFRC setting on a small conversation whose figures can be worked out on paper.

The conversation (patience L = 100, so pw(n) = 1 - (WC - 1)/100 and N = 50.5):

    S1 ends at word 20  an L0 nugget X at 15 (no gain, membership unknown)
    S2 ends at word 40  A at 31: pw 0.7, g 1,   membership (1, 0)
    S3 ends at word 60  nothing
    S4 ends at word 90  B at 71: pw 0.3, g 0.5, membership (0.2, 0.8)
                        A again at 81: pw 0.2, g 1 -> a duplicate by default

One ordinal attribute set of two bands, target (0.5, 0.5), NMD: DistrSim = 1 - |p_1 - 0.5|.
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.gfrc import AttributeSet, NuggetTable, Settings, TurnTable, score

L = 100
BANDS = AttributeSet("BANDS", ("low", "high"), np.array([0.5, 0.5]), "nmd", 1.0)
X, A, B = 0, 1, 2


def conversation() -> tuple[TurnTable, NuggetTable]:
    turns = TurnTable(conversation=np.zeros(4, dtype=int), end_wc=np.array([20, 40, 60, 90]))
    # rows deliberately out of reading order: the table is "any order"
    nuggets = NuggetTable(
        turn=np.array([3, 1, 0, 3]),
        wc=np.array([81, 31, 15, 71]),
        gain=np.array([1.0, 1.0, 0.0, 0.5]),
        entity=np.array([A, A, X, B]),
        membership={"BANDS": np.array([[1.0, 0.0], [1.0, 0.0], [np.nan, np.nan], [0.2, 0.8]])},
    )
    return turns, nuggets


def run(**settings) -> object:
    turns, nuggets = conversation()
    return score(turns, nuggets, [BANDS], Settings(patience=L, **settings), 1)


def test_default_settings_ignore_empty_turns_and_drop_the_repeated_entity():
    scores = run()
    assert scores.duplicate.tolist() == [True, False, False, False]
    assert scores.effective_gain.tolist() == [0.0, 1.0, 0.0, 0.5]
    assert scores.R[0] == pytest.approx((0.7 * 1 + 0.3 * 0.5) / 50.5)
    assert scores.scored.tolist() == [False, True, False, True]
    assert scores.achieved["BANDS"][3].tolist() == pytest.approx([0.2, 0.8])
    assert np.isnan(scores.achieved["BANDS"][[0, 2]]).all()
    assert scores.distr_sim[[1, 3], 0].tolist() == pytest.approx([0.5, 0.7])
    assert scores.GF[0] == pytest.approx(0.6)
    assert scores.GFRC[0] == pytest.approx(0.5 * 0.85 / 50.5 + 0.5 * 0.6)


def test_with_duplicates_counted_every_mention_gains_and_joins_the_distribution():
    scores = run(duplicates_count_once=False)
    assert not scores.duplicate.any()
    assert scores.R[0] == pytest.approx((0.7 + 0.15 + 0.2) / 50.5)
    assert scores.achieved["BANDS"][3].tolist() == pytest.approx([0.6, 0.4])
    assert scores.GF[0] == pytest.approx((0.5 + 0.9) / 2)


def test_cumulative_method_pools_all_relevant_nuggets_so_far_but_ignores_turns_that_add_none():
    scores = run(method="cumulative")
    assert scores.scored.tolist() == [False, True, False, True]  # S3 has no relevant nugget of its own
    assert np.isnan(scores.achieved["BANDS"][2]).all()
    assert scores.achieved["BANDS"][3].tolist() == pytest.approx([0.6, 0.4])  # A and B, not A's repeat
    assert scores.GF[0] == pytest.approx((0.5 + 0.9) / 2)


def test_uniform_empty_turns_count_a_turn_without_relevant_nuggets_as_perfectly_fair():
    scores = run(empty_turns="uniform")
    assert scores.scored.all()
    assert scores.achieved["BANDS"][[0, 2]].tolist() == [[0.5, 0.5], [0.5, 0.5]]
    assert scores.GF[0] == pytest.approx((1 + 0.5 + 1 + 0.7) / 4)


def test_cumulative_with_uniform_empty_turns_treats_every_turn_without_its_own_relevant_nugget_as_empty():
    scores = run(method="cumulative", empty_turns="uniform")
    assert scores.achieved["BANDS"][0].tolist() == [0.5, 0.5]
    assert scores.achieved["BANDS"][2].tolist() == [0.5, 0.5]  # after S2's A, still empty
    assert scores.GF[0] == pytest.approx((1 + 0.5 + 1 + 0.9) / 4)


def test_max_pw_weights_each_turn_by_its_best_placed_relevant_nugget():
    scores = run(turn_weight="max_pw")
    assert scores.turn_weight.tolist() == pytest.approx([0, 0.7, 0, 0.3])  # A's repeat (pw .2) is not relevant
    assert scores.GF[0] == pytest.approx((0.7 * 0.5 + 0.3 * 0.7) / (0.7 + 0.3))


def test_max_pw_with_duplicates_counted_takes_the_largest_pw_of_the_turn():
    scores = run(turn_weight="max_pw", duplicates_count_once=False)
    assert scores.turn_weight.tolist() == pytest.approx([0, 0.7, 0, 0.3])
    assert scores.GF[0] == pytest.approx((0.7 * 0.5 + 0.3 * 0.9) / 1.0)


def test_max_pw_weights_a_uniform_empty_turn_by_the_pw_of_its_last_word():
    scores = run(turn_weight="max_pw", empty_turns="uniform")
    assert scores.turn_weight.tolist() == pytest.approx([0.81, 0.7, 0.41, 0.3])
    assert scores.GF[0] == pytest.approx((0.81 * 1 + 0.7 * 0.5 + 0.41 * 1 + 0.3 * 0.7) / 2.22)


def test_max_pw_gives_a_cumulative_turn_without_new_nuggets_no_weight_when_empty_turns_are_ignored():
    scores = run(turn_weight="max_pw", method="cumulative")
    assert scores.turn_weight.tolist() == pytest.approx([0, 0.7, 0, 0.3])
    assert scores.GF[0] == pytest.approx((0.7 * 0.5 + 0.3 * 0.9) / 1.0)


def test_alpha_moves_gfrc_between_gf_and_r():
    assert run(alpha=0.0).GFRC[0] == pytest.approx(0.6)
    assert run(alpha=1.0).GFRC[0] == pytest.approx(0.85 / 50.5)


# --- duplicates in detail --------------------------------------------------------------------


def single_turn(wcs, gains, entities, conversations=None):
    n_conv = 1 if conversations is None else max(conversations) + 1
    turn_conv = [0] if conversations is None else list(range(n_conv))
    turns = TurnTable(conversation=np.array(turn_conv), end_wc=np.full(len(turn_conv), 200))
    turn_of = [0] * len(wcs) if conversations is None else conversations
    nuggets = NuggetTable(
        turn=np.array(turn_of), wc=np.array(wcs), gain=np.array(gains, dtype=float), entity=np.array(entities),
        membership={"BANDS": np.tile([1.0, 0.0], (len(wcs), 1))},
    )
    return score(turns, nuggets, [BANDS], Settings(patience=L), n_conv)


def test_a_repeat_within_one_turn_is_a_duplicate_and_the_earliest_mention_keeps_the_gain():
    scores = single_turn(wcs=[60, 20, 40], gains=[1.0, 0.5, 1.0], entities=[7, 7, 7])
    assert scores.duplicate.tolist() == [True, False, True]
    assert scores.effective_gain.tolist() == [0.0, 0.5, 0.0]


def test_an_entity_first_mentioned_without_gain_makes_its_later_mentions_duplicates_too():
    """The contract: the first occurrence by position keeps its gain, whatever that gain is."""
    scores = single_turn(wcs=[10, 30], gains=[0.0, 1.0], entities=[7, 7])
    assert scores.duplicate.tolist() == [False, True]
    assert scores.R[0] == 0.0
    assert scores.GF[0] == 0.0


def test_the_same_entity_in_different_conversations_is_not_a_duplicate():
    scores = single_turn(wcs=[1, 1], gains=[1.0, 1.0], entities=[7, 7], conversations=[0, 1])
    assert not scores.duplicate.any()
    assert scores.R.tolist() == pytest.approx([1 / 50.5, 1 / 50.5])


# --- attribute-set weights, empty inputs, validation ---------------------------------------------


def test_attribute_set_weights_are_normalised_and_all_zero_weights_mean_equal_weights():
    turns, nuggets = conversation()
    nuggets.membership["JSD"] = nuggets.membership["BANDS"]
    nominal = AttributeSet("JSD", ("a", "b"), np.array([0.5, 0.5]), "jsd", 1.0)
    ordinal3 = AttributeSet("BANDS", ("low", "high"), np.array([0.5, 0.5]), "nmd", 3.0)
    weighted = score(turns, nuggets, [ordinal3, nominal], Settings(patience=L), 1)
    assert weighted.attribute_weights.tolist() == [0.75, 0.25]
    assert weighted.GF[0] == pytest.approx(0.75 * weighted.GF_m[0, 0] + 0.25 * weighted.GF_m[0, 1])
    zeros = [AttributeSet(a.name, a.groups, a.target, a.divergence, 0.0) for a in (ordinal3, nominal)]
    equal = score(turns, nuggets, zeros, Settings(patience=L), 1)
    assert equal.attribute_weights.tolist() == [0.5, 0.5]


def test_a_conversation_without_relevant_nuggets_has_gf_zero():
    scores = single_turn(wcs=[10], gains=[0.0], entities=[1])
    assert scores.scored.tolist() == [False]
    assert scores.GF_m.tolist() == [[0.0]] and scores.GF.tolist() == [0.0]


def test_nuggets_beyond_the_patience_are_relevant_but_worth_nothing():
    scores = single_turn(wcs=[150], gains=[1.0], entities=[1])
    assert scores.pw.tolist() == [0.0] and scores.R.tolist() == [0.0]
    assert scores.scored.tolist() == [True] and scores.GF[0] == pytest.approx(0.5)


def empty_nuggets() -> NuggetTable:
    return NuggetTable(turn=[], wc=[], gain=[], entity=[], membership={})


@pytest.mark.parametrize("gfrc_settings", [Settings(), Settings(method="cumulative", empty_turns="uniform",
                                                             turn_weight="max_pw")])
def test_empty_campaigns_score_without_error(gfrc_settings):
    nothing = score(TurnTable([], []), empty_nuggets(), [BANDS], gfrc_settings, 0)
    assert nothing.R.shape == (0,) and nothing.GF_m.shape == (0, 1) and nothing.distr_sim.shape == (0, 1)
    no_turns = score(TurnTable([], []), empty_nuggets(), [BANDS], gfrc_settings, 3)
    assert no_turns.GFRC.tolist() == [0.0, 0.0, 0.0]
    no_nuggets = score(TurnTable([0, 0, 2], [10, 30, 40]), empty_nuggets(), [BANDS], gfrc_settings, 3)
    assert no_nuggets.R.tolist() == [0.0, 0.0, 0.0]
    expected_gf = [1.0, 0.0, 1.0] if gfrc_settings.empty_turns == "uniform" else [0.0, 0.0, 0.0]
    assert no_nuggets.GF.tolist() == pytest.approx(expected_gf)
    no_sets = score(TurnTable([0], [10]), empty_nuggets(), [], gfrc_settings, 1)
    assert no_sets.GF_m.shape == (1, 0) and no_sets.GF.tolist() == [0.0]


def test_score_refuses_turns_not_grouped_by_conversation():
    with pytest.raises(ValueError, match="ordered by conversation"):
        score(TurnTable([1, 0], [10, 20]), empty_nuggets(), [BANDS], Settings(), 2)


def test_score_refuses_a_relevant_nugget_without_a_membership():
    turns, nuggets = conversation()
    nuggets.membership["BANDS"][1] = np.nan
    with pytest.raises(ValueError, match="membership"):
        score(turns, nuggets, [BANDS], Settings(patience=L), 1)


@pytest.mark.parametrize(
    "bad", [dict(method="both"), dict(empty_turns="skip"), dict(turn_weight="min_pw"), dict(patience=0),
            dict(alpha=1.5)],
)
def test_settings_refuse_unknown_choices(bad):
    with pytest.raises(ValueError):
        Settings(**bad)


def test_attribute_sets_refuse_a_target_that_is_not_a_distribution_and_compare_by_value():
    with pytest.raises(ValueError, match="sums to"):
        AttributeSet("X", ("a", "b"), np.array([0.5, 0.6]), "jsd", 1.0)
    same = AttributeSet("BANDS", ("low", "high"), [0.5, 0.5], "nmd", 1.0)
    assert same == BANDS and hash(same) == hash(BANDS)
    assert not same.target.flags.writeable
