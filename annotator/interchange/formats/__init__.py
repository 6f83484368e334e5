"""Conversation files organisers have: the paper's annotated text format, JSONL, and
harvested conversations in the vendors' own shapes (harvest/).

Pure Python (no Django): ``parse_*`` return a ParseResult (conversations, errors, warnings)
and never raise on bad input; ``write_*`` give text that parses back to the same semantics.
See docs/formats.md.
"""

import json
import re
from collections.abc import Callable

from .detect import parse_text
from .harvest.har import bodies_only
from .harvest.streams import looks_like_events
from .jsonl import iter_jsonl, parse_jsonl, parse_jsonl_bytes, write_jsonl
from .model import (
    FormatError,
    ParsedConversation,
    loads_json,
    ParsedMembership,
    ParsedCitation,
    ParsedNugget,
    ParsedTurn,
    ParseResult,
    semantics,
)
from .paper import decode_utf8, iter_paper, parse_paper, parse_paper_bytes, write_paper
from .zips import unzipped

__all__ = [
    "FormatError",
    "ParsedConversation",
    "ParsedMembership",
    "ParsedCitation",
    "ParsedNugget",
    "ParsedTurn",
    "ParseResult",
    "semantics",
    "parse_paper",
    "parse_paper_bytes",
    "write_paper",
    "iter_paper",
    "parse_jsonl",
    "parse_jsonl_bytes",
    "write_jsonl",
    "iter_jsonl",
    "parse_file",
    "format_for",
    "count_conversations",
    "without_secrets",
]


def format_for(filename: str) -> str:
    """``"jsonl"`` for a .jsonl / .json file name, else ``"paper"``: the writers' choice of
    format for a name. Reading never goes by the name (``parse_file`` reads the content)."""
    name = filename.lower()
    return "jsonl" if name.endswith((".jsonl", ".json")) else "paper"


def parse_file(data: bytes, path: str, on_conversation: Callable[[int], object] | None = None) -> ParseResult:
    """Bytes of a file (strict UTF-8), in the format its content shows (the paper's, JSONL,
    or a harvest: ChatGPT and Claude.ai exports, OpenAI, Gemini, Gemini Takeout, Perplexity, Anthropic,
    ShareGPT, LMSYS / WildChat, HAR captures and event streams; the exports' zips too); ``ParseResult.format_name`` says which. ``on_conversation(n)`` is called as each
    conversation is read, with how many have been."""
    data, problem = unzipped(data, path)
    if problem is not None:
        return ParseResult([], [problem], [])
    text, errors = decode_utf8(data, path)
    if text is None:
        return ParseResult([], errors, [])
    return parse_text(text, path, on_conversation)


CURRENT_NODE = re.compile(rb'"current_node"\s*:')
HAR_OPENING = re.compile(rb'[ \t\n\r]*(?:\xef\xbb\xbf)?[ \t\n\r]*\{[ \t\n\r]*"log"[ \t\n\r]*:')
HAR_ENTRY = re.compile(rb'"response"[ \t\n\r]*:[ \t\n\r]*\{')  # once per entry: the bodies inside are strings
ROWS = re.compile(rb'"conversation(?:_a|_b)?"\s*:\s*\[')  # LMSYS / WildChat / Arena rows
OPENING = re.compile(rb"[ \t\n\r]*(?:\xef\xbb\xbf)?[ \t\n\r]*([\[{])?")


def without_secrets(data: bytes) -> bytes:
    """The file as it may be kept (a background import stores its upload until the worker
    reads it): a HAR capture loses everything but the bodies it is read for (its headers,
    cookies and URLs hold API keys and session tokens; harvest.har.bodies_only), read the same;
    any other file is kept as it is, and so is a capture that is not valid JSON (refused when read)."""
    if not HAR_OPENING.match(data):
        return data
    try:
        value = loads_json(data)
    except ValueError:
        return data
    return json.dumps(bodies_only(value), ensure_ascii=False).encode()


def count_conversations(data: bytes, path: str) -> int:
    """How many conversations the file holds, counted without reading it whole where that is
    slow (to decide within a request whether an upload is imported in the background): JSONL
    lines that are not blank, paper-format ``#####`` topic headers, the conversations of a
    ChatGPT export (its ``"current_node"`` keys), the entries of a HAR capture (more than its
    conversations), one for an event stream; other harvests (API logs, small) are read.
    Broken files may be miscounted; parsing tells."""
    data, problem = unzipped(data, path)
    if problem is not None:
        return 0
    opening = OPENING.match(data)
    if opening is None or opening.group(1) is None:
        if looks_like_events(data[:4096].decode("utf-8", "replace").removeprefix("\ufeff")):
            return 1  # one streamed answer
        lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
        return sum(1 for line in lines if line.startswith(b"#####") and not line.startswith(b"######"))
    if HAR_OPENING.match(data):
        return len(HAR_ENTRY.findall(data))  # at most one conversation per call: an upper bound, pages included
    exported = len(CURRENT_NODE.findall(data))
    if exported:
        return exported
    first_line = data[opening.start(1):].split(b"\n", 1)[0]
    try:
        first = json.loads(first_line)
    except (ValueError, RecursionError):
        first = None
    if isinstance(first, dict) and "turns" in first:
        return sum(1 for line in data.split(b"\n") if line.strip())
    if isinstance(first, dict) and any(key in first for key in ("conversation", "conversation_a", "conversation_b")):
        return len(ROWS.findall(data))
    return len(parse_file(data, path).conversations)
