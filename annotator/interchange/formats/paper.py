"""The paper's annotated plain-text format (Sakai, EVIA 2023, Figure 5), read and written.

The grammar is documented in docs/formats.md ("Paper format"); in short, every line is one of

    ##### M002 [run=RUN]          topic header: starts a conversation
    ### U1   /   ### S1 o         turn header (label o, x or - optional on system turns)
    #L2 [# comment]               grade of the nugget above
    wc= 35                        declared position of its last word (checked, warning only)
    #RATINGS: (0,1/2,0,1/2) #ev   membership vector of an attribute set, then evidence
    #SPAN: 30-35                  extension: the nugget's word range (conversation positions)
    #ENTITY: {"key": .., "name": ..}  extension: the entity, when not derived from the text
    #COMMENT: text                extension: a comment on a nugget that has no grade
    \\<line>                      escape: <line> is turn text even if it looks like markup
    anything else                 turn text

Parsing never raises on bad input: every problem is collected with its line (ParseResult).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from annotator.rules.ids import ATTRIBUTE_SET, ATTRIBUTE_SET_NAME, id_problem
from annotator.rules.identity import entity_key_and_name, find_url
from scoring.words import offsets_of_counts, span_text, tokenise, word_count, word_position

from .model import (
    FormatError,
    ParsedConversation,
    ParsedMembership,
    ParsedNugget,
    ParsedTurn,
    ParseResult,
    canonical_text,
    format_number,
    loads_json,
    parse_number,
    vector_problem,
)

__all__ = ["parse_paper", "parse_paper_bytes", "write_paper", "classify", "derive_entity", "decode_utf8"]

LABELS = ("o", "x", "-")

TOPIC_RE = re.compile(r"^#####(?!#)[ \t]*([A-Za-z][A-Za-z0-9_.\-]*)(?:[ \t]+run=(\S+))?[ \t]*$")
TURN_RE = re.compile(r"^###(?!#)[ \t]*([US])(\d+)(?=\s|$)(.*)$")
GRADE_RE = re.compile(r"^\s*#L(\d+)(?=\s|#|$)(.*)$")
WC_RE = re.compile(r"^\s*wc\s*=(.*)$", re.IGNORECASE)
SPAN_RE = re.compile(r"^\s*#SPAN\s*:(.*)$")
ENTITY_RE = re.compile(r"^\s*#ENTITY\s*:(.*)$")
COMMENT_RE = re.compile(r"^\s*#COMMENT\s*:(.*)$")
MEMBERSHIP_RE = re.compile(rf"^\s*#({ATTRIBUTE_SET_NAME})\s*:\s*\((.*)$")
SPAN_VALUE_RE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$")


# --- line classification ----------------------------------------------------------------------


@dataclass
class Line:
    kind: str  # topic turn grade wc span entity comment membership text
    match: re.Match | None = None
    text: str = ""  # for kind "text": the turn text of the line (escape removed)


def _topic_header(line: str) -> re.Match | None:
    """The match of a topic header line: a run= or a digit in the topic id tells it from a
    level-5 heading of turn text."""
    m = TOPIC_RE.match(line)
    return m if m and (m.group(2) is not None or any(c.isdigit() for c in m.group(1))) else None


def _classify_raw(line: str) -> Line:
    m = _topic_header(line)
    if m:
        return Line("topic", m)
    for kind, rx in (
        ("turn", TURN_RE),
        ("grade", GRADE_RE),
        ("wc", WC_RE),
        ("span", SPAN_RE),
        ("entity", ENTITY_RE),
        ("comment", COMMENT_RE),
        ("membership", MEMBERSHIP_RE),
    ):
        m = rx.match(line)
        if m:
            return Line(kind, m)
    return Line("text", None, line)


# Every markup line starts, after \s* (str.isspace: the same characters), with one of these
# (TOPIC_RE ... MEMBERSHIP_RE; WC_RE ignores case), or is an escaped line: any other line is text.
_MARKUP_STARTS = ("#", "w", "W", "\\")


def _needs_escape(line: str) -> bool:
    if not line.lstrip().startswith(_MARKUP_STARTS):  # most turn text: no regex to try
        return False
    if _classify_raw(line).kind != "text":
        return True
    return line.startswith("\\") and _needs_escape(line[1:])


def classify(line: str) -> Line:
    """What one line of a paper file is. ``\\`` + a line that would be markup is text."""
    if line.startswith("\\") and _needs_escape(line[1:]):
        return Line("text", None, line[1:])
    return _classify_raw(line)


def escape_line(line: str) -> str:
    """A turn-text line as written in a paper file (a ``\\`` before what would be markup)."""
    return "\\" + line if _needs_escape(line) else line


# --- entity of a nugget ----------------------------------------------------------------------


def derive_entity(lines: list[str], anchor: int, nugget_text: str, whole_line: bool,
                  named: tuple[str | None, str] | None = None) -> tuple[str | None, str]:
    """The entity (key, name) a nugget names when its file says nothing more.

    From the nugget's own text (URL -> key, the rest -> name; `named`: that, when known); when
    a whole-line nugget is only a URL, the name is taken from the nearest non-blank line above
    it in the turn if that line has no URL (Bard's "Looper (2012)" / "https://www.imdb.com/title/..."
    layout).
    """
    key, name = entity_key_and_name(nugget_text) if named is None else named
    if key is not None and not name and whole_line:
        for prev in range(anchor - 1, -1, -1):
            if word_count(lines[prev]):
                if find_url(lines[prev]) is None:
                    _, name = entity_key_and_name(lines[prev])
                break
    return key, name


# --- reading ---------------------------------------------------------------------------------


def decode_utf8(data: bytes, path: str) -> tuple[str | None, list[FormatError]]:
    """Strict UTF-8 (a leading BOM is dropped); each line holding an invalid byte sequence
    reported once, with its first bad byte and its offset (a binary file is 50 lines' messages,
    not 50 of one line's bytes)."""
    errors: list[FormatError] = []
    pos = 0
    line = 1
    while True:
        try:
            data[pos:].decode("utf-8")
            break
        except UnicodeDecodeError as exc:
            start = pos + exc.start
            line += data.count(b"\n", pos, start)
            bad = data[start : pos + exc.end]
            errors.append(
                FormatError(path, line, f"not UTF-8 text: invalid byte {bad[:4].hex(' ')} at byte offset {start}")
            )
            end = data.find(b"\n", start)  # the rest of this line is not read again
            if end < 0 or len(errors) >= 50:
                break
            pos = end + 1
            line += 1
    if errors:
        return None, errors
    text = data.decode("utf-8")
    return text.removeprefix("\ufeff"), []


def parse_paper_bytes(data: bytes, path: str, on_conversation: Callable[[int], object] | None = None) -> ParseResult:
    text, errors = decode_utf8(data, path)
    if text is None:
        return ParseResult([], errors, [])
    return parse_paper(text, path, on_conversation)


@dataclass
class _Block:
    """The annotation lines of one nugget, as collected."""

    anchor: int  # index of the nugget's (last) line in the turn's lines
    anchor_line: int
    first_line: int
    orphan: bool = False  # attached to nothing (reported once): its lines are skipped
    broken: bool = False  # one of its lines is wrong (reported): no nugget is built
    seen: dict[str, int] = field(default_factory=dict)  # annotation key -> line
    grade: str | None = None
    grade_line: int | None = None
    comment: str = ""
    wc: int | None = None
    wc_line: int | None = None
    span: tuple[int, int] | None = None
    span_line: int | None = None
    entity: tuple[str | None, str] | None = None
    entity_line: int | None = None
    memberships: dict[str, ParsedMembership] = field(default_factory=dict)


class _Parser:
    def __init__(self, text: str, path: str, on_conversation: Callable[[int], object] | None = None):
        self.path = path
        self.on_conversation = on_conversation
        self.text = text.removeprefix("\ufeff").replace("\r\n", "\n")
        self.result = ParseResult()
        self.conv: ParsedConversation | None = None
        self.words_before_turn = 0
        self.turn: ParsedTurn | None = None
        self.lines: list[str] = []  # text lines of the current turn
        self.line_nos: list[int] = []
        self.anchor: int | None = None  # index in self.lines of the last non-blank line
        self.block: _Block | None = None
        self.blocks: list[_Block] = []
        self.expected: tuple[str, int] = ("U", 1)
        self.stray_reported = False
        self.seen_conversations: dict[tuple[str, str | None], int] = {}

    def error(self, line: int, message: str) -> None:
        self.result.errors.append(FormatError(self.path, line, message))

    def warn(self, line: int, message: str) -> None:
        self.result.warnings.append(FormatError(self.path, line, message))

    # -- driving --

    def run(self) -> ParseResult:
        if not self.text.strip():
            self.error(0, "empty file")
            return self.result
        for no, raw in enumerate(self.text.split("\n"), 1):
            line = classify(raw)
            getattr(self, "on_" + line.kind)(no, line)
        self.end_conversation()
        return self.result

    def on_topic(self, no: int, line: Line) -> None:
        self.end_conversation()
        topic, run = line.match.group(1), line.match.group(2)
        key = (topic, run)
        if key in self.seen_conversations:
            self.error(no, f"conversation {topic}{' run=' + run if run else ''} appears twice in this file "
                       f"(first at line {self.seen_conversations[key]})")
        else:
            self.seen_conversations[key] = no
        self.conv = ParsedConversation(topic=topic, run=run, source=self.path, line=no)
        self.words_before_turn = 0
        self.expected = ("U", 1)

    def on_turn(self, no: int, line: Line) -> None:
        if self.conv is None:
            self.stray(no, "turn header before the first ##### topic header")
            return
        self.end_turn()
        role, number, rest = line.match.group(1), int(line.match.group(2)), line.match.group(3).strip()
        label: str | None = None
        if rest:
            if role == "U":
                self.error(no, f"a user turn has no usefulness label (found {rest!r} after U{number})")
            elif rest not in LABELS:
                self.error(no, f"unknown turn label {rest!r} (o, x or -); escape a text line that "
                           "looks like a turn header with a backslash")
            else:
                label = rest
        if (role, number) != self.expected:
            exp = f"{self.expected[0]}{self.expected[1]}"
            self.error(no, f"turn header out of order: expected {exp}, found {role}{number}")
        self.expected = ("S", number) if role == "U" else ("U", number + 1)
        self.turn = ParsedTurn(role=role, number=number, label=label, text="", line=no)

    def on_text(self, no: int, line: Line) -> None:
        if self.turn is None:
            if word_count(line.text):
                where = "any turn header" if self.conv is not None else "the first ##### topic header"
                self.stray(no, f"text before {where}")
            return
        self.close_block()
        self.lines.append(line.text)
        self.line_nos.append(no)
        if word_count(line.text):
            self.anchor = len(self.lines) - 1

    def stray(self, no: int, message: str) -> None:
        if not self.stray_reported:
            self.error(no, message)
            self.stray_reported = True

    # -- annotation lines --

    def annotation_block(self, no: int, new: bool = False) -> _Block | None:
        """The block this annotation line belongs to (None: drop the line, problem reported)."""
        if self.block is not None and not new:
            return None if self.block.orphan else self.block
        if self.turn is None or self.anchor is None:
            if self.block is None or new:
                self.error(no, "annotation before any text line (annotations follow the line they annotate)")
            self.block = _Block(anchor=-1, anchor_line=0, first_line=no, orphan=True)
            return None
        if self.turn.role == "U":
            if self.block is None:
                self.error(no, f"nugget in a user turn (U{self.turn.number}): only system turns hold nuggets")
            self.block = _Block(anchor=self.anchor, anchor_line=self.line_nos[self.anchor], first_line=no, orphan=True)
            return None
        if self.block is not None:
            self.close_block()
        self.block = _Block(anchor=self.anchor, anchor_line=self.line_nos[self.anchor], first_line=no)
        return self.block

    def once(self, block: _Block, key: str, no: int, what: str) -> bool:
        if key in block.seen:
            self.error(no, f"duplicate {what} for one nugget (first at line {block.seen[key]})")
            block.broken = True
            return False
        block.seen[key] = no
        return True

    def on_grade(self, no: int, line: Line) -> None:
        block = self.annotation_block(no)
        if block is None or not self.once(block, "grade", no, "grade"):
            return
        block.grade = f"L{int(line.match.group(1))}"
        block.grade_line = no
        comment = line.match.group(2).strip()
        if comment.startswith("#"):
            comment = comment[1:].strip()
        if comment:
            if not self.once(block, "comment", no, "comment"):
                return
            block.comment = comment

    def on_comment(self, no: int, line: Line) -> None:
        block = self.annotation_block(no)
        if block is None or not self.once(block, "comment", no, "comment"):
            return
        block.comment = line.match.group(1).strip()

    def on_wc(self, no: int, line: Line) -> None:
        block = self.annotation_block(no)
        if block is None or not self.once(block, "wc", no, "wc="):
            return
        value = line.match.group(1).strip()
        if not value.isdigit() or not value.isascii():
            self.error(no, f"wc= needs a whole number of words, found {value!r}")
            block.broken = True
            return
        block.wc, block.wc_line = int(value), no

    def on_span(self, no: int, line: Line) -> None:
        block = self.annotation_block(no, new=True)
        if block is None:
            return
        block.seen["span"] = no
        m = SPAN_VALUE_RE.match(line.match.group(1))
        if not m or not m.group(0).isascii():
            self.error(no, f"#SPAN: needs first-last word positions, found {line.match.group(1).strip()!r}")
            block.broken = True
            return
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) else first
        if first > last or first < 1:
            self.error(no, f"#SPAN: {first}-{last} is not a word range (first <= last, from 1)")
            block.broken = True
            return
        block.span, block.span_line = (first, last), no

    def on_entity(self, no: int, line: Line) -> None:
        block = self.annotation_block(no)
        if block is None or not self.once(block, "entity", no, "#ENTITY:"):
            return
        value = line.match.group(1).strip()
        if value.startswith("{"):
            try:
                obj = loads_json(value)
                if not isinstance(obj, dict) or set(obj) - {"key", "name"}:
                    raise ValueError
                key, name = obj.get("key"), obj.get("name") or ""
                if not (key is None or isinstance(key, str)) or not isinstance(name, str):
                    raise ValueError
            except ValueError:
                self.error(no, '#ENTITY: needs {"key": "...", "name": "..."} or a URL or a name')
                block.broken = True
                return
        else:
            key, name = entity_key_and_name(value)
            if key is None:
                self.error(no, "#ENTITY: names no entity (give a URL or a name)")
                block.broken = True
                return
        block.entity, block.entity_line = (key, name), no

    def on_membership(self, no: int, line: Line) -> None:
        name, rest = line.match.group(1), line.match.group(2)
        block = self.annotation_block(no)
        if block is None:
            return
        if not self.once(block, "m:" + name, no, f"#{name}: membership"):
            return
        close = rest.find(")")
        if close == -1:
            self.error(no, f"malformed vector for {name}: missing ')'")
            block.broken = True
            return
        values: list[Fraction] = []
        for i, item in enumerate(rest[:close].split(","), 1):
            try:
                values.append(parse_number(item))
            except ValueError as exc:
                self.error(no, f"malformed vector for {name}: value {i}: {exc}")
                block.broken = True
                return
        problem = vector_problem(values)
        if problem:
            self.error(no, f"{name}: {problem}")
            block.broken = True
            return
        evidence = rest[close + 1 :].strip()
        if evidence.startswith("#"):
            evidence = evidence[1:].strip()
        block.memberships[name] = ParsedMembership(tuple(float(v) for v in values), evidence, no)

    # -- closing --

    def close_block(self) -> None:
        block, self.block = self.block, None
        if block is not None and not block.orphan and not block.broken:
            self.blocks.append(block)

    def end_turn(self) -> None:
        self.close_block()
        if self.turn is None:
            return
        turn_index = len(self.conv.turns)
        counts = [word_count(x) for x in self.lines]
        turn_words = tokenise("\n".join(self.lines)) if self.blocks else []
        for block in self.blocks:
            self.build_nugget(block, turn_index, counts, turn_words)
        self.turn.text = canonical_text("\n".join(self.lines))
        self.conv.turns.append(self.turn)
        self.words_before_turn += sum(counts)
        self.turn, self.lines, self.line_nos, self.anchor, self.blocks = None, [], [], None, []

    def build_nugget(self, block: _Block, turn_index: int, counts: list[int], turn_words: list[str]) -> None:
        line_start = sum(counts[: block.anchor])  # words of the turn before the anchor line
        line_end = line_start + counts[block.anchor] - 1
        whole = block.span is None
        if whole:
            start, end = line_start, line_end
        else:
            first, last = (p - self.words_before_turn - 1 for p in block.span)
            if not (line_start <= last <= line_end) or first < 0:
                a, b = self.words_before_turn + line_start + 1, self.words_before_turn + line_end + 1
                self.error(block.span_line, f"#SPAN: {block.span[0]}-{block.span[1]} must end on the line above "
                           f"(words {a}-{b}) and start in the same turn (from word {self.words_before_turn + 1})")
                return
            start, end = first, last
        text = " ".join(turn_words[start : end + 1])
        computed = self.words_before_turn + end + 1
        if block.wc is not None and block.wc != computed:
            self.warn(block.wc_line, f"wc= {block.wc} declared, {computed} computed")
        if block.entity is not None:
            key, name = block.entity
        else:
            key, name = derive_entity(self.lines, block.anchor, text, whole and start == line_start)
        self.conv.nuggets.append(
            ParsedNugget(
                turn=turn_index,
                start_word=start,
                end_word=end,
                text=text,
                line=block.anchor_line,
                grade=block.grade,
                comment=block.comment,
                declared_wc=block.wc,
                wc_line=block.wc_line,
                memberships=block.memberships,
                entity_key=key,
                entity_name=name,
                grade_line=block.grade_line,
            )
        )

    def end_conversation(self) -> None:
        if self.conv is None:
            return
        self.end_turn()
        if not self.conv.turns:
            self.error(self.conv.line, f"conversation {self.conv.topic} has no turns")
        self.result.conversations.append(self.conv)
        self.conv = None
        if self.on_conversation is not None:
            self.on_conversation(len(self.result.conversations))


