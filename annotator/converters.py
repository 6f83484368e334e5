"""URL path converters.

`<id:...>` is every id in a URL: like Django's `<int:...>` but at most 18 digits, so an id the
database cannot hold (`/conversations/99999999999999999999/`) is a 404 like any unknown id,
never an OverflowError. Registered once, in AnnotatorConfig.ready().
"""

from __future__ import annotations

import re

# 18 digits stay below 2**63 - 1, the largest id SQLite and PostgreSQL hold.
ID_PATTERN = "[0-9]{1,18}"


class IdConverter:
    regex = ID_PATTERN

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


_ID = re.compile(ID_PATTERN)


def read_id(text: str | None) -> int | None:
    """An id from a query string or a form field: None when absent or empty, ValueError when it
    is not a number or too large to be anyone's id (the database would overflow)."""
    if text is None or text == "":
        return None
    if not _ID.fullmatch(text):
        raise ValueError(f"{text[:40]!r} is not an id")
    return int(text)
