"""Word counting as GFRC defines it: the one place where a word is decided.

Every word of the conversation counts, user turns included. A word is a whitespace-separated
token of a turn's text; positions run from 1 at the first word of U1 across all turns.
Annotation markup is never part of a turn's text, so it never counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

import numpy as np


def tokenise(text: str) -> list[str]:
    """The words of one turn, in order (str.split: any run of Unicode whitespace separates)."""
    return text.split()


def word_count(text: str) -> int:
    return len(tokenise(text))


def span_text(words: Sequence[str], start_word: int, end_word: int) -> str:
    """A nugget's text: words `start_word`-`end_word` (0-based, inclusive) of its turn's `words`
    (tokenise of the turn's text), joined by one space."""
    return " ".join(words[start_word : end_word + 1])


def word_position(offset: int, word: int) -> int:
    """The 1-based conversation-wide position of a turn's `word`-th word (0-based), `offset`
    words before the turn (turn_offsets). WC(n) is the position of the nugget's last word."""
    return offset + word + 1


def turn_offsets(texts: Sequence[str]) -> np.ndarray:
    """Words before each turn: turn i's k-th word (0-based) sits at position offsets[i] + k + 1."""
    counts = np.fromiter((word_count(t) for t in texts), dtype=np.int64, count=len(texts))
    return np.concatenate(([0], np.cumsum(counts)[:-1])) if len(texts) else counts


def offsets_of_counts(counts: Sequence[int]) -> list[int]:
    """Words before each of a run of texts (turns, or a turn's lines), from their word counts
    (word_count, or len of their tokenise when the words are at hand anyway)."""
    return list(accumulate(counts[:-1], initial=0)) if len(counts) else []


def path_offsets(counts: Sequence[int], parents: Sequence[int | None]) -> list[int]:
    """Words before each turn of a conversation that branches, counted along the turn's path
    from the root: `parents[i]` is the index of the turn turn i follows (None for a root; listed
    before it), `counts` the turns' word counts. The same on every path through a turn, so a
    nugget has one WC; for a linear conversation (parents None, 0, 1, ...) `offsets_of_counts`."""
    offsets: list[int] = []
    for parent in parents:
        offsets.append(0 if parent is None else offsets[parent] + counts[parent])
    return offsets


def turn_offsets_list(texts: Sequence[str]) -> list[int]:
    """`turn_offsets` as a list of ints, without numpy: what one conversation's few turns need
    (an export writes 10,000 conversations; an array per conversation costs more than its sums)."""
    return list(accumulate((word_count(t) for t in texts[:-1]), initial=0)) if len(texts) else []
