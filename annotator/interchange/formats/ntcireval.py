"""NTCIREVAL's files for ranked lists (FairWeb-1): qrels, memberships and TREC runs.

Pure Python (no Django), like the conversation formats: each reader takes a file's bytes and
its name and returns what it says with every problem as a FormatError (``file:line: reason``);
nothing is checked against a campaign here (topics, attribute sets, grades: the importers).

- qrels: ``topic doc Lk``, one judged document a line;
- memberships: ``<prefix>.<TYPE>-<ATTR>.gmemb``, ``topic doc p1 ... pK`` (the file name says
  the topic type and attribute set);
- runs: TREC ``topic Q0 doc rank score tag``; the list is the file's order, as NTCIREVAL reads
  it (it does not re-sort by score): ranks or scores that disagree with it are warnings.

A run file the importer reads as columns (pyarrow) is `formats.run_columns`: the processes that
read qrels and memberships alone do not load pyarrow.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from annotator.interchange.formats.model import FormatError
from annotator.interchange.formats.paper import decode_utf8
from annotator.rules.ids import ATTRIBUTE_SET_NAME
from annotator.rules.vectors import VectorError, check_distribution, check_length, parse_number

__all__ = [
    "QrelsLine", "MembershipLine", "RunLine", "RunFile", "Read", "read_qrels", "read_gmemb", "read_run", "gmemb_name",
]

GMEMB_NAME = re.compile(rf"^(?:.*\.)?(?P<type>[A-Za-z][A-Za-z0-9]*)-(?P<attribute>{ATTRIBUTE_SET_NAME})\.gmemb$")
LEVEL = re.compile(r"^L\d+$")
MAX_ID = 1000  # the longest document id an entity key holds


# Lines are named tuples, not dataclasses: a hundred runs are millions of them, and a frozen
# dataclass takes far longer to build (docs/benchmarks-history.md, "NTCIREVAL and run imports at
# campaign scale").
class QrelsLine(NamedTuple):
    topic: str
    document: str
    level: str  # "L0", "L1", ...
    line: int


class MembershipLine(NamedTuple):
    topic: str
    document: str
    vector: tuple[float, ...]
    line: int


class RunLine(NamedTuple):
    topic: str
    document: str
    rank: int  # as stated; the file's order is what counts
    score: float
    line: int


@dataclass
class RunFile:
    path: str
    tag: str | None  # None when the file has no line
    lines: list[RunLine] = field(default_factory=list)


@dataclass
class Read:
    """What a reader got from one file: its content, errors (refuse the file) and warnings."""

    content: object
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)


def gmemb_name(path: str) -> tuple[str, str] | None:
    """(topic type, attribute set) a membership file's name gives: ``x.R-GENDER.gmemb`` -> (R, GENDER)."""
    match = GMEMB_NAME.match(path.replace("\\", "/").rsplit("/", 1)[-1])
    return (match["type"], match["attribute"]) if match else None


def _lines(data: bytes, path: str, errors: list[FormatError]):
    """(line number, fields) of every non-blank line of a whitespace-separated file."""
    text, problems = decode_utf8(data, path)
    errors.extend(problems)
    if text is None:
        return
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if fields:
            yield number, fields


def _first_mention(topic: str, document: str, path: str, number: int, seen: dict[tuple[str, str], int],
                   errors: list[FormatError], twice: str) -> bool:
    """Whether a line's document is fine and new for its topic; else the error, `twice` saying
    how (with {topic}, {document} and {first}, the line of the first mention)."""
    if len(document) > MAX_ID:
        errors.append(FormatError(path, number, f"the document id is longer than {MAX_ID} characters"))
        return False
    first = seen.setdefault((topic, document), number)
    if first != number:
        errors.append(FormatError(path, number, twice.format(topic=topic, document=document, first=first)))
        return False
    return True


def read_qrels(data: bytes, path: str) -> Read:
    """Judged documents, each (topic, document) once."""
    read = Read([])
    seen: dict[tuple[str, str], int] = {}
    levels: set[str] = set()  # levels read already, each checked once (a pool's 50,000 lines have three)
    for number, fields in _lines(data, path, read.errors):
        if len(fields) != 3:
            read.errors.append(FormatError(path, number, f"expected `topic doc Lk`, found {len(fields)} fields"))
            continue
        topic, document, level = fields
        if level not in levels:
            if not LEVEL.match(level):
                read.errors.append(FormatError(path, number, f"{level[:20]!r} is not a relevance level (L0, L1, ...)"))
                continue
            levels.add(level)
        if _first_mention(topic, document, path, number, seen, read.errors, "{topic} {document} is judged twice (first at line {first})"):
            read.content.append(QrelsLine(topic, document, level, number))
    return read


