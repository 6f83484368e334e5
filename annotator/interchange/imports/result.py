"""What an import did, or why it did nothing: the one result every importer returns.

    result = import_files(campaign, files)           # or import_ntcireval, import_runs, import_topics
    result.ok, result.errors, result.warnings        # problems as FormatError: file:line: message
    result.summary()                                 # one sentence, in the importer's words

`what` says which importer made it, and so which counts `summary` tells: conversations (turns,
nuggets, labels, citations, done), judgments (NTCIREVAL qrels and memberships), ranked-list runs
or topics. The counts of judgments (entities created and updated, by whom) are shared by the
conversation and NTCIREVAL importers, the topics and runs created by every importer that makes
them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Literal, NamedTuple

from annotator.interchange.formats.model import FormatError
from annotator.rules.citations import CITATIONS_JUDGE

__all__ = ["ImportResult", "RankedRun", "read_as", "counted"]

What = Literal["conversations", "judgments", "runs", "topics"]


class RankedRun(NamedTuple):
    """A ranked-list run as imported: its name, topics, documents, and whether it replaced one."""

    name: str
    topics: int
    documents: int
    replaced: bool


@dataclass
class ImportResult:
    what: What = "conversations"
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)
    # conversations
    conversations: int = 0
    added_to: int = 0  # conversations already there that this import adds an annotator's judgments to
    replaced: int = 0
    turns: int = 0
    nuggets: int = 0
    labels: int = 0
    citations: int = 0  # cited spans written as nuggets of the judge CITATIONS_JUDGE
    done: int = 0  # conversations whose imported judgments are finished (annotator.judgments.completion)
    read: list[str] = field(default_factory=list)  # per file: what it was read as, "x.json: read as ChatGPT export: ..."
    # judgments (conversations' and NTCIREVAL's)
    annotator: str | None = None
    entities_created: int = 0
    entities_updated: int = 0
    judged: int = 0  # qrels lines
    memberships: int = 0  # membership-file lines
    # what the import adds to the campaign
    topics_created: list[str] = field(default_factory=list)
    runs_created: list[str] = field(default_factory=list)
    ranked_runs: list[RankedRun] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def error(self, path: str, line: int, message: str, field_: str | None = None) -> None:
        self.errors.append(FormatError(path, line, message, field_))

    def warn(self, path: str, line: int, message: str, field_: str | None = None) -> None:
        self.warnings.append(FormatError(path, line, message, field_))

    def nothing_written(self) -> None:
        """A refused import's counts: nothing it planned was written."""
        self.ranked_runs, self.topics_created, self.runs_created = [], [], []

    def summary(self) -> str:
        if self.errors and self.what == "topics":
            return f"Nothing added: {counted(len(self.errors), 'problem')}."
        if self.errors:
            return f"Nothing imported: {len(self.errors)} problem(s)."
        return _SUMMARIES[self.what](self)


def counted(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _some(names: list[str], shown: int = 10) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _conversations(r: ImportResult) -> str:
    parts = []
    if r.conversations or not r.added_to:
        parts.append(f"{r.conversations} conversation(s) imported")
    if r.added_to:
        parts.append(f"added {r.annotator}'s judgments to {r.added_to} conversation{'s' if r.added_to != 1 else ''}"
                     " already there")
    if r.replaced:
        parts.append(f"{r.replaced} replaced")
    parts.append((f"{r.turns} turns, " if r.turns or not r.added_to else "") + f"{r.nuggets} nuggets, {r.labels} turn labels")
    if r.nuggets or r.labels:
        parts.append(f"{r.entities_created} new and {r.entities_updated} updated entities, judged by {r.annotator}")
    if r.done:
        parts.append(f"{r.done} done (nothing the campaign needs is missing)")
    if r.citations:
        parts.append(f"{r.citations} cited span(s) proposed as nuggets of the automatic judge {CITATIONS_JUDGE}")
    if r.topics_created:
        parts.append(f"new topics: {_some(r.topics_created)}")
    if r.runs_created:
        parts.append(f"new runs: {_some(r.runs_created)}")
    if r.warnings:
        parts.append(f"{len(r.warnings)} warning(s)")
    return "; ".join(parts) + "."


def _judgments(r: ImportResult) -> str:
    return (f"{r.judged} judged document(s) and {r.memberships} membership(s) imported for {r.annotator}: "
            f"{r.entities_created} new and {r.entities_updated} updated entities")


def _runs(r: ImportResult) -> str:
    return "; ".join(f"run {run.name}: {run.topics} topic(s), {run.documents} document(s){' (replaced)' if run.replaced else ''}"
                     for run in r.ranked_runs)


def _topics(r: ImportResult) -> str:
    created = r.topics_created
    return f"{counted(len(created), 'topic')} added: {', '.join(created[:20])}" + (
        f" and {len(created) - 20} more." if len(created) > 20 else ".")


_SUMMARIES = {"conversations": _conversations, "judgments": _judgments, "runs": _runs, "topics": _topics}


def read_as(path: str, format_name: str, conversations: list) -> str:
    """What the importer says of a file: ``x.json: read as ChatGPT export: 12 conversations, 31 citations``
    (citations are counted for harvests, and for any file that has some)."""
    citations = sum(len(c.citations) for c in conversations)
    said = f"{PurePath(path).name}: read as {format_name}: {counted(len(conversations), 'conversation')}"
    if citations or any(not c.topic for c in conversations):
        said += f", {counted(citations, 'citation')}"
    return said
