"""A topic's id and type: the one rule of the campaign file, topics files and the console's
topic form.

A topic's id follows the id rule (annotator.rules.ids: a letter, then letters, digits, _ . -;
at most 32 characters). Its type is the one named, which must be a type of the campaign, or
else the longest type code its id starts with (M002 -> M; FairWeb-1's pilot names its types,
P001 being of type R).

Pure Python, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from annotator.rules.ids import TOPIC, id_problem

__all__ = ["topic_type_for", "topic_problem", "TYPE_CODE_PATTERN", "TYPE_CODE_MAX", "type_code_problem"]

TYPE_CODE_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
TYPE_CODE_MAX = 8


def type_code_problem(code: object) -> str | None:
    """Why `code` cannot be a topic type's code (a letter, then letters and digits; at most 8),
    or None: the rule of the campaign file and the console's topic type form."""
    if not isinstance(code, str) or not TYPE_CODE_PATTERN.fullmatch(code):
        return f"{code!r} is not a topic type code: letters and digits, starting with a letter"
    if len(code) > TYPE_CODE_MAX:
        return f"a topic type code has at most {TYPE_CODE_MAX} characters"
    return None


def topic_type_for(topic_code: str, type_codes: Iterable[str]) -> str | None:
    """The topic type of a topic id: the longest type code its id starts with (M002 -> M)."""
    matches = [code for code in type_codes if topic_code.startswith(code)]
    return max(matches, key=len) if matches else None


def topic_problem(code: str, type_code: str, type_codes: Iterable[str]) -> tuple[str | None, str | None]:
    """(the topic's type, None) or (None, why not), for an id and a type named or left empty."""
    problem = id_problem(TOPIC, code)
    if problem is not None:
        return None, problem
    known = sorted(type_codes)
    if type_code:
        if type_code not in known:
            return None, f"{type_code!r} is not a topic type of the campaign ({', '.join(known) or 'none yet'})"
        return type_code, None
    found = topic_type_for(code, known)
    if found is None:
        return None, (f"no topic type for {code}: its first letter must be a topic type code ({', '.join(known)}), "
                      'or name its "type"')
    return found, None
