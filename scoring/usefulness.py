"""Turn usefulness statistics of Figures 2-4 of the paper (Sakai, EVIA 2023, Section 4).

Besides nuggets, every system turn of a run gets a label:

    o  the turn looks useful
    x  the turn is not useful
    -  there is no such turn: the dialogue broke down before it

Per run (one system, one trial), over its topics:

- %useful of a turn position = share of the topics whose turn at that position is "o". The
  denominator is *every topic of the run*, "-" included: a dialogue that broke down gave the
  user nothing at that position, and the paper's figures put one cell per topic in each
  column and report the proportion of "o" cells in it. Positions a topic never reached (its
  label sequence is shorter) count as "-" for the same reason.
- ave%useful = the plain mean of %useful over the positions (the paper: over its two turns).
- %recovery = of the topics whose first system turn was "x", the share whose second system
  turn is "o". A topic whose first turn is "x" and whose dialogue then broke down ("x -", the
  grey cells) is in the denominator and did not recover: the paper's "G2 has 14 unsuccessful
  S1's, but recovered with S2 for 9 of the topics, %recovery = 9/14 = 64.3%" counts all
  unsuccessful first turns. None when no first turn was "x" (nothing to recover from).

Percentages are returned on a 0-100 scale, as the paper prints them; round for display only.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

USEFUL, NOT_USEFUL, NO_TURN = "o", "x", "-"
LABELS = (USEFUL, NOT_USEFUL, NO_TURN)

#: Colour class of a topic x run cell by its (first, second) turn labels. The paper's five
#: colours, plus names for the pairs it never shows: a useful first turn followed by a
#: breakdown, a breakdown from the start, and contradictory data (a turn after a breakdown).
CELL_COLOURS: dict[tuple[str, str], str] = {
    (USEFUL, USEFUL): "green",
    (USEFUL, NOT_USEFUL): "light-green",
    (NOT_USEFUL, USEFUL): "yellow",
    (NOT_USEFUL, NOT_USEFUL): "orange",
    (NOT_USEFUL, NO_TURN): "grey",
    (USEFUL, NO_TURN): "pale-green",
    (NO_TURN, NO_TURN): "grey",
    (NO_TURN, USEFUL): "invalid",
    (NO_TURN, NOT_USEFUL): "invalid",
}


@dataclass(frozen=True)
class UsefulnessSummary:
    """The statistics printed at the bottom of the paper's Figures 2-4, for one run."""

    n_topics: int
    percent_useful: tuple[float, ...]  # per system-turn position, 0-100
    ave_percent_useful: float | None  # mean over positions; None with no topics
    recovered: int  # topics with first turn "x" and second turn "o"
    unsuccessful_first: int  # topics with first turn "x"
    percent_recovery: float | None  # 100 * recovered / unsuccessful_first; None if that is 0


def _check_label(label: str) -> str:
    cleaned = label.strip()
    if cleaned not in LABELS:
        raise ValueError(f"a turn label is one of {LABELS}, not {label!r}")
    return cleaned


def padded_labels(labels: Mapping[str, Sequence[str]], n_positions: int | None = None) -> dict[str, tuple[str, ...]]:
    """Each topic's labels, checked and padded with "-" to a common number of positions."""
    checked = {topic: tuple(_check_label(label) for label in seq) for topic, seq in labels.items()}
    longest = max((len(seq) for seq in checked.values()), default=0)
    width = longest if n_positions is None else n_positions
    if width < longest:
        raise ValueError(f"a topic has {longest} turn labels, more than n_positions={width}")
    return {topic: seq + (NO_TURN,) * (width - len(seq)) for topic, seq in checked.items()}


def percent_useful(labels: Mapping[str, Sequence[str]], n_positions: int | None = None) -> tuple[float, ...]:
    """%useful per system-turn position: 100 * (#topics labelled "o" there) / (#topics)."""
    padded = padded_labels(labels, n_positions)
    if not padded:
        return ()
    width = len(next(iter(padded.values())))
    return tuple(
        100.0 * sum(seq[position] == USEFUL for seq in padded.values()) / len(padded) for position in range(width)
    )


def ave_percent_useful(labels: Mapping[str, Sequence[str]], n_positions: int | None = None) -> float | None:
    """Mean of %useful over the positions; None when there is nothing to average."""
    per_position = percent_useful(labels, n_positions)
    return sum(per_position) / len(per_position) if per_position else None


def recovery_counts(labels: Mapping[str, Sequence[str]]) -> tuple[int, int]:
    """(recovered, unsuccessful first turns): the numerator and denominator of %recovery."""
    padded = padded_labels(labels, None)
    unsuccessful = [seq for seq in padded.values() if seq and seq[0] == NOT_USEFUL]
    recovered = sum(len(seq) > 1 and seq[1] == USEFUL for seq in unsuccessful)
    return recovered, len(unsuccessful)


def percent_recovery(labels: Mapping[str, Sequence[str]]) -> float | None:
    """Of the topics whose first turn was "x", the percentage whose second turn was "o"."""
    recovered, unsuccessful = recovery_counts(labels)
    return 100.0 * recovered / unsuccessful if unsuccessful else None


def summarise(labels: Mapping[str, Sequence[str]], n_positions: int | None = None) -> UsefulnessSummary:
    """All the per-run statistics at once (`n_positions` fixes the columns, e.g. 2 turns)."""
    recovered, unsuccessful = recovery_counts(labels)
    return UsefulnessSummary(
        n_topics=len(labels),
        percent_useful=percent_useful(labels, n_positions),
        ave_percent_useful=ave_percent_useful(labels, n_positions),
        recovered=recovered,
        unsuccessful_first=unsuccessful,
        percent_recovery=100.0 * recovered / unsuccessful if unsuccessful else None,
    )


def cell_colour(first: str, second: str = NO_TURN) -> str:
    """Colour class of a topic's cell from its first two turn labels (paper, Figures 2-4)."""
    return CELL_COLOURS[(_check_label(first), _check_label(second))]


def cell_colour_of(sequence: Sequence[str]) -> str:
    """Colour class from a topic's label sequence; a missing second label is "-"."""
    padded = tuple(sequence) + (NO_TURN, NO_TURN)
    return cell_colour(padded[0], padded[1])
