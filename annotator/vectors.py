"""Membership vectors and target distributions: the one home of their rules.

Forms, the model `clean()` methods and the file importers all call these, so a vector is
judged the same way wherever it is typed. Fractions are exact (1/3 + 2/3 is 1).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

SUM_TOLERANCE = 1e-6

_NUMBER = re.compile(r"^\s*(-?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?:/\s*([0-9]*\.?[0-9]+)\s*)?$")


class VectorError(ValueError):
    """A vector that cannot be a probability distribution; the message says why, for a person."""


def parse_number(token: str) -> Fraction:
    """'1/2', '0.5', '1' -> exact Fraction; refuses negatives, NaN, infinities and junk."""
    match = _NUMBER.match(token)
    if not match:
        raise VectorError(f"{token.strip()!r} is not a number or fraction")
    numerator = Fraction(match.group(1))
    if match.group(2) is None:
        return numerator
    denominator = Fraction(match.group(2))
    if denominator == 0:
        raise VectorError(f"{token.strip()!r} divides by zero")
    return numerator / denominator


def parse_vector(text: str) -> tuple[float, ...]:
    """'(0,1/2,0,0,0,1/2,0,0)' or '0 0.5 0.5' -> floats; brackets optional, commas or spaces."""
    body = text.strip()
    if body[:1] in "([" and body[-1:] in ")]":
        body = body[1:-1]
    tokens = [t for t in re.split(r"[,\s;]+", body.strip()) if t]
    if not tokens:
        raise VectorError("the vector is empty")
    exact = [parse_number(t) for t in tokens]
    check_distribution([float(v) for v in exact], exact_sum=sum(exact))
    return tuple(float(v) for v in exact)


def check_distribution(values, length: int | None = None, exact_sum: Fraction | None = None) -> None:
    """Raise VectorError unless `values` is a probability vector (of `length` entries)."""
    values = list(values)
    if length is not None and len(values) != length:
        raise VectorError(f"has {len(values)} values, expected {length}")
    for value in values:
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise VectorError(f"{value!r} is not a finite number")
        if value < 0:
            raise VectorError(f"{value!r} is negative")
    total = exact_sum if exact_sum is not None else math.fsum(values)
    if abs(float(total) - 1.0) > SUM_TOLERANCE:
        raise VectorError(f"sums to {float(total):.6g}, not 1")


def format_vector(values) -> str:
    """Shortest faithful text for a vector: (0,1/2,0,0,0,1/2,0,0), as annotators write them."""
    parts = []
    for value in values:
        fraction = Fraction(value).limit_denominator(1000)
        if abs(float(fraction) - value) > 1e-9:
            parts.append(repr(float(value)))
        elif fraction.denominator == 1:
            parts.append(str(fraction.numerator))
        else:
            parts.append(f"{fraction.numerator}/{fraction.denominator}")
    return "(" + ",".join(parts) + ")"
