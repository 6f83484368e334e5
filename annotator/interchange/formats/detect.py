"""What a file is, from its content (never its name): the paper's text format, this app's
JSONL, or one of the harvest formats (harvest/). A file of another shape is refused with a
message naming what is read."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from .harvest import FAMILIES, family_of
from .harvest.common import Reading, Unit
from .harvest.har import read_stream
from .harvest.openai_chat import is_message_list
from .harvest.openai_responses import is_item_list
from .harvest.streams import looks_like_events
from .jsonl import parse_jsonl
from .model import FormatError, LoneSurrogate, ParsedConversation, ParseResult, loads_json, may_hold_surrogates, surrogate_at
from .paper import parse_paper

__all__ = ["parse_text", "json_units", "SUPPORTED", "PAPER", "JSONL"]

PAPER = "paper"
JSONL = "JSONL"
SUPPORTED = ("the paper's text format (##### topic headers), JSONL (this app's: topic, turns, nuggets), "
             + ", ".join(f.SUPPORTED for f in FAMILIES) + ", a streamed answer's event stream (data: lines); see docs/formats.md")
EVENT_STREAM = "event stream"
PAPER_HEADER = re.compile(r"^#####(?!#)", re.MULTILINE)
JSON_SPACE = re.compile(r"[ \t\n\r]*")
FIRST_LINE = re.compile(r"[ \t\n\r]*([^\n]*)")  # the first non-blank line


def parse_text(text: str, path: str, on_conversation: Callable[[int], object] | None = None) -> ParseResult:
    body = text.removeprefix("\ufeff")
    start = body.lstrip()[:1]
    if start not in ("[", "{"):
        if looks_like_events(body):
            return _event_stream(body, path, on_conversation)
        if start and not PAPER_HEADER.search(body):
            return ParseResult(errors=[FormatError(path, 0, f"not a conversation file this app reads: supported are {SUPPORTED}")])
        result = parse_paper(text, path, on_conversation)
        result.format_name = PAPER
        return result
    if _opens_with_a_conversation(body):  # this app's JSONL, told by its first line: the file is read once
        result = parse_jsonl(text, path, on_conversation)
        result.format_name = JSONL
        return result
    units, errors = json_units(body, path)
    if units and isinstance(units[0].value, dict) and "turns" in units[0].value:  # this app's JSONL: its own report
        result = parse_jsonl(text, path, on_conversation)
        result.format_name = JSONL
        return result
    if errors:
        return ParseResult(errors=errors)
    if not units:
        return ParseResult(errors=[FormatError(path, 1, "an empty JSON array: no conversation in it")])
    first = units[0]
    family = family_of(first.value)
    if family is None:
        return ParseResult(errors=[FormatError(path, first.line, f"JSON of a shape this app does not read ({_shape(first.value)}): "
                                               f"supported are {SUPPORTED}", first.field or None)])
    for unit in units[1:]:
        other = family_of(unit.value)
        if other is not family:
            errors.append(FormatError(path, unit.line, f"read as {family.NAME} from line {first.line}, but this is "
                                      + (f"{other.NAME}: one format per file" if other else f"of another shape ({_shape(unit.value)})"),
                                      unit.field or None))
    if errors:
        return ParseResult(errors=errors, format_name=family.NAME)
    reading = Reading(path)
    conversations, emit = _collected(on_conversation)
    family.read(units, reading, emit)
    if not conversations and not reading.errors:
        reading.error(0, None, f"read as {family.NAME}, but no conversation shows a user message")
    return ParseResult(conversations, reading.errors, reading.warnings, format_name=family.NAME)


def _opens_with_a_conversation(body: str) -> bool:
    """Whether the first non-blank line is, alone, a JSON object with turns: this app's JSONL.
    Decoding a whole file to learn that held every conversation of it as JSON at once beside
    what the reader makes of them (0.4 GB of a 100,000-conversation import)."""
    first = FIRST_LINE.match(body).group(1)
    try:
        value = loads_json(first)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(value, dict) and "turns" in value


def _collected(on_conversation: Callable[[int], object] | None) -> tuple[list[ParsedConversation], Callable[[ParsedConversation], None]]:
    """A list the readers emit conversations into, reporting each to ``on_conversation``."""
    conversations: list[ParsedConversation] = []

    def emit(conversation: ParsedConversation) -> None:
        conversations.append(conversation)
        if on_conversation is not None:
            on_conversation(len(conversations))

    return conversations, emit


def _event_stream(text: str, path: str, on_conversation: Callable[[int], object] | None) -> ParseResult:
    """One streamed answer saved as it came (an ``.sse`` / ``.txt`` of ``data:`` lines)."""
    reading = Reading(path)
    conversations, emit = _collected(on_conversation)
    vendor = read_stream(text, reading, emit)
    name = f"{EVENT_STREAM} ({vendor})" if vendor else EVENT_STREAM
    return ParseResult(conversations, reading.errors, reading.warnings, format_name=name)


def _shape(value) -> str:
    if isinstance(value, dict):
        keys = sorted(value)[:8]
        return "an object with " + (", ".join(keys) if keys else "no keys")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return f"a {type(value).__name__}"


def json_units(text: str, path: str) -> tuple[list[Unit], list[FormatError]]:
    """The JSON values a reader reads: the elements of a top-level array (with their lines;
    a bare messages array is one value), a top-level object, or each line of JSON Lines."""
    decoder = json.JSONDecoder()
    try:
        units = _document(text, decoder)
        if units is not None:
            return units, _surrogates(units, text, path)
        whole_error = None
    except json.JSONDecodeError as exc:
        whole_error = exc
    except RecursionError:
        whole_error = json.JSONDecodeError("nested too deeply", text, 0)
    units, errors = [], []
    for no, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            continue
        try:
            value = decoder.decode(raw)
        except json.JSONDecodeError as exc:
            if not units and whole_error is not None:
                return [], [FormatError(path, whole_error.lineno, f"invalid JSON at column {whole_error.colno}: {whole_error.msg}")]
            errors.append(FormatError(path, no, f"invalid JSON at column {exc.colno}: {exc.msg}"))
            continue
        except RecursionError:
            errors.append(FormatError(path, no, "invalid JSON: nested too deeply"))
            continue
        units.append(Unit(value, no))
    return units, errors + _surrogates(units, text, path)


def _surrogates(units: list[Unit], text: str, path: str) -> list[FormatError]:
    """A string or key holding a lone surrogate (``"\\ud800"``: valid JSON, but no text a
    database, a file or a page can hold), by its line and JSON path, for every value that has one."""
    if not may_hold_surrogates(text):
        return []
    errors = []
    for unit in units:
        where = surrogate_at(unit.value)
        if where is not None:
            errors.append(FormatError(path, unit.line, LoneSurrogate.REASON, (unit.field + where).removeprefix(".") or None))
    return errors


def _document(text: str, decoder: json.JSONDecoder) -> list[Unit] | None:
    """The units of ``text`` read as one JSON document; None when more follows it (JSON
    Lines). A top-level array is read element by element, to know each one's line."""
    idx = JSON_SPACE.match(text).end()
    line = text.count("\n", 0, idx) + 1
    if text[idx] != "[":
        value, end = decoder.raw_decode(text, idx)
        return [Unit(value, line)] if not text[end:].strip() else None
    elements: list[tuple[object, int]] = []
    counted = idx
    idx = JSON_SPACE.match(text, idx + 1).end()
    if text[idx : idx + 1] != "]":
        while True:
            line += text.count("\n", counted, idx)
            counted = idx
            value, idx = decoder.raw_decode(text, idx)
            elements.append((value, line))
            idx = JSON_SPACE.match(text, idx).end()
            if text[idx : idx + 1] == ",":
                idx = JSON_SPACE.match(text, idx + 1).end()
                continue
            if text[idx : idx + 1] == "]":
                break
            if text[idx : idx + 1] == "":
                raise json.JSONDecodeError("unterminated array", text, idx)
            raise json.JSONDecodeError("expected , or ]", text, idx)
    if text[idx + 1 :].strip():
        return None
    values = [v for v, _ in elements]
    if is_message_list(values) or is_item_list(values):  # one conversation, not a list of them
        first_line = text.count("\n", 0, JSON_SPACE.match(text).end()) + 1
        return [Unit(values, first_line)]
    return [Unit(v, n, f"[{i}]") for i, (v, n) in enumerate(elements)]
