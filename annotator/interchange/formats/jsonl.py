"""JSON Lines: one conversation per line (schema in docs/formats.md, "JSONL format").

    {"topic": "M002", "run": "bing-trial1",
     "turns": [{"role": "user", "text": "..."}, {"role": "system", "text": "...", "label": "o"}],
     "nuggets": [{"turn": 2, "start": 8, "end": 13, "grade": "L2",
                  "entity": {"key": "https://imdb.com/title/tt0088763", "name": "Back to the Future (1985)"},
                  "memberships": {"RATINGS": {"vector": [0, 0, 0, 1], "evidence": "1.3M"}}}]}

Every problem is reported with its line and the JSON path of the field; parsing never raises.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any

import orjson

from annotator.rules.identity import entity_key_and_name, name_key, normalise_url
from annotator.rules.spans import span_problem
from scoring.trees import TOLERANCE as BRANCH_TOLERANCE
from scoring.words import span_text, tokenise, word_position

from .model import (
    FormatError,
    ParsedConversation,
    ParsedMembership,
    ParsedNugget,
    ParsedTurn,
    ParseResult,
    LoneSurrogate,
    loads_json,
    locate_words,
    exact_number,
    vector_problem,
)
from .paper import decode_utf8

__all__ = ["parse_jsonl", "parse_jsonl_bytes", "write_jsonl", "iter_jsonl", "conversation_to_json"]

ROLES = {"user": "U", "system": "S", "assistant": "S"}
LABELS = ("o", "x", "-")
GRADE_RE = re.compile(r"^L\d+$")
CONVERSATION_KEYS = {"topic", "run", "turns", "nuggets", "meta"}
TURN_KEYS = {"role", "text", "label", "meta", "id", "parent", "p", "shown"}
NUGGET_KEYS = {"turn", "start", "end", "text", "occurrence", "grade", "comment", "wc", "entity", "memberships", "meta"}


class _Problems:
    def __init__(self, path: str, line: int, result: ParseResult):
        self.path, self.line, self.result = path, line, result
        self.count = 0

    def error(self, field: str | None, message: str) -> None:
        self.count += 1
        self.result.errors.append(FormatError(self.path, self.line, message, field))

    def warn(self, field: str | None, message: str) -> None:
        self.result.warnings.append(FormatError(self.path, self.line, message, field))


@functools.lru_cache(maxsize=4096)
def _numbers_ok(values: tuple[float, ...]) -> bool:
    return vector_problem(values) is None


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _unknown(p: _Problems, obj: dict, allowed: set[str], where: str) -> None:
    for key in obj:
        if key not in allowed:
            p.warn(f"{where}{key}" if where else key, "unknown field, ignored")


def parse_jsonl_bytes(data: bytes, path: str, on_conversation: Callable[[int], object] | None = None) -> ParseResult:
    text, errors = decode_utf8(data, path)
    if text is None:
        return ParseResult([], errors, [])
    return parse_jsonl(text, path, on_conversation)


def parse_jsonl(text: str, path: str, on_conversation: Callable[[int], object] | None = None) -> ParseResult:
    """Read a JSONL file: one conversation per non-blank line. ``on_conversation(n)``: called
    as each conversation is read, with how many have been (for progress reports)."""
    result = ParseResult()
    text = text.removeprefix("\ufeff")
    seen: dict[tuple[str, str | None], int] = {}
    any_line = False
    for no, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            continue
        any_line = True
        p = _Problems(path, no, result)
        try:
            obj = loads_json(raw)
        except LoneSurrogate as exc:
            p.error(exc.path.removeprefix("$.").removeprefix("$") or None, LoneSurrogate.REASON)
            continue
        except json.JSONDecodeError as exc:
            p.error(None, f"invalid JSON at column {exc.colno}: {exc.msg}")
            continue
        conv = _conversation(obj, p)
        if conv is None:
            continue
        key = (conv.topic, conv.run)
        if key in seen:
            p.error(None, f"conversation {conv.topic} run {conv.run} appears twice in this file (first at line {seen[key]})")
        else:
            seen[key] = no
        result.conversations.append(conv)
        if on_conversation is not None:
            on_conversation(len(result.conversations))
    if not any_line:
        result.errors.append(FormatError(path, 0, "empty file"))
    return result


def _conversation(obj: Any, p: _Problems) -> ParsedConversation | None:
    if not isinstance(obj, dict):
        p.error(None, "each line must be a JSON object (one conversation)")
        return None
    _unknown(p, obj, CONVERSATION_KEYS, "")
    topic = obj.get("topic")
    if not isinstance(topic, str) or not topic.strip():
        p.error("topic", "required: the topic id, a non-empty string")
        topic = None
    run = obj.get("run")
    if run is not None and (not isinstance(run, str) or not run.strip()):
        p.error("run", "must be a non-empty string or null")
        run = None
    turns_obj = obj.get("turns")
    if not isinstance(turns_obj, list) or not turns_obj:
        p.error("turns", "required: a non-empty list of turns")
        return None
    conv = ParsedConversation(topic=topic or "", run=run, source=p.path, line=p.line)
    # a tree when a turn says what it follows; `id` alone names turns of a linear conversation
    conv.is_tree = any(isinstance(t, dict) and ("parent" in t or "p" in t) for t in turns_obj)
    counts: list[dict[str, int]] = []  # per turn: the user and system turns on its path, itself included
    ids: dict[str, int] = {}
    for i, t in enumerate(turns_obj):
        where = sys.intern(f"turns[{i}]")  # one string for every conversation's: a large file holds them all
        if not isinstance(t, dict):
            p.error(where, "a turn is an object {role, text, label}")
            continue
        _unknown(p, t, TURN_KEYS, where + ".")
        index = len(conv.turns)
        turn_id = _turn_id(t, where, ids, p)
        parent = _parent(t, where, index, ids, p)
        if turn_id:
            ids[turn_id] = index  # after its parent is found: a turn never follows itself
        before = counts[parent] if parent is not None else {"U": 0, "S": 0}
        expected = "U" if parent is None or conv.turns[parent].role == "S" else "S"
        role = ROLES.get(t.get("role")) if isinstance(t.get("role"), str) else None
        if role is None:
            p.error(where + ".role", 'must be "user" or "system"')
            role = expected
        elif role != expected:
            p.error(where + ".role", "turns alternate user, system, user... starting with user: expected "
                    f"{'user' if expected == 'U' else 'system'}" + (" after the turn it follows" if conv.is_tree else ""))
        counts.append({**before, role: before[role] + 1})
        number = counts[-1][role]
        text = t.get("text")
        if not isinstance(text, str):
            p.error(where + ".text", "required: the turn's text, a string")
            text = ""
        label = t.get("label")
        if label is not None:
            if role == "U":
                p.error(where + ".label", "a user turn has no usefulness label")
                label = None
            elif label not in LABELS:
                p.error(where + ".label", f"unknown label {label!r} (o, x, - or null)")
                label = None
        conv.turns.append(ParsedTurn(role=role, number=number, label=label, text=text, line=p.line, field=where,
                                     id=turn_id, parent=parent, p=_probability(t, where, p),
                                     shown=_shown(t, where, conv.is_tree, p)))
    if conv.is_tree:
        _check_branch_probabilities(conv, p)
    nuggets = obj.get("nuggets", [])
    if nuggets is None:
        nuggets = []
    if not isinstance(nuggets, list):
        p.error("nuggets", "must be a list")
        nuggets = []
    offsets = conv.offsets()
    words_cache: dict[int, list[str]] = {}
    for j, n in enumerate(nuggets):
        nugget = _nugget(n, sys.intern(f"nuggets[{j}]"), conv, offsets, words_cache, p)
        if nugget is not None:
            conv.nuggets.append(nugget)
    return conv


def _turn_id(t: dict, where: str, ids: dict[str, int], p: _Problems) -> str:
    """The turn's `id` (a string, or a whole number written as one), unique in its conversation."""
    value = t.get("id")
    if value is None:
        return ""
    if _is_int(value):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        p.error(where + ".id", "must be a non-empty string of at most 200 characters")
        return ""
    if value in ids:
        p.error(where + ".id", f"turn id {value!r} is already turns[{ids[value]}]'s: ids are unique in a conversation")
        return ""
    return value


