"""Membership vectors: the one home of their rules; target distributions read through the
rule of `scoring.targets` (used as given when they sum to 1 within 1e-5).

Forms, the model `clean()` methods, the file formats and importers all call these, so a vector
is judged the same way wherever it is typed. Values are read exactly (1/3 + 1/3 + 1/3 is 1) and
written back so that reading them again gives the same floats.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence, Sized
from fractions import Fraction
from functools import lru_cache

from scoring.targets import target_problem

VECTOR_TOLERANCE = 1e-6
SUM_TOLERANCE = VECTOR_TOLERANCE


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
    """Why a membership vector is no distribution (None when it is one): empty, NaN, negative,
    or not summing to 1 within `tolerance` (1e-6; fractions are summed exactly). Targets have
    their own rule: `check_target`."""
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


def check_length(values: Sized, length: int) -> None:
    """A vector has as many values as its attribute set has groups: checked first, before any of
    its numbers is read, so that a vector of a million values is refused at once (reading them
    exactly takes seconds)."""
    if len(values) != length:
        raise VectorError(f"has {len(values)} values, expected {length}")


def check_distribution(values: Iterable, length: int | None = None, tolerance: float = VECTOR_TOLERANCE) -> None:
    """Raise VectorError unless `values` is a probability vector (of `length` entries)."""
    values = list(values)
    if length is not None:
        check_length(values, length)
    problem = vector_problem(values, tolerance)
    if problem is not None:
        raise VectorError(problem.removeprefix("vector "))


def check_target(values: Iterable, length: int | None = None) -> None:
    """Raise VectorError unless `values` can be used as a target (of `length` entries): the rule
    of `scoring.targets` (a distribution within 1e-5, used as given), so that a target the model,
    the campaign file or the console accepts is one GFRC and GFR score."""
    values = list(values)
    if length is not None:
        check_length(values, length)
    problem = target_problem(values)
    if problem is not None:
        raise VectorError(problem)


def written_values(text: str) -> list[str]:
    """A vector as typed ('(1/4, 1/4)', '0.5 0.5', '[1;0]') -> its values as written: brackets
    optional, commas, semicolons or spaces between them."""
    body = text.strip()
    if body[:1] in "([" and body[-1:] in ")]":
        body = body[1:-1]
    return [t for t in re.split(r"[,\s;]+", body.strip()) if t]


def _written_numbers(text: str, length: int | None = None) -> list[Fraction]:
    tokens = written_values(text)
    if not tokens:
        raise VectorError("the vector is empty")
    if length is not None:
        check_length(tokens, length)
    return [parse_number(t) for t in tokens]


def parse_vector(text: str, length: int | None = None) -> tuple[float, ...]:
    """'(0,1/2,0,0,0,1/2,0,0)' or '0 0.5 0.5' -> floats; brackets optional, commas or spaces.
    With `length` (the attribute set's groups), a vector of another length is refused before
    its numbers are read."""
    exact = _written_numbers(text, length)
    check_distribution(exact)
    return tuple(float(v) for v in exact)


def read_vector(given: object, length: int) -> tuple[float, ...]:
    """A membership vector as sent (a list of numbers, "1/3" strings allowed) or typed (the text
    `parse_vector` reads), for an attribute set of `length` groups: its length first, then its
    numbers, read exactly, then the distribution. The one reader of the API, the edit service
    and the forms."""
    if isinstance(given, str):
        return parse_vector(given, length)
    if not isinstance(given, (list, tuple)):
        raise VectorError("must be a list of numbers or a vector written as text")
    check_length(given, length)
    exact = []
    for i, value in enumerate(given, 1):
        try:
            exact.append(exact_number(value))
        except VectorError as error:
            raise VectorError(f"value {i} is not a number ({error})" if str(error) != "not a number"
                              else f"value {i} is not a number") from None
    check_distribution(exact)
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
