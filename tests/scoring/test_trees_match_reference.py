"""Branching conversations on random trees: every path scores as the plain-Python oracle
(`scoring.reference`) scores that path alone as a linear conversation, under every combination
of settings; the paths and their probabilities are what a plain walk of the tree finds; the
expectation is the plain sum of P(path) X(path); linear conversations keep `score`'s figures
bit for bit, alone or beside branching ones.

Trees are drawn with several roots (regenerations of the first answer), siblings anywhere,
chains, empty conversations, p missing, partly given or all given; positions are counted along
each path (a turn starts where its parent ends), entities come from a small pool so duplicates
occur within a path and across paths.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings
from hypothesis import strategies as st

from scoring.divergence import DIVERGENCES
from scoring.gfrc import AttributeSet, NuggetTable, Settings, TurnTable, score
from scoring.reference import score_reference
from scoring.trees import Tree, score_trees
from tests.scoring.test_scoring_matches_reference import ALL_SETTINGS



@st.composite
def probability_vectors(draw, k: int) -> list[float]:
    weights = draw(st.lists(st.integers(0, 4), min_size=k, max_size=k))
    if sum(weights) == 0:
        weights[draw(st.integers(0, k - 1))] = 1
    return [w / sum(weights) for w in weights]


@st.composite
def attribute_sets(draw) -> tuple[AttributeSet, ...]:
    sets = []
    for index in range(draw(st.integers(0, 2))):
        k = draw(st.integers(1, 4))
        sets.append(AttributeSet(f"A{index}", tuple(f"g{g}" for g in range(k)), np.array(draw(probability_vectors(k))),
                                 draw(st.sampled_from(sorted(DIVERGENCES))), draw(st.sampled_from([0.0, 1.0, 2.0]))))
    return tuple(sets)


@st.composite
def branch_probabilities(draw, parent: list[int], conversation: list[int]) -> list[float]:
    """Per group of siblings: no p, all given (summing to 1), or some given (leaving a remainder)."""
    groups: dict[tuple, list[int]] = {}
    for row, up in enumerate(parent):
        groups.setdefault((conversation[row], up), []).append(row)
    p = [math.nan] * len(parent)
    for rows in groups.values():
        mode = draw(st.sampled_from(["none", "all", "some"]))
        weights = draw(st.lists(st.integers(0, 4), min_size=len(rows), max_size=len(rows)))
        if mode == "all":
            weights[0] += 1 if sum(weights) == 0 else 0
            for row, weight in zip(rows, weights):
                p[row] = weight / sum(weights)
        elif mode == "some":
            total = sum(weights) + draw(st.integers(0, 3)) or 1
            missing = draw(st.integers(0, len(rows) - 1))  # at least one sibling without p
            for index, (row, weight) in enumerate(zip(rows, weights)):
                if index != missing and draw(st.booleans()):
                    p[row] = weight / total
    return p


@st.composite
def forests(draw, linear_only: bool = False):
    """(turns, nuggets, tree, attribute sets, n_conversations): random branching conversations."""
    sets = draw(attribute_sets())
    n_conv = draw(st.integers(0, 4))
    conversation, parent, end_wc, nuggets = [], [], [], []
    for c in range(n_conv):
        first = len(parent)
        for row in range(first, first + draw(st.integers(0, 6))):
            chained = linear_only or draw(st.booleans())
            up = (row - 1 if row > first else -1) if chained else draw(st.sampled_from([-1, *range(first, row)]))
            start = (end_wc[up] if up >= 0 else 0) + draw(st.integers(1, 20))  # the user turn before it
            length = draw(st.integers(1, 30))
            for offset in draw(st.lists(st.integers(1, length), max_size=4, unique=True)):
                gain = draw(st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0.0, 1.0))
                nuggets.append(dict(turn=row, wc=start + offset, gain=gain, entity=draw(st.integers(0, 3)),
                                    membership={a.name: draw(probability_vectors(a.n_groups)) for a in sets}))
            conversation.append(c)
            parent.append(up)
            end_wc.append(start + length)
    nuggets = [nuggets[i] for i in draw(st.permutations(range(len(nuggets))))]  # nugget rows in any order
    p = draw(branch_probabilities(parent, conversation))
    turns = TurnTable(conversation=np.array(conversation, dtype=int), end_wc=np.array(end_wc, dtype=int))
    return turns, nugget_table(nuggets, sets), Tree(parent=np.array(parent, dtype=int), p=np.array(p)), sets, n_conv


def nugget_table(rows: list[dict], sets) -> NuggetTable:
    return NuggetTable(
        turn=np.array([r["turn"] for r in rows], dtype=int), wc=np.array([r["wc"] for r in rows], dtype=int),
        gain=np.array([r["gain"] for r in rows], dtype=float), entity=np.array([r["entity"] for r in rows], dtype=int),
        membership={a.name: np.array([r["membership"][a.name] for r in rows], dtype=float).reshape(len(rows), a.n_groups)
                    for a in sets},
    )


# --- the plain-Python twin of the tree: paths, probabilities, each path alone ---------------


def plain_paths(turns: TurnTable, tree: Tree, n_conv: int) -> list[tuple[int, list[int], float]]:
    """(conversation, rows root to leaf, probability) of every path, by conversation then leaf."""
    conversation, parent, p = turns.conversation.tolist(), tree.parent.tolist(), tree.p.tolist()
    children: dict[tuple, list[int]] = {}
    for row, up in enumerate(parent):
        children.setdefault((conversation[row], up), []).append(row)

    def q(row: int) -> float:
        siblings = children[(conversation[row], parent[row])]
        if len(siblings) == 1:
            return 1.0
        if not math.isnan(p[row]):
            return p[row]
        given = [p[s] for s in siblings if not math.isnan(p[s])]
        return max(0.0, 1.0 - sum(given)) / (len(siblings) - len(given))

    found = []

    def walk(c: int, row: int, rows: list[int], probability: float) -> None:
        rows, probability = rows + [row], probability * q(row)
        below = children.get((c, row), [])
        if not below:
            found.append((c, rows, probability))
        for child in below:
            walk(c, child, rows, probability)

    for c in range(n_conv):
        roots = children.get((c, -1), [])
        if not roots:
            found.append((c, [], 1.0))
        for root in roots:
            walk(c, root, [], 1.0)
    return sorted(found, key=lambda path: (path[0], path[1][-1] if path[1] else -1))


def path_alone(turns: TurnTable, nuggets: NuggetTable, rows: list[int], sets) -> tuple[TurnTable, NuggetTable]:
    """The linear conversation a path is: its turns in order, their nuggets in the campaign's order."""
    place = {row: index for index, row in enumerate(rows)}
    kept = [i for i, turn in enumerate(nuggets.turn.tolist()) if turn in place]
    alone_turns = TurnTable(conversation=np.zeros(len(rows), dtype=int), end_wc=turns.end_wc[rows])
    alone_nuggets = NuggetTable(
        turn=np.array([place[t] for t in nuggets.turn[kept].tolist()], dtype=int), wc=nuggets.wc[kept],
        gain=nuggets.gain[kept], entity=nuggets.entity[kept],
        membership={a.name: nuggets.membership[a.name][kept].reshape(len(kept), a.n_groups) for a in sets},
    )
    return alone_turns, alone_nuggets


