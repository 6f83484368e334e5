"""GFRC of conversations that branch: figures per root-to-leaf path, and their expectation.

A conversation's system turns form a tree: a regenerated answer, or the answer to an edited
user message, is a sibling of the turn it replaces. Word positions are counted along the path
from the root, the same on every path through a turn, so a turn keeps one `end_wc` and a
nugget one WC; expanding the tree into paths only repeats rows.

Each root-to-leaf path is scored as the linear conversation it is (duplicates, the cumulative
method, empty turns and turn weights all along that path), by ONE call of `scoring.gfrc`'s
`score` on tables where every path is a pseudo-conversation. A conversation's figure is the
expectation over its paths, E[X] = sum_path P(path) X(path), for R, every GF_m, GF and GFRC.

The tree is given per row of the `TurnTable` (`Tree`): the row of each turn's parent (-1 for
a root) and p, the probability of going from the parent to this turn (roots are siblings under
a virtual root; NaN shares what the given siblings leave). Rows stay grouped by conversation,
as the `TurnTable` wants, and within a conversation a parent's row comes before its
children's (creation order does this: an answer is regenerated after the turn it replaces).

A conversation whose first row is a root and whose every other row's parent is the row before
it is linear: one path, probability 1. When every conversation is linear the tables go to
`score` as they are, so the figures are `score`'s own arrays, and a campaign that does not
branch costs what it cost before. The rules for p are in docs/scoring.md ("Conversations that
branch"). Only numpy: no Django.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from scoring.gfrc import AttributeSet, NuggetTable, Scores, Settings, TurnTable, score

TOLERANCE = 1e-6  # how far from 1 the given p of a parent's children may sum


class TreeError(ValueError):
    """A tree GFRC cannot score, naming the conversation and the turn row where it goes wrong."""

    def __init__(self, conversation: int, turn: int, problem: str) -> None:
        super().__init__(f"conversation {conversation}, turn row {turn}: {problem}")
        self.conversation = conversation
        self.turn = turn
        self.problem = problem


@dataclass(eq=False)  # array fields: compare the arrays, not the trees
class Tree:
    """The shape of a campaign's conversations, one entry per row of its `TurnTable`.

    `parent[r]` is the TurnTable row of turn r's parent (-1 for a root): an earlier row of the
    same conversation. `p[r]` is the probability of going from the parent to r (from the
    virtual root, for a root); NaN (or `p=None` for all) shares what the given siblings leave.
    """

    parent: np.ndarray  # int (T,)
    p: np.ndarray | None = None  # float (T,), NaN where not given

    def __post_init__(self) -> None:
        parent = np.asarray(self.parent)
        if parent.size == 0:
            parent = np.zeros(0, dtype=np.int64)
        if parent.ndim != 1 or not (np.issubdtype(parent.dtype, np.integer) or _whole(parent)):
            raise ValueError("Tree.parent must be a one-dimensional column of whole row numbers")
        self.parent = parent.astype(np.int64)
        p = np.full(parent.size, np.nan) if self.p is None else np.asarray(self.p, dtype=float).reshape(-1)
        if p.size != parent.size:
            raise ValueError("Tree.parent and Tree.p differ in length")
        self.p = p

    @classmethod
    def linear(cls, turns: TurnTable) -> Tree:
        """Every conversation a single path: each turn the child of the row before it."""
        rows = np.arange(len(turns))
        first = _first_rows(turns.conversation)
        return cls(parent=np.where(first, -1, rows - 1))

    def __len__(self) -> int:
        return int(self.parent.size)


@dataclass(eq=False)  # array fields: compare the arrays, not the paths
class Paths:
    """Every root-to-leaf path of a campaign, ordered by conversation then by leaf row.

    Path k holds the TurnTable rows `turn_rows[start[k]:start[k + 1]]`, from its root to its
    leaf: those rows are its id. A conversation without system turns has one empty path (leaf
    -1), which `score` scores 0 as it scores such a conversation. `identity` says every
    conversation is linear: path k is conversation k and `turn_rows` is every row in order.
    """

    conversation: np.ndarray  # int (P,): the conversation each path belongs to
    probability: np.ndarray  # float (P,): the product of its turns' probabilities
    leaf: np.ndarray  # int (P,): the TurnTable row of its last turn, -1 for an empty path
    start: np.ndarray  # int (P + 1,): offsets of each path's rows in turn_rows
    turn_rows: np.ndarray  # int (sum of path lengths,): the TurnTable rows of every path
    linear: np.ndarray  # bool (C,): per conversation, one path whose rows are its rows
    identity: bool  # every conversation linear

    def __len__(self) -> int:
        return int(self.conversation.size)

    @property
    def length(self) -> np.ndarray:
        """The number of system turns on each path."""
        return np.diff(self.start)

    def rows(self, path: int) -> np.ndarray:
        """The TurnTable rows of one path, from its root to its leaf."""
        return self.turn_rows[self.start[path]:self.start[path + 1]]


@dataclass(eq=False)  # array fields: compare the arrays, not the scores
class TreeScores:
    """Per-path figures (one `score` call, a pseudo-conversation per path) and the expected
    figures per conversation, named as `Scores` names its per-conversation figures."""

    paths: Paths
    per_path: Scores  # `score` of the tables below: its per-conversation arrays are per path
    turns: TurnTable  # the paths' TurnTable: row j repeats TurnTable row paths.turn_rows[j], conversation = path
    nuggets: NuggetTable  # the paths' NuggetTable: row i repeats NuggetTable row nugget_rows[i]
    nugget_rows: np.ndarray  # int: the NuggetTable row each nugget row of the paths' table repeats
    R: np.ndarray  # (C,) E[R]
    GF_m: np.ndarray  # (C, M) E[GF_m], columns in the attribute sets' order
    GF: np.ndarray  # (C,) E[GF]
    GFRC: np.ndarray  # (C,) E[GFRC]

    @property
    def settings(self) -> Settings:
        return self.per_path.settings

    @property
    def attribute_sets(self) -> tuple[AttributeSet, ...]:
        return self.per_path.attribute_sets

    def on_first_paths(self) -> Scores:
        """`Scores` laid out as the campaign's own tables: each turn and nugget as scored on the
        first path through it (what a page shows beside the expected figures, which are the
        per-conversation ones here)."""
        if self.paths.identity:
            return self.per_path
        _, turn_first = np.unique(self.paths.turn_rows, return_index=True)
        _, nugget_first = np.unique(self.nugget_rows, return_index=True)
        s = self.per_path
        return replace(
            s, pw=s.pw[nugget_first], effective_gain=s.effective_gain[nugget_first],
            duplicate=s.duplicate[nugget_first], contribution=s.contribution[nugget_first],
            relevant=s.relevant[nugget_first] if s.relevant.size else s.relevant,
            scored=s.scored[turn_first], turn_weight=s.turn_weight[turn_first],
            achieved={name: values[turn_first] for name, values in s.achieved.items()},
            distr_sim=s.distr_sim[turn_first], R=self.R, GF_m=self.GF_m, GF=self.GF, GFRC=self.GFRC)

    def GF_by_set(self) -> dict[str, np.ndarray]:
        """E[GF_m] per attribute-set name, each (C,)."""
        return {a.name: self.GF_m[:, m] for m, a in enumerate(self.attribute_sets)}


def score_trees(
    turns: TurnTable,
    nuggets: NuggetTable,
    tree: Tree,
    attribute_sets: Iterable[AttributeSet],
    settings: Settings,
    n_conversations: int,
) -> TreeScores:
    """Score every path of every conversation in one `score` call, then take the expectations."""
    attribute_sets = tuple(attribute_sets)
    paths = path_probabilities(turns, tree, n_conversations)
    path_turns, path_nuggets, nugget_rows = per_path_tables(turns, nuggets, paths)
    per_path = score(path_turns, path_nuggets, attribute_sets, settings, len(paths))
    if paths.identity:  # one path of probability 1 per conversation: its figures are the expectation
        R, GF_m, GF, GFRC = per_path.R, per_path.GF_m, per_path.GF, per_path.GFRC
    else:
        n_conv = int(n_conversations)
        R, GF_m, GF, GFRC = (expectation(values, paths, n_conv)
                             for values in (per_path.R, per_path.GF_m, per_path.GF, per_path.GFRC))
    return TreeScores(paths=paths, per_path=per_path, turns=path_turns, nuggets=path_nuggets,
                      nugget_rows=nugget_rows, R=R, GF_m=GF_m, GF=GF, GFRC=GFRC)


def expectation(values: np.ndarray, paths: Paths, n_conversations: int) -> np.ndarray:
    """sum_path P(path) X(path) per conversation, for per-path values (P,) or (P, M).

    A path of probability 1 alone in its conversation adds 1.0 * X to 0.0: X itself, exactly.
    """
    n_conv = int(n_conversations)
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        return np.bincount(paths.conversation, weights=paths.probability * values, minlength=n_conv)
    result = np.zeros((n_conv, values.shape[1]))
    for column in range(values.shape[1]):
        result[:, column] = np.bincount(
            paths.conversation, weights=paths.probability * values[:, column], minlength=n_conv
        )
    return result


# --- paths --------------------------------------------------------------------------------


def path_probabilities(turns: TurnTable, tree: Tree, n_conversations: int) -> Paths:
    """The paths of every conversation and their probabilities, after checking the tree.

    Raises `TreeError` (a ValueError) for a parent outside its turn's conversation, a parent
    that is not an earlier row (so no loop can pass), a p outside [0, 1], or siblings whose
    given p sum to more than 1 + 1e-6 (or, all given, differ from 1 by more than 1e-6).
    """
    n_conv = int(n_conversations)
    if len(tree) != len(turns):
        raise ValueError(f"the tree has {len(tree)} rows but the TurnTable {len(turns)}")
    conversation, parent = turns.conversation, tree.parent
    _check_grouping(conversation, n_conv)
    chained = _chained(conversation, parent)
    if not chained.all():  # a chained row's parent is the row before it, in its conversation
        _check_parents(conversation, parent)
    linear = np.bincount(conversation[~chained], minlength=n_conv) == 0
    if linear.all() and np.isnan(tree.p).all():  # one path each, and no p to check
        return _linear_paths(conversation, n_conv, linear)
    q = _turn_probabilities(conversation, parent, tree.p, n_conv)
    if linear.all():
        return _linear_paths(conversation, n_conv, linear)
    return _branching_paths(conversation, parent, q, linear, n_conv)


def _linear_paths(conversation: np.ndarray, n_conv: int, linear: np.ndarray) -> Paths:
    """One path per conversation holding its rows in order: nothing to walk, nothing to copy."""
    counts = np.bincount(conversation, minlength=n_conv)
    start = np.concatenate(([0], np.cumsum(counts)))
    return Paths(
        conversation=np.arange(n_conv),
        probability=np.ones(n_conv),
        leaf=np.where(counts > 0, start[1:] - 1, -1),
        start=start,
        turn_rows=np.arange(conversation.size),
        linear=linear,
        identity=True,
    )


def _branching_paths(
    conversation: np.ndarray, parent: np.ndarray, q: np.ndarray, linear: np.ndarray, n_conv: int
) -> Paths:
    """Paths ending at every leaf (a row nobody's parent), ordered by conversation then leaf.

    A linear conversation's path is its rows in order, written as a ramp; the paths of
    branching conversations are written by walking up from their leaves, one vectorised step
    per level of the deepest tree.
    """
    has_child = np.zeros(conversation.size, dtype=bool)
    has_child[parent[parent >= 0]] = True
    leaves = np.flatnonzero(~has_child)  # grouped by conversation, as the rows are
    leaves_per_conversation = np.bincount(conversation[leaves], minlength=n_conv)
    paths_per_conversation = np.maximum(leaves_per_conversation, 1)  # an empty conversation: one empty path
    path_conversation = np.repeat(np.arange(n_conv), paths_per_conversation)
    leaf = np.full(path_conversation.size, -1)
    leaf[np.repeat(leaves_per_conversation > 0, paths_per_conversation)] = leaves

    rows_per_conversation = np.bincount(conversation, minlength=n_conv)
    length = np.where(leaf >= 0, rows_per_conversation[path_conversation], 0)
    walked = np.flatnonzero((leaf >= 0) & ~linear[path_conversation])
    length[walked] = _ancestors(parent, leaf[walked]) + 1
    start = np.concatenate(([0], np.cumsum(length)))

    # leaf - length + 1 ... leaf: right for a linear path; the walk overwrites the others.
    turn_rows = np.arange(start[-1]) + np.repeat(leaf - length + 1 - start[:-1], length)
    _write_walks(turn_rows, parent, leaf[walked], start[walked + 1] - 1)

    probability = np.ones(path_conversation.size)
    non_empty = length > 0
    if turn_rows.size:  # root to leaf; a linear path multiplies ones: exactly 1
        probability[non_empty] = np.multiply.reduceat(q[turn_rows], start[:-1][non_empty])
    return Paths(
        conversation=path_conversation,
        probability=probability,
        leaf=leaf,
        start=start,
        turn_rows=turn_rows,
        linear=linear,
        identity=False,
    )


def _ancestors(parent: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """How many turns lie above each row (0 for a root)."""
    count = np.zeros(rows.size, dtype=np.int64)
    node = parent[rows]
    active = np.flatnonzero(node >= 0)
    while active.size:
        count[active] += 1
        node[active] = parent[node[active]]
        active = active[node[active] >= 0]
    return count


def _write_walks(turn_rows: np.ndarray, parent: np.ndarray, leaves: np.ndarray, ends: np.ndarray) -> None:
    """Write each leaf's ancestors into turn_rows, leaf at `ends`, its root first."""
    node, position = leaves.copy(), ends.copy()
    active = np.arange(leaves.size)
    while active.size:
        turn_rows[position[active]] = node[active]
        position[active] -= 1
        node[active] = parent[node[active]]
        active = active[node[active] >= 0]


# --- the per-path tables --------------------------------------------------------------------


def per_path_tables(
    turns: TurnTable, nuggets: NuggetTable, paths: Paths
) -> tuple[TurnTable, NuggetTable, np.ndarray]:
    """The TurnTable and NuggetTable `score` reads with every path a conversation of its own,
    and the NuggetTable row of each of their nugget rows.

    A turn's row is repeated once per path through it, and its nuggets with it; wc is never
    changed (positions are counted along the path). Nugget rows keep their order, each one's
    copies side by side, so a path's nuggets come in the order the campaign gave them: a linear
    conversation's sums run in the same order as when scored alone.
    """
    n_turns, n_nuggets = len(turns), len(nuggets)
    if n_nuggets and (nuggets.turn.min() < 0 or nuggets.turn.max() >= n_turns):
        raise ValueError("NuggetTable.turn must index a row of the TurnTable")
    if paths.identity:
        return turns, nuggets, np.arange(n_nuggets)
    rows = paths.turn_rows
    path_turns = TurnTable(conversation=np.repeat(np.arange(len(paths)), paths.length), end_wc=turns.end_wc[rows])

    copies = np.bincount(rows, minlength=n_turns)  # the paths through each turn
    by_turn = np.argsort(rows, kind="stable")  # the paths' rows, grouped by the turn they repeat
    first_of_turn = np.concatenate(([0], np.cumsum(copies)[:-1]))
    per_nugget = copies[nuggets.turn]
    nugget_rows = np.repeat(np.arange(n_nuggets), per_nugget)
    copy = np.arange(nugget_rows.size) - np.repeat(np.cumsum(per_nugget) - per_nugget, per_nugget)
    path_nuggets = NuggetTable(
        turn=by_turn[first_of_turn[nuggets.turn[nugget_rows]] + copy],
        wc=nuggets.wc[nugget_rows],
        gain=nuggets.gain[nugget_rows],
        entity=nuggets.entity[nugget_rows],
        # np.take gathers whole rows, without the general machinery of fancy indexing
        membership={name: np.take(values, nugget_rows, axis=0) for name, values in nuggets.membership.items()},
    )
    return path_turns, path_nuggets, nugget_rows


# --- checks and turn probabilities ----------------------------------------------------------


def _check_grouping(conversation: np.ndarray, n_conv: int) -> None:
    """Conversation codes in range, rows grouped by conversation (as `score` wants them)."""
    if n_conv < 0:
        raise ValueError("n_conversations must be >= 0")
    if conversation.size == 0:
        return
    if conversation.min() < 0 or conversation.max() >= n_conv:
        raise ValueError("TurnTable.conversation must lie in 0..n_conversations-1")
    _refuse(conversation, np.diff(conversation, prepend=conversation[0]) < 0,
            lambda row: "rows must be grouped by conversation (non-decreasing codes)")


def _check_parents(conversation: np.ndarray, parent: np.ndarray) -> None:
    """Each parent an earlier row of its child's conversation (so no loop can pass)."""
    inside = (parent >= 0) & (parent < conversation.size)
    same = np.zeros(conversation.size, dtype=bool)
    same[inside] = conversation[parent[inside]] == conversation[inside]
    _refuse(conversation, (parent != -1) & ~same,
            lambda row: f"its parent, row {parent[row]}, is not a turn of conversation {conversation[row]}")
    _refuse(conversation, (parent >= 0) & (parent >= np.arange(conversation.size)),
            lambda row: f"its parent, row {parent[row]}, does not come before it "
                        "(a parent's row must precede its children's, which also rules out a loop)")


def _turn_probabilities(conversation: np.ndarray, parent: np.ndarray, p: np.ndarray, n_conv: int) -> np.ndarray:
    """q: the probability of each turn given its parent, after checking every parent's children.

    Given p are used as given; a missing one gets an equal share of what the given siblings
    leave (1/k when none is given); an only child is certain (q = 1, and a p given for it must
    be within 1e-6 of 1), so a linear conversation's path has probability exactly 1.
    """
    n_turns = conversation.size
    given = ~np.isnan(p)
    _refuse(conversation, given & ~((p >= 0) & (p <= 1)),
            lambda row: f"p = {float(p[row])!r} is not a probability in [0, 1]")
    siblings = np.where(parent >= 0, parent, n_turns + conversation)  # roots: children of a virtual root
    n_groups = n_turns + n_conv
    children = np.bincount(siblings, minlength=n_groups)
    n_given = np.bincount(siblings, weights=given, minlength=n_groups)
    given_sum = np.bincount(siblings, weights=np.where(given, p, 0.0), minlength=n_groups)
    over = given_sum > 1 + TOLERANCE
    off = (n_given == children) & (np.abs(given_sum - 1) > TOLERANCE)
    _refuse(conversation, over[siblings] | (given & off[siblings]),
            lambda row: _siblings_problem(row, siblings, parent, conversation, given_sum, over))
    n_missing = children - n_given
    share = np.maximum(0.0, 1.0 - given_sum) / np.maximum(n_missing, 1)
    q = np.where(given, p, share[siblings])
    q[children[siblings] == 1] = 1.0
    return q


def _siblings_problem(row, siblings, parent, conversation, given_sum, over) -> str:
    """What is wrong with the p of a row's siblings, naming them."""
    group = siblings[row]
    members = ", ".join(str(r) for r in np.flatnonzero(siblings == group))
    who = (f"the children of turn row {parent[row]} (rows {members})" if parent[row] >= 0
           else f"the roots of conversation {conversation[row]} (rows {members})")
    total = float(given_sum[group])
    if over[group]:
        return f"the given p of {who} sum to {total!r}, more than 1"
    return f"the p of {who} are all given and sum to {total!r}, not 1 (within {TOLERANCE})"


def _chained(conversation: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Per row: a conversation's first row that is a root, or a child of the row before it.

    A conversation all of whose rows are chained is linear; with parents listed before their
    children this is exactly "one root, at most one child per turn", since a chain has only
    one order that lists parents first.
    """
    first = _first_rows(conversation)
    return np.where(first, parent == -1, parent == np.arange(conversation.size) - 1)


def _first_rows(conversation: np.ndarray) -> np.ndarray:
    """True at the first row of each conversation (rows grouped by conversation)."""
    first = np.ones(conversation.size, dtype=bool)
    first[1:] = conversation[1:] != conversation[:-1]
    return first


def _refuse(conversation: np.ndarray, bad: np.ndarray, problem) -> None:
    """Raise a TreeError at the first bad row, with `problem(row)` saying what is wrong."""
    rows = np.flatnonzero(bad)
    if rows.size:
        row = int(rows[0])
        raise TreeError(int(conversation[row]), row, problem(row))


def _whole(values: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(values)) and np.all(values == np.round(values)))


def system_tree(conversation: np.ndarray, parent: np.ndarray, p: np.ndarray, is_system: np.ndarray,
                n_conversations: int) -> tuple[Tree, np.ndarray]:
    """The tree of every turn of a campaign (user turns too: an edited question branches at a
    user turn) as the `Tree` of its system turns, which the `TurnTable` holds.

    Rows as `Tree` wants them, over all turns: `parent` the row of the turn followed (-1 for a
    root), `p` NaN where not given. A system turn's parent becomes its nearest system ancestor,
    and its p the probability of the turns from there to it (its own and its user ancestors').
    A user turn that no answer follows ends no path of system turns: the answered branches of
    its system ancestor then share its probability in proportion (docs/scoring.md). Returns the
    tree and, per system turn, its row among all turns.
    """
    parent = np.asarray(parent, dtype=np.int64)
    conversation = np.asarray(conversation, dtype=np.int64)
    is_system = np.asarray(is_system, dtype=bool)
    p = np.full(parent.size, np.nan) if p is None else np.asarray(p, dtype=float)
    _check_grouping(conversation, int(n_conversations))
    _check_parents(conversation, parent)
    q = _turn_probabilities(conversation, parent, p, int(n_conversations))
    ancestor = np.full(parent.size, -1, dtype=np.int64)  # nearest system ancestor (turn rows)
    chain = q.copy()  # probability from that ancestor (or the virtual root) to the turn
    for row in np.flatnonzero(parent >= 0).tolist():  # parents first: theirs are known
        up = parent[row]
        if is_system[up]:
            ancestor[row] = up
        else:
            ancestor[row], chain[row] = ancestor[up], chain[up] * q[row]
    system_rows = np.flatnonzero(is_system)
    index = np.full(parent.size, -1, dtype=np.int64)
    index[system_rows] = np.arange(system_rows.size)
    tree_parent = np.where(ancestor[system_rows] >= 0, index[np.maximum(ancestor[system_rows], 0)], -1)
    weight = chain[system_rows]
    # the answered branches of each system turn (or conversation's roots) share what unanswered ones left
    group = np.where(tree_parent >= 0, tree_parent, system_rows.size + conversation[system_rows])
    total = np.bincount(group, weights=weight, minlength=system_rows.size + int(n_conversations))
    share = np.divide(weight, total[group], out=np.ones_like(weight), where=total[group] > 0)
    return Tree(tree_parent, share), system_rows
