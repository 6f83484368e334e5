"""Anthropic Messages with the web search tool: a messages array (``{"messages": [...]}``, the
response's message appended) or a log of ``{"request": ..., "response": ...}`` calls.

An assistant message is a list of content blocks: ``text`` blocks are what was shown (joined
as they come; a tool block between two of them is a paragraph break); ``server_tool_use``,
``web_search_tool_result``, ``tool_use``, ``thinking`` are not. A text block's
``citations[]`` of type ``web_search_result_location`` (``url``, ``title``, ``cited_text`` --
the source's words, not the answer's) cite the whole block: web search citations carry no
offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..model import ParsedConversation
from .common import (Bad, Cite, Message, Reading, Unit, dict_at, join, kind_of, list_at, objects_in, optional_list, optional_text,
                     read_chat)

NAME = "Anthropic Messages"
SUPPORTED = "Anthropic Messages (messages arrays with web search citations, or request/response logs)"

ROLES = {"user": "U", "assistant": "S"}
BLOCKS = {"server_tool_use", "web_search_tool_result", "tool_use", "tool_result", "thinking", "redacted_thinking",
          "web_fetch_tool_result", "code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", "document",
          "search_result"}


def _typed(messages: Any) -> bool:
    """Messages whose content blocks only Anthropic writes (or cited text blocks)."""
    if not isinstance(messages, list) or not messages:
        return False
    for m in messages:
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            return False
    for m in messages:
        content = m.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and (b.get("type") in BLOCKS or (b.get("type") == "text" and "citations" in b)) for b in content
        ):
            return True
    return False


def claims(value: Any) -> bool:
    if isinstance(value, dict) and "request" in value and "response" in value:
        response = value["response"]
        return isinstance(response, dict) and response.get("type") == "message" and isinstance(response.get("content"), list)
    if isinstance(value, dict) and value.get("type") == "message" and value.get("role") == "assistant":
        return True
    return _typed(value.get("messages") if isinstance(value, dict) else value)


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    read_chat(units, reading, emit, message=message, answer=message, alone=lambda value: value.get("type") == "message",
              alone_says='a response holds only the system\'s answer: give the request\'s messages too '
                         '({"messages": [...]} with it appended, or {"request": ..., "response": ...} per call)')


def message(raw: Any, where: str, reading: Reading, line: int) -> Message | None:
    raw = dict_at(raw, where, "a message")
    role = ROLES.get(raw.get("role"))
    if role is None:
        raise Bad(join(where, "role"), f"unknown role {raw.get('role')!r} (user or assistant)")
    content = raw.get("content")
    if isinstance(content, str):
        return Message(role, content, where, line)
    m = Message(role, "", where, line)
    read_blocks(m, list_at(content, join(where, "content"), "content blocks"), join(where, "content"),
                lambda block, at, start, end: _block_citations(block, at, start, end, reading, line))
    return m


CitationsOf = Callable[[dict, str, int, int], list[Cite]]


def read_blocks(m: Message, blocks: list, where: str, citations_of: CitationsOf) -> None:
    """The text blocks of ``blocks`` appended to ``m`` as they come (a non-text block between
    two is a paragraph break), with ``citations_of(block, its path, start, end)``: the
    citations of the block that spans m.text[start:end]."""
    apart = False  # a non-text block since the last text: the next text starts a paragraph
    for i, block in enumerate(blocks):
        at = join(where, i)
        if not isinstance(block, dict) or block.get("type") != "text":
            apart = bool(m.text)
            continue
        text = block.get("text")
        if not isinstance(text, str):
            raise Bad(at, "a text block without its text")
        if apart and text.strip():
            m.text = m.text.rstrip() + "\n\n"
            text = text.lstrip()
            apart = False
        start = len(m.text)
        m.text += text
        m.cites.extend(citations_of(block, at, start, len(m.text)))


def _block_citations(block: dict, at: str, start: int, end: int, reading: Reading, line: int) -> list[Cite]:
    """web_search_result_location citations: the whole block (they carry no offsets)."""
    cites = []
    where = join(at, "citations")
    for _j, citation, cited_at in objects_in(optional_list(block.get("citations"), where, "citations", reading, line),
                                             where, "a citation", reading, line):
        url = citation.get("url")
        if not isinstance(url, str) or not url.strip():
            reading.warn(line, join(cited_at, "url"), f"a citation whose url is {kind_of(url) if url else 'missing'}: skipped")
            continue
        cites.append(Cite(start, end, url.strip(), optional_text(citation.get("title"), join(cited_at, "title"), "title",
                                                                 reading, line), cited_at))
    return cites
