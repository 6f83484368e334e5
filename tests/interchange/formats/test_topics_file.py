"""Topics files, read: TSV (a header optional) or JSONL as the campaign file writes its topics;
every problem at its line."""

from __future__ import annotations

from annotator.interchange.formats.topics import ParsedTopic, read_topics


def test_tsv_lines_with_a_header_give_code_type_and_text():
    data = "code\ttype\ttext\nM003\tM\ttime-travel movies, in IMDb\nR001\t\tIR researchers\n\n".encode()
    topics, errors = read_topics(data, "t.tsv")
    assert errors == []
    assert topics == [ParsedTopic("M003", "M", "time-travel movies, in IMDb", 2), ParsedTopic("R001", "", "IR researchers", 3)]


def test_the_header_may_say_id_type_description_in_any_case_and_a_bom_is_dropped():
    topics, errors = read_topics("\ufeffID\tType\tDescription\nM003\tM\tx\n".encode(), "t.tsv")
    assert errors == [] and [t.code for t in topics] == ["M003"]


def test_a_line_with_too_many_tabs_is_an_error_at_its_line():
    _topics, errors = read_topics(b"M003\tM\ta\tb\nM004\tM\tok\n", "t.tsv")
    assert [str(e) for e in errors] == ["t.tsv:1: a line is code<TAB>type<TAB>text: found 4 fields (a text holds no tab)"]


def test_jsonl_lines_as_the_campaign_file_writes_topics():
    data = b'{"id": "M003", "type": "M", "description": "movies"}\n{"id": "P001"}\n'
    topics, errors = read_topics(data, "t.jsonl")
    assert errors == [] and topics == [ParsedTopic("M003", "M", "movies", 1), ParsedTopic("P001", "", "", 2)]


def test_jsonl_problems_are_given_by_line():
    data = b'{"id": "M003"}\nnot json\n[1]\n{"id": 3}\n{"id": "M4", "title": "x"}\n'
    _topics, errors = read_topics(data, "t.jsonl")
    assert [(e.line, e.message.split(":")[0]) for e in errors] == [
        (2, "not JSON"), (3, 'a line is an object'), (4, "id"), (5, "unknown field title (expected id, type, description)")]


def test_a_file_that_is_not_utf8_or_empty_is_refused_whole():
    assert read_topics(b"\xff\xfe\x00", "t.tsv")[1][0].message.startswith("not UTF-8 text")
    assert read_topics(b"\n \n", "t.tsv")[1][0].message == "no topics in the file"
