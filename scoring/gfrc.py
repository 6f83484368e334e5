"""GFRC (Sakai, EVIA 2023): relevance R and group fairness GF of conversations, vectorised.

A campaign is flattened into two tables so that every conversation of every run is scored in
one pass of numpy operations (no Python loop over nuggets, turns or conversations; only over
the handful of attribute sets):

- a `TurnTable`: one row per *system* turn, ordered by conversation then turn order (user
  turns carry no nuggets; they only push positions further down the conversation);
- a `NuggetTable`: one row per nugget, pointing at its system turn.

`score` returns a `Scores` with every intermediate figure (pw, effective gains, achieved
distributions, DistrSim per turn, GF per attribute set) so that a UI can show the paper's
Tables 1 and 2 rather than only the final numbers.

The formulas are those of the GFRC specification (docs/scoring.md); `scoring.reference` is a
plain-Python, formula-by-formula twin used as the test oracle. Only numpy and the standard
library are imported: the Django layer (annotator.scores.per_conversation) sits on top, never underneath.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from scoring.divergence import DIVERGENCES, distr_sim
from scoring.targets import target_problem

METHODS = ("independent", "cumulative")
EMPTY_TURNS = ("ignore", "uniform")
TURN_WEIGHTS = ("one", "max_pw")


@dataclass(frozen=True)
class Settings:
    """The knobs of GFRC; the defaults are the paper's instantiation (Section 3.2)."""

    patience: int = 1250  # L: words the user is willing to read (5 min x 250 wpm)
    alpha: float = 0.5  # GFRC = alpha R + (1 - alpha) GF
    method: str = "independent"  # achieved distribution from the turn alone, or "cumulative"
    empty_turns: str = "ignore"  # a turn without relevant nuggets: skip it, or "uniform" (unbiased)
    turn_weight: str = "one"  # PW(S): 1, or "max_pw" = largest pw(n) of the turn's relevant nuggets
    duplicates_count_once: bool = True  # later mentions of an entity in a conversation gain nothing

    def __post_init__(self) -> None:
        if isinstance(self.patience, bool) or int(self.patience) != self.patience or self.patience < 1:
            raise ValueError(f"patience must be a positive whole number of words, not {self.patience!r}")
        if not 0.0 <= float(self.alpha) <= 1.0:
            raise ValueError(f"alpha must lie in [0, 1], not {self.alpha!r}")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {self.method!r}")
        if self.empty_turns not in EMPTY_TURNS:
            raise ValueError(f"empty_turns must be one of {EMPTY_TURNS}, not {self.empty_turns!r}")
        if self.turn_weight not in TURN_WEIGHTS:
            raise ValueError(f"turn_weight must be one of {TURN_WEIGHTS}, not {self.turn_weight!r}")


@dataclass(frozen=True)
class AttributeSet:
    """A set of groups (e.g. ORIGIN regions) with the target distribution fairness aims at.

    `divergence` is "jsd" for nominal groups, "nmd" or "rnod" for ordinal ones. `weight` is the
    attribute set's share of GF; the weights of the sets scored together are normalised to sum
    to 1 (all zero -> equal weights, the paper's choice). The target is stored as a read-only
    float array, and equality compares its values (so attribute sets can be compared/hashed).
    """

    name: str
    groups: tuple[str, ...]
    target: np.ndarray
    divergence: str
    weight: float = 1.0

    def __post_init__(self) -> None:
        target = np.array(self.target, dtype=float)
        if target.ndim != 1 or target.size == 0:
            raise ValueError(f"attribute set {self.name!r}: the target must be a non-empty vector")
        groups = tuple(self.groups)
        if groups and len(groups) != target.size:
            raise ValueError(f"attribute set {self.name!r}: {len(groups)} groups but a target of {target.size}")
        problem = target_problem(target.tolist())  # used as given within 1e-5, as the ranked-list side
        if problem is not None:
            raise ValueError(f"attribute set {self.name!r}: the target {problem}")
        if self.divergence not in DIVERGENCES:
            raise ValueError(f"attribute set {self.name!r}: unknown divergence {self.divergence!r}")
        weight = float(self.weight)
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"attribute set {self.name!r}: weight must be finite and >= 0")
        target.setflags(write=False)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "weight", weight)

    @property
    def n_groups(self) -> int:
        return int(self.target.size)

    def _key(self) -> tuple:
        return (self.name, self.groups, self.divergence, self.weight, self.target.tobytes())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AttributeSet) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