def _parent(t: dict, where: str, index: int, ids: dict[str, int], p: _Problems) -> int | None:
    """The index of the turn this one follows: its `parent` (an earlier turn's id, or null for a
    root), else the turn before it."""
    if "parent" not in t:
        return index - 1 if index > 0 else None
    value = t["parent"]
    if value is None:
        return None
    if _is_int(value):
        value = str(value)
    if not isinstance(value, str) or value not in ids:
        p.error(where + ".parent", f"{value!r} is not the id of a turn listed before this one "
                "(a turn follows one of its conversation's earlier turns: no loop)")
        return index - 1 if index > 0 else None
    return ids[value]


def _shown(t: dict, where: str, is_tree: bool, p: _Problems) -> bool:
    """Whether the turn is on the branch the chat showed (absent: it is). Every turn of a line is."""
    value = t.get("shown", True)
    if not isinstance(value, bool):
        p.error(where + ".shown", "must be true or false: whether the chat showed this branch")
        return True
    if not value and not is_tree:
        p.error(where + ".shown", "only a turn of a conversation that branches (turns with parent) can be off the branch shown")
        return True
    return value


def _probability(t: dict, where: str, p: _Problems) -> float | None:
    if "p" not in t or t["p"] is None:
        return None
    value = t["p"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        p.error(where + ".p", "must be a number from 0 to 1: the probability of going from the turn it follows to this one")
        return None
    return float(value)


def _check_branch_probabilities(conv: ParsedConversation, p: _Problems) -> None:
    """The given p of a turn's children (and of the roots) sum to 1 within 1e-6 when all are
    given, and never to more; the missing ones share what the given ones leave."""
    children: dict[int | None, list[int]] = {}
    for i, turn in enumerate(conv.turns):
        children.setdefault(turn.parent, []).append(i)
    for siblings in children.values():
        given = [conv.turns[i].p for i in siblings if conv.turns[i].p is not None]
        total = sum(given)
        if total > 1 + BRANCH_TOLERANCE or (len(given) == len(siblings) and abs(total - 1) > BRANCH_TOLERANCE):
            first = conv.turns[siblings[0]]
            names = ", ".join(conv.turns[i].field or str(i) for i in siblings)
            p.error(f"{first.field}.p", f"the p of the turns that follow the same turn ({names}) sum to "
                    f"{total:g}: they must sum to 1 (within 1e-6; a missing p shares what the others leave)")


def _turn_index(value: Any, conv: ParsedConversation) -> int | None:
    if _is_int(value):
        return value - 1 if 1 <= value <= len(conv.turns) else None
    if isinstance(value, str) and conv.is_tree:
        # U1, S1... name a turn on every path: in a tree only a turn's own id is one turn
        ids = [i for i, t in enumerate(conv.turns) if t.id == value.strip()]
        return ids[0] if ids else None
    if isinstance(value, str):
        for i, t in enumerate(conv.turns):
            if t.name == value.strip().upper():
                return i
    return None


def _nugget(n: Any, where: str, conv: ParsedConversation, offsets: list[int],
            words_cache: dict[int, list[str]], p: _Problems) -> ParsedNugget | None:
    if not isinstance(n, dict):
        p.error(where, "a nugget is an object")
        return None
    before = p.count
    _unknown(p, n, NUGGET_KEYS, where + ".")
    ti = _turn_index(n.get("turn"), conv)
    if ti is None:
        p.error(where + ".turn", f"required: the 1-based index of a turn (1-{len(conv.turns)}) or its name like \"S1\"")
        return None
    turn = conv.turns[ti]
    if turn.role != "S":
        p.error(where + ".turn", f"nugget in a user turn ({turn.name}): only system turns hold nuggets")
        return None
    words = words_cache.get(ti)
    if words is None:
        words = words_cache[ti] = tokenise(turn.text)
    span = _span(n, where, turn, words, p)
    if span is None:
        return None
    start, end = span
    nugget_text = " ".join(words[start : end + 1])

    grade = n.get("grade")
    if grade is not None and (not isinstance(grade, str) or not GRADE_RE.match(grade)):
        p.error(where + ".grade", f"must be like \"L2\" (or null), found {grade!r}")
    comment = n.get("comment") or ""
    if not isinstance(comment, str):
        p.error(where + ".comment", "must be a string")
        comment = ""
    wc = n.get("wc")
    computed = offsets[ti] + end + 1
    if wc is not None:
        if not _is_int(wc):
            p.error(where + ".wc", "must be a whole number")
        elif wc != computed:
            p.warn(where + ".wc", f"wc= {wc} declared, {computed} computed")
    key, name = _entity(n.get("entity"), nugget_text, where, p)
    memberships = _memberships(n.get("memberships") or {}, where, p)
    if p.count > before:
        return None
    return ParsedNugget(
        turn=ti,
        start_word=start,
        end_word=end,
        text=nugget_text,
        line=p.line,
        grade=grade,
        comment=comment.strip(),
        declared_wc=wc if _is_int(wc) else None,
        wc_line=p.line if wc is not None else None,
        memberships=memberships,
        entity_key=key,
        entity_name=name,
        grade_line=p.line,
        field=where,
    )


def _span(n: dict, where: str, turn, words: list[str], p: _Problems) -> tuple[int, int] | None:
    """The nugget's words (start, end), from start/end (its text, when given, must be them) or
    from its text (found on word boundaries, its `occurrence` when it occurs more than once)."""
    start, end, text = n.get("start"), n.get("end"), n.get("text")
    if start is not None or end is not None:
        if not _is_int(start) or not _is_int(end):
            p.error(where, "start and end must both be whole numbers (0-based word indices in the turn)")
            return None
        if span_problem(start, end, words=len(words)) is not None:
            p.error(where, f"span {start}-{end} outside the turn ({turn.name} has {len(words)} words, 0-{len(words) - 1})")
            return None
        if text is not None and (not isinstance(text, str) or tokenise(text) != words[start : end + 1]):
            p.error(where + ".text", f"does not match words {start}-{end} of {turn.name}: {' '.join(words[start:end + 1])!r}")
            return None
        return start, end
    if not (isinstance(text, str) and text.strip()):
        p.error(where, "give start and end (word indices in the turn) or text")
        return None
    found = locate_words(turn.text, text)
    occurrence = n.get("occurrence", 1 if len(found) <= 1 else None)
    if not found:
        p.error(where + ".text", f"not found on word boundaries in {turn.name}")
        return None
    if occurrence is None:
        p.error(where + ".text", f"occurs {len(found)} times in {turn.name}: give start/end or occurrence")
        return None
    if not _is_int(occurrence) or not 1 <= occurrence <= len(found):
        p.error(where + ".occurrence", f"must be 1-{len(found)}")
        return None
    return found[occurrence - 1]


def _entity(entity: Any, nugget_text: str, where: str, p: _Problems) -> tuple[str | None, str]:
    """The nugget's entity (key, name): as given (key, url or name), else as its words name it."""
    if isinstance(entity, dict) and "key" in entity and "name" in entity:
        key, name = None, ""  # both given: nothing to derive
    else:
        key, name = entity_key_and_name(nugget_text)
    if entity is None:
        return key, name
    if not isinstance(entity, dict) or set(entity) - {"key", "name", "url"}:
        p.error(where + ".entity", 'must be an object {"key": ..., "name": ...} (or "url")')
        return key, name
    ekey, ename, eurl = entity.get("key"), entity.get("name"), entity.get("url")
    if any(v is not None and not isinstance(v, str) for v in (ekey, ename, eurl)):
        p.error(where + ".entity", "key, url and name must be strings")
        return key, name
    if "name" in entity:
        name = ename or ""
    if "key" in entity:
        key = ekey
        if ekey is not None and not ekey.strip():
            p.error(where + ".entity.key", "must not be empty (null: no entity)")
        elif ekey is not None and ekey.lower().startswith(("http://", "https://")):
            try:
                key = normalise_url(ekey)
            except ValueError as exc:
                p.error(where + ".entity.key", str(exc))
    elif eurl is not None:
        try:
            key = normalise_url(eurl)
        except ValueError as exc:
            p.error(where + ".entity.url", str(exc))
    elif ename is not None:
        key = name_key(ename) if ename.strip() else None
    return key, name


def _memberships(mobj: Any, where: str, p: _Problems) -> dict[str, ParsedMembership]:
    """{ATTRIBUTE: {vector, evidence}} (or a bare vector), each vector checked: a sum of 1 within
    the tolerance, numbers or exact fractions ("1/2")."""
    memberships: dict[str, ParsedMembership] = {}
    if not isinstance(mobj, dict):
        p.error(where + ".memberships", "must be an object {ATTRIBUTE: {vector, evidence}}")
        return memberships
    for attr, m in mobj.items():
        mwhere = f"{where}.memberships.{attr}"
        evidence = ""
        if isinstance(m, dict):
            extra = set(m) - {"vector", "evidence"}
            if extra:
                p.warn(mwhere, f"unknown field(s) {sorted(extra)}, ignored")
            vector, evidence = m.get("vector"), m.get("evidence") or ""
            if not isinstance(evidence, str):
                p.error(mwhere + ".evidence", "must be a string")
                evidence = ""
            vwhere = mwhere + ".vector"
        else:
            vector, vwhere = m, mwhere
        numbers = _vector(vector, vwhere, p)
        if numbers is not None:
            memberships[attr] = ParsedMembership(numbers, evidence.strip(), p.line, mwhere)
    return memberships


def _vector(vector: Any, vwhere: str, p: _Problems) -> tuple[float, ...] | None:
    if not isinstance(vector, list) or not vector:
        p.error(vwhere, "malformed vector: a non-empty list of numbers (or \"1/2\" fractions)")
        return None
    if all(type(v) is float or (type(v) is int and abs(v) <= 1) for v in vector):
        numbers = tuple(float(v) for v in vector)
        if _numbers_ok(numbers):
            return numbers
    values: list[Fraction] = []
    for k, v in enumerate(vector):
        try:
            values.append(exact_number(v))
        except ValueError as exc:
            p.error(f"{vwhere}[{k}]", f"malformed vector: {exc}")
            return None
    problem = vector_problem(values)
    if problem:
        p.error(vwhere, problem)
        return None
    return tuple(float(v) for v in values)


# --- writing ---------------------------------------------------------------------------------


def conversation_to_json(conv: ParsedConversation) -> dict:
    """The JSON object of one conversation (what one line of a JSONL file holds)."""
    offsets = conv.offsets()
    turns = []
    # a tree's turns name the turn they follow by its id (one is made for a turn without)
    ids = [t.id or f"t{i + 1}" for i, t in enumerate(conv.turns)] if conv.is_tree else []
    for i, t in enumerate(conv.turns):
        turn: dict[str, Any] = {"role": "user" if t.role == "U" else "system", "text": t.text}
        if t.label is not None:
            turn["label"] = t.label
        if conv.is_tree:
            turn["id"] = ids[i]
            turn["parent"] = ids[t.parent] if t.parent is not None else None
            if t.p is not None:
                turn["p"] = t.p
            if not t.shown:
                turn["shown"] = False
        turns.append(turn)
    nuggets = []
    words_of: dict[int, list[str]] = {}  # a turn's words, split once for all its nuggets
    for n in conv.nuggets:
        words = words_of.get(n.turn)
        if words is None:
            words = words_of[n.turn] = tokenise(conv.turns[n.turn].text)
        obj: dict[str, Any] = {
            "turn": n.turn + 1,
            "start": n.start_word,
            "end": n.end_word,
            "text": span_text(words, n.start_word, n.end_word),
            "wc": word_position(offsets[n.turn], n.end_word),
            "grade": n.grade,
        }
        if n.comment:
            obj["comment"] = n.comment
        obj["entity"] = {"key": n.entity_key, "name": n.entity_name}
        if n.memberships:
            obj["memberships"] = {
                name: ({"vector": list(m.vector), "evidence": m.evidence} if m.evidence else {"vector": list(m.vector)})
                for name, m in n.memberships.items()
            }
        nuggets.append(obj)
    out: dict[str, Any] = {"topic": conv.topic, "run": conv.run, "turns": turns}
    if nuggets:
        out["nuggets"] = nuggets
    return out


def iter_jsonl(conversations: Iterable[ParsedConversation]) -> Iterator[str]:
    """One JSON line per conversation (for streaming), compact, characters as they are (UTF-8).
    orjson, not json.dumps, which was a large part of an export's time
    (docs/benchmarks-history.md, "The exports within 3x again")."""
    for conv in conversations:
        yield orjson.dumps(conversation_to_json(conv), option=orjson.OPT_APPEND_NEWLINE).decode()


def write_jsonl(conversations: Iterable[ParsedConversation]) -> str:
    return "".join(iter_jsonl(conversations))
