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
from functools import lru_cache

VECTOR_TOLERANCE = 1e-6
SUM_TOLERANCE = VECTOR_TOLERANCE
# A target distribution is used as given when it sums to 1 within 1e-5: FairWeb-1's R-GENDER
# target is three times 0.333333 (0.999999, a hair more than 1e-6 away once read as floats).
TARGET_TOLERANCE = 1e-5


class VectorError(ValueError):
    """A vector that cannot be a probability distribution; the message says why, for a person."""


# Bounds that keep reading a number cheap: Fraction("1e-99999999") would build a
# hundred-million-digit integer. No vector, target or count needs more than these.
MAX_DIGITS = 40
MAX_EXPONENT = 300
LARGEST = Fraction(10) ** MAX_EXPONENT
_DECIMAL = re.compile(r"[+-]?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?")


def check_range(value: Fraction, written: str) -> Fraction:
    """`value` unless its size is beyond any vector, target or count (1e300)."""
    if abs(value) > LARGEST:
        raise VectorError(f"{written} is out of range (at most 1e{MAX_EXPONENT})")
    return value


def _decimal(item: str) -> Fraction:
    """A plain decimal (``0.5``, ``.5``, ``1e-3``, ``-2``) read exactly, at bounded cost."""
    match = _DECIMAL.fullmatch(item)
    if match is None:
        raise VectorError(f"{item[:40]!r} is not a number (write 0.5 or 1/2)")
    whole, part, bare, exponent = match.groups()
    if len((whole or "") + (part or bare or "")) > MAX_DIGITS:
        raise VectorError(f"{item[:40]} has too many digits (at most {MAX_DIGITS})")
    if exponent is not None and (len(exponent) > 6 or abs(int(exponent)) > MAX_EXPONENT):
        raise VectorError(f"{item[:40]}: the exponent is out of range (at most {MAX_EXPONENT})")
    return check_range(Fraction(item), item)


def parse_number(text: str) -> Fraction:
    """A value as written: ``1``, ``0.5``, ``.5``, ``1/2``, ``2/3``, ``1e-3`` -> exact Fraction.

    The one reader of typed and imported numbers (vectors, targets, evidence): its cost is
    bounded (at most 40 digits, exponents within +-300). Raises VectorError with a readable
    reason (NaN, a division by zero, not a number, too many digits, out of range).
    """
    item = "".join(text.split())
    if not item:
        raise VectorError("empty value")
    if item.lower().lstrip("+-") in ("nan", "inf", "infinity"):
        raise VectorError(f"{item} is not a finite number")
    numerator, slash, denominator = item.partition("/")
    value = _decimal(numerator)
    if slash:
        divisor = _decimal(denominator)
        if divisor == 0:
            raise VectorError(f"{item[:40]}: division by zero")
        value = check_range(value / divisor, item[:40])
    return value


def exact_number(value: object) -> Fraction:
    """A number from a JSON file or body (int, float or a written "1/3") read exactly, bounded
    like `parse_number`."""
    if isinstance(value, str):
        return parse_number(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise VectorError("not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise VectorError(f"{value} is not a finite number")
    return check_range(Fraction(value), "the number" if isinstance(value, int) else repr(value))


def _readable(value: Fraction | float, style: str = "") -> str:
    """A value for a message; a number too large for a float is named, not converted."""
    try:
        return style.format(float(value)) if style else format_number(float(value))
    except OverflowError:
        return "a huge number"


def vector_problem(values: Sequence[Fraction | float], tolerance: float = VECTOR_TOLERANCE) -> str | None:
    """Why a vector is no distribution (None when it is one): empty, NaN, negative, or not
    summing to 1 within `tolerance` (1e-6; TARGET_TOLERANCE for targets; fractions are
    summed exactly)."""
    if not values:
        return "empty vector"
    for i, v in enumerate(values, 1):
        if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
            return f"value {i} is not a number"
        if isinstance(v, float) and not math.isfinite(v):
            return f"value {i} is not a finite number"
        if v < 0:
            return f"value {i} is negative ({_readable(v)})"
    # the common case, fast (values of at most 1 cannot overflow the float sum)
    if all(isinstance(v, (int, float)) and v <= 1 for v in values) and abs(math.fsum(values) - 1) <= tolerance:
        return None
    total = sum(Fraction(v) for v in values)  # exactly: thirds written 0.3333333 are within 1e-6
    if abs(total - 1) > Fraction(repr(float(tolerance))):
        return f"vector sums to {_readable(total, '{:.6g}')}, not 1"
    return None


def check_distribution(values: Iterable, length: int | None = None, tolerance: float = VECTOR_TOLERANCE) -> None:
    """Raise VectorError unless `values` is a probability vector (of `length` entries)."""
    values = list(values)
    if length is not None and len(values) != length:
        raise VectorError(f"has {len(values)} values, expected {length}")
    problem = vector_problem(values, tolerance)
    if problem is not None:
        raise VectorError(problem.removeprefix("vector "))


def parse_vector(text: str, tolerance: float = VECTOR_TOLERANCE) -> tuple[float, ...]:
    """'(0,1/2,0,0,0,1/2,0,0)' or '0 0.5 0.5' -> floats; brackets optional, commas or spaces."""
    body = text.strip()
    if body[:1] in "([" and body[-1:] in ")]":
        body = body[1:-1]
    tokens = [t for t in re.split(r"[,\s;]+", body.strip()) if t]
    if not tokens:
        raise VectorError("the vector is empty")
    exact = [parse_number(t) for t in tokens]
    check_distribution(exact, tolerance=tolerance)
    return tuple(float(v) for v in exact)


@lru_cache(maxsize=65536)  # an export writes the same few values (1/2, 1/3, a target) again and again
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
