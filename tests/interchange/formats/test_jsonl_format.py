"""JSONL: one conversation per line; errors name the line and the JSON field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from annotator.interchange.formats import parse_jsonl, parse_jsonl_bytes, parse_paper, semantics, write_jsonl, write_paper

from .strategies import any_text, conversations

EXAMPLE = Path(__file__).parent / "data" / "M002-bing-trial1.txt"


def messages(items) -> list[str]:
    return [str(e) for e in items]


def line(**overrides) -> str:
    obj = {
        "topic": "M002",
        "run": "bing-trial1",
        "turns": [
            {"role": "user", "text": "list time travel movies"},
            {"role": "system", "text": "Here:\nLooper (2012): https://www.imdb.com/title/tt1276104/\nPrimer (2004)", "label": "o"},
        ],
        "nuggets": [
            {"turn": 2, "start": 1, "end": 3, "grade": "L2", "memberships": {"RATINGS": {"vector": [0, 0, 1, 0], "evidence": "592K"}}},
        ],
    }
    obj.update(overrides)
    return json.dumps(obj)


def test_a_conversation_line_is_read_with_spans_grades_memberships_and_entity():
    result = parse_jsonl(line(), "c.jsonl")
    assert result.errors == [] and result.warnings == []
    (conv,) = result.conversations
    assert (conv.topic, conv.run, [t.name for t in conv.turns]) == ("M002", "bing-trial1", ["U1", "S1"])
    (n,) = conv.nuggets
    assert (n.turn, n.start_word, n.end_word, n.grade, conv.wc(n)) == (1, 1, 3, "L2", 8)
    assert n.text == "Looper (2012): https://www.imdb.com/title/tt1276104/"
    assert (n.entity_key, n.entity_name) == ("https://imdb.com/title/tt1276104", "Looper (2012)")
    assert n.memberships["RATINGS"].vector == (0, 0, 1, 0) and n.memberships["RATINGS"].evidence == "592K"
    assert n.field == "nuggets[0]" and n.memberships["RATINGS"].field == "nuggets[0].memberships.RATINGS"


def test_a_nugget_may_be_given_by_its_text_on_word_boundaries():
    nugget = {"turn": "S1", "text": "Primer (2004)", "grade": "L1", "memberships": {"RATINGS": ["0", "1/2", "1/2", 0]}}
    (n,) = parse_jsonl(line(nuggets=[nugget]), "c.jsonl").conversations[0].nuggets
    assert (n.start_word, n.end_word, n.entity_key) == (4, 5, "name:primer (2004)")
    assert n.memberships["RATINGS"].vector == (0, 0.5, 0.5, 0)


def test_an_explicit_entity_wins_over_the_text():
    nugget = {"turn": 2, "text": "Primer", "entity": {"url": "http://www.imdb.com/title/tt0390384/", "name": "Primer"}}
    (n,) = parse_jsonl(line(nuggets=[nugget]), "c.jsonl").conversations[0].nuggets
    assert (n.entity_key, n.entity_name) == ("https://imdb.com/title/tt0390384", "Primer")


def test_blank_lines_are_allowed_and_line_numbers_count_them():
    text = "\n" + line() + "\n\n" + line(run="other", nuggets=[{"turn": 2, "start": 0, "end": 99}]) + "\n"
    result = parse_jsonl(text, "c.jsonl")
    assert messages(result.errors) == ["c.jsonl:4: nuggets[0]: span 0-99 outside the turn (S1 has 6 words, 0-5)"]


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"topic": ""}, "topic: required: the topic id, a non-empty string"),
        ({"turns": []}, "turns: required: a non-empty list of turns"),
        ({"turns": [{"role": "system", "text": "x"}], "nuggets": []}, "turns[0].role: turns alternate user, system, user... starting with user: expected user"),
        ({"turns": [{"role": "bot", "text": "x"}], "nuggets": []}, 'turns[0].role: must be "user" or "system"'),
        ({"turns": [{"role": "user", "text": "x", "label": "o"}], "nuggets": []}, "turns[0].label: a user turn has no usefulness label"),
        ({"nuggets": [{"turn": 1, "start": 0, "end": 0}]}, "nuggets[0].turn: nugget in a user turn (U1): only system turns hold nuggets"),
        ({"nuggets": [{"turn": 3, "start": 0, "end": 0}]}, 'nuggets[0].turn: required: the 1-based index of a turn (1-2) or its name like "S1"'),
        ({"nuggets": [{"turn": 2, "text": "Looper (2013)"}]}, "nuggets[0].text: not found on word boundaries in S1"),
        ({"nuggets": [{"turn": 2, "text": "oper"}]}, "nuggets[0].text: not found on word boundaries in S1"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "text": "There:"}]}, "nuggets[0].text: does not match words 0-0 of S1: 'Here:'"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "grade": "high"}]}, "nuggets[0].grade: must be like \"L2\" (or null), found 'high'"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "memberships": {"RATINGS": {"vector": [0, 0.5, 0.4]}}}]},
         "nuggets[0].memberships.RATINGS.vector: vector sums to 0.9, not 1"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "memberships": {"RATINGS": {"vector": [0, "a", 1]}}}]},
         "nuggets[0].memberships.RATINGS.vector[1]: malformed vector: 'a' is not a number (write 0.5 or 1/2)"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "memberships": {"RATINGS": {"vector": [-1, 2]}}}]},
         "nuggets[0].memberships.RATINGS.vector: value 1 is negative (-1)"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "memberships": {"RATINGS": {"vector": ["1e-9999999", 1]}}}]},
         "nuggets[0].memberships.RATINGS.vector[0]: malformed vector: 1e-9999999: the exponent is out of range (at most 300)"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "memberships": {"RATINGS": {"vector": [10**400, 0]}}}]},
         "nuggets[0].memberships.RATINGS.vector[0]: malformed vector: the number is out of range (at most 1e300)"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "memberships": {"RATINGS": {"vector": [True, 0]}}}]},
         "nuggets[0].memberships.RATINGS.vector[0]: malformed vector: not a number"),
        ({"nuggets": [{"turn": 2, "start": 0, "end": 0, "memberships": {"RATINGS": "0,1"}}]},
         'nuggets[0].memberships.RATINGS: malformed vector: a non-empty list of numbers (or "1/2" fractions)'),
    ],
)
def test_each_problem_names_the_line_and_the_field(overrides, message):
    result = parse_jsonl("\n" + line(**overrides) + "\n", "c.jsonl")
    assert messages(result.errors) == [f"c.jsonl:2: {message}"]


def test_nan_in_a_vector_is_refused():
    text = line().replace('"vector": [0, 0, 1, 0]', '"vector": [NaN, 0, 1, 0]')
    assert messages(parse_jsonl(text, "c.jsonl").errors) == [
        "c.jsonl:1: nuggets[0].memberships.RATINGS.vector[0]: malformed vector: nan is not a finite number"
    ]


def test_invalid_json_is_reported_with_its_column():
    assert messages(parse_jsonl('{"topic": "M002",\n', "c.jsonl").errors) == [
        "c.jsonl:1: invalid JSON at column 18: Expecting property name enclosed in double quotes"
    ]


def test_every_line_is_checked_not_just_the_first_bad_one():
    text = "\n".join([line(topic=""), line(), "[1]", line(run="x", turns=[])])
    assert [e.line for e in parse_jsonl(text, "c.jsonl").errors] == [1, 3, 4]


def test_a_declared_wc_that_disagrees_is_a_warning():
    result = parse_jsonl(line(nuggets=[{"turn": 2, "start": 1, "end": 3, "wc": 9}]), "c.jsonl")
    assert result.errors == []
    assert messages(result.warnings) == ["c.jsonl:1: nuggets[0].wc: wc= 9 declared, 8 computed"]


def test_unknown_fields_are_warnings():
    result = parse_jsonl(line(extra=1), "c.jsonl")
    assert messages(result.warnings) == ["c.jsonl:1: extra: unknown field, ignored"]


def test_the_same_conversation_twice_is_an_error():
    assert messages(parse_jsonl(line() + "\n" + line(), "c.jsonl").errors) == [
        "c.jsonl:2: conversation M002 run bing-trial1 appears twice in this file (first at line 1)"
    ]


def test_empty_and_non_utf8_files_are_refused():
    assert messages(parse_jsonl(" \n\n", "c.jsonl").errors) == ["c.jsonl: empty file"]
    data = (line() + "\n" + line(run="r2")).encode().replace(b"Looper", b"L\xf6oper", 2)
    assert messages(parse_jsonl_bytes(data, "c.jsonl").errors)[0].startswith("c.jsonl:1: not UTF-8 text: invalid byte f6")


def test_the_paper_example_converts_to_jsonl_and_back():
    convs = parse_paper(EXAMPLE.read_text(), "M002.txt").conversations
    text = write_jsonl(convs)
    assert text.count("\n") == 1
    obj = json.loads(text)
    assert obj["nuggets"][0] == {
        "turn": 2, "start": 12, "end": 17,
        "text": "Back to the Future (1985): https://www.imdb.com/title/tt0088763/",
        "wc": 35, "grade": "L2",
        "entity": {"key": "https://imdb.com/title/tt0088763", "name": "Back to the Future (1985)"},
        "memberships": {"RATINGS": {"vector": [0.0, 0.0, 0.0, 1.0], "evidence": "1.3M"},
                        "ORIGIN": {"vector": [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "evidence": "United States"}},
    }
    back = parse_jsonl(text, "M002.jsonl")
    assert back.errors == [] and back.warnings == []
    assert [semantics(c) for c in back.conversations] == [semantics(c) for c in convs]
    assert [semantics(c) for c in parse_paper(write_paper(back.conversations), "again.txt").conversations] == [semantics(c) for c in convs]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(conversations(text=any_text))
def test_parse_jsonl_of_write_jsonl_gives_back_the_same_conversations(convs):
    written = write_jsonl(convs)
    result = parse_jsonl(written, "roundtrip.jsonl")
    assert result.errors == [] and result.warnings == []
    assert [semantics(c) for c in result.conversations] == [semantics(c) for c in convs]
    assert write_jsonl(result.conversations) == written


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(conversations())
def test_paper_and_jsonl_carry_the_same_conversations(convs):
    via_jsonl = parse_jsonl(write_jsonl(convs), "a.jsonl").conversations
    via_paper = parse_paper(write_paper(via_jsonl), "b.txt").conversations
    assert [semantics(c) for c in via_paper] == [semantics(c) for c in convs]


def test_a_line_nested_too_deeply_is_an_error_at_its_line_not_a_crash():
    result = parse_jsonl("[" * 100_000 + "]" * 100_000 + "\n", "f.jsonl")
    assert [(e.line, e.message) for e in result.errors] == [(1, "invalid JSON at column 1: nested too deeply")]


def test_a_lone_surrogate_in_a_membership_key_is_reported_at_that_key():
    from annotator.interchange.formats import parse_jsonl

    line = ('{"topic": "M002", "run": "r", "turns": [{"role": "user", "text": "hi"}, {"role": "system", "text": "ok"}],'
            ' "nuggets": [{"turn": 2, "start": 0, "end": 0, "memberships": {"RAT\\ud800": [1]}}]}')
    result = parse_jsonl(line, "f.jsonl")
    assert [str(e) for e in result.errors] == [
        "f.jsonl:1: nuggets[0].memberships.RAT\\ud800: a lone surrogate (\\ud800-\\udfff) is no text"]
