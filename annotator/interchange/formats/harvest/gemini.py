"""Gemini with Google Search grounding: a log of ``{"request": ..., "response": ...}`` calls
(REST camelCase, or the Python SDK's snake_case dumps). The request's ``contents`` is the
conversation so far (roles ``user`` and ``model``), the response's ``candidates[0].content``
the answer, its ``groundingMetadata`` the citations: ``groundingSupports[].segment`` (which
part, ``startIndex`` inclusive -- absent when 0 -- and ``endIndex`` exclusive, in **UTF-8
bytes** of that part, as Google documents; ``text``) cites ``groundingChunks[i].web`` (``uri``,
``title``). The segment is the cited words themselves. ``uri`` is usually a
``vertexaisearch.cloud.google.com/grounding-api-redirect/...`` link, kept as it is (it cannot be
resolved offline) and ``title`` the site's domain.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..model import ParsedConversation
from .common import (
    objects_in,
    optional_text,
    text_at,
    Bad,
    Call,
    Cite,
    Message,
    Reading,
    Unit,
    dict_at,
    join,
    list_at,
    locate,
    read_units,
    request_and_response,
    strip_reasoning,
)

NAME = "Gemini"
SUPPORTED = "Gemini request/response logs (groundingMetadata, camelCase or snake_case)"

ROLES = {"user": "U", "model": "S", None: "U"}
BYTES_FIRST = ("UTF-8 bytes", "code points", "UTF-16 code units")


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


def get(obj: dict, camel: str, default: Any = None) -> Any:
    """A field by its REST (camelCase) name or its Python SDK (snake_case) name."""
    if camel in obj:
        return obj[camel]
    return obj.get(_snake(camel), default)


def key(obj: dict, camel: str) -> str:
    """The name the field has in this object (for JSON paths)."""
    return camel if camel in obj or _snake(camel) not in obj else _snake(camel)


def claims(value: Any) -> bool:
    if isinstance(value, dict) and "request" in value and "response" in value:
        return isinstance(value["response"], dict) and "candidates" in value["response"]
    return isinstance(value, dict) and "candidates" in value and ("usageMetadata" in value or "usage_metadata" in value
                                                                  or "modelVersion" in value or "model_version" in value)


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    read_units(units, reading, emit, call=_call)


def _call(unit: Unit, reading: Reading) -> Call:
    request, response = request_and_response(unit)
    history = _contents(request.get("contents"), unit.at("request", "contents"), unit.line)
    candidates = list_at(response.get("candidates"), unit.at("response", "candidates"), "candidates")
    answer = None
    if candidates:
        where = unit.at("response", "candidates", 0)
        candidate = dict_at(candidates[0], where, "a candidate")
        answer = _answer(candidate, where, reading, unit.line)
    return Call(unit, history, answer, get(response, "responseId"))


def _contents(contents: Any, where: str, line: int) -> list[Message]:
    """The request's conversation: a string, a list of strings, or a list of Content."""
    if isinstance(contents, str):
        return [Message("U", contents, where, line)]
    contents = list_at(contents, where, "contents")
    if all(isinstance(c, str) or (isinstance(c, dict) and "text" in c) for c in contents):  # one user Content's parts
        return [Message("U", "".join(c if isinstance(c, str) else text_at(c["text"], join(join(where, i), "text"), "a part's text")
                                     for i, c in enumerate(contents)), where, line)]
    messages = []
    for i, content in enumerate(contents):
        at = join(where, i)
        content = dict_at(content, at, "a Content")
        role = content.get("role")
        if role not in ROLES:
            raise Bad(join(at, "role"), f"unknown role {role!r} (user or model)")
        text, _ = _text(content, at)
        message = Message(ROLES[role], text, at, line)
        if message.role == "S":
            strip_reasoning(message)
        messages.append(message)
    return messages


def _text(content: dict, where: str) -> tuple[str, dict[int, int]]:
    """The shown text of a Content (its text parts, thoughts left out, joined as they come) and
    where each part starts in it."""
    parts = list_at(content.get("parts") or [], join(where, "parts"), "parts")
    text, starts = "", {}
    for i, part in enumerate(parts):
        if isinstance(part, dict) and "text" in part and not part.get("thought"):
            starts[i] = len(text)
            text += text_at(part["text"], join(join(where, "parts"), i), "a text part's text")
    return text, starts


def _answer(candidate: dict, where: str, reading: Reading, line: int) -> Message | None:
    content = candidate.get("content")
    if content is None:
        return None
    content = dict_at(content, join(where, "content"), "content")
    text, starts = _text(content, join(where, "content"))
    message = Message("S", text, join(where, "content"), line)
    metadata = get(candidate, "groundingMetadata")
    if isinstance(metadata, dict):
        _grounding(message, content, starts, metadata, join(where, key(candidate, "groundingMetadata")), reading, line)
    strip_reasoning(message)
    return message


def _grounding(message: Message, content: dict, starts: dict[int, int], metadata: dict, where: str,
               reading: Reading, line: int) -> None:
    chunks = get(metadata, "groundingChunks") or []
    supports = get(metadata, "groundingSupports") or []
    parts = content.get("parts") or []
    if not isinstance(chunks, list) or not isinstance(supports, list):
        raise Bad(where, "groundingChunks and groundingSupports are lists")
    for i, support, at in objects_in(supports, join(where, key(metadata, "groundingSupports")), "a grounding support", reading, line):
        segment = support.get("segment")
        if not isinstance(segment, dict):
            reading.warn(line, at, "a support without its segment: skipped")
            continue
        part = get(segment, "partIndex", 0)
        if part not in starts:
            reading.warn(line, join(at, "segment"), f"part {part} is not a text part of the answer: skipped")
            continue
        part_text = parts[part]["text"]
        expected = segment.get("text")
        span = locate(part_text, get(segment, "startIndex", 0), get(segment, "endIndex"),
                      (lambda s: s == expected) if isinstance(expected, str) else (lambda s: True), BYTES_FIRST)
        if span is None and isinstance(expected, str) and expected and expected in part_text:
            found = part_text.index(expected)
            span = (found, found + len(expected))
            reading.warn(line, join(at, "segment"), "the offsets do not give the segment's text: found by its text")
        if span is None:
            reading.warn(line, join(at, "segment"), "the offsets lie outside the part: skipped")
            continue
        indices = get(support, "groundingChunkIndices") or []
        for k, index in enumerate(indices if isinstance(indices, list) else []):
            source = chunks[index] if isinstance(index, int) and 0 <= index < len(chunks) else None
            web = (source.get("web") or get(source, "retrievedContext")) if isinstance(source, dict) else None
            if not isinstance(web, dict) or not isinstance(web.get("uri"), str) or not web["uri"].strip():
                reading.warn(line, join(at, "groundingChunkIndices"), f"chunk {index!r} has no web uri: skipped")
                continue
            cited_at = join(join(at, key(support, "groundingChunkIndices")), k)
            message.cites.append(Cite(starts[part] + span[0], starts[part] + span[1], web["uri"].strip(),
                                      optional_text(web.get("title"), join(cited_at, "title"), "title", reading, line), cited_at))
