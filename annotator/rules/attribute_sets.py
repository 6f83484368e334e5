"""What an attribute set may be called: the one rule the model, the console's form, the campaign
file and the paper writer share.

A name is written as `#NAME: (vector)` in the paper format and becomes the column GF_<name>
of every score table, so it is letters, digits, `_` and `-`, starting with a letter, and never
one of the paper format's own extension lines (#SPAN:, #ENTITY:, #COMMENT:).
"""

from __future__ import annotations

import re

MAX_LENGTH = 50  # AttributeSet.name's max_length
NAME = r"[A-Za-z][A-Za-z0-9_\-]*"  # also the paper format's grammar of a membership line
NAME_RE = re.compile(rf"^{NAME}$")
RESERVED = ("SPAN", "ENTITY", "COMMENT")  # extension lines of the paper format
HINT = "letters, digits, _ and -, starting with a letter"


def attribute_set_name_problem(name: str) -> str | None:
    """None when `name` may name an attribute set; else what is wrong, as a phrase that follows
    the name ("'a/b' is not allowed: ...")."""
    if len(name) > MAX_LENGTH:
        return f"is longer than {MAX_LENGTH} characters"
    if not NAME_RE.match(name):
        return f"{name!r} is not allowed: {HINT}"
    if name in RESERVED:
        return f"{name} is reserved by the paper format (#SPAN:, #ENTITY:, #COMMENT:)"
    return None
