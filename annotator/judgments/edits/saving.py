"""Every service runs in one transaction and stores the figures of what it touched before that
transaction ends (`keeps_figures`); `save_with_score` hands a save's stored score back."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, Generic, NamedTuple, TypeVar

from django.db import transaction

from annotator.judgments import completion
from annotator.judgments.edits.recording import touched_by_services
from annotator.scores.stored import invalidation
from annotator.scores.stored.figures import StoredScore


Service = TypeVar("Service", bound=Callable[..., Any])


Result = TypeVar("Result")


class Saved(NamedTuple, Generic[Result]):
    """What a service returned, and the score its save stored (`invalidation.judgments_saved`): one
    annotator's score of one conversation; None when it stored several conversations or none,
    or ran inside another service (which stores)."""

    result: Result
    score: StoredScore | None


def keeps_figures(service: Service) -> Service:
    """Run `service` in one transaction and, before that transaction ends, store the figures of
    the conversations its recorded changes touched (a service called inside another adds to
    the outer one's, which stores them once). `save_with_score` runs it and returns the score
    it stored too."""

    @functools.wraps(service)
    def run(*args, **kwargs):
        return _keeping_figures(service, args, kwargs).result

    return run  # type: ignore[return-value]


def save_with_score(service: Callable[..., Result], /, *args, **kwargs) -> Saved[Result]:
    """`service(*args, **kwargs)` (a service that keeps_figures) and the score its save stored:
    an answer that shows the conversation's score (the workspace's panel) shows that one rather
    than read and score the same judgments again. The score is of the committed save unless the
    caller runs this inside its own transaction."""
    return _keeping_figures(service.__wrapped__, args, kwargs)  # type: ignore[attr-defined]


def _keeping_figures(service: Callable[..., Result], args, kwargs) -> Saved[Result]:
    if touched_by_services.get() is not None:
        with transaction.atomic():
            return Saved(service(*args, **kwargs), None)
    token = touched_by_services.set(set())
    try:
        with transaction.atomic():
            result = service(*args, **kwargs)
            saved = store_figures(touched_by_services.get())
        return Saved(result, saved)
    finally:
        touched_by_services.reset(token)


def store_figures(touched: Iterable[tuple]) -> StoredScore | None:
    """Write the stored figures of what the recorded changes touched (what they invalidate:
    annotator.scores.stored.invalidation); a done conversation the save left short is not done
    any more. Returns the score stored when that is one conversation of one annotator (a save),
    else None."""
    by_annotator, topic_id = invalidation.conversations_touched(touched)
    if by_annotator:
        completion.reopen_if_short(by_annotator)
    return invalidation.judgments_saved(by_annotator, topic_id)
