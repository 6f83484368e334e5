"""ChatGPT's data export, ``conversations.json``: a list of conversations, each a tree of
messages (``mapping``) of which the one shown is the branch that ends at ``current_node``
(regenerated or edited answers stay in the tree, abandoned).

Citations: ``message.metadata.content_references[]`` (``matched_text`` is the private-use
marker ``\\ue200cite\\ue202turn0search0\\ue201`` in the text, ``alt`` the visible link
``([IMDb](https://...))``, ``items[].url`` the sources); older exports
``metadata.citations[]`` with ``【12†source】`` markers. The offsets (``start_idx``/``end_idx``,
``start_ix``/``end_ix``) are undocumented: they are checked against the marker text, in code
points, then UTF-16 units, then UTF-8 bytes, and the marker is searched for when none fits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from ..model import ParsedConversation
from .common import Bad, Cite, Message, Reading, Unit, dict_at, join, kind_of, locate, optional_list, read_units
from .trees import parents_first, read_nodes, tree_conversation

NAME = "ChatGPT export"
SUPPORTED = "ChatGPT export (conversations.json)"

MARKER_RE = re.compile("\ue200[^\ue201]*\ue201")  # cite / navlist / entity ... markers
STRAY_RE = re.compile("[\ue200-\ue2ff]")
TETHER_RE = re.compile(r"【\d+(?::\d+)?(?:†[^】\n]*)?】")  # 【12†source】, 【4:0†source】, 【3†L1-L9】
SHOWN_TYPES = ("text", "multimodal_text")


def claims(value: Any) -> bool:
    return isinstance(value, dict) and "mapping" in value and "current_node" in value


def read(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object]) -> None:
    read_units(units, reading, emit, single=_conversation, ids=("conversation_id", "id"))


def _conversation(unit: Unit, reading: Reading) -> ParsedConversation | None:
    obj = dict_at(unit.value, unit.field, "a conversation")
    mapping = dict_at(obj.get("mapping"), unit.at("mapping"), "mapping, the message tree")
    node = obj.get("current_node")
    branch: list[str] = []
    seen: set[str] = set()
    while node is not None:
        if not isinstance(node, str) or node not in mapping:
            raise Bad(unit.at("current_node") if not branch else unit.at("mapping", branch[-1], "parent"),
                      f"node {node!r} is not in mapping")
        if node in seen:
            raise Bad(unit.at("mapping", node, "parent"), "the parents of current_node loop")
        seen.add(node)
        branch.append(node)
        node = dict_at(mapping[node], unit.at("mapping", node), "a node").get("parent")
    shown = set(branch)
    nodes = read_nodes(
        _every_branch(mapping, unit, shown), len(mapping),
        lambda node_id: _message(mapping[node_id].get("message"), join(unit.at("mapping"), node_id) + ".message",
                                 reading, unit.line),
        str, shown, reading, unit.line, unit.field)
    return tree_conversation(nodes, reading, unit.line, unit.field)


def _every_branch(mapping: dict, unit: Unit, shown: set[str]) -> list[tuple[str, str | None]]:
    """Every node of the tree as (id, parent id), parents first, the shown branch's first: from
    the roots (no parent, or one not in mapping), down each node's children."""
    children: dict[str | None, list[str]] = {}
    for node_id, node in mapping.items():
        parent = dict_at(node, unit.at("mapping", node_id), "a node").get("parent")
        children.setdefault(parent if parent in mapping else None, []).append(node_id)
    return parents_first(children, shown)


def _message(msg: Any, where: str, reading: Reading, line: int) -> Message | None:
    """The message as shown, or None when it is not shown (system prompts, tool calls and
    results, hidden context, reasoning, code)."""
    if msg is None:
        return None
    msg = dict_at(msg, where, "a message")
    author = msg.get("author") or {}
    role = {"user": "U", "assistant": "S"}.get(author.get("role") if isinstance(author, dict) else None)
    metadata = msg.get("metadata") or {}
    if role is None or msg.get("recipient", "all") != "all" or not isinstance(metadata, dict):
        return None
    if metadata.get("is_visually_hidden_from_conversation") or metadata.get("is_user_system_message"):
        return None
    content = msg.get("content") or {}
    if not isinstance(content, dict) or content.get("content_type") not in SHOWN_TYPES:
        return None
    parts = content.get("parts") or []
    if not isinstance(parts, list):
        raise Bad(join(where, "content.parts"), "expected a list")
    text = "\n\n".join(p for p in parts if isinstance(p, str))  # images and files are objects
    message = Message(role, text, where, line)
    if role == "S":
        attributed = _content_references(message, metadata.get("content_references"), join(where, "metadata.content_references"),
                                         reading, line)
        _tether_citations(message, metadata.get("citations"), join(where, "metadata.citations"), reading, line)
        leftover = len(MARKER_RE.findall(message.text))
        for m in reversed(list(MARKER_RE.finditer(message.text))):
            message.replace(m.start(), m.end(), "")
        for m in reversed(list(STRAY_RE.finditer(message.text))):  # segment bounds, pills: never shown as text
            message.replace(m.start(), m.end(), "")
        _cite_segments(message, *attributed)
        if leftover:
            reading.warn(line, where, f"{leftover} citation marker(s) without a content reference: removed")
    return message


