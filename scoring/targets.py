"""Target distributions: the one home of their rule.

A target p* (the distribution group fairness aims at) is used as given when it is a non-empty
vector of finite, non-negative numbers that sums to 1 within 1e-5. NTCIREVAL does not
renormalise a target, and neither do GFRC and GFR here: FairWeb-1's R-GENDER target is three
times 0.333333 (0.999999, a hair more than 1e-6 from 1 once read as floats) and is scored as
written. The sum is taken exactly (floats and fractions as the rationals they are), so the
verdict does not depend on the order of the values.

Everything that judges a target calls `target_problem`: the conversation side
(`scoring.gfrc.AttributeSet`), the ranked-list side (`scoring.gfr.GroupSet`), and through
`annotator.rules.vectors.check_target` the model, the campaign file and the console's form.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from fractions import Fraction

TARGET_TOLERANCE = 1e-5
_TOLERANCE = Fraction(repr(TARGET_TOLERANCE))


def _shown(value: Fraction) -> str:
    try:
        return f"{float(value):.6g}"
    except OverflowError:
        return "a huge number"


def target_problem(values: Sequence) -> str | None:
    """Why `values` cannot be used as a target (None when it can), worded to follow "the
    target": "is empty", "value 2 is negative (-0.1)", "sums to 0.9, not 1"."""
    if len(values) == 0:
        return "is empty"
    for i, v in enumerate(values, 1):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            return f"value {i} is not a number"
        if isinstance(v, numbers.Integral) or isinstance(v, Fraction):
            pass
        elif not math.isfinite(v):
            return f"value {i} is not a finite number"
        if v < 0:
            return f"value {i} is negative ({_shown(Fraction(v))})"
    total = sum(Fraction(v) for v in values)
    if abs(total - 1) > _TOLERANCE:
        return f"sums to {_shown(total)}, not 1"
    return None
