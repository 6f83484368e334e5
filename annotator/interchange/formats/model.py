"""What a conversation file says, before any database: shared by every file format.

Positions: ``ParsedNugget.start_word`` / ``end_word`` are 0-based word indices within the
nugget's turn, inclusive (words as ``scoring.words.tokenise`` cuts them). The conversation-wide
word count WC of a nugget (the paper's ``wc=``, 1-based, user turns included) is computed by
``ParsedConversation.wc(nugget)``.

Line numbers are 1-based lines of the source file (for JSONL: the line holding the JSON
object); ``field`` (JSONL only) is the JSON path inside that object, e.g.
``nuggets[2].memberships.RATINGS.vector``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from annotator.rules.vectors import VECTOR_TOLERANCE, exact_number, format_number, parse_number, vector_problem  # noqa: F401 (re-exported: the formats' vocabulary)
from scoring.words import path_offsets, tokenise, turn_offsets_list, word_count, word_position

__all__ = [
    "ParsedConversation",
    "ParsedTurn",
    "ParsedNugget",
    "ParsedMembership",
    "ParsedCitation",
    "FormatError",
    "ParseResult",
    "semantics",
    "parse_number",
    "exact_number",
    "vector_problem",
    "format_number",
    "canonical_text",
    "locate_words",
    "VECTOR_TOLERANCE",
    "loads_json",
]


def loads_json(text: str | bytes, **options: Any) -> Any:
    """json.loads for untrusted text: arrays or objects nested too deeply for the parser
    (``[[[[...``, a few kilobytes) are a JSONDecodeError like any malformed JSON, not a
    RecursionError; so is a string or key holding a lone surrogate (``"\\ud800"``, which no
    database, file or page can encode), named by its JSON path."""
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text if isinstance(text, str) else "", 0) from None
    # Only an escape can bring a surrogate into decoded text: the walk runs for such texts only.
    if _SURROGATE_ESCAPE.search(text if isinstance(text, str) else text.decode("utf-8", "replace")):
        try:
            where = _surrogate_path(value, "$")
        except RecursionError:
            raise json.JSONDecodeError("nested too deeply", "", 0) from None
        if where is not None:
            raise LoneSurrogate(where)
    return value


class LoneSurrogate(json.JSONDecodeError):
    """Valid JSON whose string or key at `path` ("$.turns[0].text") holds a lone surrogate."""

    REASON = "a lone surrogate (\\ud800-\\udfff) is no text"

    def __init__(self, path: str):
        super().__init__(f"{path}: {self.REASON}", "", 0)
        self.path = path

    def __str__(self) -> str:
        return self.msg


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def may_hold_surrogates(text: str) -> bool:
    """Whether JSON ``text`` has an escape that can bring a lone surrogate into a decoded string."""
    return _SURROGATE_ESCAPE.search(text) is not None


def holds_surrogate(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def surrogate_at(value: Any) -> str | None:
    """Where in ``value`` (decoded JSON) a string or key holds a lone surrogate, as a JSON path
    relative to it (``.turns[0].text``; ``""`` for the value itself), else None."""
    try:
        where = _surrogate_path(value, "$")
    except RecursionError:
        return None
    return None if where is None else where[1:]


def _surrogate_path(value: Any, path: str) -> str | None:
    """The JSON path of the first string or key of `value` with a lone surrogate, else None."""
    if isinstance(value, str):
        return path if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            if _SURROGATE.search(key):
                return f"{path}.{key.encode('utf-8', 'backslashreplace').decode()}"  # the key itself, escaped
            found = _surrogate_path(item, f"{path}.{key}")
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _surrogate_path(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


Role = Literal["U", "S"]


@dataclass(frozen=True, order=True)
class FormatError:
    """One problem of one file, at a 1-based line (0 when it concerns the whole file)."""

    path: str
    line: int
    message: str
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


@dataclass(slots=True)
class ParsedMembership:
    """A group-membership vector of the nugget's entity for one attribute set."""

    vector: tuple[float, ...]
    evidence: str = ""
    line: int = 0
    field: str | None = None


@dataclass(slots=True)
class ParsedTurn:
    role: Role  # "U" user, "S" system
    number: int  # U1 -> 1, S1 -> 1, U2 -> 2 ...
    label: str | None  # "o" | "x" | "-" | None (system turns only)
    text: str
    line: int = 0
    field: str | None = None
    # a conversation that branches (ParsedConversation.is_tree): the turn's own id in its file,
    # the index of the turn it follows (None: a root), the probability of going from that turn
    # to this one (None: shared equally with its siblings), and whether the chat showed it
    id: str = ""
    parent: int | None = None
    p: float | None = None
    shown: bool = True

    @property
    def name(self) -> str:
        return f"{self.role}{self.number}"


@dataclass(slots=True)
class ParsedNugget:
    turn: int  # index into ParsedConversation.turns (0-based)
    start_word: int  # 0-based word index within the turn, inclusive
    end_word: int  # 0-based word index within the turn, inclusive
    text: str  # the nugget's words joined by one space
    line: int = 0  # the line of the nugget's text
    grade: str | None = None  # "L0", "L1", "L2"... or None (not judged)
    comment: str = ""  # free text after the grade (paper: "#L0 # wrong URL ...")
    declared_wc: int | None = None  # the file's own position claim (paper "wc= 35"), unchecked
    wc_line: int | None = None
    memberships: dict[str, ParsedMembership] = field(default_factory=dict)
    entity_key: str | None = None  # annotator.rules.identity key: normalised URL or "name:..."
    entity_name: str = ""
    grade_line: int | None = None
    field: str | None = None  # JSONL: "nuggets[3]"
    # True: entity_key and entity_name are what annotator.rules.identity.entity_key_and_name
    # gives for `text`, known to whoever built this nugget (an export, from Nugget.text_*): the
    # paper writer then need not derive them again to know whether to write #ENTITY:.
    entity_named_by_text: bool = False


@dataclass(slots=True)
class ParsedCitation:
    """A system's own citation, as a harvest carries it: the words of a system turn that cite a
    source, and the source. Readers convert the vendor's offsets (UTF-8 bytes, UTF-16 units or
    code points) once, to word positions of the turn text as kept; the importer makes each a
    nugget of the automatic judge ``citations`` (a proposal the gold annotator accepts or not)."""

    turn: int  # index into ParsedConversation.turns (0-based); a system turn
    start_word: int  # 0-based word index within the turn, inclusive
    end_word: int  # 0-based word index within the turn, inclusive
    url: str
    title: str = ""
    line: int = 0
    field: str | None = None  # JSON path of the citation in its object, e.g. "mapping.<id>.message.metadata.content_references[0]"


@dataclass(slots=True)
class ParsedConversation:
    topic: str  # "" for a harvest: the importer's --topic gives it
    run: str | None
    turns: list[ParsedTurn] = field(default_factory=list)
    nuggets: list[ParsedNugget] = field(default_factory=list)
    citations: list[ParsedCitation] = field(default_factory=list)
    source: str = ""  # file name
    line: int = 0  # line of the topic header / JSON object
    # True: the turns' `parent` say what each follows (listed parents first); False: each turn
    # follows the one before it, as every linear file has it
    is_tree: bool = False

    def parents(self) -> list[int | None]:
        """The index of the turn each turn follows, None for a root."""
        if not self.is_tree:
            return [None, *range(len(self.turns) - 1)]
        return [t.parent for t in self.turns]

    def offsets(self) -> list[int]:
        """Words before each turn along its path from the root (scoring.words.turn_offsets for a
        linear conversation): the same on every path through a turn."""
        if not self.is_tree:
            return turn_offsets_list([t.text for t in self.turns])
        return path_offsets([word_count(t.text) for t in self.turns], self.parents())

    def paths(self) -> list[list[int]]:
        """Every root-to-leaf path, as the indices of its turns from the root."""
        parents = self.parents()
        has_child = {parent for parent in parents if parent is not None}
        paths = []
        for leaf in (i for i in range(len(self.turns)) if i not in has_child):
            path, at = [], leaf
            while at is not None:
                path.append(at)
                at = parents[at]
            paths.append(path[::-1])
        return paths

    def wc(self, nugget: ParsedNugget, offsets: list[int] | None = None) -> int:
        """WC(n): the 1-based conversation-wide position of the nugget's last word."""
        offsets = self.offsets() if offsets is None else offsets
        return word_position(offsets[nugget.turn], nugget.end_word)

    def words(self, turn: int) -> list[str]:
        return tokenise(self.turns[turn].text)


@dataclass
class ParseResult:
    conversations: list[ParsedConversation] = field(default_factory=list)
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)
    format_name: str = ""  # what the file was read as, for the importer's message: "ChatGPT export"

    @property
    def ok(self) -> bool:
        return not self.errors

    def extend(self, other: ParseResult) -> None:
        self.conversations.extend(other.conversations)
        self.errors.extend(other.errors)
        self.warnings.extend(other.warnings)


def semantics(conversation: ParsedConversation) -> tuple:
    """What a conversation means, without file positions: equal semantics = same annotations.

    Leaves out line numbers, JSON paths, the source file name and the declared ``wc=`` (a
    claim, not data: the real WC is computed from the text); nuggets are compared in position
    order.
    """
    turns = tuple((t.role, t.number, t.label, t.text) for t in conversation.turns)
    nuggets = sorted(
        (
            (
                n.turn,
                n.start_word,
                n.end_word,
                n.grade,
                n.comment,
                n.entity_key,
                n.entity_name,
                tuple(sorted((k, tuple(m.vector), m.evidence) for k, m in n.memberships.items())),
            )
            for n in conversation.nuggets
        ),
        key=lambda t: (t[0], t[1], t[2], repr(t)),
    )
    return (conversation.topic, conversation.run, turns, tuple(nuggets))


# --- shared by the formats: turn texts (vector numbers live in annotator.rules.vectors) -----------


def canonical_text(text: str) -> str:
    """A turn text as the paper format can hold it: CRLF as LF, no blank (wordless) lines at
    its start or end. Word positions are unchanged."""
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and word_count(lines[0]) == 0:
        lines.pop(0)
    while lines and word_count(lines[-1]) == 0:
        lines.pop()
    return "\n".join(lines)


def locate_words(text: str, fragment: str) -> list[tuple[int, int]]:
    """Every (start_word, end_word) where ``fragment`` occurs in ``text`` on word boundaries
    (0-based, inclusive), found as a substring whose both ends touch whitespace or the text's
    ends. Words are scoring.words' words (whitespace as str.isspace / str.split decide)."""
    fragment = fragment.strip()
    n = word_count(fragment)
    if n == 0:
        return []
    found: list[tuple[int, int]] = []
    i = text.find(fragment)
    while i != -1:
        j = i + len(fragment)
        if (i == 0 or text[i - 1].isspace()) and (j == len(text) or text[j].isspace()):
            start = word_count(text[:i])
            found.append((start, start + n - 1))
        i = text.find(fragment, i + 1)
    return found
