"""What every harvest reader shares: the messages a system showed, their citations as
character spans, and the one conversion of those spans to word positions.

A reader turns one vendor object into ``Message`` objects (role, the text as shown, citations
as code-point spans of that text) and hands them to ``conversation``, which merges
consecutive messages of one role into a turn, converts every citation once to words, and
returns a ParsedConversation (topic "", run None: the importer gives both).

The rule for the cited words (docs/formats.md, "Harvested conversations"):

- a span starting or ending inside a word takes the whole word (words are str.split's);
- a *marker* (OpenAI's inline link, ChatGPT's alt link, Perplexity's ``[n]``) cites the
  words before it: its span runs back to the start of its line, or to the end of the previous
  marker group on that line (or of words cited on their own); adjacent markers (``[1][2]``,
  only whitespace between) are one group and cite the same words;
- the spans of a turn never overlap: a span that overlaps the one before starts after it, one
  that lies inside it takes its words.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from annotator.rules.identity import find_url

from ..model import FormatError, LoneSurrogate, ParsedCitation, ParsedConversation, ParsedTurn, canonical_text, holds_surrogate

__all__ = [
    "ONLY_ANSWER",
    "Bad",
    "Unit",
    "Cite",
    "Message",
    "Call",
    "Reading",
    "join",
    "conversation",
    "conversations_of_calls",
    "to_code_points",
    "locate",
    "strip_reasoning",
    "text_of",
    "WORD_RE",
    "each",
    "kind_of",
    "dict_at",
    "list_at",
    "text_at",
    "optional_list",
    "optional_text",
    "objects_in",
    "shown",
    "messages_conversation",
    "request_and_response",
    "read_units",
    "once_each",
    "read_chat",
    "propose_links",
]

WORD_RE = re.compile(r"\S+")  # \S is the complement of str.isspace, the word rule of scoring.words
THINK_RE = re.compile(r"<think>.*?</think>\s*", re.DOTALL)


class Bad(Exception):
    """A conversation the reader cannot read: refuses the file, with its JSON path."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field, self.message = field, message


def join(base: str, key: str | int) -> str:
    """The JSON path of ``key`` inside ``base``: ``join("[3]", "mapping")`` -> ``[3].mapping``."""
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key


@dataclass
class Unit:
    """One JSON value of a file that a reader reads: a JSONL line, an element of a top-level
    array, or the whole document; ``field`` is its JSON path in the file ("" or "[3]")."""

    value: Any
    line: int
    field: str = ""

    def at(self, *keys: str | int) -> str:
        where = self.field
        for key in keys:
            where = join(where, key)
        return where


@dataclass
class Cite:
    """A citation as a code-point span of its message's text (end exclusive)."""

    start: int
    end: int
    url: str
    title: str
    field: str
    marker: bool = False  # the span is a citation marker: it cites the words before it


@dataclass
class Message:
    role: str  # "U" / "S"
    text: str
    field: str
    line: int = 0
    cites: list[Cite] = field(default_factory=list)

    def replace(self, start: int, end: int, new: str) -> None:
        """Replace text[start:end] by ``new``, keeping every citation on the same characters
        (a citation of the replaced characters now spans ``new``)."""
        delta = len(new) - (end - start)
        self.text = self.text[:start] + new + self.text[end:]
        for c in self.cites:
            c.start = _moved(c.start, start, end, new, delta, at_end=False)
            c.end = _moved(c.end, start, end, new, delta, at_end=True)

    def same_as(self, other: Message) -> bool:
        """Equal role and words: a request's history repeats an earlier answer."""
        return self.role == other.role and self.text.split() == other.text.split()


def _moved(pos: int, start: int, end: int, new: str, delta: int, *, at_end: bool) -> int:
    if pos >= end and not (pos == end == start and not at_end):
        return pos + delta
    if pos <= start:
        return pos
    return start + len(new) if at_end else start


def strip_reasoning(message: Message) -> None:
    """Reasoning sections (``<think>...</think>``) are not what the system showed."""
    for m in reversed(list(THINK_RE.finditer(message.text))):
        message.replace(m.start(), m.end(), "")


