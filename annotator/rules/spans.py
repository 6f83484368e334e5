"""The one rule on nugget spans, shared by the workspace, the API and the importer.

A nugget is a range of words of one system turn (0-based, inclusive), and the nuggets of one
annotator in one turn never share a word. Pure: callers pass the turn's word count and the
annotator's other spans in the turn, and word the refusal their own way (the service for a
person at the workspace, the importer as `file:line: reason`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SpanProblem:
    """What is wrong with a span: it is not a word range of the turn (`outside`), or it shares
    words with `others[overlaps]`."""

    outside: bool = False
    overlaps: Any = None  # span_problem: an index into `others`; SpanSweep: the earlier span's tag


def span_problem(
    start_word: int, end_word: int, *, words: int, others: Sequence[tuple[int, int]] = ()
) -> SpanProblem | None:
    """None when words `start_word`-`end_word` lie in a turn of `words` words and overlap none
    of `others` (the annotator's other spans in the turn, as (start_word, end_word)); else
    what is wrong, naming the first span of `others` it overlaps."""
    if not 0 <= start_word <= end_word < words:
        return SpanProblem(outside=True)
    for index, (other_start, other_end) in enumerate(others):
        if other_start <= end_word and start_word <= other_end:
            return SpanProblem(overlaps=index)
    return None


class SpanSweep:
    """The same rule for many spans of one turn at once, in constant time each: give the spans
    in (start_word, end_word) order, and a span overlaps an earlier one exactly when it starts at
    or before the furthest end reached so far. A whole file or request is then checked in
    O(n log n) (the sort), where asking span_problem with every earlier span is O(n^2)."""

    def __init__(self, words: int):
        self.words = words
        self._reach = -1  # the furthest end_word of the spans checked so far
        self._reacher: Any = None  # the tag of the span that reaches it
        self._last: tuple[int, int] = (-1, -1)

    def check(self, start_word: int, end_word: int, tag: Any = None) -> SpanProblem | None:
        """What is wrong with the next span; an overlap names (as `overlaps`) the tag of an
        earlier span it shares words with. Raises ValueError for a span out of order."""
        if (start_word, end_word) < self._last:
            raise ValueError("SpanSweep takes spans in (start_word, end_word) order")
        if not 0 <= start_word <= end_word < self.words:
            return SpanProblem(outside=True)
        self._last = (start_word, end_word)
        problem = SpanProblem(overlaps=self._reacher) if start_word <= self._reach else None
        if end_word > self._reach:
            self._reach, self._reacher = end_word, tag
        return problem