@dataclass(eq=False)  # array fields: compare the arrays, not the tables
class TurnTable:
    """One row per system turn of the campaign, ordered by conversation then turn order.

    `end_wc` is the conversation-wide position of the turn's last word; it matters only for
    turn_weight="max_pw" with uniform empty turns, where a turn without a relevant nugget of its
    own is weighted by how far down the conversation it ends.
    """

    conversation: np.ndarray  # int (T,), 0..C-1, non-decreasing
    end_wc: np.ndarray  # int (T,)

    def __post_init__(self) -> None:
        self.conversation = _int_vector(self.conversation, "TurnTable.conversation")
        self.end_wc = _int_vector(self.end_wc, "TurnTable.end_wc")
        if self.conversation.shape != self.end_wc.shape:
            raise ValueError("TurnTable.conversation and TurnTable.end_wc differ in length")

    def __len__(self) -> int:
        return int(self.conversation.size)


@dataclass(eq=False)  # array fields: compare the arrays, not the tables
class NuggetTable:
    """One row per nugget (any order): where it ends, what it is worth, which entity it names.

    `membership` maps an attribute-set name to an (n, K) array of group-membership vectors;
    rows of nuggets that end up nonrelevant (gain 0 or duplicate) are never read, so they may
    hold NaN or zeros.
    """

    turn: np.ndarray  # int (n,), row index into the TurnTable
    wc: np.ndarray  # int (n,), position of the nugget's last word, WC(n)
    gain: np.ndarray  # float (n,), g(n) in [0, 1]
    entity: np.ndarray  # int (n,), equal codes = same entity
    membership: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.turn = _int_vector(self.turn, "NuggetTable.turn")
        self.wc = _int_vector(self.wc, "NuggetTable.wc")
        self.gain = np.asarray(self.gain, dtype=float).reshape(-1)
        self.entity = _int_vector(self.entity, "NuggetTable.entity")
        n = self.turn.size
        if not (self.wc.size == self.gain.size == self.entity.size == n):
            raise ValueError("NuggetTable columns differ in length")
        self.membership = {name: np.asarray(values, dtype=float) for name, values in self.membership.items()}

    def __len__(self) -> int:
        return int(self.turn.size)


@dataclass(eq=False)  # array fields: compare the arrays, not the tables
class Scores:
    """Everything `score` computed, per nugget, per system turn and per conversation."""

    settings: Settings
    attribute_sets: tuple[AttributeSet, ...]
    # per nugget (n,)
    pw: np.ndarray  # position-based nugget weight
    effective_gain: np.ndarray  # g(n), or 0 for a duplicate
    duplicate: np.ndarray  # bool: a later mention of an entity already named in the conversation
    contribution: np.ndarray  # pw * effective_gain, the nugget's share of R (before 1/N)
    # per system turn (T,)
    scored: np.ndarray  # bool: the turn takes part in GF
    turn_weight: np.ndarray  # PW(S) for scored turns, 0 for the others
    achieved: dict[str, np.ndarray]  # attribute-set name -> (T, K) achieved distribution, NaN rows if not scored
    distr_sim: np.ndarray  # (T, M), NaN where not scored
    # per conversation (C,)
    R: np.ndarray
    GF_m: np.ndarray  # (C, M)
    GF: np.ndarray
    GFRC: np.ndarray
    # extras
    relevant: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # (n,) effective gain > 0
    attribute_weights: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (M,) normalised w_m
    normaliser: float = 1.0  # N = (L + 1) / 2


