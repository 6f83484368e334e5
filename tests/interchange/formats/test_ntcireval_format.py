"""NTCIREVAL's files read without a database: qrels, memberships named by type and attribute
set, TREC runs in file order; every problem with its line."""

from __future__ import annotations

from annotator.interchange.formats.ntcireval import gmemb_name, read_gmemb, read_qrels, read_run


def test_a_qrels_file_gives_topic_document_and_level_per_line_skipping_blank_lines():
    read = read_qrels(b"P001 a L0\n\nP001 b L2\n", "q")
    assert [(q.topic, q.document, q.level, q.line) for q in read.content] == [("P001", "a", "L0", 1), ("P001", "b", "L2", 3)]
    assert read.errors == []


def test_a_qrels_level_must_be_lk_and_a_document_is_judged_once():
    read = read_qrels(b"P001 a 2\nP001 b L1\nP001 b L2\n", "q")
    assert [str(e) for e in read.errors] == ["q:1: '2' is not a relevance level (L0, L1, ...)",
                                             "q:3: P001 b is judged twice (first at line 2)"]


def test_membership_file_names_say_the_topic_type_and_attribute_set():
    assert gmemb_name("x/fairweb1pilot.M-ORIGIN.gmemb") == ("M", "ORIGIN")
    assert gmemb_name("R-GENDER.gmemb") == ("R", "GENDER")
    assert gmemb_name("memberships.txt") is None


def test_a_membership_vector_is_read_exactly_and_must_be_a_distribution():
    read = read_gmemb(b"P1 a 0.3333333333333333 0.3333333333333333 0.3333333333333333\nP1 b 1/2 1/2\nP1 c 0.5 nan\n", "m")
    assert [m.vector for m in read.content] == [(1 / 3, 1 / 3, 1 / 3), (0.5, 0.5)]
    assert [e.line for e in read.errors] == [3]



def test_a_vector_written_again_reads_the_same_and_a_bad_one_is_refused_on_every_line_it_is_on():
    read = read_gmemb(b"P1 a 1/3 1/3 1/3\nP1 b 0.5 0.6\nP1 c 1/3 1/3 1/3\nP1 d 0.5 0.6\n", "m")
    assert [(m.document, m.vector) for m in read.content] == [("a", (1 / 3, 1 / 3, 1 / 3)), ("c", (1 / 3, 1 / 3, 1 / 3))]
    assert [(e.line, e.message) for e in read.errors] == [(2, "the membership vector: sums to 1.1, not 1"),
                                                          (4, "the membership vector: sums to 1.1, not 1")]


def test_a_run_keeps_the_files_order_and_warns_once_per_topic_where_ranks_or_scores_disagree():
    read = read_run(b"T1 Q0 a 1 3.0 sys\nT1 Q0 b 2 4.0 sys\nT1 Q0 c 1 1.0 sys\nT2 Q0 a 5 1 sys\n", "r")
    assert read.content.tag == "sys" and [(l.topic, l.document) for l in read.content.lines] == [
        ("T1", "a"), ("T1", "b"), ("T1", "c"), ("T2", "a")]
    assert [str(w) for w in read.warnings] == [
        "r:2: T1: the score disagrees with the file's order (line 1); the list is scored in the file's order, as NTCIREVAL does"]


def test_a_run_line_needs_six_fields_a_whole_rank_a_finite_score_and_one_tag():
    read = read_run(b"T1 Q0 a 1 1 s\nT1 Q0 b 2\nT1 Q0 c x 1 s\nT1 Q0 d 4 inf s\nT1 Q0 e 5 1 other\n", "r")
    assert [(e.line, e.message) for e in read.errors] == [
        (2, "expected `topic Q0 doc rank score tag`, found 4 fields"),
        (3, "the rank 'x' is not a whole number"),
        (4, "the score 'inf' is not a finite number"),
        (5, "a second run tag 'other' (the file's is 's'): one run a file"),
    ]


def test_files_that_are_not_utf8_are_refused_with_the_line():
    read = read_qrels(b"P1 a L1\nP1 \xff L1\n", "q")
    assert read.errors and read.errors[0].line == 2


def test_a_binary_run_file_gives_one_message_per_line_not_one_per_bad_byte():
    # issue 28: 50 messages all saying `binary.run:2` (invalid byte 80, then 81, ...)
    data = b"P1 Q0 a 1 1 s\n" + bytes(range(0x80, 0x100)) + b"\nP1 Q0 b 2 1 s\n\xfe\xff\xfe\n"
    read = read_run(data, "binary.run")
    assert [str(e) for e in read.errors] == [
        "binary.run:2: not UTF-8 text: invalid byte 80 at byte offset 14",
        "binary.run:4: not UTF-8 text: invalid byte fe at byte offset 157",
    ]


