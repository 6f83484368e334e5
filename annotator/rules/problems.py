"""How the set-up rules (annotator.rules.attribute_sets, annotator.rules.campaign_settings) say
what they refuse, so that every entrance says it in the same words.

A rule returns its problems as ``(field, message)`` pairs: `field` is the rule's name of what is
wrong (``"alpha"``, ``"helper.bands"``, ``"helper.mapping.Japan"``), `message` a phrase that
follows it (``"must be between 0 and 1"``). The campaign file writes the phrase after its JSON
path (``settings.alpha: must be between 0 and 1``); a form or the model shows it beside its
own field as a sentence (``Must be between 0 and 1.``), led by where within that field when the
rule's field is finer (``Japan: must be a group label ...``): `placed`.

Pure Python (no Django).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from annotator.rules.vectors import VectorError, exact_number

Problem = tuple[str, str]
NOT_A_NUMBER = "must be a number"
NOT_A_WHOLE_NUMBER = "must be a whole number"


def is_number(value: object) -> bool:
    """A number as JSON or a form gives it (not a text, not a boolean), finite and within the
    bounded reader's range (annotator.rules.vectors.exact_number: at most 1e300)."""
    if isinstance(value, str):
        return False
    try:
        exact_number(value)
    except VectorError:
        return False
    return True


def number_problem(value: object, *, low: float | None = None, high: float | None = None,
                   integer: bool = False) -> str | None:
    """Why `value` is not a number (a whole one when `integer`) within [low, high]; None when it is."""
    if not is_number(value) or (integer and not (isinstance(value, int) or float(value).is_integer())):
        return NOT_A_WHOLE_NUMBER if integer else NOT_A_NUMBER
    if (low is not None and value < low) or (high is not None and value > high):
        return f"must be between {low} and {high}" if high is not None else f"must be at least {low}"
    return None


def choice_problem(choices: Iterable[str]) -> str:
    """What a value outside `choices` is told."""
    return f"must be one of: {', '.join(choices)}"


def as_sentence(message: str, where: str = "") -> str:
    """A rule's phrase as a form or the model shows it: "must be at least 1" -> "Must be at least
    1."; with `where` (a place within the field, shown as it is written): "Japan: must be ..."."""
    text = f"{where}: {message}" if where else message[:1].upper() + message[1:]
    return text if text.endswith(".") else text + "."


def placed(problems: Iterable[Problem], fields: Mapping[str, str]) -> list[Problem]:
    """Each problem beside the entrance's field that holds its rule field, as a sentence.

    `fields` maps rule fields to the entrance's (``{"helper.mapping": "mapping_text"}``); a rule
    field goes to the longest one it starts with, and what it adds is said as where within it:
    ``("helper.mapping.Japan", m)`` -> ``("mapping_text", "Japan: m.")``. A rule field no entry
    holds is an error of the entrance (KeyError)."""
    out = []
    for field, message in problems:
        holder = max((name for name in fields if field == name or field.startswith(name + ".")), key=len, default=None)
        if holder is None:
            raise KeyError(field)
        out.append((fields[holder], as_sentence(message, field[len(holder) + 1:])))
    return out