def parse_paper(text: str, path: str, on_conversation: Callable[[int], object] | None = None) -> ParseResult:
    """Read a paper-format file: every conversation it holds, every problem with its line.
    ``on_conversation(n)``: called as each conversation is read, with how many have been."""
    return _Parser(text, path, on_conversation).run()


# --- writing ---------------------------------------------------------------------------------


def write_paper(conversations: list[ParsedConversation]) -> str:
    """The paper format of these conversations, with computed ``wc=`` lines.

    ``parse_paper(write_paper(cs))`` has the same semantics as ``cs`` (model.semantics) for
    turn texts in canonical form (model.canonical_text). Raises ValueError for what the format
    cannot hold (a text line break inside a topic or run name, a conversation that branches).
    """
    return "".join(iter_paper(conversations))


def iter_paper(conversations) -> Iterator[str]:
    """write_paper, one conversation at a time (for streaming exports)."""
    seen = _Seen()
    for conv in conversations:
        if conv.is_tree:  # one line of turns: a tree written as one would read as another conversation
            raise ValueError(f"{conv.topic} / {conv.run}: a conversation that branches ({len(conv.paths())} paths) "
                             "cannot be written in the paper format, which holds one line of turns (write it as JSONL)")
        out: list[str] = []
        _conversation_lines(conv, out, seen)
        yield "".join(out)