def test_a_large_binary_file_stops_at_fifty_lines_each_named_once():
    data = b"\n".join(bytes([0x80 + i % 64]) * 40 for i in range(200))
    lines = [e.line for e in read_run(data, "binary.run").errors]
    assert lines == list(range(1, 51))


# -- the importer's columns: one split of the whole file, or line by line --------------------

import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, strategies as st  # noqa: E402

from annotator.interchange.formats.run_columns import read_run_columns, run_columns  # noqa: E402


def _same(a, b) -> bool:
    return a.tag == b.tag and list(a.topics) == list(b.topics) and all(
        x.documents.to_pylist() == y.documents.to_pylist() and x.ranks.dtype == y.ranks.dtype == np.int64
        and np.array_equal(x.ranks, y.ranks) and x.scores.dtype == y.scores.dtype == np.float64
        and np.array_equal(x.scores, y.scores) and np.array_equal(np.signbit(x.scores), np.signbit(y.scores))
        for x, y in zip(a.topics.values(), b.topics.values()))


def _unchecked_documents_agree(data: bytes, checked) -> None:
    """Without the documents check (left to the importer), the reader accepts what it accepts
    with it, and the files with a document twice for a topic alone, and reads the same columns."""
    unchecked = read_run_columns(data, "r", check_documents=False)
    twice = unchecked is not None and any(len(set(t.documents.to_pylist())) < len(t.documents) for t in unchecked.topics.values())
    assert (checked is not None) == (unchecked is not None and not twice)
    if checked is not None:
        assert _same(unchecked, checked)


@pytest.mark.parametrize("data", [
    b"T1 Q0 a 1 3.5 sys\nT1 Q0 b 2 3.5 sys\n\nT2 Q0 a 1 -1e3 sys",
    b"T2 Q0 a 1 3 sys\nT1 Q0 b 1 2 sys\nT2\tQ0  c 2 2 sys\nT1 Q0 c 3 1 sys\n",  # topics interleaved
    b" T1 Q0 a 007 +1.5e1 s \n \t\nT1\tQ0\tb  8 -0 s\n\n",  # blanks at the ends, a blank line, digits as written
    b"T1 Q0 a 1 5. s\nT1 Q0 b 2 " + b"0." + b"1" * 38 + b" s\nT1 Q0 c 3 .05 s\n",  # a 40-character score
])
def test_a_sound_file_read_as_columns_gives_what_reading_it_line_by_line_gives(data):
    fast = read_run_columns(data, "r")
    assert fast is not None and _same(fast, run_columns(read_run(data, "r").content))
    _unchecked_documents_agree(data, fast)


@pytest.mark.parametrize("data", [
    b"", b"T1 Q0 a 1 1 s\r\n", "T1 Q0 caf\u00e9 1 1 s\n".encode(), b"T1 Q0 a 1 1\n", b"T1 Q0 a 1 1 s x\n",
    b"T1 Q0 a 1 1 s\nT1 Q0 a 2 0 s\n", b"T1 Q0 a 2 1 s\nT1 Q0 b 1 0 s\n", b"T1 Q0 a 1 1 s\nT1 Q0 b 2 2 s\n",
    b"T1 Q0 a -1 1 s\n", b"T1 Q0 a 1 nan s\n", b"T1 Q0 a 1 1_0 s\n", b"T1 Q0 a 1 1 s\nT1 Q0 b 2 0 t\n",
    b"T1 Q0 a 1 1 s\x07\n",
    b"T1 Q0 a 0x1 1 s\n", b"T1 Q0 a +1 1 s\n", b"T1 Q0 a " + b"0" * 18 + b"1 1 s\n", b"T1 Q0 a 1.0 1 s\n",  # ranks
    b"T1 Q0 a 1 inf s\n", b"T1 Q0 a 1 1e400 s\n", b"T1 Q0 a 1 0." + b"1" * 39 + b" s\n", b"T1 Q0 a 1 0x1 s\n",  # scores
    b"T1  a 1 1 s\n", b"T1 Q0 a 1 1 s\nT1 Q0 b 2 0 s t\n", b"T1 Q0 a 1 1 s\rT1 Q0 b 2 0 s\n",  # fields, lines
    b"T1 Q0 a 1 1 s\nT2 Q0 b 1 1 s\nT1 Q0 a 2 0 s\n",  # twice for a topic, other topics between
    b"T1 Q0 a 1 1 s\nT2 Q0 b 1 1 s\nT1 Q0 c 1 0 s\n",  # a rank again for a topic
    b"T1 Q0 " + b"d" * 1001 + b" 1 1 s\n",
])
def test_anything_unusual_is_left_to_the_line_by_line_reader(data):
    assert read_run_columns(data, "r") is None
    _unchecked_documents_agree(data, None)


