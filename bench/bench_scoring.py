"""Benchmark: score a synthetic campaign with the vectorised `score` and the plain-Python reference.

    .venv/bin/python bench/bench_scoring.py [--conversations 10000] [--nuggets 20] [--repeats 15]

The campaign is seeded and shaped like the paper's M topics: every conversation has the same
number of nuggets spread over 2-6 system turns (a user turn before each), gains L0/L1/L2,
entities drawn from a small pool per conversation (so duplicates occur within and across
turns), and two attribute sets: RATINGS (4 ordinal bands, uniform target, RNOD) and ORIGIN
(8 nominal regions, FairWeb target, JSD, soft memberships split over one or two regions).
Both implementations score the same tables; the script checks they agree to 1e-9 and prints
a markdown table (best of the repeats, time.perf_counter) with the machine it ran on.

Then conversations that branch (`scoring.trees.score_trees`, every path in one `score`): the
same campaign with no branch (against `score` itself: what a campaign that does not branch pays)
and with a share of its conversations branching at their first answer (a regenerated S1: the
second system turn becomes a sibling of the first, and the rest follow it).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.timing import best_time, load_average  # noqa: E402
from scoring.gfrc import AttributeSet, NuggetTable, Settings, TurnTable, score  # noqa: E402
from scoring.reference import score_reference  # noqa: E402
from scoring.trees import Tree, path_probabilities, score_trees  # noqa: E402

FAIRWEB_ORIGIN = np.array(
    [0.244725738, 0.111814346, 0.008438819, 0.154008439, 0.099156118, 0.200421941, 0.080168776, 0.101265823]
)
ATTRIBUTE_SETS = (
    AttributeSet("RATINGS", ("<100", "100-10K", "10K-1M", ">=1M"), np.full(4, 0.25), "rnod", 1.0),
    AttributeSet(
        "ORIGIN",
        ("Africa", "America", "Antarctica", "Asia", "Caribbean", "Europe", "Middle East", "Oceania"),
        FAIRWEB_ORIGIN / FAIRWEB_ORIGIN.sum(),
        "jsd",
        1.0,
    ),
)
SETTINGS = {
    "paper (independent, ignore, PW=1)": Settings(),
    "cumulative, uniform, max_pw": Settings(method="cumulative", empty_turns="uniform", turn_weight="max_pw"),
}


def synthetic_campaign(n_conversations: int, nuggets_per_conversation: int, seed: int = 20231212):
    """A seeded campaign as (TurnTable, NuggetTable), built without Python loops over rows."""
    rng = np.random.default_rng(seed)
    turns_per_conv = rng.integers(2, 7, size=n_conversations)
    n_turns = int(turns_per_conv.sum())
    conversation = np.repeat(np.arange(n_conversations), turns_per_conv)
    starts = np.concatenate(([0], np.cumsum(turns_per_conv)[:-1]))

    user_words = rng.integers(5, 41, size=n_turns)
    system_words = rng.integers(80, 301, size=n_turns)
    words = user_words + system_words
    running = np.cumsum(words)
    before_conversation = np.repeat(running[starts] - words[starts], turns_per_conv)
    end_wc = running - before_conversation  # positions restart at 1 in every conversation
    system_start = end_wc - system_words + 1  # first word of the system turn

    n = n_conversations * nuggets_per_conversation
    nugget_conv = np.repeat(np.arange(n_conversations), nuggets_per_conversation)
    turn = starts[nugget_conv] + rng.integers(0, turns_per_conv[nugget_conv])
    wc = system_start[turn] + rng.integers(0, system_words[turn])
    gain = rng.choice([0.0, 0.5, 1.0], size=n, p=[0.2, 0.3, 0.5])
    entity = nugget_conv * 1000 + rng.integers(0, 3 * nuggets_per_conversation // 2, size=n)

    ratings = np.eye(4)[rng.choice(4, size=n, p=[0.05, 0.15, 0.5, 0.3])]
    first_region = rng.choice(8, size=n, p=[0.05, 0.5, 0.0, 0.1, 0.02, 0.25, 0.03, 0.05])
    second_region = rng.choice(8, size=n)
    split = rng.random(n) < 0.3
    origin = np.zeros((n, 8))
    origin[np.arange(n), first_region] += np.where(split, 0.5, 1.0)
    origin[np.arange(n), second_region] += np.where(split, 0.5, 0.0)
    return (
        TurnTable(conversation=conversation, end_wc=end_wc),
        NuggetTable(turn=turn, wc=wc, gain=gain, entity=entity, membership={"RATINGS": ratings, "ORIGIN": origin}),
    )


def first_conversation(turns: TurnTable, nuggets: NuggetTable) -> tuple[TurnTable, NuggetTable]:
    """Conversation 0 alone: what a live UI re-scores after every annotation."""
    turn_rows = np.flatnonzero(turns.conversation == 0)
    nugget_rows = np.flatnonzero(np.isin(nuggets.turn, turn_rows))
    return (
        TurnTable(conversation=turns.conversation[turn_rows], end_wc=turns.end_wc[turn_rows]),
        NuggetTable(
            turn=nuggets.turn[nugget_rows] - turn_rows[0],
            wc=nuggets.wc[nugget_rows],
            gain=nuggets.gain[nugget_rows],
            entity=nuggets.entity[nugget_rows],
            membership={name: rows[nugget_rows] for name, rows in nuggets.membership.items()},
        ),
    )


def max_difference(fast, slow) -> float:
    pairs = [(fast.R, slow.R), (fast.GF, slow.GF), (fast.GFRC, slow.GFRC), (fast.GF_m, slow.GF_m)]
    return max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)), initial=0.0)) for a, b in pairs)


def regenerated_first_answers(turns: TurnTable, share: float, seed: int = 7) -> Tree:
    """The campaign's tree with `share` of its conversations (those with two system turns or
    more) branching at S1: their second system turn's parent is the first's (none: a root)."""
    conversation = turns.conversation
    first = np.flatnonzero(np.r_[True, conversation[1:] != conversation[:-1]])
    parent = np.arange(len(conversation)) - 1
    parent[first] = -1
    within = first[first + 1 < len(conversation)]
    has_second = within[conversation[within + 1] == conversation[within]]
    rng = np.random.default_rng(seed)
    chosen = rng.choice(has_second, size=int(round(share * len(first))), replace=False)
    parent[chosen + 1] = -1
    return Tree(parent)


def tree_rows(turns: TurnTable, nuggets: NuggetTable, n_conversations: int, repeats: int) -> None:
    """Times of `score_trees` beside `score` on the same tables."""
    settings = Settings()
    linear = Tree.linear(turns)
    plain, _ = best_time(lambda: score(turns, nuggets, ATTRIBUTE_SETS, settings, n_conversations), repeats)
    print("\n| branching conversations, paper settings | `score_trees` | `score` (no branch) | ratio | paths |")
    print("|---|---:|---:|---:|---:|")
    for label, tree in (("none branching", linear), ("10% branching at S1", regenerated_first_answers(turns, 0.1))):
        run = lambda tree=tree: score_trees(turns, nuggets, tree, ATTRIBUTE_SETS, settings, n_conversations)  # noqa: E731
        run()
        took, _ = best_time(run, repeats)
        paths = len(path_probabilities(turns, tree, n_conversations).probability)
        print(f"| {label} | {took * 1000:.1f} ms | {plain * 1000:.1f} ms | {took / plain:.2f}x | {paths:,} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10_000)
    parser.add_argument("--nuggets", type=int, default=20, help="nuggets per conversation")
    parser.add_argument("--repeats", type=int, default=15, help="repeats of the vectorised score")
    parser.add_argument("--reference-repeats", type=int, default=3)
    args = parser.parse_args()

    turns, nuggets = synthetic_campaign(args.conversations, args.nuggets)
    print(
        f"Campaign: {args.conversations:,} conversations, {len(turns):,} system turns, "
        f"{len(nuggets):,} nuggets, attribute sets RATINGS (4, RNOD) and ORIGIN (8, JSD).\n"
    )
    print("| settings | vectorised `score` | plain-Python reference | speed-up | max abs difference |")
    print("|---|---:|---:|---:|---:|")
    ok = True
    for label, settings in SETTINGS.items():
        def run_fast():
            return score(turns, nuggets, ATTRIBUTE_SETS, settings, args.conversations)

        def run_slow():
            return score_reference(turns, nuggets, ATTRIBUTE_SETS, settings, args.conversations)

        run_fast()  # warm-up: first-touch page faults of the large temporaries are not scoring
        fast_time, fast = best_time(run_fast, args.repeats)
        slow_time, slow = best_time(run_slow, args.reference_repeats)
        difference = max_difference(fast, slow)
        ok &= difference <= 1e-9
        print(
            f"| {label} | {fast_time * 1000:.1f} ms | {slow_time:.2f} s | "
            f"{slow_time / fast_time:.0f}x | {difference:.1e} |"
        )
    one_turns, one_nuggets = first_conversation(turns, nuggets)
    settings = Settings()
    one_fast, _ = best_time(lambda: score(one_turns, one_nuggets, ATTRIBUTE_SETS, settings, 1), 200)
    one_slow, _ = best_time(lambda: score_reference(one_turns, one_nuggets, ATTRIBUTE_SETS, settings, 1), 200)
    print(
        f"| one conversation ({len(one_nuggets)} nuggets, {len(one_turns)} turns), paper settings | "
        f"{one_fast * 1e6:.0f} µs | {one_slow * 1e6:.0f} µs | {one_slow / one_fast:.1f}x | |"
    )
    tree_rows(turns, nuggets, args.conversations, args.repeats)
    print(
        f"\nBest of {args.repeats} (vectorised) and {args.reference_repeats} (reference) runs "
        "(200 for the single conversation), "
        "time.perf_counter.\n"
        f"Machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs "
        f"({platform.processor() or 'processor unknown'}); Python {platform.python_version()}, numpy {np.__version__}; "
        f"load average {load_average()} (other jobs share the machine: best-of timings, not means)."
    )
    if not ok:
        print("\nMISMATCH: the vectorised score and the reference disagree by more than 1e-9", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
