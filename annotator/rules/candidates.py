"""Suggested nuggets (candidate lines): the guideline that a line of a system turn holding a URL
probably names an entity, so it is proposed as a nugget until a nugget touches it or the
annotator dismisses it. Shared by the workspace's suggestions and the baseline automatic judge
(annotator.evaluation.baseline_judge), which accepts every one of them.

Pure: a turn's text in, its lines (with the turn word indices they cover) out; the word rule
is scoring.words.tokenise.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from annotator.rules.identity import entity_key_and_name, find_url
from scoring.words import tokenise


@dataclass
class Line:
    start: int  # 0-based word index in the turn of the line's first word
    words: list[str]
    text: str

    @property
    def end(self) -> int:
        return self.start + len(self.words) - 1


def lines_of(text: str) -> list[Line]:
    """The turn's text lines with the turn word indices they cover (tokenise is the word rule)."""
    lines, start = [], 0
    for raw in text.splitlines():
        words = tokenise(raw)
        lines.append(Line(start=start, words=words, text=raw))
        start += len(words)
    if start != len(tokenise(text)):  # unusual separators: one line, the word rule wins
        return [Line(start=0, words=tokenise(text), text=text)]
    return lines


@dataclass(frozen=True)
class CandidateLine:
    """A line of a system turn suggested as a nugget: its words and the entity key its text gives."""

    start: int
    end: int
    text: str
    key: str | None


def candidate_lines(text: str, taken: Collection[int] = ()) -> list[CandidateLine]:
    """The lines of a system turn's `text` that hold a URL and share no word with `taken` (the
    turn word indices the annotator's nuggets already cover)."""
    result = []
    for line in lines_of(text):
        if not line.words or any(w in taken for w in range(line.start, line.end + 1)):
            continue
        if find_url(line.text) is None:
            continue
        key, _name = entity_key_and_name(line.text)
        result.append(CandidateLine(line.start, line.end, line.text, key))
    return result


def candidate_key(turn_id: int, start: int, end: int) -> str:
    """How a dismissed suggestion is remembered."""
    return f"{turn_id}:{start}:{end}"
