"""What the harvest tests look at: a file of tests/interchange/data/harvest read as a whole,
and each citation as (turn name, cited words, url)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from annotator.interchange.formats import ParsedConversation, ParseResult, parse_file

DATA = Path(__file__).parent / "data" / "harvest"


def read(name: str) -> ParseResult:
    return parse_file((DATA / name).read_bytes(), name)


def read_text(text: str, name: str = "upload.json") -> ParseResult:
    return parse_file(text.encode(), name)


def turns(conversation: ParsedConversation) -> list[tuple[str, str]]:
    """The turns of the branch the chat showed (every turn of a line), as (name, text)."""
    return [(t.name, t.text) for t in conversation.turns if t.shown]


def cited(conversation: ParsedConversation) -> list[tuple[str, str, str]]:
    """Each citation as (turn, its words joined by a space, url), in the reader's order."""
    return [
        (conversation.turns[c.turn].name, " ".join(conversation.words(c.turn)[c.start_word : c.end_word + 1]), c.url)
        for c in conversation.citations
    ]


def zipped(members: dict[str, bytes]) -> bytes:
    """A zip of these members, as an export is downloaded."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()
