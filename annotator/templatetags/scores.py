"""How a score reads on a page: four decimals, and "–" where there is none (NaN, None)."""

from __future__ import annotations

import math

from django import template

register = template.Library()

MISSING = "–"


@register.filter
def score(value, digits: int = 4) -> str:
    """0.2641 for a number, "–" for a missing one (a topic type without that attribute set,
    a confidence interval of one topic): never "nan"."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return MISSING
    if math.isnan(number) or math.isinf(number):
        return MISSING
    return f"{number:.{int(digits)}f}"
