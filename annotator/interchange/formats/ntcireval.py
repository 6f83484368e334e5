"""NTCIREVAL's files for ranked lists (FairWeb-1): qrels, memberships and TREC runs.

Pure Python (no Django), like the conversation formats: each reader takes a file's bytes and
its name and returns what it says with every problem as a FormatError (``file:line: reason``);
nothing is checked against a campaign here (topics, attribute sets, grades: the importers).

- qrels: ``topic doc Lk``, one judged document a line;
- memberships: ``<prefix>.<TYPE>-<ATTR>.gmemb``, ``topic doc p1 ... pK`` (the file name says
  the topic type and attribute set);
- runs: TREC ``topic Q0 doc rank score tag``; the list is the file's order, as NTCIREVAL reads
  it (it does not re-sort by score): ranks or scores that disagree with it are warnings.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from annotator.interchange.formats import arrow
from annotator.interchange.formats.model import FormatError
from annotator.interchange.formats.paper import decode_utf8
from annotator.rules.ids import ATTRIBUTE_SET_NAME
from annotator.rules.vectors import VectorError, check_distribution, check_length, parse_number

__all__ = [
    "QrelsLine", "MembershipLine", "RunLine", "RunFile", "RunColumns", "TopicColumns", "Read",
    "read_qrels", "read_gmemb", "read_run", "read_run_columns", "run_columns", "gmemb_name",
]

GMEMB_NAME = re.compile(rf"^(?:.*\.)?(?P<type>[A-Za-z][A-Za-z0-9]*)-(?P<attribute>{ATTRIBUTE_SET_NAME})\.gmemb$")
LEVEL = re.compile(r"^L\d+$")
MAX_ID = 1000  # the longest document id an entity key holds


# Lines are named tuples, not dataclasses: a hundred runs are millions of them, and a frozen
# dataclass takes 2.5 times as long to build (bench/bench_ranked_lists.py, docs/benchmarks.md).
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
    for number, fields in _lines(data, path, read.errors):
        if len(fields) != 3:
            read.errors.append(FormatError(path, number, f"expected `topic doc Lk`, found {len(fields)} fields"))
            continue
        topic, document, level = fields
        if not LEVEL.match(level):
            read.errors.append(FormatError(path, number, f"{level[:20]!r} is not a relevance level (L0, L1, ...)"))
            continue
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


# -- a run file read as columns: the importer's path ---------------------------------------------


class TopicColumns(NamedTuple):
    """One topic's list of a run file, in the file's order."""

    documents: pa.Array  # of strings, the ids as written
    ranks: np.ndarray  # int64, as stated
    scores: np.ndarray  # float64


@dataclass
class RunColumns:
    tag: str
    topics: dict[str, TopicColumns]  # in the order of their first line


_PLAIN = bytes(range(0x20, 0x7F)) + b"\n"  # printable ASCII and line feed (a tab: see _single_spaced)
_FIELDS = ["topic", "q0", "document", "rank", "score", "tag"]
_CSV_READ = pa_csv.ReadOptions(column_names=_FIELDS, use_threads=False, block_size=1 << 26)
_CSV_PARSE = pa_csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False,
                                 newlines_in_values=False, ignore_empty_lines=True)
_CSV_CONVERT = pa_csv.ConvertOptions(  # every field as written (text): the numbers are checked, then read
    column_types={name: pa.string() for name in _FIELDS}, null_values=[], strings_can_be_null=False,
    quoted_strings_can_be_null=False)


def read_run_columns(data: bytes, path: str) -> RunColumns | None:
    """A run file read as columns by pyarrow's CSV reader (no Python string a line), when it is
    plain and sound: printable ASCII, every line blank or of six fields, whole ranks (digits),
    finite scores, one tag, no document twice for a topic and no rank or score out of the
    file's order.

    None for any other file: `read_run` then reads it line by line and says what is wrong
    where (`run_columns` turns what it read into the same columns). The two agree on every
    file this one accepts (tests/interchange/formats/test_ntcireval_format.py)."""
    if not data:
        return None
    other = data.translate(None, _PLAIN)
    if other and other.translate(None, b"\t"):
        return None
    table = _table(data) if not other else None
    if table is None:  # tabs, or a field the CSV reader reads as empty: fields split as str.split does
        table = _table(_single_spaced(data))
    if table is None or table.num_rows == 0:
        return None
    column = {name: table.column(name).combine_chunks() for name in _FIELDS}
    for name in ("topic", "q0", "tag"):
        column[name] = column[name].dictionary_encode()
    if any("" in column[name].dictionary.to_pylist() for name in ("topic", "q0", "tag")) or len(column["tag"].dictionary) != 1:
        return None
    documents, rank_text, score_text = column["document"], column["rank"], column["score"]
    if (pc.min(pc.binary_length(documents)).as_py() == 0 or pc.max(pc.binary_length(documents)).as_py() > MAX_ID
            or pc.max(pc.binary_length(rank_text)).as_py() > 18 or pc.max(pc.binary_length(score_text)).as_py() > 40
            or not pc.all(pc.ascii_is_decimal(rank_text)).as_py()):
        return None
    try:  # as `float` reads them (pyarrow: correctly rounded; underscores, spaces refused)
        scores = arrow.to_numpy(pc.cast(score_text, pa.float64()))
    except pa.ArrowInvalid:
        return None
    if not np.all(np.isfinite(scores)):
        return None
    ranks = arrow.to_numpy(pc.cast(rank_text, pa.int64()))
    topic_of = arrow.to_numpy(column["topic"].indices)  # topics numbered in the order of their first line
    if np.any(topic_of[1:] < topic_of[:-1]):  # topics interleaved: each topic's lines together
        order = np.argsort(topic_of, kind="stable")
        topic_of, ranks, scores, documents = topic_of[order], ranks[order], scores[order], documents.take(arrow.numbers(order))
    same = topic_of[1:] == topic_of[:-1]
    if np.any(same & (np.diff(ranks) <= 0)) or np.any(same & (np.diff(scores) > 0)):
        return None
    distinct = documents.dictionary_encode()
    if len(distinct.dictionary) < len(documents):  # an id twice in the file: twice for a topic?
        pairs = np.sort(topic_of.astype(np.int64) * len(documents) + arrow.to_numpy(distinct.indices))
        if np.any(pairs[1:] == pairs[:-1]):
            return None
    bounds = np.flatnonzero(np.diff(topic_of)).tolist()
    starts, stops = [0, *(b + 1 for b in bounds)], [*(b + 1 for b in bounds), len(documents)]
    return RunColumns(column["tag"].dictionary[0].as_py(), {
        topic: TopicColumns(documents.slice(a, b - a), ranks[a:b], scores[a:b])
        for topic, a, b in zip(column["topic"].dictionary.to_pylist(), starts, stops)})


def _table(data: bytes) -> pa.Table | None:
    """The file's six columns as text; None when a line has another number of fields."""
    try:
        return pa_csv.read_csv(pa.py_buffer(data), read_options=_CSV_READ, parse_options=_CSV_PARSE,
                               convert_options=_CSV_CONVERT)
    except pa.ArrowInvalid:
        return None


_SPACES = re.compile(rb"[ \t]+")
_LINE_EDGE_SPACE = re.compile(rb"^ | $", re.MULTILINE)


def _single_spaced(data: bytes) -> bytes:
    """The file with its fields one space apart on each line (tabs and runs of blanks as one
    space, none at a line's ends): what `str.split` splits, in the CSV reader's terms."""
    return _LINE_EDGE_SPACE.sub(b"", _SPACES.sub(b" ", data))


def run_columns(run: RunFile) -> RunColumns:
    """The lines `read_run` read, as the columns of `read_run_columns`."""
    by_topic: dict[str, list[RunLine]] = {}
    for line in run.lines:
        by_topic.setdefault(line.topic, []).append(line)
    return RunColumns(run.tag or "", {
        topic: TopicColumns(arrow.strings([line.document for line in lines]),
                            np.array([line.rank for line in lines], dtype=np.int64),
                            np.array([line.score for line in lines], dtype=np.float64))
        for topic, lines in by_topic.items()})