@given(st.lists(st.tuples(st.sampled_from(["T1", "T2", "T3"]), st.sampled_from(["a", "b", "c", "d", "e"]),
                          st.integers(0, 9), st.sampled_from(["1", "0.5", "2", "-3", "1e2", "nan", "x"]),
                          st.sampled_from(["s", "s", "s", "t"]), st.sampled_from([" ", "\t", "  "])), max_size=12))
def test_the_columns_are_read_exactly_when_the_line_by_line_reader_finds_nothing_to_say(lines):
    data = "".join(f"{t}{sep}Q0{sep}{d} {r} {s} {tag}\n" for t, d, r, s, tag, sep in lines).encode()
    fast, slow = read_run_columns(data, "r"), read_run(data, "r")
    _unchecked_documents_agree(data, fast)
    if fast is not None:
        assert not slow.errors and not slow.warnings and _same(fast, run_columns(slow.content))
    elif lines:
        assert slow.errors or slow.warnings


_RANKS = st.one_of(st.integers(0, 12).map(str), st.sampled_from(["007", "+1", "-1", "0x1", "1" * 19, "0" * 17 + "1", "1.0", ""]))
_SCORES = st.sampled_from(["1", "0.5", "2", "-3", "1e2", "nan", "x", "+1", ".5", "5.", "-0", "1E+3", "inf", "-inf", "1e400",
                           "1_0", "0x1", "1e", "0." + "1" * 38, "0." + "1" * 39, "Infinity", ""])
_BLANKS = st.sampled_from([" ", " ", " ", "\t", "  ", " \t"])


@given(st.lists(st.tuples(st.sampled_from(["T1", "T2", "T3"]), st.sampled_from(["a", "b", "c", "d", "e", "f"]), _RANKS, _SCORES,
                          st.sampled_from(["s", "s", "s", "t"]), st.lists(_BLANKS, min_size=5, max_size=5),
                          st.sampled_from(["", "", "", " ", "\t"]), st.sampled_from(["", "", "", " ", "\n", " \n \t"])),
                max_size=12))
def test_whatever_the_blanks_ranks_and_scores_a_file_read_as_columns_is_what_the_line_reader_reads(lines):
    data = "".join(f"{edge}{t}{b[0]}Q0{b[1]}{d}{b[2]}{r}{b[3]}{s}{b[4]}{tag}{end}\n"
                   for t, d, r, s, tag, b, edge, end in lines).encode()
    fast, slow = read_run_columns(data, "r"), read_run(data, "r")
    _unchecked_documents_agree(data, fast)
    if fast is not None:  # (else the line reader reads it: `+1` is a rank it takes, the columns do not)
        assert not slow.errors and not slow.warnings and _same(fast, run_columns(slow.content))


_DEFECTS = {  # one thing wrong with a line of a sound file (fields: topic, Q0, document, rank, score, tag), given
    "none": lambda f, earlier: f,    # an earlier line of its topic
    "the document of an earlier line": lambda f, earlier: [f[0], f[1], earlier[2], *f[3:]],
    "the rank of an earlier line": lambda f, earlier: [*f[:3], earlier[3], *f[4:]],
    "a score above an earlier line's": lambda f, earlier: [*f[:4], "1e7", f[5]],
    "another tag": lambda f, earlier: [*f[:5], "t"],
    "a rank of 19 digits": lambda f, earlier: [*f[:3], f[3].zfill(19), *f[4:]],
    "a signed rank": lambda f, earlier: [*f[:3], "+" + f[3], *f[4:]],
    "a hexadecimal rank": lambda f, earlier: [*f[:3], "0x" + f[3], *f[4:]],
    "a score of 41 characters": lambda f, earlier: [*f[:4], f"{float(f[4]):.38f}"[:41].ljust(41, "0"), f[5]],
    "a score with an underscore": lambda f, earlier: [*f[:4], "1_0", f[5]],
    "an infinite score": lambda f, earlier: [*f[:4], "-inf", f[5]],
    "a document of 1001 characters": lambda f, earlier: [f[0], f[1], "d" * 1001, *f[3:]],
    "a field less": lambda f, earlier: f[:5],
    "a field more": lambda f, earlier: [*f, "x"],
    "a tab in a field": lambda f, earlier: [f[0], f[1], f[2] + "\tz", *f[3:]],
    "an empty field": lambda f, earlier: [f[0], "", *f[2:]],
    "a carriage return": lambda f, earlier: [*f[:5], f[5] + "\r"],
    "a non-ASCII document": lambda f, earlier: [f[0], f[1], f[2] + "\u00e9", *f[3:]],
}


