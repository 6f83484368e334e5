"""Under the cumulative method a turn without a relevant nugget of its own is still an empty turn.

The paper (Section 3.1) computes an achieved distribution "for every system turn S that contains
a relevant nugget"; cumulative only widens what that distribution is built from (the relevant
nuggets of S and of the earlier turns). Issue 13's worked example, FOLLOWERS (4 ordinal groups,
uniform target, RNOD), L = 1250:

    S1 ends at word 30   nothing
    S2 ends at word 80   a, b, c at 40, 45, 50 in groups 2, 3, 4: D = (0, 1/3, 1/3, 1/3)
    S3 ends at word 120  a again at 100: a duplicate, so no relevant nugget
    S4 ends at word 200  d at 150 in group 1, e at 160 half 2 half 3: cumulative D = (0.2, 0.3, 0.3, 0.2)
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.gfrc import AttributeSet, NuggetTable, Settings, TurnTable, score
from scoring.reference import score_reference

FOLLOWERS = AttributeSet("FOLLOWERS", ("1", "2", "3", "4"), np.full(4, 0.25), "rnod", 1.0)
S2_SIM = 0.801627
S4_SIM = 0.935450


def followers_conversation() -> tuple[TurnTable, NuggetTable]:
    turns = TurnTable(conversation=np.zeros(4, dtype=int), end_wc=np.array([30, 80, 120, 200]))
    nuggets = NuggetTable(
        turn=np.array([1, 1, 1, 2, 3, 3]),
        wc=np.array([40, 45, 50, 100, 150, 160]),
        gain=np.ones(6),
        entity=np.array([0, 1, 2, 0, 3, 4]),
        membership={
            "FOLLOWERS": np.array(
                [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 1, 0, 0], [1, 0, 0, 0], [0, 0.5, 0.5, 0]],
                dtype=float,
            )
        },
    )
    return turns, nuggets


def run(**settings):
    turns, nuggets = followers_conversation()
    chosen = Settings(method="cumulative", **settings)
    return score(turns, nuggets, [FOLLOWERS], chosen, 1), score_reference(turns, nuggets, [FOLLOWERS], chosen, 1)


def test_a_cumulative_turn_pools_the_earlier_relevant_nuggets_with_its_own():
    scores, _ = run()
    assert scores.achieved["FOLLOWERS"][1].tolist() == pytest.approx([0, 1 / 3, 1 / 3, 1 / 3])
    assert scores.achieved["FOLLOWERS"][3].tolist() == pytest.approx([0.2, 0.3, 0.3, 0.2])
    assert scores.distr_sim[[1, 3], 0].tolist() == pytest.approx([S2_SIM, S4_SIM], abs=1e-6)


def test_cumulative_with_empty_turns_ignored_skips_a_turn_holding_only_duplicates():
    scores, reference = run(empty_turns="ignore")
    assert scores.scored.tolist() == [False, True, False, True]
    assert np.isnan(scores.achieved["FOLLOWERS"][2]).all()
    assert scores.GF[0] == pytest.approx(0.868539, abs=1e-6)
    assert reference.GF[0] == pytest.approx(scores.GF[0], abs=1e-9)


def test_cumulative_with_uniform_empty_turns_counts_the_turns_between_relevant_ones_as_uniform():
    scores, reference = run(empty_turns="uniform")
    assert scores.achieved["FOLLOWERS"][2].tolist() == [0.25, 0.25, 0.25, 0.25]
    assert scores.distr_sim[:, 0].tolist() == pytest.approx([1, S2_SIM, 1, S4_SIM], abs=1e-6)
    assert scores.GF[0] == pytest.approx(0.934269, abs=1e-6)
    assert reference.GF[0] == pytest.approx(scores.GF[0], abs=1e-9)


def test_max_pw_weighs_a_uniform_empty_turn_between_relevant_ones_by_the_pw_of_its_last_word():
    scores, reference = run(empty_turns="uniform", turn_weight="max_pw")
    pws = [1 - 29 / 1250, 1 - 39 / 1250, 1 - 119 / 1250, 1 - 149 / 1250]
    assert scores.turn_weight.tolist() == pytest.approx(pws)
    assert reference.turn_weight == pytest.approx(pws)
    expected = (pws[0] + pws[1] * S2_SIM + pws[2] + pws[3] * S4_SIM) / sum(pws)
    assert scores.GF[0] == pytest.approx(expected, abs=1e-6)
