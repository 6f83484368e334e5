"""The one rule on nugget spans, shared by the workspace, the API and the importer.

A nugget is a range of words of one system turn (0-based, inclusive), and the nuggets of one
annotator in one turn never share a word. Pure: callers pass the turn's word count and the
annotator's other spans in the turn, and word the refusal their own way (the service for a
person at the workspace, the importer as `file:line: reason`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SpanProblem:
    """What is wrong with a span: it is not a word range of the turn (`outside`), or it shares
    words with `others[overlaps]`."""

    outside: bool = False
    overlaps: int | None = None


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