@given(st.lists(st.tuples(st.sampled_from(["T1", "T2"]), st.text("abcdefghij-_./:", min_size=1, max_size=4)),
                unique=True, min_size=1, max_size=30),
       st.sampled_from(["{}", "0{}", "00{}"]), st.sampled_from(["{:.4f}", "{!r}", "{:e}", "{:+.2f}", "{:.17g}"]),
       st.lists(st.floats(-1e6, 1e6), min_size=30, max_size=30), st.booleans(),
       st.one_of(st.just([" "] * 7), st.lists(_BLANKS, min_size=7, max_size=7)))
def test_a_file_of_any_layout_read_as_columns_is_what_the_line_reader_reads_and_a_sound_one_is_read(
        pairs, rank, score, values, together, blanks):
    if together:  # each topic's lines together, as most runs are
        pairs = sorted(pairs, key=lambda pair: pair[0])
    values = sorted(values, reverse=True)
    sound = [[t, "Q0", d, rank.format(i), score.format(v), "sys"] for i, ((t, d), v) in enumerate(zip(pairs, values), 1)]
    # the line made wrong: the last with an earlier line of its topic (or the last, then its own "earlier" line)
    at = max((i for i, f in enumerate(sound) if any(e[0] == f[0] for e in sound[:i])), default=len(sound) - 1)
    earlier = next((e for e in reversed(sound[:at]) if e[0] == sound[at][0]), sound[at])
    for defect, wrong in _DEFECTS.items():
        lines = [*sound[:at], wrong(sound[at], earlier), *sound[at + 1:]]
        data = "".join("".join(b + f for b, f in zip(blanks, fields)).lstrip(" ") + "\n" for fields in lines).encode()
        fast, slow = read_run_columns(data, "r"), read_run(data, "r")
        _unchecked_documents_agree(data, fast)
        if fast is not None:
            assert not slow.errors and not slow.warnings and _same(fast, run_columns(slow.content)), defect
        if defect == "none":
            assert not slow.errors and not slow.warnings and fast is not None


def test_a_file_of_several_csv_blocks_is_read_as_one_of_one_block(monkeypatch):
    from annotator.interchange.formats import run_columns as module
    import pyarrow.csv as pa_csv

    data = b"".join(b"T%d Q0 d%d %d %d s\n" % (i % 3, i, i + 1, 10**6 - i) for i in range(20000))
    monkeypatch.setattr(module, "_CSV_READ", pa_csv.ReadOptions(column_names=module._FIELDS, use_threads=False, block_size=1 << 14))
    several = read_run_columns(data, "r")
    assert several is not None and _same(several, run_columns(read_run(data, "r").content))


def test_reading_a_run_file_as_columns_imports_no_pandas():
    # pa.array and Array.to_numpy import pandas (a quarter of a second a process): formats.arrow builds arrays without them
    code = ("import sys; from annotator.interchange.formats.run_columns import read_run_columns; "
            "c = read_run_columns(b'T2 Q0 a 1 2 s\\nT1\\tQ0 b 1 1 s\\nT2 Q0 c 2 1 s\\n', 'r'); "
            "assert c is not None and c.topics['T2'].documents.to_pylist() == ['a', 'c']; "
            "assert 'pandas' not in sys.modules, 'pandas imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[3])


def test_a_membership_vector_of_another_length_than_the_groups_is_refused_before_its_numbers_are_read():
    # 'x' is no number: with the attribute set's groups given, the length is judged first
    read = read_gmemb(b"P1 a " + b"x " * 10**5 + b"\nP1 b 1/2 1/2\n", "m", ("GENDER", 2))
    assert [(e.line, e.message) for e in read.errors] == [(1, "GENDER has 2 groups: the vector has 100000 values")]
    assert [m.vector for m in read.content] == [(0.5, 0.5)]
