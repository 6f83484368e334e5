"""Account names the app gives meaning to, and what a new automatic judge may be called.

Three names are the app's own, in every campaign:

- ``citations``: the automatic judge holding the systems' own citations (every harvest's);
- ``adjudicated-gold``: the organisers' adjudicated gold (``adjudicated-gold-2``... if taken);
- ``gold``: whose judgments an imported file holds when nobody is named and nobody uploads it.

A judge named by an organiser (the LLM judge, an upload "as" a new judge) is never one of them
nor a look-alike that a reader would take for one (``Citations``, ``adjudicated_gold``,
``Adjudicated.Gold-3``): names are compared without letter case and the punctuation a user name
may hold. A new judge's name is plain ASCII (letters, digits and ``. _ @ + -``), so no other
alphabet's letter can pass for a Latin one.

Pure Python, no Django.
"""

from __future__ import annotations

import re

from annotator.rules.citations import CITATIONS_JUDGE

__all__ = ["CITATIONS_JUDGE", "ADJUDICATED_GOLD", "IMPORT_GOLD", "JUDGE_NAME_MAX", "judge_name_problem", "is_reserved"]

ADJUDICATED_GOLD = "adjudicated-gold"
IMPORT_GOLD = "gold"
JUDGE_NAME_MAX = 150  # Django's user name length

_JUDGE_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]*")
_PUNCTUATION = str.maketrans("", "", "._@+-")


def _folded(name: str) -> str:
    return name.casefold().translate(_PUNCTUATION)


def is_reserved(name: str) -> bool:
    """Whether `name` is, or reads as, one of the app's own accounts."""
    folded = _folded(name)
    return (folded in {_folded(CITATIONS_JUDGE), _folded(IMPORT_GOLD)}
            or folded.startswith(_folded(ADJUDICATED_GOLD)))


def judge_name_problem(name: str) -> str | None:
    """Why `name` cannot be a new automatic judge's, or None."""
    if not name:
        return "a judge needs a name"
    if len(name) > JUDGE_NAME_MAX:
        return f"a judge's name has at most {JUDGE_NAME_MAX} characters"
    if not _JUDGE_NAME_RE.fullmatch(name):
        return (f"{name!r} is not a judge name: letters, digits and . _ @ + - (ASCII), "
                "starting with a letter or a digit")
    if is_reserved(name):
        return (f"{name!r} is reserved: {CITATIONS_JUDGE!r} holds the systems' citations, {ADJUDICATED_GOLD!r} the "
                f"adjudicated gold and {IMPORT_GOLD!r} unnamed imports; choose another name")
    return None
