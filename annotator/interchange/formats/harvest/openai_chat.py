"""OpenAI Chat Completions: a messages array (bare, or ``{"messages": [...]}``, with the
response's ``choices[0].message`` appended), or a log of ``{"request": ..., "response": ...}``
calls.

Citations (search models): ``message.annotations[] = {"type": "url_citation", "url_citation":
{"start_index", "end_index", "url", "title"}}`` -- nested. The span is the inline link marker
(``([imdb.com](https://...?utm_source=openai))``), so it cites the words before it. The unit of
the offsets is undocumented (and ``end_index`` is "the index of the last character"): the
slice must be the link to the URL, checked in code points, then UTF-16 units, then UTF-8
bytes, end exclusive then inclusive; else the link is searched for by its URL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..model import ParsedConversation
from .common import (Bad, Cite, Message, Reading, Unit, dict_at, join, list_at, locate, objects_in, optional_list, optional_text,
                     read_chat, strip_reasoning, text_of)

NAME = "OpenAI Chat Completions"
SUPPORTED = "OpenAI Chat Completions (messages arrays, or request/response logs)"

ROLES = {"user": "U", "assistant": "S"}
ALL_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}


def is_message_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(m, dict) and "role" in m for m in value)


def claims(value: Any) -> bool:
    if isinstance(value, dict) and "request" in value and "response" in value:
        response = value["response"]
        return isinstance(response, dict) and "choices" in response and not ("citations" in response or "search_results" in response)
    if isinstance(value, dict) and value.get("object") == "chat.completion" and "messages" not in value:
        return True  # a response alone: refused, saying what to give
    messages = value.get("messages") if isinstance(value, dict) else value
    return is_message_list(messages) and all(m.get("role") in ALL_ROLES for m in messages)


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    read_chat(units, reading, emit, message=message, answer=answer_of, alone=lambda value: "messages" not in value)


def answer_of(response: dict, where: str, reading: Reading, line: int) -> Message | None:
    choices = list_at(response.get("choices"), join(where, "choices"), "choices")
    if not choices:
        return None
    choice = dict_at(choices[0], join(where, "choices[0]"), "a choice")
    return message(choice.get("message"), join(where, "choices[0].message"), reading, line)


def message(raw: Any, where: str, reading: Reading, line: int) -> Message | None:
    """A user or assistant message as shown (with its url_citation annotations); None for
    system, developer and tool messages."""
    raw = dict_at(raw, where, "a message")
    role = ROLES.get(raw.get("role"))
    if role is None:
        if raw.get("role") not in ALL_ROLES:
            raise Bad(join(where, "role"), f"unknown role {raw.get('role')!r}")
        return None
    text, _parts = text_of(raw.get("content"), join(where, "content"))
    if not text and role == "S" and isinstance(raw.get("refusal"), str):
        text = raw["refusal"]
    m = Message(role, text, where, line)
    if role == "S":
        annotations = optional_list(raw.get("annotations"), join(where, "annotations"), "annotations", reading, line)
        for _i, a, at in objects_in(annotations, join(where, "annotations"), "an annotation", reading, line):
            if a.get("type") == "url_citation":
                cite = url_citation(m.text, a.get("url_citation"), join(at, "url_citation"), reading, line)
                if cite is not None:
                    m.cites.append(cite)
        strip_reasoning(m)
    return m


def url_citation(text: str, body: Any, where: str, reading: Reading, line: int, offset: int = 0) -> Cite | None:
    """A url_citation (``start_index``/``end_index``/``url``/``title``) of ``text`` as a marker
    citation; ``offset``: where ``text`` starts in the message."""
    if not isinstance(body, dict) or not isinstance(body.get("url"), str) or not body["url"].strip():
        reading.warn(line, where, "a url_citation without a url: skipped")
        return None
    url, title = body["url"].strip(), optional_text(body.get("title"), join(where, "title"), "title", reading, line)
    start, end = body.get("start_index"), body.get("end_index")
    span = locate(text, start, end, lambda s: is_link_to(s, url))
    if span is None and isinstance(end, int) and not isinstance(end, bool):  # "the index of the last character": inclusive?
        span = locate(text, start, end + 1, lambda s: is_link_to(s, url))
    if span is None:
        span = link_of(text, url)
        if span is None:
            reading.warn(line, where, f"neither the offsets nor the text show a link to {url}: skipped")
            return None
        reading.warn(line, where, f"the offsets do not point at the link to {url}: found by its URL")
    return Cite(span[0] + offset, span[1] + offset, url, title, where, marker=True)


def is_link_to(s: str, url: str) -> bool:
    """Is this slice the inline link to url, ``[label](url)`` (in parentheses or not)?"""
    return s.startswith(("[", "(")) and s.endswith(")") and url in s


def link_of(text: str, url: str) -> tuple[int, int] | None:
    """The markdown link ``[label](url)`` (with the parentheses around it, if any) in text."""
    i = text.find(url)
    if i == -1:
        return None
    end = text.find(")", i + len(url))
    end = len(text) if end == -1 else end + 1
    if text[end : end + 1] == ")":
        end += 1
    start = text.rfind("[", 0, i)
    start = i if start == -1 or "\n" in text[start:i] else start
    if start > 0 and text[start - 1] == "(":
        start -= 1
    return start, end