def text_of(value: Any, where: str, *, parts_key: str = "text", types: Sequence[str] = ("text",)) -> tuple[str, list[tuple[int, int, str]]]:
    """A content that is a string or a list of typed parts: the text of the parts whose type is
    one of ``types`` joined by blank lines, and (offset in the text, index, path) of each."""
    if value is None:
        return "", []
    if isinstance(value, str):
        return value, [(0, 0, where)]
    if not isinstance(value, list):
        raise Bad(where, "a content is a string or a list of parts")
    pieces: list[str] = []
    spans: list[tuple[int, int, str]] = []
    offset = 0
    for i, part in enumerate(value):
        if isinstance(part, str):
            text = part
        elif isinstance(part, dict) and part.get("type") in types:
            text = text_at(part.get(parts_key), join(join(where, i), parts_key), "a text part's text")
        else:
            continue  # images, files, audio: not text
        if pieces:
            offset += 2
        spans.append((offset, i, join(where, i)))
        pieces.append(text)
        offset += len(text)
    return "\n\n".join(pieces), spans


# --- offsets ------------------------------------------------------------------------------------

UNITS = ("code points", "UTF-16 code units", "UTF-8 bytes")


def to_code_points(text: str, start: int, end: int, unit: str) -> tuple[int, int] | None:
    """[start, end) in ``unit`` of ``text`` as code points; None when outside the text or
    not on character boundaries."""
    if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or isinstance(end, bool):
        return None
    if not 0 <= start <= end:
        return None
    if unit == "code points":
        return (start, end) if end <= len(text) else None
    encoding, width = ("utf-16-le", 2) if unit == "UTF-16 code units" else ("utf-8", 1)
    encoded = text.encode(encoding, "surrogatepass")
    if end * width > len(encoded):
        return None
    try:
        a = len(encoded[: start * width].decode(encoding))
        b = a + len(encoded[start * width : end * width].decode(encoding))
    except UnicodeDecodeError:
        return None
    return a, b


def locate(text: str, start: Any, end: Any, fits: Callable[[str], bool],
           units: Sequence[str] = UNITS) -> tuple[int, int] | None:
    """The code-point span that vendor offsets [start, end) give in the first of ``units``
    whose slice ``fits`` (a vendor that does not document its unit is checked, not trusted)."""
    for unit in units:
        span = to_code_points(text, start, end, unit)
        if span is not None and fits(text[span[0] : span[1]]):
            return span
    return None


# --- messages -> conversation -------------------------------------------------------------------


@dataclass
class Reading:
    """One file being read: where problems go."""

    path: str
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)

    def warn(self, line: int, field: str | None, message: str) -> None:
        self.warnings.append(FormatError(self.path, line, message, field))

    def error(self, line: int, field: str | None, message: str) -> None:
        self.errors.append(FormatError(self.path, line, message, field))


def conversation(messages: Iterable[Message], reading: Reading, line: int, where: str) -> ParsedConversation | None:
    """The conversation these messages show: consecutive messages of one role are one turn
    (joined by a blank line), a system message before the first user message is dropped with
    a warning, citations become word spans. None (with a warning) when nothing is shown."""
    turns: list[Message] = []
    for m in messages:
        if not m.text.strip():
            continue
        if not turns and m.role == "S":
            reading.warn(m.line or line, m.field, "a system message before the first user message is not a turn: dropped")
            continue
        if turns and turns[-1].role == m.role:
            last = turns[-1]
            shift = len(last.text) + 2
            last.text += "\n\n" + m.text
            for c in m.cites:
                last.cites.append(Cite(c.start + shift, c.end + shift, c.url, c.title, c.field, c.marker))
            continue
        turns.append(Message(m.role, m.text, m.field, m.line or line, list(m.cites)))
    if not turns:
        reading.warn(line, where or None, "a conversation with no user message: skipped")
        return None
    unwritable = [(m.line, m.field) for m in turns if holds_surrogate(m.text)] + [
        (m.line, c.field) for m in turns for c in m.cites if holds_surrogate(c.url) or holds_surrogate(c.title)]
    if unwritable:  # a string no JSON check saw (a streamed answer's deltas): no database can hold it
        for at_line, field_ in unwritable:
            reading.error(at_line, field_ or None, LoneSurrogate.REASON)
        return None
    conv = ParsedConversation(topic="", run=None, source=reading.path, line=line)
    counts = {"U": 0, "S": 0}
    for index, m in enumerate(turns):
        counts[m.role] += 1
        conv.turns.append(ParsedTurn(role=m.role, number=counts[m.role], label=None, text=canonical_text(m.text),
                                     line=m.line, field=m.field))
        for start, end, c in word_spans(m.text, m.cites, reading, m.line):
            conv.citations.append(ParsedCitation(turn=index, start_word=start, end_word=end, url=c.url, title=c.title,
                                                 line=m.line, field=c.field))
    return conv


