"""A conversation's figures do not depend on what it is scored beside: the stored figures score a
campaign's conversations together, the workspace panel one alone, and every export and page
must show the same bits. (Matrix products round a row differently by where it falls in the
matrix; these tests failed when the divergences, GF and the ranked-list measures used `@`.)"""

from __future__ import annotations

import numpy as np
import pytest

from scoring import gfr
from scoring.divergence import DIVERGENCES, distr_sim
from scoring.gfrc import AttributeSet, NuggetTable, Settings, TurnTable, score

SETS = (
    AttributeSet("RATINGS", tuple("abcd"), np.array([0.25, 0.25, 0.25, 0.25]), "rnod"),
    AttributeSet("ORIGIN", tuple("abcdefgh"), np.array([0.3, 0.1, 0.05, 0.15, 0.1, 0.1, 0.1, 0.1]), "jsd", 2.0),
    AttributeSet("BANDS", tuple("abcde"), np.array([0.4, 0.3, 0.2, 0.1, 0.0]), "nmd", 0.5),
)


def random_campaign(rng: np.random.Generator, n_conv: int):
    turn_conv, turn_end, rows = [], [], []
    for conversation in range(n_conv):
        position = 0
        for _ in range(rng.integers(1, 4)):
            position += int(rng.integers(1, 30)) + int(rng.integers(5, 60))
            turn = len(turn_conv)
            for _ in range(rng.integers(0, 6)):
                members = {}
                for s in SETS:
                    vector = np.zeros(s.n_groups)
                    vector[rng.integers(s.n_groups)] += 1
                    vector[rng.integers(s.n_groups)] += rng.integers(0, 2)
                    members[s.name] = vector / vector.sum()
                rows.append((turn, position - int(rng.integers(0, 5)), rng.choice([0.0, 0.5, 1.0]),
                             int(rng.integers(0, 6)), members))
            turn_conv.append(conversation)
            turn_end.append(position)
    return turn_conv, turn_end, rows


def tables(turn_conv, turn_end, rows):
    turns = TurnTable(conversation=np.array(turn_conv, dtype=int), end_wc=np.array(turn_end, dtype=int))
    nuggets = NuggetTable(
        turn=np.array([r[0] for r in rows], dtype=int), wc=np.array([r[1] for r in rows], dtype=int),
        gain=np.array([r[2] for r in rows], dtype=float), entity=np.array([r[3] for r in rows], dtype=int),
        membership={s.name: np.array([r[4][s.name] for r in rows]).reshape(len(rows), s.n_groups) for s in SETS})
    return turns, nuggets


@pytest.mark.parametrize("method", ["independent", "cumulative"])
@pytest.mark.parametrize("turn_weight", ["one", "max_pw"])
def test_a_conversation_scored_among_three_hundred_has_the_bits_it_has_alone(method, turn_weight):
    settings = Settings(patience=300, alpha=0.5, method=method, turn_weight=turn_weight)
    turn_conv, turn_end, rows = random_campaign(np.random.default_rng(7), 300)
    together = score(*tables(turn_conv, turn_end, rows), SETS, settings, 300)
    first_turn = 0
    for conversation in range(300):
        own_turns = [t for t, c in enumerate(turn_conv) if c == conversation]
        own_rows = [(r[0] - own_turns[0], *r[1:]) for r in rows if r[0] in own_turns]
        alone = score(*tables([0] * len(own_turns), [turn_end[t] for t in own_turns], own_rows), SETS, settings, 1)
        for measure in ("R", "GF", "GFRC"):
            assert getattr(alone, measure)[0] == getattr(together, measure)[conversation], (conversation, measure)
        assert alone.GF_m[0].tolist() == together.GF_m[conversation].tolist()
        sims = together.distr_sim[first_turn:first_turn + len(own_turns)]
        assert np.array_equal(alone.distr_sim, sims, equal_nan=True), conversation
        first_turn += len(own_turns)


@pytest.mark.parametrize("divergence", sorted(DIVERGENCES))
@pytest.mark.parametrize("k", [2, 4, 5, 8, 11])
def test_each_row_of_a_divergence_has_the_bits_it_has_alone(divergence, k):
    rng = np.random.default_rng(k)
    rows = rng.dirichlet(np.ones(k), size=500)
    targets = rng.dirichlet(np.ones(k), size=500)
    one_target = targets[0]
    assert [distr_sim(row, one_target, divergence) for row in rows] == distr_sim(rows, one_target, divergence).tolist()
    assert ([distr_sim(row, target, divergence) for row, target in zip(rows, targets)]
            == distr_sim(rows, targets, divergence).tolist())


def test_each_ranked_list_has_the_bits_it_has_alone():
    rng = np.random.default_rng(3)
    gains = rng.choice([0.0, 1.0, 2.0, 3.0], size=(400, 10))
    members = rng.dirichlet(np.ones(4), size=(400, 10))
    target = np.array([0.1, 0.2, 0.3, 0.4])
    for measure in (gfr.err, gfr.irbu):
        assert [measure(row, 3.0)[0] for row in gains] == measure(gains, 3.0).tolist()
    together = gfr.group_fairness(gains, members, target, 3.0)
    for i in range(0, 400, 7):
        alone = gfr.group_fairness(gains[i], members[i], target, 3.0)
        assert {name: values[0] for name, values in alone.items()} == {
            name: values[i] for name, values in together.items()}