class _Seen:
    """What one writing has already checked or formatted, by value: a campaign repeats its
    grades, attribute-set names and membership vectors in every conversation."""

    def __init__(self):
        self.set_names: dict[str, bool] = {}  # attribute-set name -> writable (id_problem)
        self.grades: dict[str, bool] = {}  # grade label -> writable (L<digits>)
        self.vectors: dict[tuple, str] = {}  # vector -> its values as written


def _conversation_lines(conv: ParsedConversation, out: list[str], seen: _Seen) -> None:
    """The lines of one conversation, appended to `out`."""
    add = out.append
    header = f"##### {conv.topic}" + (f" run={conv.run}" if conv.run is not None else "")
    m = _topic_header(header)
    if not m or m.groups() != (conv.topic, conv.run):
        raise ValueError(f"topic {conv.topic!r} / run {conv.run!r} cannot be written in the paper format "
                         "(a topic id has a digit or the header a run=; no spaces)")
    add(header + "\n")
    by_turn: dict[int, list[ParsedNugget]] = {}
    for n in conv.nuggets:
        by_turn.setdefault(n.turn, []).append(n)
    turns = conv.turns
    turn_words = [tokenise(t.text) for t in turns]  # split once: the offsets and the nuggets' texts
    offsets = offsets_of_counts([len(w) for w in turn_words])  # words before each turn
    for index, turn in enumerate(turns):
        add(f"### {turn.role}{turn.number} {turn.label}\n" if turn.label else f"### {turn.role}{turn.number}\n")
        text = turn.text
        turn_nuggets = by_turn.get(index)
        if not turn_nuggets:
            if text:
                add(_escaped_text(text))
            continue
        if turn.role != "S":
            raise ValueError(f"{conv.topic}: nugget in user turn {turn.role}{turn.number}")
        words = turn_words[index]
        lines = text.split("\n") if text else []
        if len(lines) == 1:  # most turns: the line's words are the turn's
            counts, starts = [len(words)], [0]
        else:
            counts = [word_count(x) for x in lines]
            starts = offsets_of_counts(counts)  # words before each line of the turn
        per_line: dict[int, list[ParsedNugget]] = {}
        for n in turn_nuggets:
            end = n.end_word
            if len(lines) == 1:
                anchor = 0 if 0 <= end < counts[0] else None
            else:
                anchor = next((i for i in range(len(lines)) if counts[i] and starts[i] <= end < starts[i] + counts[i]), None)
            if anchor is None or not 0 <= n.start_word <= end:
                raise ValueError(f"{conv.topic}: nugget words {n.start_word}-{n.end_word} outside {turn.role}{turn.number}")
            per_line.setdefault(anchor, []).append(n)
        for i, line in enumerate(lines):
            add(escape_line(line) + "\n")
            nuggets = per_line.get(i)
            if not nuggets:
                continue
            whole_done = False
            first, last = starts[i], starts[i] + counts[i] - 1
            if len(nuggets) > 1:
                nuggets = sorted(nuggets, key=lambda n: (n.start_word != first or n.end_word != last, n.start_word, n.end_word))
            for n in nuggets:
                whole = n.start_word == first and n.end_word == last and not whole_done
                whole_done = whole_done or whole
                _block_lines(n, lines, i, whole, offsets[index], words, seen, add)


