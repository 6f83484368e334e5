"""The vectorised `score` equals the plain-Python reference on random campaigns, every setting.

Campaigns are drawn with few entities per conversation (so duplicates within and across turns
are common), empty turns and conversations, gains of zero, nuggets past the patience, soft
and one-hot memberships, targets with empty groups, and zero attribute-set weights.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings
from hypothesis import strategies as st

from scoring.divergence import DIVERGENCES
from scoring.gfrc import AttributeSet, NuggetTable, Settings, TurnTable, score
from scoring.reference import score_reference

ALL_SETTINGS = [
    dict(method=m, empty_turns=e, turn_weight=w, duplicates_count_once=d)
    for m, e, w, d in itertools.product(
        ("independent", "cumulative"), ("ignore", "uniform"), ("one", "max_pw"), (True, False)
    )
]


@st.composite
def probability_vectors(draw, k: int) -> list[float]:
    kind = draw(st.sampled_from(["one-hot", "soft", "uniform"]))
    if kind == "one-hot":
        vector = [0.0] * k
        vector[draw(st.integers(0, k - 1))] = 1.0
        return vector
    if kind == "uniform":
        return [1.0 / k] * k
    weights = draw(st.lists(st.integers(0, 6), min_size=k, max_size=k))
    if sum(weights) == 0:
        weights[0] = 1
    return [w / sum(weights) for w in weights]


@st.composite
def attribute_sets(draw) -> tuple[AttributeSet, ...]:
    sets = []
    for index in range(draw(st.integers(0, 3))):
        k = draw(st.integers(1, 6))
        sets.append(
            AttributeSet(
                name=f"A{index}",
                groups=tuple(f"g{g}" for g in range(k)),
                target=np.array(draw(probability_vectors(k))),
                divergence=draw(st.sampled_from(sorted(DIVERGENCES))),
                weight=draw(st.sampled_from([0.0, 0.5, 1.0, 2.0])),
            )
        )
    return tuple(sets)


@st.composite
def campaigns(draw):
    """(turns, nuggets, attribute sets, n_conversations): a random flattened campaign."""
    sets = draw(attribute_sets())
    n_conv = draw(st.integers(0, 4))
    turn_conv, turn_end, rows = [], [], []
    for conversation in range(n_conv):
        position = 0
        for _ in range(draw(st.integers(0, 4))):
            position += draw(st.integers(1, 40))  # the user turn before this system turn
            length = draw(st.integers(1, 60))
            turn = len(turn_conv)
            offsets = draw(st.lists(st.integers(1, length), max_size=5, unique=True))
            for offset in offsets:
                rows.append(
                    dict(
                        turn=turn,
                        wc=position + offset,
                        gain=draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0.0, 1.0)),
                        entity=draw(st.integers(0, 4)),
                        membership={a.name: draw(probability_vectors(a.n_groups)) for a in sets},
                    )
                )
            position += length
            turn_conv.append(conversation)
            turn_end.append(position)
    order = draw(st.permutations(range(len(rows))))  # nugget rows come in any order
    rows = [rows[i] for i in order]
    for row in rows:  # nonrelevant rows may hold junk: score must never read them
        if row["gain"] == 0.0:
            row["membership"] = {name: [np.nan] * len(v) for name, v in row["membership"].items()}
    turns = TurnTable(conversation=np.array(turn_conv, dtype=int), end_wc=np.array(turn_end, dtype=int))
    nuggets = NuggetTable(
        turn=np.array([r["turn"] for r in rows], dtype=int),
        wc=np.array([r["wc"] for r in rows], dtype=int),
        gain=np.array([r["gain"] for r in rows], dtype=float),
        entity=np.array([r["entity"] for r in rows], dtype=int),
        membership={
            a.name: np.array([r["membership"][a.name] for r in rows], dtype=float).reshape(len(rows), a.n_groups)
            for a in sets
        },
    )
    return turns, nuggets, sets, n_conv


def assert_same_scores(fast, slow) -> None:
    assert fast.R.tolist() == pytest.approx(slow.R, abs=1e-9)
    assert fast.GF.tolist() == pytest.approx(slow.GF, abs=1e-9)
    assert fast.GFRC.tolist() == pytest.approx(slow.GFRC, abs=1e-9)
    for fast_row, slow_row in zip(fast.GF_m.tolist(), slow.GF_m, strict=True):
        assert fast_row == pytest.approx(slow_row, abs=1e-9)
    assert fast.effective_gain.tolist() == slow.effective_gain
    assert fast.turn_weight.tolist() == pytest.approx(slow.turn_weight, abs=1e-12)
    for turn, slow_sims in enumerate(slow.distr_sim):
        if slow_sims is None:
            assert not fast.scored[turn] and np.isnan(fast.distr_sim[turn]).all()
        else:
            assert fast.scored[turn]
            assert fast.distr_sim[turn].tolist() == pytest.approx(slow_sims, abs=1e-9)


@hypothesis_settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    campaign=campaigns(),
    choice=st.sampled_from(ALL_SETTINGS),
    patience=st.sampled_from([1, 20, 100, 1250]),
    alpha=st.sampled_from([0.0, 0.3, 0.5, 1.0]),
)
def test_vectorised_score_equals_the_plain_python_reference_on_random_campaigns(campaign, choice, patience, alpha):
    turns, nuggets, sets, n_conv = campaign
    gfrc_settings = Settings(patience=patience, alpha=alpha, **choice)
    assert_same_scores(
        score(turns, nuggets, sets, gfrc_settings, n_conv),
        score_reference(turns, nuggets, sets, gfrc_settings, n_conv),
    )


@pytest.mark.parametrize("choice", ALL_SETTINGS, ids=lambda c: "-".join(str(v) for v in c.values()))
@hypothesis_settings(max_examples=40, deadline=None)
@given(campaign=campaigns())
def test_every_combination_of_settings_agrees_with_the_reference(choice, campaign):
    turns, nuggets, sets, n_conv = campaign
    gfrc_settings = Settings(patience=100, **choice)
    assert_same_scores(
        score(turns, nuggets, sets, gfrc_settings, n_conv),
        score_reference(turns, nuggets, sets, gfrc_settings, n_conv),
    )