def read_gmemb(data: bytes, path: str, groups: tuple[str, int] | None = None) -> Read:
    """Membership vectors (each a distribution), each (topic, document) once. With `groups`
    (the attribute set's name and number of groups), a vector of another length is refused
    before its numbers are read (`check_length`)."""
    read = Read([])
    seen: dict[tuple[str, str], int] = {}
    for number, fields in _lines(data, path, read.errors):
        if len(fields) < 3:
            read.errors.append(FormatError(path, number, "expected `topic doc p1 ... pK`"))
            continue
        topic, document = fields[0], fields[1]
        if groups is not None:
            try:
                check_length(fields[2:], groups[1])
            except VectorError:
                read.errors.append(FormatError(path, number, f"{groups[0]} has {groups[1]} groups: the vector has {len(fields) - 2} values"))
                continue
        try:
            vector = _membership_vector(tuple(fields[2:]))
        except VectorError as error:
            read.errors.append(FormatError(path, number, f"the membership vector: {error}"))
            continue
        if _first_mention(topic, document, path, number, seen, read.errors, "{topic} {document} is given twice (first at line {first})"):
            read.content.append(MembershipLine(topic, document, vector, number))
    return read


@functools.lru_cache(maxsize=4096)
def _membership_vector(values: tuple[str, ...]) -> tuple[float, ...]:
    """A vector as written, read exactly and checked (VectorError if it is no distribution).
    A qrels pool's vectors repeat (one-hot ones, a few soft ones): each distinct one is read
    once, not 50,000 times in fractions."""
    exact = [parse_number(v) for v in values]
    check_distribution(exact)
    return tuple(float(v) for v in exact)


def read_run(data: bytes, path: str) -> Read:
    """A TREC run file: its tag and its lines in file order. Several tags, duplicate documents
    of a topic and malformed lines are errors; ranks or scores out of the file's order warnings
    (once per topic, at the first disagreement)."""
    run = RunFile(path, None)
    read = Read(run)
    seen: dict[tuple[str, str], int] = {}
    previous: dict[str, RunLine] = {}
    warned: set[str] = set()
    for number, fields in _lines(data, path, read.errors):
        if len(fields) != 6:
            read.errors.append(FormatError(path, number, f"expected `topic Q0 doc rank score tag`, found {len(fields)} fields"))
            continue
        topic, _, document, rank_text, score_text, tag = fields
        try:
            rank = int(rank_text) if len(rank_text) <= 18 else None
        except ValueError:
            rank = None
        try:  # bounded: a score of at most 40 characters, finite (a float, as NTCIREVAL reads it)
            score = float(score_text) if len(score_text) <= 40 and "_" not in score_text else None
        except ValueError:
            score = None
        if rank is None:
            read.errors.append(FormatError(path, number, f"the rank {rank_text[:20]!r} is not a whole number"))
            continue
        if score is None or not math.isfinite(score):
            read.errors.append(FormatError(path, number, f"the score {score_text[:20]!r} is not a finite number"))
            continue
        if run.tag is None:
            run.tag = tag
        elif tag != run.tag:
            read.errors.append(FormatError(path, number, f"a second run tag {tag[:100]!r} (the file's is {run.tag[:100]!r}): one run a file"))
            continue
        if not _first_mention(topic, document, path, number, seen, read.errors, "{document} is ranked twice for {topic} (first at line {first})"):
            continue
        line = RunLine(topic, document, rank, score, number)
        before = previous.get(topic)
        if before is not None and topic not in warned and (rank <= before.rank or score > before.score):
            what = "rank" if rank <= before.rank else "score"
            read.warnings.append(FormatError(path, number, f"{topic}: the {what} disagrees with the file's order "
                                             f"(line {before.line}); the list is scored in the file's order, as NTCIREVAL does"))
            warned.add(topic)
        previous[topic] = line
        run.lines.append(line)
    return read
