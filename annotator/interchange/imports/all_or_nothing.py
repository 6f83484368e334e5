"""The one way an import writes: nothing is visible before everything is, and nothing is
written once a problem is found.

Every importer has two halves. Its plan reads the files and what the campaign holds and checks
everything, writing nothing; every problem goes into the ImportResult, by file:line. Only a
plan without a problem is written, by the importer's writing half, and what it writes becomes
visible in one commit:

- conversations (annotator.interchange.imports.conversations): written where nobody looks (a
  staging area, in short transactions that leave SQLite's one writer free for annotators'
  saves) and published in one short transaction (imports.staging);
- judgments, topics and ranked-list runs: one transaction (`one_transaction`). Ranked-list runs
  are planned and written a file at a time inside it, so memory holds a few files, not a round
  of them; a problem in a later file rolls back the earlier files' rows, so the import stays
  all or nothing.

The writing half may still find a problem the plan could not (a topic someone added meanwhile):
it raises WriteRefused, the transaction is rolled back, and the problem is the result's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction

from annotator.interchange.formats.model import FormatError
from annotator.interchange.imports.result import ImportResult

__all__ = ["WriteRefused", "one_transaction"]


class WriteRefused(Exception):
    """What the writing half found wrong (the database changed since the plan): nothing written."""

    def __init__(self, error: FormatError):
        super().__init__(str(error))
        self.error = error


@contextmanager
def one_transaction(result: ImportResult) -> Iterator[None]:
    """The writes of the block, all or nothing: committed at its end unless `result` has a
    problem by then (found by a plan made inside it), or the block raised WriteRefused (made
    the result's problem)."""
    try:
        with transaction.atomic():
            yield
            if result.errors:
                transaction.set_rollback(True)
    except WriteRefused as refused:
        result.errors.append(refused.error)
    if result.errors:
        result.nothing_written()