def check_against_the_oracle(forest, gfrc_settings: Settings) -> None:
    turns, nuggets, tree, sets, n_conv = forest
    scored = score_trees(turns, nuggets, tree, sets, gfrc_settings, n_conv)
    paths = plain_paths(turns, tree, n_conv)
    assert [(c, rows) for c, rows, _ in paths] == [
        (c, scored.paths.rows(k).tolist()) for k, c in enumerate(scored.paths.conversation.tolist())]
    assert scored.paths.probability.tolist() == pytest.approx([probability for *_, probability in paths], abs=1e-12)
    expected = {name: np.zeros(n_conv) for name in ("R", "GF", "GFRC")} | {"GF_m": np.zeros((n_conv, len(sets)))}
    for k, (c, rows, probability) in enumerate(paths):
        alone = score_reference(*path_alone(turns, nuggets, rows, sets), sets, gfrc_settings, 1)
        assert scored.per_path.R[k] == pytest.approx(alone.R[0], abs=1e-9)
        assert scored.per_path.GF_m[k].tolist() == pytest.approx(alone.GF_m[0], abs=1e-9)
        assert scored.per_path.GF[k] == pytest.approx(alone.GF[0], abs=1e-9)
        assert scored.per_path.GFRC[k] == pytest.approx(alone.GFRC[0], abs=1e-9)
        on_path = scored.turns.conversation[scored.nuggets.turn] == k
        assert scored.per_path.effective_gain[on_path].tolist() == alone.effective_gain
        for name in ("R", "GF", "GFRC"):
            expected[name][c] += probability * getattr(alone, name)[0]
        expected["GF_m"][c] += probability * np.array(alone.GF_m[0])
    for name, values in expected.items():  # E[X] = sum P(path) X(path), a plain loop
        assert getattr(scored, name).ravel().tolist() == pytest.approx(values.ravel().tolist(), abs=1e-9)


@hypothesis_settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forest=forests(), choice=st.sampled_from(ALL_SETTINGS), patience=st.sampled_from([1, 20, 100, 1250]),
       alpha=st.sampled_from([0.0, 0.3, 1.0]))
def test_every_path_scores_as_the_oracle_scores_it_alone_and_the_expectation_is_the_plain_sum(
        forest, choice, patience, alpha):
    check_against_the_oracle(forest, Settings(patience=patience, alpha=alpha, **choice))


@pytest.mark.parametrize("choice", ALL_SETTINGS, ids=lambda c: "-".join(str(v) for v in c.values()))
@hypothesis_settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forest=forests())
def test_every_combination_of_settings_scores_every_path_as_the_oracle(choice, forest):
    check_against_the_oracle(forest, Settings(patience=60, **choice))


def assert_exactly(tree_scores, before, conversations) -> None:
    for name in ("R", "GF_m", "GF", "GFRC"):
        assert np.array_equal(getattr(tree_scores, name)[conversations], getattr(before, name)[conversations])


@hypothesis_settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forest=forests(linear_only=True), choice=st.sampled_from(ALL_SETTINGS))
def test_a_linear_campaign_gives_exactly_the_figures_of_score(forest, choice):
    turns, nuggets, tree, sets, n_conv = forest
    gfrc_settings = Settings(patience=100, **choice)
    scored = score_trees(turns, nuggets, tree, sets, gfrc_settings, n_conv)
    assert scored.paths.identity
    assert_exactly(scored, score(turns, nuggets, sets, gfrc_settings, n_conv), slice(None))


@hypothesis_settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forest=forests(), choice=st.sampled_from(ALL_SETTINGS))
def test_linear_conversations_beside_branching_ones_keep_the_figures_of_score_bit_for_bit(forest, choice):
    turns, nuggets, tree, sets, n_conv = forest
    gfrc_settings = Settings(patience=100, **choice)
    scored = score_trees(turns, nuggets, tree, sets, gfrc_settings, n_conv)
    # score reads a branching conversation's rows as one sequence (not a figure of anything);
    # the linear conversations' figures do not depend on it
    assert_exactly(scored, score(turns, nuggets, sets, gfrc_settings, n_conv), scored.paths.linear)