def pw(wc, patience) -> np.ndarray:
    """pw(n) = max(0, 1 - (WC(n) - 1) / L): 1 at the first word, 0 from word L + 1 on."""
    return np.maximum(0.0, 1.0 - (np.asarray(wc, dtype=float) - 1.0) / float(patience))


def hard_normaliser(patience) -> float:
    """N = sum_{l=1..L} (1 - (l-1)/L) = (L + 1) / 2: every word a fully relevant nugget, so R <= 1."""
    return (float(patience) + 1.0) / 2.0


def normalised_weights(attribute_sets: Iterable[AttributeSet]) -> np.ndarray:
    """The w_m of GF = sum_m w_m GF_m, scaled to sum to 1 (all zero -> equal, as in the paper)."""
    weights = np.array([a.weight for a in attribute_sets], dtype=float)
    if weights.size == 0:
        return weights
    total = weights.sum()
    if total <= 0:
        return np.full(weights.size, 1.0 / weights.size)
    return weights / total


def score(
    turns: TurnTable,
    nuggets: NuggetTable,
    attribute_sets: Iterable[AttributeSet],
    settings: Settings,
    n_conversations: int,
) -> Scores:
    """Score every conversation of a campaign: R, GF per attribute set, GF and GFRC.

    Works on any size, including no nuggets, no turns or no conversations; a single
    conversation goes through the same array code with no extra cost.
    """
    attribute_sets = tuple(attribute_sets)
    n_conv = int(n_conversations)
    _check_tables(turns, nuggets, attribute_sets, n_conv)
    n_turns = len(turns)
    conversation_of_turn = turns.conversation
    conversation_of_nugget = conversation_of_turn[nuggets.turn]

    # R: every nugget's position discount times its (duplicate-aware) gain.
    nugget_pw = pw(nuggets.wc, settings.patience)
    if settings.duplicates_count_once:
        duplicate = _later_mentions(conversation_of_nugget, nuggets.entity, nuggets.wc)
    else:
        duplicate = np.zeros(len(nuggets), dtype=bool)
    effective_gain = np.where(duplicate, 0.0, nuggets.gain)
    contribution = nugget_pw * effective_gain
    normaliser = hard_normaliser(settings.patience)
    R = np.bincount(conversation_of_nugget, weights=contribution, minlength=n_conv) / normaliser

    # Which turns are scored: those with relevant nuggets of their own, under both methods (paper,
    # Section 3.1); cumulative only changes what a scored turn's distribution is built from.
    relevant = effective_gain > 0
    relevant_turn = nuggets.turn[relevant]
    own_relevant = np.bincount(relevant_turn, minlength=n_turns).astype(float)
    position = _position_in_conversation(conversation_of_turn)
    cumulative = settings.method == "cumulative"
    pooled_relevant = _cumulate_within_conversations(own_relevant, position) if cumulative else own_relevant
    has_relevant = own_relevant > 0
    scored = np.ones(n_turns, dtype=bool) if settings.empty_turns == "uniform" else has_relevant

    turn_weight = _turn_weights(settings, turns, scored, has_relevant, relevant_turn, nugget_pw[relevant])

    # GF: per attribute set, achieved distribution -> DistrSim -> weighted mean over scored turns.
    weight_per_conversation = np.bincount(conversation_of_turn, weights=turn_weight, minlength=n_conv)
    achieved: dict[str, np.ndarray] = {}
    distr_sims = np.full((n_turns, len(attribute_sets)), np.nan)
    gf_m = np.zeros((n_conv, len(attribute_sets)))
    for m, attribute_set in enumerate(attribute_sets):
        k = attribute_set.n_groups
        members = _membership(nuggets, attribute_set)[relevant]
        if not np.all(np.isfinite(members)):
            raise ValueError(f"a relevant nugget has no usable {attribute_set.name} membership (NaN or inf)")
        totals = _sum_rows_by_turn(relevant_turn, members, n_turns)
        if cumulative:
            totals = _cumulate_within_conversations(totals, position)
        distribution = np.full((n_turns, k), np.nan)
        distribution[has_relevant] = totals[has_relevant] / pooled_relevant[has_relevant, None]
        distribution[scored & ~has_relevant] = 1.0 / k  # an empty turn introduces no bias
        achieved[attribute_set.name] = distribution
        sims = np.asarray(distr_sim(distribution[scored], attribute_set.target, attribute_set.divergence))
        distr_sims[scored, m] = sims
        weighted = np.bincount(
            conversation_of_turn[scored], weights=turn_weight[scored] * sims, minlength=n_conv
        )
        gf_m[:, m] = np.divide(
            weighted, weight_per_conversation, out=np.zeros(n_conv), where=weight_per_conversation > 0
        )

    attribute_weights = normalised_weights(attribute_sets)
    # summed along each row, not `@`, so a conversation's GF has the same bits in any batch
    GF = (gf_m * attribute_weights).sum(axis=-1) if attribute_sets else np.zeros(n_conv)
    GFRC = settings.alpha * R + (1.0 - settings.alpha) * GF
    return Scores(
        settings=settings,
        attribute_sets=attribute_sets,
        pw=nugget_pw,
        effective_gain=effective_gain,
        duplicate=duplicate,
        contribution=contribution,
        scored=scored,
        turn_weight=turn_weight,
        achieved=achieved,
        distr_sim=distr_sims,
        R=R,
        GF_m=gf_m,
        GF=GF,
        GFRC=GFRC,
        relevant=relevant,
        attribute_weights=attribute_weights,
        normaliser=normaliser,
    )


