"""Membership vectors and target distributions: the one home of their rules.

Forms, the model `clean()` methods, the file formats and importers all call these, so a vector
is judged the same way wherever it is typed. Values are read exactly (1/3 + 1/3 + 1/3 is 1) and
written back so that reading them again gives the same floats.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from fractions import Fraction

VECTOR_TOLERANCE = 1e-6
SUM_TOLERANCE = VECTOR_TOLERANCE
_EXACT_TOLERANCE = Fraction(1, 10**6)


class VectorError(ValueError):
    """A vector that cannot be a probability distribution; the message says why, for a person."""


def parse_number(text: str) -> Fraction:
    """A value as written: ``1``, ``0.5``, ``.5``, ``1/2``, ``2/3``, ``1e-3`` -> exact Fraction.

    Raises VectorError with a readable reason (NaN, a division by zero, not a number).
    """
    item = "".join(text.split())
    if not item:
        raise VectorError("empty value")
    if item.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        raise VectorError(f"{item} is not a finite number")
    numerator, slash, denominator = item.partition("/")
    try:
        value = Fraction(numerator)
        if slash:
            divisor = Fraction(denominator)
            if divisor == 0:
                raise ZeroDivisionError
            value = value / divisor
    except ZeroDivisionError:
        raise VectorError(f"{item}: division by zero") from None
    except ValueError:
        raise VectorError(f"{item!r} is not a number (write 0.5 or 1/2)") from None
    return value


def vector_problem(values: Sequence[Fraction | float]) -> str | None:
    """Why a vector is no distribution (None when it is one): empty, NaN, negative, or not
    summing to 1 within 1e-6 (fractions are summed exactly)."""
    if not values:
        return "empty vector"
    for i, v in enumerate(values, 1):
        if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
            return f"value {i} is not a number"
        if isinstance(v, float) and not math.isfinite(v):
            return f"value {i} is not a finite number"
        if v < 0:
            return f"value {i} is negative ({format_number(float(v))})"
    if all(isinstance(v, (int, float)) for v in values) and abs(math.fsum(values) - 1) <= VECTOR_TOLERANCE:
        return None  # the common case, fast
    total = sum(Fraction(v) for v in values)  # exactly: thirds written 0.333333 are within 1e-6
    if abs(total - 1) > _EXACT_TOLERANCE:
        return f"vector sums to {float(total):.6g}, not 1"
    return None


def check_distribution(values: Iterable, length: int | None = None) -> None:
    """Raise VectorError unless `values` is a probability vector (of `length` entries)."""
    values = list(values)
    if length is not None and len(values) != length:
        raise VectorError(f"has {len(values)} values, expected {length}")
    problem = vector_problem(values)
    if problem is not None:
        raise VectorError(problem.removeprefix("vector "))


def parse_vector(text: str) -> tuple[float, ...]:
    """'(0,1/2,0,0,0,1/2,0,0)' or '0 0.5 0.5' -> floats; brackets optional, commas or spaces."""
    body = text.strip()
    if body[:1] in "([" and body[-1:] in ")]":
        body = body[1:-1]
    tokens = [t for t in re.split(r"[,\s;]+", body.strip()) if t]
    if not tokens:
        raise VectorError("the vector is empty")
    exact = [parse_number(t) for t in tokens]
    check_distribution(exact)
    return tuple(float(v) for v in exact)


def format_number(x: float) -> str:
    """A value written back: ``0``, ``1``, ``1/2``, ``1/3``, ``0.05`` (a fraction with a small
    denominator when that is exact, as the paper writes them, else the shortest repr), such that
    ``parse_number(format_number(x))`` gives x back exactly."""
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    shortest = repr(float(x))
    fraction = Fraction(x).limit_denominator(1000)
    if float(fraction) == x and (fraction.denominator <= 12 or len(shortest) > 6):
        return f"{fraction.numerator}/{fraction.denominator}"
    return shortest


def format_vector(values: Iterable[float]) -> str:
    """(0,1/2,0,0,0,1/2,0,0), as annotators write them."""
    return "(" + ",".join(format_number(v) for v in values) + ")"
