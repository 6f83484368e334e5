"""parse_file reads the content, never the file name: the paper's format, JSONL and every
harvest are told apart by what they hold; anything else is refused naming what is read."""

from __future__ import annotations

import json
from pathlib import Path

from annotator.interchange.formats import count_conversations, parse_file

from .harvest_helpers import DATA

PAPER = (Path(__file__).parent / "formats" / "data" / "M002-bing-trial1.txt").read_bytes()
JSONL_LINE = json.dumps({"topic": "M002", "run": "r1", "turns": [{"role": "user", "text": "hi"}, {"role": "system", "text": "hello"}]})


def test_the_papers_format_is_read_as_paper_even_when_named_json():
    result = parse_file(PAPER, "M002-bing-trial1.json")
    assert result.format_name == "paper" and result.errors == [] and len(result.conversations) == 1


def test_this_apps_jsonl_is_read_as_jsonl_even_when_named_txt():
    result = parse_file((JSONL_LINE + "\n" + JSONL_LINE.replace("r1", "r2") + "\n").encode(), "upload.txt")
    assert result.format_name == "JSONL" and result.errors == [] and [c.run for c in result.conversations] == ["r1", "r2"]


def test_a_file_of_another_shape_is_refused_with_a_message_naming_what_is_supported():
    for data in (b"just some notes\nabout films\n", b'{"hello": "world"}', b"[1, 2, 3]"):
        result = parse_file(data, "notes.json")
        assert len(result.errors) == 1 and result.conversations == []
        message = result.errors[0].message
        for name in ("the paper's text format", "JSONL", "ChatGPT export", "OpenAI Chat Completions", "Claude.ai export",
                     "Gemini Apps activity from Google Takeout", "HAR captures", "a streamed answer's event stream"):
            assert name in message, (data, message)


def test_invalid_json_is_refused_with_the_line_and_column_of_the_problem():
    result = parse_file(b'[\n  {"mapping": {},\n   "current_node": }\n]', "c.json")
    assert [str(e) for e in result.errors] == ["c.json:3: invalid JSON at column 20: Expecting value"]


def test_one_file_holds_one_format():
    chat = json.dumps({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]})
    export = json.dumps({"mapping": {}, "current_node": None})
    result = parse_file(f"{chat}\n{export}\n".encode(), "mixed.jsonl")
    assert [str(e) for e in result.errors] == [
        "mixed.jsonl:2: read as OpenAI Chat Completions from line 1, but this is ChatGPT export: one format per file"]


def test_counting_agrees_with_reading_for_every_example_file():
    for path in sorted(DATA.iterdir()):
        if path.suffix == ".sse":  # a streamed answer alone is refused (tests/interchange/test_harvest_har.py)
            continue
        data = path.read_bytes()
        assert count_conversations(data, path.name) >= len(parse_file(data, path.name).conversations) > 0, path.name


def test_a_chatgpt_export_is_counted_by_its_conversations_without_being_read():
    data = (DATA / "chatgpt-conversations.json").read_bytes()
    assert count_conversations(data, "conversations.json") == 3  # the empty one too: reading skips it


def test_an_empty_json_array_is_refused_as_holding_no_conversation_not_a_crash():
    for data in (b"[]", b"[ \n ]", b"\xef\xbb\xbf[]\n"):
        assert [str(e) for e in parse_file(data, "conversations.json").errors] == [
            "conversations.json:1: an empty JSON array: no conversation in it"]
