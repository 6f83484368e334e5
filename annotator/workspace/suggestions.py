"""The suggested nuggets of a conversation, from what was read (no queries): the spans the
systems cited and the proposals of the judge the campaign shows (`CitedSpan`, read by
annotator.workspace.queries.cited_spans), then the lines of annotator.rules.candidates, less
what the annotator marked or dismissed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from annotator.rules.candidates import candidate_key, candidate_lines
from annotator.rules.identity import is_grounding_redirect
from annotator.scores.per_conversation import ConversationScore
from annotator.workspace.workbench import Candidate
from scoring.words import span_text, tokenise


@dataclass(frozen=True)
class CitedSpan:
    """Words a system cited a source on (a nugget of the automatic judge CITATIONS_JUDGE), or a
    nugget proposed by the automatic judge the campaign shows (Campaign.proposals_from, e.g. an
    LLM judge): `proposed_by` its name, `grade` the grade it gave."""

    nugget_id: int
    turn_id: int
    start: int
    end: int
    url: str  # the entity key: the cited page's normalised URL (a proposal: its entity's key)
    title: str
    proposed_by: str = ""  # empty: the system's own citation
    grade: str | None = None


def find_candidates(score: ConversationScore, dismissed: set[str], cited: Iterable[CitedSpan] = ()) -> list[Candidate]:
    """The suggested nuggets the annotator did not dismiss: the spans the system cited (`cited`),
    then the lines of annotator.rules.candidates (a line on which the system cited words is not
    suggested twice), none over the annotator's nuggets (`score.nuggets`). Which of the
    annotator's entities each names (`Candidate.known`) is read by the caller."""
    taken: dict[int, set[int]] = {}
    for n in score.nuggets:
        taken.setdefault(n.nugget.turn_id, set()).update(range(n.nugget.start_word, n.nugget.end_word + 1))
    result = []
    texts = {view.turn.pk: view.turn.text for view in score.turns}
    proposed: dict[int, set[int]] = {}  # words a suggestion already holds: a proposal never overlaps a citation
    for span in cited:
        words = range(span.start, span.end + 1)
        if not taken.get(span.turn_id, set()).isdisjoint(words) or not proposed.get(span.turn_id, set()).isdisjoint(words):
            continue
        if candidate_key(span.turn_id, span.start, span.end) in dismissed or span.turn_id not in texts:
            continue
        proposed.setdefault(span.turn_id, set()).update(words)
        result.append(Candidate(span.turn_id, span.start, span.end, span_text(tokenise(texts[span.turn_id]), span.start, span.end),
                                None, span.url, cited_by=span.nugget_id, source=span.title,
                                redirect=is_grounding_redirect(span.url), proposed_by=span.proposed_by,
                                proposed_grade=span.grade))
    cited_starts: dict[int, list[int]] = {}
    for c in result:
        cited_starts.setdefault(c.turn_id, []).append(c.start)
    result += [
        Candidate(view.turn.pk, line.start, line.end, line.text, None, line.key)
        for view in score.turns if view.turn.is_system
        for line in candidate_lines(view.turn.text, taken.get(view.turn.pk, set()))
        if candidate_key(view.turn.pk, line.start, line.end) not in dismissed
        and not any(line.start <= start <= line.end for start in cited_starts.get(view.turn.pk, ()))
    ]
    return result