def _found(text: str, fragment: str, start: Any, end: Any, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Where ``fragment`` is: at the offsets if they fit in some unit, else its first
    occurrence not yet taken."""
    span = locate(text, start, end, lambda s: s == fragment)
    if span is not None and span not in taken:
        return span
    i = text.find(fragment)
    while i != -1:
        if not any(a < i + len(fragment) and i < b for a, b in taken):
            return i, i + len(fragment)
        i = text.find(fragment, i + 1)
    return None


Segments = dict[str, Cite]  # attributable_index -> a placeholder on its words, moved along by later replacements
Named = list[tuple[list[str], Cite]]  # the segments a source names, and its marker citation


def _content_references(message: Message, refs: Any, where: str, reading: Reading, line: int) -> tuple[Segments, Named]:
    """Each reference's marker replaced by its alt; its sources cite the words before the marker,
    or, in newer exports, the attribution segments (``\ue203...\ue204``, ``attributable_index``)
    its items name (``attribution_segments``): the claim itself."""
    refs = optional_list(refs, where, "content_references", reading, line)
    for i, ref in enumerate(refs):
        if not isinstance(ref, dict):
            reading.warn(line, join(where, i), f"a content reference: expected an object, not {kind_of(ref)}: skipped")
    refs = [r if isinstance(r, dict) else {} for r in refs]
    attributed = any(isinstance(item, dict) and item.get("attribution_segments")
                     for r in refs for item in (r.get("items") if isinstance(r.get("items"), list) else []))
    located: list[tuple[int, int, str, dict, str]] = []
    taken: list[tuple[int, int]] = []
    for i, ref in enumerate(refs):
        at = join(where, i)
        matched = ref.get("matched_text")
        if not isinstance(matched, str) or not matched:
            continue
        span = _found(message.text, matched, ref.get("start_idx"), ref.get("end_idx"), taken)
        if span is None:
            if STRAY_RE.search(matched):
                reading.warn(line, join(at, "matched_text"), "marker not found in the message: citation skipped")
            continue
        taken.append(span)
        alt = ref.get("alt")
        if ref.get("type") == "sources_footnote" or not isinstance(alt, str):
            alt = "" if STRAY_RE.search(matched) else matched
        located.append((span[0], span[1], alt, ref, at))
    segments: Segments = {}
    pending: Named = []
    for start, end, alt, ref, at in sorted(located, key=lambda found: found[0], reverse=True):
        message.replace(start, end, alt)
        if ref.get("type") == "attribution" and isinstance(ref.get("attributable_index"), str):
            segments[ref["attributable_index"]] = tracker = Cite(start, start + len(alt), "", "", at)
            message.cites.append(tracker)
        if attributed and ref.get("type") == "grouped_webpages_model_predicted_fallback":
            continue  # the segments say better what is cited
        for url, title, source_at, named in _sources(ref, at):
            cite = Cite(start, start + len(alt), url, title, source_at, marker=True)
            message.cites.append(cite)
            if named:
                pending.append((named, cite))
    return segments, pending


def _cite_segments(message: Message, segments: Segments, pending: Named) -> None:
    """Sources that name their attribution segments cite those words (once every marker is
    gone); the segments' own placeholders leave."""
    for named, cite in pending:
        found = [segments[n] for n in named if n in segments]
        if found:
            message.cites.remove(cite)
            message.cites.extend(Cite(s.start, s.end, cite.url, cite.title, cite.field) for s in found)
    placeholders = {id(s) for s in segments.values()}
    message.cites = [c for c in message.cites if id(c) not in placeholders]


def _sources(ref: dict, where: str) -> list[tuple[str, str, str, list[str]]]:
    """(url, title, JSON path, attribution segments named) of each source a content reference
    cites: its items, their supporting websites, else its own url."""
    if ref.get("type") == "sources_footnote":
        return []
    found = []
    items = ref.get("items")
    for j, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict):
            continue
        at = join(join(where, "items"), j)
        named = [n for n in item.get("attribution_segments") or [] if isinstance(n, str)]
        if isinstance(item.get("url"), str) and item["url"].strip():
            found.append((item["url"].strip(), str(item.get("title") or ""), at, named))
        for k, site in enumerate(item.get("supporting_websites") or []):
            if isinstance(site, dict) and isinstance(site.get("url"), str) and site["url"].strip():
                found.append((site["url"].strip(), str(site.get("title") or ""), join(join(at, "supporting_websites"), k), named))
    if not found and isinstance(ref.get("url"), str) and ref["url"].strip():
        found.append((ref["url"].strip(), str(ref.get("title") or ""), where, []))
    return found


def _tether_citations(message: Message, citations: Any, where: str, reading: Reading, line: int) -> None:
    """Older exports: ``【12†source】`` markers, replaced by a link to the source's site as
    ChatGPT showed it."""
    citations = optional_list(citations, where, "citations", reading, line)
    if citations:
        located = []
        taken: list[tuple[int, int]] = []
        for i, cit in enumerate(citations):
            at = join(where, i)
            meta = cit.get("metadata") if isinstance(cit, dict) else None
            if not isinstance(meta, dict) or not isinstance(meta.get("url"), str) or not meta["url"].strip():
                continue
            span = locate(message.text, cit.get("start_ix"), cit.get("end_ix"), lambda s: TETHER_RE.fullmatch(s) is not None)
            if span is None or span in taken:
                span = next(((m.start(), m.end()) for m in TETHER_RE.finditer(message.text)
                             if (m.start(), m.end()) not in taken), None)
            if span is None:
                reading.warn(line, at, "marker not found in the message: citation skipped")
                continue
            taken.append(span)
            url = meta["url"].strip()
            located.append((span[0], span[1], url, str(meta.get("title") or ""), at))
        for start, end, url, title, at in sorted(located, reverse=True):
            site = (urlsplit(url).hostname or url).removeprefix("www.")
            link = f"([{site}]({url}))"
            message.replace(start, end, link)
            message.cites.append(Cite(start, start + len(link), url, title, at, marker=True))
    for m in reversed(list(TETHER_RE.finditer(message.text))):
        message.replace(m.start(), m.end(), "")