def _escaped_text(text: str) -> str:
    """A turn's text as written, each line escaped (escape_line), with its line break."""
    if "\n" not in text:
        return ("\\" + text if _needs_escape(text) else text) + "\n"
    return "".join([escape_line(line) + "\n" for line in text.split("\n")])


def _block_lines(n: ParsedNugget, lines: list[str], anchor: int, whole: bool, before: int, words: list[str],
                 seen: _Seen, add: Callable[[str], None]) -> None:
    """The lines after a nugget's text line, given to `add`; `words` are its turn's words."""
    wc = word_position(before, n.end_word)
    grade, comment = n.grade, n.comment
    if grade is not None:
        writable = seen.grades.get(grade)
        if writable is None:
            writable = seen.grades[grade] = re.fullmatch(r"L\d+", grade) is not None
        if not writable:
            raise ValueError(f"grade {grade!r} cannot be written in the paper format")
        lines_after = f"#{grade} # {_one_line(comment)}\nwc= {wc}\n" if comment else f"#{grade}\nwc= {wc}\n"
    elif comment:
        lines_after = f"#COMMENT: {_one_line(comment)}\nwc= {wc}\n"
    else:
        lines_after = f"wc= {wc}\n"
    add(lines_after if whole else f"#SPAN: {word_position(before, n.start_word)}-{wc}\n{lines_after}")
    entity = (n.entity_key, n.entity_name)
    if n.entity_named_by_text:
        derived = derive_entity(lines, anchor, "", whole, named=entity)
    else:
        derived = derive_entity(lines, anchor, span_text(words, n.start_word, n.end_word), whole)
    if entity != derived:
        value = json.dumps({"key": n.entity_key, "name": n.entity_name}, ensure_ascii=False)
        add(f"#ENTITY: {value}\n")
    for name, m in n.memberships.items():
        if name not in seen.set_names:
            seen.set_names[name] = id_problem(ATTRIBUTE_SET, name) is None
        if not seen.set_names[name]:
            raise ValueError(f"attribute set name {name!r} cannot be written in the paper format")
        vector = seen.vectors.get(m.vector)
        if vector is None:
            vector = seen.vectors[m.vector] = ",".join(format_number(v) for v in m.vector)
        add(f"#{name}: ({vector})" + (f" #{_one_line(m.evidence)}" if m.evidence else "") + "\n")


def _one_line(text: str) -> str:
    return " ".join(text.split("\n")).strip()
