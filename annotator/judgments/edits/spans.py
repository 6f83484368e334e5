"""Where a nugget may lie: in one system turn, never over another nugget of its annotator
(annotator.rules.spans), refused with words an annotator reads."""

from __future__ import annotations

from collections.abc import Sequence

from annotator.judgments.edits.recording import AnnotationRefused
from annotator.models import Nugget, Turn
from annotator.rules.spans import span_problem, SpanProblem
from scoring.words import tokenise


def check_span_bounds(turn: Turn, start_word: int, end_word: int) -> None:
    """A nugget is a word range inside one system turn (no database needed: forms call this)."""
    check_span_among(turn, start_word, end_word, others=())


def check_span(turn: Turn, annotator, start_word: int, end_word: int, exclude: int | None = None) -> None:
    """Inside one system turn and overlapping none of the annotator's other nuggets.

    The overlap depends on what others just saved, so it is judged once, by the service, with
    the turn locked; forms judge the bounds only (check_span_bounds)."""
    others = Nugget.objects.filter(turn=turn, annotator=annotator).order_by()  # unordered: no joins to sort
    if exclude is not None:
        others = others.exclude(pk=exclude)
    check_span_among(turn, start_word, end_word, others=list(others.values_list("start_word", "end_word")))


def check_span_among(turn: Turn, start_word: int, end_word: int, others: Sequence[tuple[int, int]]) -> None:
    """AnnotationRefused, in the workspace's words, when annotator.rules.spans finds the span
    wrong among the annotator's `others` spans of the turn, given, not read: the one home of the
    span check (check_span reads the others; an adjudication preview passes them, locking nothing)."""
    if not turn.is_system:
        raise AnnotationRefused(USER_TURN)
    words = len(tokenise(turn.text))
    refuse_problem(span_problem(start_word, end_word, words=words, others=others), turn, start_word, end_word, words)


USER_TURN = "Nuggets are parts of system turns; this is a user turn."


def refuse_problem(problem: SpanProblem | None, turn: Turn, start_word: int, end_word: int, words: int) -> None:
    if problem is None:
        return
    if problem.outside:
        raise AnnotationRefused(
            f"Words {start_word + 1}-{end_word + 1} are outside {turn}, which has {words} words."
        )
    raise AnnotationRefused("These words overlap a nugget you already marked in this turn.")
