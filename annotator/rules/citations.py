"""The systems' own citations as proposed nuggets: which source a span of cited words stands for.

A harvested answer cites sources on spans of its words (annotator.interchange.formats'
ParsedCitation). Each cited span becomes one nugget of the automatic judge ``citations``:

- several sources cited on the same words give one nugget, for the first of them whose entity
  is judged in the topic (someone graded it: the annotator then sees a known entity), else the
  first as the answer lists them;
- one judge's nuggets never overlap (annotator.rules.spans): of two overlapping cited spans the
  one starting first is kept (the longer when both start on one word), the other is reported.

Pure Python, no Django: the importer applies it to whole files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["CITATIONS_JUDGE", "CITATIONS_DESCRIPTION", "Citation", "choose_cited_spans"]

CITATIONS_JUDGE = "citations"  # the automatic judge account that holds every harvest's citations
CITATIONS_DESCRIPTION = (
    "Not a model: the systems' own citations, as harvested. Every span of words a system cited a source on is a "
    "nugget of the cited URL (graded as relevant: the system presents it as its source; no memberships)."
)


@dataclass(frozen=True)
class Citation:
    turn: int  # index of the turn in its conversation
    start: int  # 0-based word index in the turn, inclusive
    end: int  # inclusive
    key: str  # the cited URL's identity key (annotator.rules.identity.normalise_url)
    title: str = ""
    position: int = 0  # order in the file, for messages
    where: object = None  # what the importer needs to say where it is (path, line, field)


def choose_cited_spans(citations: Iterable[Citation], judged: set[str]) -> tuple[list[Citation], list[tuple[Citation, Citation]]]:
    """The citations that become nuggets, in turn and word order, and the (dropped, kept)
    pairs of overlapping spans. ``judged``: the keys of entities judged in the topic."""
    by_span: dict[tuple[int, int, int], list[Citation]] = {}
    for citation in citations:
        by_span.setdefault((citation.turn, citation.start, citation.end), []).append(citation)
    chosen = [next((c for c in sources if c.key in judged), sources[0]) for sources in by_span.values()]
    chosen.sort(key=lambda c: (c.turn, c.start, -c.end))
    kept: list[Citation] = []
    dropped: list[tuple[Citation, Citation]] = []
    for citation in chosen:
        previous = kept[-1] if kept and kept[-1].turn == citation.turn else None
        if previous is not None and citation.start <= previous.end:
            dropped.append((citation, previous))
        else:
            kept.append(citation)
    return kept, dropped
