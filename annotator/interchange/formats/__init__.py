"""Conversation files organisers have: the paper's annotated text format and JSONL.

Pure Python (no Django): ``parse_*`` return a ParseResult (conversations, errors, warnings)
and never raise on bad input; ``write_*`` give text that parses back to the same semantics.
See docs/formats.md.
"""

from collections.abc import Callable

from .jsonl import iter_jsonl, parse_jsonl, parse_jsonl_bytes, write_jsonl
from .model import (
    FormatError,
    ParsedConversation,
    ParsedMembership,
    ParsedCitation,
    ParsedNugget,
    ParsedTurn,
    ParseResult,
    semantics,
)
from .paper import iter_paper, parse_paper, parse_paper_bytes, write_paper

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
]


def format_for(filename: str) -> str:
    """``"jsonl"`` for a .jsonl / .json file name, else ``"paper"``."""
    name = filename.lower()
    return "jsonl" if name.endswith((".jsonl", ".json")) else "paper"


def parse_file(data: bytes, path: str, on_conversation: Callable[[int], object] | None = None) -> ParseResult:
    """Bytes of a file (strict UTF-8), in the format its name says; ``on_conversation(n)`` is
    called as each conversation is read, with how many have been."""
    if format_for(path) == "jsonl":
        return parse_jsonl_bytes(data, path, on_conversation)
    return parse_paper_bytes(data, path, on_conversation)


def count_conversations(data: bytes, path: str) -> int:
    """How many conversations the file holds, counted without parsing it (fast enough to
    decide within a request whether an upload is imported in the background): JSONL lines
    that are not blank, or paper-format ``#####`` topic headers. Broken files may be
    miscounted; parsing tells."""
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    if format_for(path) == "jsonl":
        return sum(1 for line in lines if line.strip())
    return sum(1 for line in lines if line.startswith(b"#####") and not line.startswith(b"######"))
