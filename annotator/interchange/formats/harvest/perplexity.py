"""Perplexity Sonar: a log of ``{"request": ..., "response": ...}`` calls, the response an
OpenAI-shaped chat completion plus the sources of that answer: ``search_results[]`` (``title``,
``url``; the newer field) or ``citations[]`` (URL strings, deprecated in June 2025). The text
cites them with ``[n]`` markers, 1-based into that response's list (``[2]`` of one answer is
not ``[2]`` of the next); reasoning models put a ``<think>...</think>`` section first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..model import ParsedConversation
from .common import Bad, Cite, Message, Reading, Unit, dict_at, join, kind_of, read_chat
from .openai_chat import answer_of, message

NAME = "Perplexity"
SUPPORTED = "Perplexity request/response logs (citations / search_results and [n] markers)"

MARKER_RE = re.compile(r"\[(\d{1,4})\](?!\()")  # [n], not a markdown link [n](url)


def _has_sources(value: Any) -> bool:
    return isinstance(value, dict) and "choices" in value and ("citations" in value or "search_results" in value)


def claims(value: Any) -> bool:
    if isinstance(value, dict) and "request" in value and "response" in value:
        return _has_sources(value["response"])
    return _has_sources(value)


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    read_chat(units, reading, emit, message=message, answer=_answer)


def _answer(response: dict, where: str, reading: Reading, line: int) -> Message | None:
    """The answer, its [n] markers citing this response's sources."""
    answer = answer_of(response, where, reading, line)
    if answer is not None:
        sources = _sources(response, where)
        for m in MARKER_RE.finditer(answer.text):
            n = int(m.group(1))
            if not 1 <= n <= len(sources):
                reading.warn(line, answer.field, f"marker [{n}] names no source of this response ({len(sources)} given): skipped")
                continue
            url, title, source_at = sources[n - 1]
            if not url:
                reading.warn(line, source_at or answer.field, f"source {n} has no URL: marker [{n}] skipped")
                continue
            answer.cites.append(Cite(m.start(), m.end(), url, title, source_at, marker=True))
    return answer


def _sources(response: dict, where: str) -> list[tuple[str, str, str]]:
    """(url, title, JSON path) of the response's sources, in the order its markers count."""
    results = response.get("search_results")
    if results is not None and not isinstance(results, list):
        raise Bad(join(where, "search_results"), f"expected a list of sources, not {kind_of(results)}")
    if results:
        return [_source(r, join(join(where, "search_results"), i)) for i, r in enumerate(results)]
    citations = response.get("citations") or []
    if not isinstance(citations, list):
        raise Bad(join(where, "citations"), "expected a list of URLs")
    for i, c in enumerate(citations):
        if not isinstance(c, str):
            raise Bad(join(join(where, "citations"), i), f"a cited URL: expected a string, not {kind_of(c)}")
    return [(c.strip(), "", join(join(where, "citations"), i)) for i, c in enumerate(citations)]


def _source(result: Any, where: str) -> tuple[str, str, str]:
    """(url, title, where) of a search result; the marker [n] counts every one, so one of another
    type refuses the file rather than shift the others."""
    result = dict_at(result, where, "a search result")
    url = result.get("url")
    title = result.get("title")
    if url is not None and not isinstance(url, str):
        raise Bad(join(where, "url"), f"url: expected a string, not {kind_of(url)}")
    if title is not None and not isinstance(title, str):
        raise Bad(join(where, "title"), f"title: expected a string, not {kind_of(title)}")
    return (url or "").strip(), title or "", where