def word_spans(text: str, cites: list[Cite], reading: Reading, line: int) -> list[tuple[int, int, Cite]]:
    """Each citation's words (0-based, inclusive), by the rule in the module docstring."""
    if not cites:
        return []
    spans_of_words = [m.span() for m in WORD_RE.finditer(text)]
    starts = [a for a, _ in spans_of_words]
    ends = [b for _, b in spans_of_words]

    def words_of(a: int, b: int) -> tuple[int, int]:
        return bisect_right(ends, a), bisect_left(starts, b) - 1

    spans: list[tuple[int, int, Cite]] = []
    markers = sorted((c for c in cites if c.marker), key=lambda c: (c.start, c.end))
    group: list[Cite] = []
    group_end = previous_end = 0

    own_ends = sorted(c.end for c in cites if not c.marker)  # words cited on their own are not a marker's

    def close() -> None:
        before = bisect_right(own_ends, group[0].start)
        a = max(text.rfind("\n", 0, group[0].start) + 1, previous_end, own_ends[before - 1] if before else 0)
        first, last = words_of(a, group_end)
        if first > last:  # a marker with no word before it on its line: the marker itself
            first, last = words_of(group[0].start, group_end)
        spans.extend((first, last, c) for c in group)

    for c in markers:
        if group and (c.start <= group_end or not text[group_end : c.start].strip()):
            group.append(c)
            group_end = max(group_end, c.end)
            continue
        if group:
            close()
            previous_end = group_end
        group, group_end = [c], c.end
    if group:
        close()
    for c in cites:
        if not c.marker:
            spans.append((*words_of(c.start, c.end), c))

    kept = []
    for first, last, c in spans:
        if first > last:
            reading.warn(line, c.field, f"citation of {c.url} spans no word of the text: skipped")
            continue
        kept.append((first, last, c))
    return _disjoint(kept)


def _disjoint(spans: list[tuple[int, int, Cite]]) -> list[tuple[int, int, Cite]]:
    """Spans that never overlap, in text order: identical spans stay one span (one nugget with
    several sources), a span inside the one before takes its words, one that overlaps it
    starts after it."""
    distinct = sorted({(a, b) for a, b, _ in spans})
    mapped: dict[tuple[int, int], tuple[int, int]] = {}
    reach: tuple[int, int] | None = None  # the kept span that reaches furthest so far
    for a, b in distinct:
        if reach is None or a > reach[1]:
            target = (a, b)
        elif b <= reach[1]:
            target = reach
        else:
            target = (reach[1] + 1, b)
        mapped[(a, b)] = target
        if reach is None or target[1] > reach[1]:
            reach = target
    return sorted(((*mapped[(a, b)], c) for a, b, c in spans), key=lambda s: (s[0], s[1]))


# --- request/response logs ----------------------------------------------------------------------


@dataclass
class Call:
    """One logged API call: the messages the request sent (the history so far and the new user
    message) and the answer the response gave."""

    unit: Unit
    history: list[Message]
    answer: Message | None
    response_id: str | None = None
    previous_response_id: str | None = None


def conversations_of_calls(calls: Iterable[Call], reading: Reading,
                           on_conversation: Callable[[ParsedConversation], object]) -> None:
    """A log of calls is a sequence of conversations: a call whose request repeats the
    conversation so far (stateless APIs resend the history) or names its last response
    (``previous_response_id``) continues it; any other call starts a new one."""
    current: list[Message] = []
    first: Call | None = None
    last_id: str | None = None

    def finish() -> None:
        if first is not None:
            conv = conversation(current, reading, first.unit.line, first.unit.field)
            if conv is not None:
                on_conversation(conv)

    for call in calls:
        answer = [call.answer] if call.answer is not None else []
        if first is not None and call.previous_response_id and call.previous_response_id == last_id:
            current += call.history + answer
        elif first is not None and len(call.history) > len(current) and all(
            h.same_as(m) for h, m in zip(call.history, current)
        ):
            current += call.history[len(current) :] + answer
        else:
            finish()
            first, current = call, call.history + answer
        last_id = call.response_id
    finish()


def each(units: Iterable[Unit], reading: Reading, read: Callable[[Unit], Any]) -> Iterable[Any]:
    """``read(unit)`` for every unit; a unit that is Bad is an error at its line and JSON path
    (the file is refused) and reading goes on, to report every bad one."""
    for unit in units:
        try:
            yield read(unit)
        except Bad as bad:
            reading.error(unit.line, bad.field or None, bad.message)


# --- the type of each field -----------------------------------------------------------------
# Every field a reader reads is checked: a required one of another type refuses the file
# (dict_at, list_at, text_at: Bad), an optional one of another type is said (optional_list,
# optional_text, objects_in: a warning at its path) and read as missing; nothing of another
# type is dropped or turned into text in silence.


