"""The one rule on ids that files write between separators: topic, run, attribute-set and
entity ids. Pure (no Django): the importers, the forms and the API all ask it.

A file format separates fields by whitespace (qrels, .gmemb, the paper format's
``##### M002 run=bing-trial1`` header) or by lines (JSONL, CSV); an id holding a space, a line
break or a control character would forge a field or a line there. Topic, run and attribute-set
ids therefore hold none; a topic id and an attribute-set name are moreover what the paper format
can write back (``M002``, ``ORIGIN``). Entity keys are names as well as URLs: they keep their
spaces, and a whitespace-separated file writes them percent-encoded (`field_token`).
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

TOPIC = "topic"
RUN = "run"
ATTRIBUTE_SET = "attribute set"
ENTITY = "entity"

ATTRIBUTE_SET_NAME = r"[A-Za-z][A-Za-z0-9_\-]*"  # also the paper format's grammar of a membership line (#NAME: (...))
MAX_LENGTH = {TOPIC: 32, RUN: 100, ATTRIBUTE_SET: 50, ENTITY: 1000}
_PATTERN = {
    TOPIC: (re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*", re.ASCII), "a letter, then letters, digits, _, . or -"),
    ATTRIBUTE_SET: (re.compile(ATTRIBUTE_SET_NAME, re.ASCII), "a letter, then letters, digits, _ or -"),
}
# extension lines of the paper format (#SPAN:, #ENTITY:, #COMMENT:): no attribute set takes these names
RESERVED_ATTRIBUTE_SETS = frozenset({"SPAN", "ENTITY", "COMMENT"})
_TRIAL_NAME = re.compile(r"^(?P<system>.+?)[-_]trial[-_]?(?P<trial>[1-9][0-9]*)$", re.IGNORECASE)


def _is_control(character: str) -> bool:
    """Control, format, surrogate, private-use or unassigned (Unicode category C*), or a line
    or paragraph separator: characters no id shows and some readers split lines at."""
    return unicodedata.category(character)[0] == "C" or character in "\u2028\u2029\x85"


def id_problem(kind: str, value: object) -> str | None:
    """Why `value` cannot be a `kind` id (TOPIC, RUN, ATTRIBUTE_SET or ENTITY), in words for
    a person; None when it can."""
    if not isinstance(value, str) or not value:
        return f"a {kind} id is a non-empty text"
    shown = repr(value[:40]) + ("..." if len(value) > 40 else "")
    if len(value) > MAX_LENGTH[kind]:
        return f"{kind} id {shown} is longer than {MAX_LENGTH[kind]} characters"
    if any(_is_control(c) for c in value):
        return f"{kind} id {shown} holds a line break or a control character"
    if kind != ENTITY and any(c.isspace() for c in value):
        return f"{kind} id {shown} holds whitespace (files separate their fields by it)"
    if kind in _PATTERN:
        pattern, hint = _PATTERN[kind]
        if not pattern.fullmatch(value):
            return f"{kind} id {shown} is not {hint}"
    if kind == ATTRIBUTE_SET and value.upper() in RESERVED_ATTRIBUTE_SETS:
        return f"{value} is reserved by the paper format (#SPAN:, #ENTITY:, #COMMENT:)"
    return None


def field_token(value: str) -> str:
    """`value` as one field of a whitespace-separated file (qrels, .gmemb): whitespace, control
    characters and line separators percent-encoded (UTF-8), everything else as it is."""
    if value.isprintable() and " " not in value:
        return value  # nothing to encode (isprintable: no C*, Z* but the space): the common case, fast
    return "".join(quote(c, safe="") if c.isspace() or _is_control(c) else c for c in value)


def run_system_and_trial(name: str) -> tuple[str, int]:
    """What a run name says: ``bing-trial2`` -> ("bing", 2); a name without ``-trial<N>`` (or
    ``_trial<N>``) is a system of its own, trial 1."""
    match = _TRIAL_NAME.match(name)
    return (match["system"], int(match["trial"])) if match else (name, 1)
