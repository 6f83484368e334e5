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


@register.filter
def duration(seconds) -> str:
    """A time on task as people read it: "45 s", "12 min 05 s", "2 h 03 min"; "–" for none."""
    try:
        total = float(seconds)
    except (TypeError, ValueError):
        return MISSING
    if math.isnan(total) or math.isinf(total) or total < 0:
        return MISSING
    total = int(round(total))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"
