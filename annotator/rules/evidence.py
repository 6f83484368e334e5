"""Membership helpers: turn the raw evidence annotators copy from the web into vectors.

An attribute set's `helper` (JSON) says how:
- ordinal bands from a number: {"bands": [100, 10000, 1000000]} means group 1 < 100 <= group 2
  < 10000 <= group 3 < 1000000 <= group 4 (len(bands) == len(groups) - 1). Evidence such as
  "1.3M", "898K", "43,000" or "h-index 27" is read as a number (K = 10^3, M = 10^6, B = 10^9).
- nominal groups from a list of values: {"mapping": {"United Kingdom": "Europe", ...}} maps each
  value to a group label, or to a list of labels for a value split between groups (Turkey:
  ["Europe", "Middle East"] counts half in each); evidence "United Kingdom, United States" gives each listed value an
  equal share of its group: (0,1/2,0,0,0,1/2,0,0) for ORIGIN. Values match case-insensitively
  and without surrounding spaces (`mapping_key`); a mapping holding two values of one key is
  refused when it is set up (annotator.rules.attribute_sets). One stored before that rule, whose
  two values send the key to different groups, refuses evidence naming it: which was meant is
  not known, and neither is read as the other.

Pure Python: the forms, the importers and the API all call `vector_from_evidence`.
"""

from __future__ import annotations

import bisect
import re
from fractions import Fraction

from annotator.rules.vectors import VectorError, check_range, parse_number

# The first number in the text, with its sign (a count is never negative: "-5" is refused, not
# read as 5), exponent ("1e6") and K/M/B scale; "h-index 27" is 27 (a dash before a letter).
_NUMBER = re.compile(r"(-?)(\d[\d,]*(?:\.\d+)?|\.\d+)((?:[eE][+-]?\d+)?)\s*([kKmMbB])?")
_SCALE = {"k": 1_000, "m": 1_000_000, "b": 1_000_000_000}
_SEPARATORS = re.compile(r"\s*[,;|]\s*")


class EvidenceError(ValueError):
    """Evidence the helper cannot read; the message says what to type instead."""


def read_number(evidence: str) -> float:
    """'1.3M' -> 1300000.0; '43,000 ratings' -> 43000.0; the first number in the text counts.

    Read by the one bounded number reader (annotator.rules.vectors.parse_number); negative counts and
    numbers beyond 1e300 are refused."""
    match = _NUMBER.search(evidence)
    if not match:
        raise EvidenceError(f"no number in {evidence[:80]!r} (type e.g. 1.3M, 898K or 43000)")
    sign, digits, exponent, scale = match.groups()
    written = match.group(0).strip()
    if sign:
        raise EvidenceError(f"{written} is negative: a count is 0 or more")
    try:
        value = check_range(parse_number(digits.replace(",", "") + exponent) * _SCALE.get((scale or "").lower(), 1), written)
    except VectorError as error:
        raise EvidenceError(str(error)) from None
    return float(value)


def band_vector(bands: list[float], n_groups: int, evidence: str) -> tuple[float, ...]:
    if len(bands) != n_groups - 1:
        raise EvidenceError(f"the helper has {len(bands)} band limits for {n_groups} groups")
    index = bisect.bisect_right(sorted(bands), read_number(evidence))
    return tuple(1.0 if i == index else 0.0 for i in range(n_groups))


def _groups_of(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def mapping_key(value: str) -> str:
    """How a mapping's value is matched: without surrounding spaces, in any case ("japan " is
    Japan)."""
    return value.strip().casefold()


def _lookup(mapping: dict[str, str | list[str]]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Each key's groups, and the keys that two values of the mapping share while sending them
    to different groups (older data) -> those values."""
    groups_of: dict[str, list[str]] = {}
    values_of: dict[str, list[str]] = {}
    clashing: set[str] = set()
    for value, groups in mapping.items():
        key = mapping_key(value)
        values_of.setdefault(key, []).append(value)
        if groups_of.setdefault(key, _groups_of(groups)) != _groups_of(groups):
            clashing.add(key)
    return ({key: groups for key, groups in groups_of.items() if key not in clashing},
            {key: values_of[key] for key in clashing})


def _values(evidence: str, lookup: dict | set) -> list[str]:
    """Split evidence into values, keeping names that hold a separator whole when the mapping
    knows them ("Korea, Republic of"; "Bosnia and Herzegovina" is never split at all)."""
    pieces = [p for p in _SEPARATORS.split(evidence.strip()) if p]
    values, i = [], 0
    while i < len(pieces):
        for j in range(len(pieces), i, -1):
            candidate = ", ".join(pieces[i:j])
            if j == i + 1 or mapping_key(candidate) in lookup:
                values.append(candidate)
                i = j
                break
    return values


def mapping_vector(mapping: dict[str, str | list[str]], groups: list[str], evidence: str) -> tuple[float, ...]:
    lookup, clashes = _lookup(mapping)
    values = _values(evidence, lookup.keys() | clashes.keys())
    if not values:
        raise EvidenceError("no values given (type e.g. United Kingdom, United States)")
    for value in values:
        if mapping_key(value) in clashes:
            raise EvidenceError(f"{value} is ambiguous: the helper maps {' and '.join(clashes[mapping_key(value)])} "
                                "to different groups (the organiser must keep one)")
    shares = [Fraction(0)] * len(groups)
    unknown = []
    for value in values:
        targets = lookup.get(mapping_key(value)) or ([value] if value in groups else [])
        if not targets or any(group not in groups for group in targets):
            unknown.append(value)
            continue
        for group in targets:
            shares[groups.index(group)] += Fraction(1, len(values) * len(targets))
    if unknown:
        raise EvidenceError(f"unknown value(s): {', '.join(unknown)}")
    return tuple(float(s) for s in shares)


def vector_from_evidence(helper: dict, groups: list[str], evidence: str) -> tuple[float, ...]:
    """The membership vector that `evidence` implies under the attribute set's helper."""
    if not helper:
        raise EvidenceError("this attribute set has no helper: type the vector")
    if "bands" in helper:
        return band_vector(helper["bands"], len(groups), evidence)
    if "mapping" in helper:
        return mapping_vector(helper["mapping"], groups, evidence)
    raise EvidenceError("the helper has neither bands nor a mapping")


def derived_target(mapping: dict[str, str | list[str]], groups: list[str]) -> tuple[float, ...]:
    """A target proportional to how many values (countries) each group holds, as FairWeb's ORIGIN
    (a value split between k groups counts 1/k in each)."""
    counts = [0.0] * len(groups)
    for value in mapping.values():
        targets = _groups_of(value)
        for group in targets:
            if group in groups:
                counts[groups.index(group)] += 1 / len(targets)
    total = sum(counts)
    if total == 0:
        raise EvidenceError("the mapping assigns no value to any group")
    return tuple(c / total for c in counts)
