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

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, strategies as st  # noqa: E402

from annotator.interchange.formats.ntcireval import read_run_columns, run_columns  # noqa: E402


def _same(a, b) -> bool:
    return a.tag == b.tag and list(a.topics) == list(b.topics) and all(
        x.documents == y.documents and np.array_equal(x.ranks, y.ranks) and np.array_equal(x.scores, y.scores)
        for x, y in zip(a.topics.values(), b.topics.values()))


@pytest.mark.parametrize("data", [
    b"T1 Q0 a 1 3.5 sys\nT1 Q0 b 2 3.5 sys\n\nT2 Q0 a 1 -1e3 sys",
    b"T2 Q0 a 1 3 sys\nT1 Q0 b 1 2 sys\nT2\tQ0  c 2 2 sys\nT1 Q0 c 3 1 sys\n",  # topics interleaved
])
def test_a_sound_file_read_as_columns_gives_what_reading_it_line_by_line_gives(data):
    fast = read_run_columns(data, "r")
    assert fast is not None and _same(fast, run_columns(read_run(data, "r").content))


@pytest.mark.parametrize("data", [
    b"", b"T1 Q0 a 1 1 s\r\n", "T1 Q0 caf\u00e9 1 1 s\n".encode(), b"T1 Q0 a 1 1\n", b"T1 Q0 a 1 1 s x\n",
    b"T1 Q0 a 1 1 s\nT1 Q0 a 2 0 s\n", b"T1 Q0 a 2 1 s\nT1 Q0 b 1 0 s\n", b"T1 Q0 a 1 1 s\nT1 Q0 b 2 2 s\n",
    b"T1 Q0 a -1 1 s\n", b"T1 Q0 a 1 nan s\n", b"T1 Q0 a 1 1_0 s\n", b"T1 Q0 a 1 1 s\nT1 Q0 b 2 0 t\n",
    b"T1 Q0 a 1 1 s\x07\n",
])
def test_anything_unusual_is_left_to_the_line_by_line_reader(data):
    assert read_run_columns(data, "r") is None


@given(st.lists(st.tuples(st.sampled_from(["T1", "T2", "T3"]), st.sampled_from(["a", "b", "c", "d", "e"]),
                          st.integers(0, 9), st.sampled_from(["1", "0.5", "2", "-3", "1e2", "nan", "x"]),
                          st.sampled_from(["s", "s", "s", "t"]), st.sampled_from([" ", "\t", "  "])), max_size=12))
def test_the_columns_are_read_exactly_when_the_line_by_line_reader_finds_nothing_to_say(lines):
    data = "".join(f"{t}{sep}Q0{sep}{d} {r} {s} {tag}\n" for t, d, r, s, tag, sep in lines).encode()
    fast, slow = read_run_columns(data, "r"), read_run(data, "r")
    if fast is not None:
        assert not slow.errors and not slow.warnings and _same(fast, run_columns(slow.content))
    elif lines:
        assert slow.errors or slow.warnings


def test_a_membership_vector_of_another_length_than_the_groups_is_refused_before_its_numbers_are_read():
    # 'x' is no number: with the attribute set's groups given, the length is judged first
    read = read_gmemb(b"P1 a " + b"x " * 10**5 + b"\nP1 b 1/2 1/2\n", "m", ("GENDER", 2))
    assert [(e.line, e.message) for e in read.errors] == [(1, "GENDER has 2 groups: the vector has 100000 values")]
    assert [m.vector for m in read.content] == [(0.5, 0.5)]
