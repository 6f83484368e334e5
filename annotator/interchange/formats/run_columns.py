"""A TREC run file read as columns (the importer's path): pyarrow's CSV reader and compute
functions, no Python string a line. `read_run_columns` reads a plain, sound file; any other is
left to `formats.ntcireval.read_run`, which reads it line by line and says what is wrong where,
and `run_columns` turns what it read into the same columns. The two agree on every file the
columns reader accepts (tests/interchange/formats/test_ntcireval_format.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from annotator.interchange.formats import arrow
from annotator.interchange.formats.ntcireval import MAX_ID, RunFile, RunLine

__all__ = ["RunColumns", "TopicColumns", "read_run_columns", "run_columns", "twice_for_a_topic"]


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


def read_run_columns(data: bytes, path: str, *, check_documents: bool = True) -> RunColumns | None:
    """A run file read as columns by pyarrow's CSV reader (no Python string a line), when it is
    plain and sound: printable ASCII, every line blank or of six fields, whole ranks (digits),
    finite scores, one tag, no document twice for a topic and no rank or score out of the
    file's order.

    None for any other file: `read_run` then reads it line by line and says what is wrong
    where (`run_columns` turns what it read into the same columns). The two agree on every
    file this one accepts (tests/interchange/formats/test_ntcireval_format.py).

    `check_documents=False` leaves "no document twice for a topic" to the caller: the importer
    checks the documents' keys with the hash it looks them up in (`ranked_runs._Catalogue`),
    one hash a file fewer."""
    if not data:
        return None
    other = data.translate(None, _PLAIN)
    if other and other.translate(None, b"\t"):
        return None
    table = _table(data) if not other else None
    if table is None:  # tabs, or a line not of six fields one space apart: the fields str.split gives
        table = _table(_single_spaced(data))
    if table is None or table.num_rows == 0:
        return None
    column = {name: _array(table.column(name)) for name in _FIELDS}
    lengths = {name: pc.min_max(pc.binary_length(column[name])).as_py() for name in _FIELDS}
    if any(length["min"] == 0 for length in lengths.values()):  # two blanks read as an empty field between
        return None
    documents, rank_text, score_text, tag = column["document"], column["rank"], column["score"], column["tag"]
    if (lengths["document"]["max"] > MAX_ID or lengths["rank"]["max"] > 18 or lengths["score"]["max"] > 40
            or not pc.all(pc.equal(tag, tag[0])).as_py() or not pc.all(pc.ascii_is_decimal(rank_text)).as_py()):
        return None
    try:  # as `float` reads them (pyarrow: correctly rounded; underscores, spaces refused)
        scores = arrow.to_numpy(pc.cast(score_text, pa.float64()))
    except pa.ArrowInvalid:
        return None
    if not np.all(np.isfinite(scores)):
        return None
    ranks = arrow.to_numpy(pc.cast(rank_text, pa.int64()))
    topics = column["topic"].dictionary_encode()
    topic_of = arrow.to_numpy(topics.indices)  # topics numbered in the order of their first line
    if np.any(topic_of[1:] < topic_of[:-1]):  # topics interleaved: each topic's lines together
        order = np.argsort(topic_of, kind="stable")
        topic_of, ranks, scores, documents = topic_of[order], ranks[order], scores[order], documents.take(arrow.numbers(order))
    same = topic_of[1:] == topic_of[:-1]
    if np.any(same & (np.diff(ranks) <= 0)) or np.any(same & (np.diff(scores) > 0)):
        return None
    if check_documents:
        distinct = documents.dictionary_encode()
        if len(distinct.dictionary) < len(documents) and twice_for_a_topic(topic_of, arrow.to_numpy(distinct.indices)):
            return None
    bounds = np.flatnonzero(np.diff(topic_of)).tolist()
    starts, stops = [0, *(b + 1 for b in bounds)], [*(b + 1 for b in bounds), len(documents)]
    return RunColumns(tag[0].as_py(), {
        topic: TopicColumns(documents.slice(a, b - a), ranks[a:b], scores[a:b])
        for topic, a, b in zip(topics.dictionary.to_pylist(), starts, stops)})


def twice_for_a_topic(topic_of: np.ndarray, codes: np.ndarray) -> bool:
    """Whether a code (a document's, a key's) comes twice for one topic, given each row's topic
    and code (both numbered from 0)."""
    pairs = np.sort(topic_of.astype(np.int64) * (int(codes.max()) + 1) + codes)
    return bool(np.any(pairs[1:] == pairs[:-1]))


def _array(column: pa.ChunkedArray) -> pa.Array:
    """A column as one array (a file under the block size is one chunk: no copy)."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


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