def kind_of(value: Any) -> str:
    """What a JSON value is, as a message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def dict_at(value: Any, where: str, what: str) -> dict:
    if not isinstance(value, dict):
        raise Bad(where, f"{what}: expected an object")
    return value


def list_at(value: Any, where: str, what: str) -> list:
    if not isinstance(value, list):
        raise Bad(where, f"{what}: expected a list")
    return value


def text_at(value: Any, where: str, what: str) -> str:
    """A required string (a message's text)."""
    if not isinstance(value, str):
        raise Bad(where, f"{what}: expected a string, not {kind_of(value)}")
    return value


def optional_list(value: Any, where: str, what: str, reading: Reading, line: int) -> list:
    """An optional list (citations, annotations): [] when missing or null; another kind is a
    warning at its path, and what it holds is not read."""
    if value is None:
        return []
    if not isinstance(value, list):
        reading.warn(line, where, f"{what}: expected a list, not {kind_of(value)}: not read")
        return []
    return value


def optional_text(value: Any, where: str, what: str, reading: Reading, line: int) -> str:
    """An optional string (a source's title): "" when missing or null; another kind is a
    warning at its path (never its repr as text)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        reading.warn(line, where, f"{what}: expected a string, not {kind_of(value)}: not read")
        return ""
    return value


def objects_in(items: list, where: str, what: str, reading: Reading, line: int) -> Iterable[tuple[int, dict, str]]:
    """(index, object, path) of each object of a list; any other element is a warning at its
    path and skipped."""
    for i, item in enumerate(items):
        at = join(where, i)
        if isinstance(item, dict):
            yield i, item, at
        else:
            reading.warn(line, at, f"{what}: expected an object, not {kind_of(item)}: skipped")


ReadMessage = Callable[[Any, str, Reading, int], "Message | None"]
ONLY_ANSWER = 'a response holds only the system\'s answer: log {"request": ..., "response": ...} per call'


def shown(raw_messages: Any, where: str, read_message: ReadMessage, reading: Reading, line: int) -> list[Message]:
    """The shown messages of a list of vendor messages (``read_message`` gives None for the
    ones not shown)."""
    raw_messages = list_at(raw_messages, where, "messages")
    return [m for i, raw in enumerate(raw_messages) if (m := read_message(raw, join(where, i), reading, line))]


def messages_conversation(unit: Unit, reading: Reading, read_message: ReadMessage) -> ParsedConversation | None:
    """The conversation of a messages array, bare or as ``{"messages": [...]}``."""
    value = unit.value
    messages, where = (value.get("messages"), unit.at("messages")) if isinstance(value, dict) else (value, unit.field)
    return conversation(shown(messages, where, read_message, reading, unit.line), reading, unit.line, unit.field)


def request_and_response(unit: Unit) -> tuple[dict, dict]:
    """The two bodies of a logged call."""
    if not isinstance(unit.value, dict) or "request" not in unit.value:
        raise Bad(unit.field, ONLY_ANSWER)
    return (dict_at(unit.value.get("request"), unit.at("request"), "request"),
            dict_at(unit.value.get("response"), unit.at("response"), "response"))


def read_units(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object], *,
               call: Callable[[Unit, Reading], Call] | None = None,
               single: Callable[[Unit, Reading], ParsedConversation | None] | None = None,
               ids: Sequence[str] = ()) -> None:
    """A family's file: a log of calls (``call`` reads each; every value has a ``request``)
    or one conversation per value (``single``), each exported once by its id (the first of the
    value's ``ids`` fields it has; ``once_each``)."""
    units = list(units)
    if call is not None and (single is None or (units and isinstance(units[0].value, dict) and "request" in units[0].value)):
        conversations_of_calls((c for c in each(units, reading, lambda u: call(u, reading)) if c), reading, emit)
        return
    emit_once = once_each(reading, emit, ids)
    for unit, conv in each(units, reading, lambda u: (u, single(u, reading))):
        if conv is not None:
            emit_once(unit, [conv])


def once_each(reading: Reading, emit: Callable[[ParsedConversation], object],
              ids: Sequence[str]) -> Callable[[Unit, list[ParsedConversation]], None]:
    """``emit`` for the conversations of an export's entries, each entry once by its id (the
    first of its ``ids`` fields that is a non-empty string: ``uuid``, ``id``...). An entry whose
    id came before is that conversation exported twice: with the same turns and citations it is
    kept once, with a warning (nothing is lost); with others the file is refused, since which
    of the two is the conversation the file cannot say."""
    seen: dict[str, tuple[Unit, tuple]] = {}

    def emit_once(unit: Unit, conversations: list[ParsedConversation]) -> None:
        value = unit.value if isinstance(unit.value, dict) else {}
        name = next((k for k in ids if isinstance(value.get(k), str) and value[k]), None)
        if name is not None:
            content = tuple(_content(conv) for conv in conversations)
            earlier = seen.get(value[name])
            if earlier is not None:
                first, first_content = earlier
                said = f"conversation {value[name][:100]!r} again (as {first.field or 'the value'} at line {first.line})"
                if first_content == content:
                    reading.warn(unit.line, unit.at(name), f"{said}, the same turns: imported once")
                else:
                    reading.error(unit.line, unit.at(name), f"{said} with other turns: one id, two conversations "
                                  "(keep the right one in the file)")
                return
            seen[value[name]] = (unit, content)
        for conv in conversations:
            emit(conv)

    return emit_once


def _content(conv: ParsedConversation) -> tuple:
    return (tuple((t.role, t.text) for t in conv.turns),
            tuple((c.turn, c.start_word, c.end_word, c.url, c.title) for c in conv.citations))


ReadAnswer = Callable[[dict, str, Reading, int], "Message | None"]


def read_chat(units: Iterable[Unit], reading: Reading, emit: Callable[[ParsedConversation], object], *,
              message: ReadMessage, answer: ReadAnswer, alone: Callable[[dict], bool] | None = None,
              alone_says: str = ONLY_ANSWER) -> None:
    """A chat API's file: logged calls whose request holds the ``messages`` so far (``answer``
    reads the response), or, when ``alone`` is given, messages arrays (a bare one, or
    ``{"messages": [...]}``), an object that is ``alone`` (a response without its request)
    being refused with ``alone_says``."""

    def single(unit: Unit, reading: Reading) -> ParsedConversation | None:
        if isinstance(unit.value, dict) and alone(unit.value):
            raise Bad(unit.field, alone_says)
        return messages_conversation(unit, reading, message)

    def call(unit: Unit, reading: Reading) -> Call:
        request, response = request_and_response(unit)
        history = shown(request.get("messages"), unit.at("request", "messages"), message, reading, unit.line)
        return Call(unit, history, answer(response, unit.at("response"), reading, unit.line), response.get("id"))

    read_units(units, reading, emit, call=call, single=single if alone is not None else None)


# --- inline links -------------------------------------------------------------------------------

LINK_RE = re.compile(r"\[([^\[\]\n]*)\]\((https?://[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)\)")
BARE_URL_RE = re.compile(r"(?<![\w(/])https?://\S+")
FENCE_RE = re.compile(r"^```.*?(?:^```|\Z)", re.DOTALL | re.MULTILINE)


def propose_links(message: Message) -> None:
    """The links a system's text shows, for the formats without citation structure (dumps,
    Takeout): each becomes a citation of its words (docs/formats.md, "Inline links"). A
    link labelled with its site's name (``[IMDb](https://www.imdb.com/...)``), one in
    parentheses and a bare URL are markers: they cite the words before them; any other link
    (``[Back to the Future](https://...)``) cites its own label. Links in code blocks are code."""
    fenced = [m.span() for m in FENCE_RE.finditer(message.text)]

    def in_code(i: int) -> bool:
        return any(a <= i < b for a, b in fenced)

    taken: list[tuple[int, int]] = []
    for m in LINK_RE.finditer(message.text):
        if in_code(m.start()):
            continue
        label, url = m.group(1), m.group(2)
        start, end = m.span()
        wrapped = message.text[start - 1 : start] == "(" and message.text[end : end + 1] == ")"
        if wrapped:
            start, end = start - 1, end + 1
        marker = wrapped or _names_site(label, url)
        message.cites.append(Cite(start, end, url, "" if marker else label.strip(" *_`"), message.field, marker=marker))
        taken.append((start, end))
    for m in BARE_URL_RE.finditer(message.text):
        if in_code(m.start()) or any(a <= m.start() < b for a, b in taken):
            continue
        url = find_url(m.group(0))  # the one home of where a URL in text ends
        if url is not None:
            message.cites.append(Cite(m.start(), m.start() + len(url), url, "", message.field, marker=True))


def _names_site(label: str, url: str) -> bool:
    """Is the label the site's name (``IMDb``, ``imdb.com``, the URL itself) rather than the
    name of what the page is about?"""
    label = label.strip(" *_`").lower()
    if not label or " " in label:
        return False
    host = (urlsplit(url).hostname or "").removeprefix("www.")
    name = re.sub(r"[^a-z0-9.]", "", label.removeprefix("www."))
    return bool(name) and (label.startswith(("http://", "https://")) or name == host or name in host.split("."))