# --- the grouped operations score is built from -------------------------------------------


def _later_mentions(conversation: np.ndarray, entity: np.ndarray, wc: np.ndarray) -> np.ndarray:
    """True for every mention of an entity after its first in the same conversation.

    Nuggets are put in (conversation, entity, WC) order; the first of each (conversation,
    entity) run is the first mention. "First" is the smallest WC(n); two mentions ending at
    the same word (an annotation slip) keep their row order (stable sort), so the answer is
    still deterministic.
    """
    n = conversation.size
    if n == 0:
        return np.zeros(0, dtype=bool)
    order = _reading_order(conversation, entity, wc)
    conversation, entity = conversation[order], entity[order]
    first = np.ones(n, dtype=bool)
    first[1:] = (conversation[1:] != conversation[:-1]) | (entity[1:] != entity[:-1])
    duplicate = np.empty(n, dtype=bool)
    duplicate[order] = ~first
    return duplicate


def _reading_order(conversation: np.ndarray, entity: np.ndarray, wc: np.ndarray) -> np.ndarray:
    """Stable argsort by (conversation, entity, wc): one packed int64 key when it fits (one sort
    of one key, where a three-key lexsort sorts by each key), else lexsort."""
    entity_low = int(entity.min())
    entity_span = int(entity.max()) - entity_low + 1
    wc_span = int(wc.max()) + 1
    conversation_span = int(conversation.max()) + 1
    if conversation_span * entity_span * wc_span < 2**62:
        key = (conversation * entity_span + (entity - entity_low)) * wc_span + wc
        return np.argsort(key, kind="stable")
    return np.lexsort((wc, entity, conversation))


def _position_in_conversation(conversation: np.ndarray) -> np.ndarray:
    """0 for a conversation's first system turn, 1 for the next, ... (rows are grouped by conversation)."""
    rows = np.arange(conversation.size)
    if conversation.size == 0:
        return rows
    starts = np.ones(conversation.size, dtype=bool)
    starts[1:] = conversation[1:] != conversation[:-1]
    first_row = np.maximum.accumulate(np.where(starts, rows, 0))
    return rows - first_row


