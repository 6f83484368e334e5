"""Public dumps of chats: ShareGPT (``{"conversations": [{"from", "value"}]}``; raw values are
the page's HTML, read as text with markdown links; FastChat's fragments ``id_0``, ``id_1``...
of one long chat are joined back) and LMSYS-Chat-1M / WildChat rows (``{"conversation":
[{"role", "content"}]}``; Arena rows hold two, ``conversation_a`` and ``conversation_b``).
No citation structure: the links their answers show are proposed (common.propose_links)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from ..model import ParsedConversation
from .common import (Bad, Message, Reading, Unit, conversation, dict_at, each, join, list_at, once_each, propose_links,
                     strip_reasoning)


@dataclass(frozen=True)
class Family:
    NAME: str
    SUPPORTED: str
    claims: Callable[[Any], bool]
    read: Callable[[Iterable[Unit], Reading, Callable[[ParsedConversation], object]], None]


# --- ShareGPT -----------------------------------------------------------------------------------

SHAREGPT_ROLES = {"human": "U", "user": "U", "gpt": "S", "chatgpt": "S", "assistant": "S", "bing": "S", "bard": "S", "model": "S"}
FRAGMENT_RE = re.compile(r"^(.*)_(\d+)$")
HTML_RE = re.compile(r"^\s*<(div|p|ol|ul|pre|h[1-6]|table|blockquote)[\s>]", re.IGNORECASE)


def _sharegpt_claims(value: Any) -> bool:
    turns = value.get("conversations") if isinstance(value, dict) else None
    return isinstance(turns, list) and all(isinstance(t, dict) and "from" in t and "value" in t for t in turns)


def _sharegpt_read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    pending: list[Message] = []
    first: Unit | None = None
    base = None
    emit_once = once_each(reading, emit, ("id",))  # a chat's id: its first fragment's

    def finish() -> None:
        if first is not None:
            conv = conversation(pending, reading, first.line, first.field)
            if conv is not None:
                emit_once(first, [conv])

    for unit, messages in each(units, reading, lambda u: (u, _sharegpt_messages(u))):
        fragment = FRAGMENT_RE.match(str(unit.value.get("id", "")))
        continues = fragment is not None and first is not None and fragment.group(1) == base and fragment.group(2) != "0"
        if not continues:
            finish()
            first, pending = unit, []
        base = fragment.group(1) if fragment else None
        pending += messages
    finish()


def _sharegpt_messages(unit: Unit) -> list[Message]:
    messages = []
    for i, turn in enumerate(unit.value["conversations"]):
        where = unit.at("conversations", i)
        sender, value = turn.get("from"), turn.get("value")
        if not isinstance(value, str):
            raise Bad(join(where, "value"), "the message's text, a string")
        role = SHAREGPT_ROLES.get(sender.lower() if isinstance(sender, str) else None)
        if role is None:  # system prompts, tool calls and observations
            continue
        text = html_as_text(value) if HTML_RE.match(value) else value
        message = Message(role, text, where, unit.line)
        if role == "S":
            strip_reasoning(message)
            propose_links(message)
        messages.append(message)
    return messages


class _Text(HTMLParser):
    """The text a chat page showed, back as the markdown it was rendered from: paragraphs and
    list items on their own lines, links, emphasis and code as markdown; buttons ("Copy
    code") and scripts dropped."""

    BLOCKS = {"p", "div", "ol", "ul", "table", "tr", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"}
    SKIPPED = {"button", "script", "style", "svg"}
    INLINE = {"strong": "**", "b": "**", "em": "*", "i": "*"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.links: list[tuple[str | None, int]] = []
        self.skipping = 0
        self.lists: list[list[int]] = []  # per open list: [ordered, count]
        self.pre = False

    def newline(self, blank: bool = False) -> None:
        text = "".join(self.out).rstrip(" ")
        want = "\n\n" if blank else "\n"
        if text and not text.endswith(want):
            self.out = [text.rstrip("\n") + want]

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIPPED:
            self.skipping += 1
        elif tag in ("ol", "ul"):
            self.newline()
            self.lists.append([tag == "ol", 0])
        elif tag == "li":
            self.newline()
            if self.lists:
                self.lists[-1][1] += 1
                ordered, count = self.lists[-1]
                self.out.append(f"{count}. " if ordered else "- ")
            else:
                self.out.append("- ")
        elif tag == "br":
            self.out.append("\n")
        elif tag == "pre":
            self.newline(blank=True)
            self.out.append("```\n")
            self.pre = True
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in self.INLINE:
            self.out.append(self.INLINE[tag])
        elif tag == "a":
            self.links.append((dict(attrs).get("href"), len(self.out)))
            self.out.append("[")
        elif tag in self.BLOCKS:
            self.newline(blank=tag in ("p", "table", "blockquote"))

    def handle_endtag(self, tag):
        if tag in self.SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in ("ol", "ul"):
            if self.lists:
                self.lists.pop()
            self.newline(blank=True)
        elif tag == "pre":
            self.out.append("\n```")
            self.pre = False
            self.newline(blank=True)
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in self.INLINE:
            self.out.append(self.INLINE[tag])
        elif tag == "a" and self.links:
            href, _ = self.links.pop()
            self.out.append(f"]({href})" if href else "]")
        elif tag in self.BLOCKS:
            self.newline(blank=tag in ("p", "table", "blockquote"))

    def handle_data(self, data):
        if not self.skipping:
            self.out.append(data)


def html_as_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.out).strip()


SHAREGPT = Family("ShareGPT", "ShareGPT (conversations of from/value)", _sharegpt_claims, _sharegpt_read)


# --- LMSYS-Chat-1M / WildChat / Arena ----------------------------------------------------------

ROW_KEYS = ("conversation", "conversation_a", "conversation_b")
ROW_ROLES = {"user": "U", "human": "U", "assistant": "S", "gpt": "S", "chatbot": "S"}


def _rows_claims(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(value.get(k), list) for k in ROW_KEYS) and "conversations" not in value


def _rows_read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    emit_once = once_each(reading, emit, ("conversation_id", "conversation_hash"))
    for unit, conversations in each(units, reading, lambda u: (u, _row(u, reading))):
        emit_once(unit, conversations)


def _row(unit: Unit, reading: Reading) -> list[ParsedConversation]:
    row = dict_at(unit.value, unit.field, "a row")
    found = []
    for key in ROW_KEYS:
        if key not in row:
            continue
        where = unit.at(key)
        messages = []
        for i, turn in enumerate(list_at(row[key], where, key)):
            at = join(where, i)
            turn = dict_at(turn, at, "a message")
            content = turn.get("content")
            if not isinstance(content, str):
                raise Bad(join(at, "content"), "the message's text, a string")
            role = ROW_ROLES.get(turn.get("role"))
            if role is None:
                continue
            message = Message(role, content, at, unit.line)
            if role == "S":
                strip_reasoning(message)
                propose_links(message)
            messages.append(message)
        conv = conversation(messages, reading, unit.line, where)
        if conv is not None:
            found.append(conv)
    return found


LMSYS = Family("LMSYS-Chat / WildChat", "LMSYS-Chat-1M / WildChat / Arena rows (conversation of role/content)",
               _rows_claims, _rows_read)
