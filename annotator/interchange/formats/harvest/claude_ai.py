"""Claude.ai's data export, ``conversations.json`` (in the downloaded zip, like ChatGPT's): a
list of conversations ``{uuid, name, created_at, updated_at, account, chat_messages[]}``.

A chat message is ``{uuid, sender: "human" | "assistant", text, content[], created_at,
attachments, files}`` (field names: portable-ai-memory.org/interop/importing and the public
exporters' types, e.g. ``ClaudeMessage`` / ``ClaudeMessageContent``); ``content[]`` holds
typed blocks like the Messages API's: ``text`` blocks are what was shown, ``tool_use`` /
``tool_result`` (the web search and its results), ``thinking`` are not. When a conversation
names ``current_leaf_message_uuid`` and its messages their ``parent_message_uuid``, the
branch that ends at the leaf is the one shown (an edited or retried message leaves the old
branch behind); else the messages are read in their order.

Citations: a text block's ``citations[]``; Anthropic does not document the export, so each is
read defensively: the URL is the citation's ``url`` or ``details.url``, its title ``title``
or ``details.title``; ``start_index``/``end_index`` (code points of the block, checked against
the block) give the cited words, else the whole block is cited, as for the API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..model import ParsedConversation
from .anthropic import read_blocks
from .common import (Bad, Cite, Message, Reading, Unit, conversation, dict_at, join, kind_of, list_at, objects_in,
                     optional_list, optional_text, read_units, text_at, to_code_points)
from .trees import parents_first, read_nodes, tree_conversation

NAME = "Claude.ai export"
SUPPORTED = "Claude.ai export (conversations.json with chat_messages)"

SENDERS = {"human": "U", "user": "U", "assistant": "S"}


def claims(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("chat_messages"), list)


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    read_units(units, reading, emit, single=_conversation, ids=("uuid",))


def _conversation(unit: Unit, reading: Reading) -> ParsedConversation | None:
    obj = dict_at(unit.value, unit.field, "a conversation")
    where = unit.at("chat_messages")
    raw = list_at(obj.get("chat_messages"), where, "chat_messages")
    shown = _shown_branch(raw, obj.get("current_leaf_message_uuid"), unit)
    if len(shown) == len(raw):  # no tree (no parents, or no leaf named): the messages in order
        messages = [_message(raw[i], join(where, i), reading, unit.line) for i in shown]
        return conversation([m for m in messages if m is not None], reading, unit.line, unit.field)
    on_branch = set(shown)
    ids = [m["uuid"] if isinstance(m, dict) and isinstance(m.get("uuid"), str) else str(i) for i, m in enumerate(raw)]
    nodes = read_nodes(_every_branch(raw, on_branch), len(raw), lambda i: _message(raw[i], join(where, i), reading, unit.line),
                       ids.__getitem__, on_branch, reading, unit.line, unit.field)
    return tree_conversation(nodes, reading, unit.line, unit.field)


def _every_branch(raw: list, shown: set[int]) -> list[tuple[int, int | None]]:
    """Every message as (index, parent index), parents first, the shown branch first: a message
    whose parent is not a message of the conversation is a root."""
    index = {m.get("uuid"): i for i, m in enumerate(raw) if isinstance(m, dict) and isinstance(m.get("uuid"), str)}
    children: dict[int | None, list[int]] = {}
    for i, m in enumerate(raw):
        parent = index.get(m.get("parent_message_uuid")) if isinstance(m, dict) else None
        children.setdefault(parent, []).append(i)
    return parents_first(children, shown)


def _shown_branch(raw: list, leaf: Any, unit: Unit) -> list[int]:
    """The indices of the messages shown: the branch ending at the leaf (without one named, the
    last message's: the one written last), or all of them when the messages name no parents."""
    index = {m.get("uuid"): i for i, m in enumerate(raw) if isinstance(m, dict) and isinstance(m.get("uuid"), str)}
    has_parents = any(isinstance(m, dict) and "parent_message_uuid" in m for m in raw)
    if not has_parents or not index:
        return list(range(len(raw)))
    if not isinstance(leaf, str) or leaf not in index:
        leaf = max(index, key=index.__getitem__)
    branch: list[int] = []
    seen: set[int] = set()
    node: Any = leaf
    while node in index:
        i = index[node]
        if i in seen:
            raise Bad(unit.at("chat_messages", i, "parent_message_uuid"), "the parents of current_leaf_message_uuid loop")
        seen.add(i)
        branch.append(i)
        node = raw[i].get("parent_message_uuid")
    return branch[::-1]


def _message(raw: Any, where: str, reading: Reading, line: int) -> Message | None:
    raw = dict_at(raw, where, "a chat message")
    sender = raw.get("sender")
    role = SENDERS.get(sender)
    if role is None:
        if sender in ("system", "tool"):
            return None
        raise Bad(join(where, "sender"), f"unknown sender {sender!r} (human or assistant)")
    m = Message(role, "", where, line)
    content = raw.get("content")
    if content is not None:
        list_at(content, join(where, "content"), "content blocks")
    if "text" in raw and raw["text"] is not None:
        text_at(raw["text"], join(where, "text"), "the message's text")
    if content and any(isinstance(b, dict) and b.get("type") == "text" for b in content):
        read_blocks(m, content, join(where, "content"),
                    lambda block, at, start, end: _citations(block, at, start, end, reading, line) if role == "S" else [])
    elif isinstance(raw.get("text"), str):
        m.text = raw["text"]  # older exports: the text alone
    return m


def _citations(block: dict, at: str, start: int, end: int, reading: Reading, line: int) -> list[Cite]:
    cites = []
    citations = optional_list(block.get("citations"), join(at, "citations"), "citations", reading, line)
    for j, citation, where in objects_in(citations, join(at, "citations"), "a citation", reading, line):
        details = citation.get("details")
        if details is not None and not isinstance(details, dict):
            reading.warn(line, join(where, "details"), f"details: expected an object, not {kind_of(details)}: not read")
        details = details if isinstance(details, dict) else {}
        url, url_at = (citation.get("url"), join(where, "url")) if citation.get("url") else (
            details.get("url"), join(where, "details.url"))
        if url is not None and not isinstance(url, str):
            reading.warn(line, url_at, f"url: expected a string, not {kind_of(url)}: citation skipped")
            continue
        if not url or not url.strip():
            reading.warn(line, where, "a citation without a url: skipped")
            continue
        title = (optional_text(citation.get("title"), join(where, "title"), "title", reading, line)
                 or optional_text(details.get("title"), join(where, "details.title"), "title", reading, line))
        span = to_code_points(block["text"], citation.get("start_index"), citation.get("end_index"), "code points")
        if span is None or span[0] == span[1]:
            span = (0, len(block["text"]))  # no usable offsets: the whole block, as the API's web search citations
        shift = start - (len(block["text"]) - (end - start))  # a block after a tool block lost its leading spaces
        cites.append(Cite(max(start, shift + span[0]), min(end, shift + span[1]), url.strip(), title, where))
    return cites