def _cumulate_within_conversations(values: np.ndarray, position: np.ndarray) -> np.ndarray:
    """Running sums down the turns of each conversation, restarting at every conversation.

    A segmented Hillis-Steele scan: log2(longest conversation) vectorised steps. Unlike a
    global cumsum minus the total before the conversation, it never subtracts large sums, so
    a group nobody belongs to stays exactly 0 and no cancellation error leaks into the
    divergences.
    """
    result = np.array(values, dtype=float, copy=True)
    longest = int(position.max()) if position.size else 0
    shift = 1
    while shift <= longest:
        rows = np.flatnonzero(position >= shift)
        result[rows] = result[rows] + result[rows - shift]  # right side read before any write
        shift *= 2
    return result


def _sum_rows_by_turn(turn: np.ndarray, rows: np.ndarray, n_turns: int) -> np.ndarray:
    """Sum of membership vectors per turn: one bincount per group (groups are few, nuggets many)."""
    k = rows.shape[1]
    totals = np.zeros((n_turns, k))
    for group in range(k):
        totals[:, group] = np.bincount(turn, weights=rows[:, group], minlength=n_turns)
    return totals


def _turn_weights(
    settings: Settings,
    turns: TurnTable,
    scored: np.ndarray,
    has_own_relevant: np.ndarray,
    relevant_turn: np.ndarray,
    relevant_pw: np.ndarray,
) -> np.ndarray:
    """PW(S): 1 for a scored turn, or the largest pw of its own relevant nuggets (max_pw).

    Under max_pw a uniform empty turn (scored, with no relevant nugget of its own) is weighted
    by pw of its last word: the paper leaves this open, and the turn counts for as much as its
    position says. Unscored turns weigh 0.
    """
    if settings.turn_weight == "one":
        return scored.astype(float)
    own_best = np.zeros(len(turns))
    np.maximum.at(own_best, relevant_turn, relevant_pw)
    weight = np.where(has_own_relevant, own_best, pw(turns.end_wc, settings.patience))
    return np.where(scored, weight, 0.0)


def _membership(nuggets: NuggetTable, attribute_set: AttributeSet) -> np.ndarray:
    """The (n, K) membership rows of one attribute set, checked against its number of groups."""
    k = attribute_set.n_groups
    if len(nuggets) == 0:
        return np.zeros((0, k))
    values = nuggets.membership.get(attribute_set.name)
    if values is None:
        raise ValueError(f"no {attribute_set.name} membership given for the nuggets")
    if values.shape != (len(nuggets), k):
        raise ValueError(
            f"{attribute_set.name} membership has shape {values.shape}, expected ({len(nuggets)}, {k})"
        )
    return values


def _int_vector(values, what: str) -> np.ndarray:
    """A 1-D int64 column; refuses fractional codes or positions rather than truncating them."""
    array = np.asarray(values)
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional")
    if not np.issubdtype(array.dtype, np.integer):
        if not np.all(np.isfinite(array)) or np.any(array != np.round(array)):
            raise ValueError(f"{what} must hold whole numbers")
    return array.astype(np.int64)


def _check_tables(
    turns: TurnTable, nuggets: NuggetTable, attribute_sets: tuple[AttributeSet, ...], n_conv: int
) -> None:
    """Refuse inputs that would silently give wrong scores rather than an error."""
    if n_conv < 0:
        raise ValueError("n_conversations must be >= 0")
    conversation = turns.conversation
    if conversation.size:
        if conversation.min() < 0 or conversation.max() >= n_conv:
            raise ValueError("TurnTable.conversation must lie in 0..n_conversations-1")
        if np.any(np.diff(conversation) < 0):
            raise ValueError("TurnTable rows must be ordered by conversation (non-decreasing codes)")
    if len(nuggets):
        if nuggets.turn.min() < 0 or nuggets.turn.max() >= len(turns):
            raise ValueError("NuggetTable.turn must index a row of the TurnTable")
        if nuggets.wc.min() < 1:
            raise ValueError("word positions start at 1")
        gain = nuggets.gain
        if not np.all(np.isfinite(gain)) or gain.min() < 0 or gain.max() > 1:
            raise ValueError("gains must lie in [0, 1]")
    names = [a.name for a in attribute_sets]
    if len(set(names)) != len(names):
        raise ValueError(f"attribute set names must be unique: {names}")

