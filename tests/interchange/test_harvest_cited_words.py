"""The one rule every harvest reader shares: citations as word spans of the turn as kept, and
messages as alternating turns (annotator/interchange/formats/harvest/common.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.interchange.formats.harvest.common import Cite, Message, Reading, conversation, word_spans


def spans(text: str, cites: list[Cite]) -> list[tuple[str, str]]:
    words = text.split()
    return [(" ".join(words[a : b + 1]), c.url) for a, b, c in word_spans(text, cites, Reading("t"), 1)]


def marker(text: str, fragment: str, url: str) -> Cite:
    at = text.index(fragment)
    return Cite(at, at + len(fragment), url, "", "f", marker=True)


def test_a_marker_cites_its_line_and_a_second_marker_on_the_line_the_words_after_the_first():
    text = "Intro line.\nZoë liked Amélie [1], then Brazil [2]\nLast."
    assert spans(text, [marker(text, "[1]", "u1"), marker(text, "[2]", "u2")]) == [
        ("Zoë liked Amélie [1],", "u1"), ("then Brazil [2]", "u2")]


def test_a_marker_alone_at_the_start_of_its_line_cites_itself():
    text = "Films:\n[1] and more"
    assert spans(text, [marker(text, "[1]", "u")]) == [("[1]", "u")]


def test_a_span_inside_another_takes_its_words_and_an_overlapping_one_starts_after_it():
    text = "one two three four five six"
    cites = [Cite(0, 13, "a", "", "f"), Cite(4, 7, "b", "", "f"), Cite(8, 23, "c", "", "f")]
    assert spans(text, cites) == [("one two three", "a"), ("one two three", "b"), ("four five", "c")]


def test_messages_of_one_role_in_a_row_are_one_turn_and_their_citations_follow():
    reading = Reading("t")
    first = Message("S", "Part one.", "m[1]", 1)
    second = Message("S", "Zoë saw Brazil", "m[2]", 1, [Cite(8, 14, "u", "", "c")])
    conv = conversation([Message("S", "Hello, I am a bot.", "m[0]", 1), Message("U", "Hi", "m[0]", 1), first, second],
                        reading, 1, "")
    assert [(t.name, t.text) for t in conv.turns] == [("U1", "Hi"), ("S1", "Part one.\n\nZoë saw Brazil")]
    assert [(c.turn, c.start_word, c.end_word) for c in conv.citations] == [(1, 4, 4)]
    assert [w.message for w in reading.warnings] == ["a system message before the first user message is not a turn: dropped"]


WORDS = st.lists(st.sampled_from(["Zoë", "🎬", "film", "(1985)", "[1]", "[2]", "\n", "  ", "x[3]"]), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(pieces=WORDS, raw=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 30), st.booleans()), max_size=8))
def test_cited_spans_lie_inside_the_turn_and_never_overlap_unless_identical(pieces, raw):
    text = " ".join(pieces)
    cites = [Cite(min(a, len(text)), min(a + n, len(text)), f"u{i}", "", "f", marker=m) for i, (a, n, m) in enumerate(raw)]
    found = word_spans(text, cites, Reading("t"), 1)
    count = len(text.split())
    distinct = sorted({(a, b) for a, b, _ in found})
    assert all(0 <= a <= b < count for a, b in distinct)
    assert all(previous[1] < current[0] for previous, current in zip(distinct, distinct[1:]))
