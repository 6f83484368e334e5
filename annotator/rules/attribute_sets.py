"""The rules of an attribute set, in one home: its name, kind, groups, target, divergence,
weight and membership helper.

`read_attribute_set` judges a set as the campaign file describes it (the model and the console's
form describe theirs the same way) and returns it with the defaults filled in and the target
read, and its problems as ``(field, message)`` pairs (annotator.rules.problems): the model's
`full_clean`, the console's attribute-set form and the campaign file all ask it, and say its
problems in its words. So a set one of them accepts, every other accepts, and a set one refuses,
every other refuses with the same words.

Pure Python (no Django).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotator.rules.evidence import EvidenceError, derived_target, mapping_key
from annotator.rules.ids import ATTRIBUTE_SET, id_problem
from annotator.rules.problems import Problem, choice_problem, is_number, number_problem
from annotator.rules.vectors import VectorError, check_length, check_target, exact_number
from scoring.divergence import DIVERGENCES as DIVERGENCE_FUNCTIONS

NOMINAL, ORDINAL = "nominal", "ordinal"
KINDS = (NOMINAL, ORDINAL)
DIVERGENCES = tuple(DIVERGENCE_FUNCTIONS)  # jsd, nmd, rnod: what scoring computes
NOMINAL_DIVERGENCE = "jsd"  # nominal groups have no order: only JSD ignores it
DEFAULT_DIVERGENCE = {NOMINAL: NOMINAL_DIVERGENCE, ORDINAL: "rnod"}
UNIFORM = "uniform"
FROM_MAPPING = ("from-mapping", "from_mapping")
HELPERS = ("bands", "mapping")


def read_attribute_set(given: Mapping[str, Any]) -> tuple[dict, list[Problem]]:
    """The set `given` describes ({name, kind, groups, and optionally target, divergence, weight,
    helper}: a campaign file's entry), with defaults (a uniform target, JSD for nominal and RNOD
    for ordinal groups, weight 1, no helper) and its target read as floats (`target` may be a list
    of probabilities, "uniform" or "from-mapping"); and its problems, in the campaign file's
    order. A value with a problem is None in what is returned."""
    problems: list[Problem] = []
    name = given.get("name")
    if (name_problem := id_problem(ATTRIBUTE_SET, name)) is not None:
        problems.append(("name", name_problem))
    kind = given.get("kind")
    if kind not in KINDS:
        problems.append(("kind", choice_problem(KINDS)))
        kind = None
    groups = _groups(given.get("groups"), problems)
    divergence = given.get("divergence", DEFAULT_DIVERGENCE.get(kind, "rnod"))
    if divergence not in DIVERGENCES:
        problems.append(("divergence", choice_problem(DIVERGENCES)))
        divergence = None
    elif kind == NOMINAL and divergence != NOMINAL_DIVERGENCE:
        problems.append(("divergence", "nominal groups have no order: use jsd"))
    weight = given.get("weight", 1)
    if (weight_problem := number_problem(weight, low=0)) is not None:
        problems.append(("weight", weight_problem))
    helper = given.get("helper")
    helper = {} if helper is None else helper
    read_helper = _helper(helper, kind, groups, problems)
    target = None
    if groups is not None:
        mapping_refused = isinstance(helper, dict) and "mapping" in helper and "mapping" not in read_helper
        target = _target(given.get("target", UNIFORM), groups, read_helper, problems, mapping_refused)
    return {
        "name": None if name_problem else name, "kind": kind, "groups": groups, "target": target,
        "divergence": divergence, "weight": None if weight_problem else float(weight), "helper": read_helper,
    }, problems


def regrouping_problem(name: str, groups_before: int, groups_after: int, judged: bool) -> Problem | None:
    """A set whose memberships were judged keeps its number of groups: every vector has one
    value per group."""
    if judged and groups_before != groups_after:
        return ("groups", f"{name} has {groups_before} groups and memberships judged against them: "
                          f"its number of groups cannot change to {groups_after}")
    return None


def same_value_problem(earlier: str) -> str:
    """What a mapping's value is told when an earlier one has its key (`mapping_key`)."""
    return f"the same value as {earlier!r} (values match case-insensitively)"


def _groups(groups: Any, problems: list[Problem]) -> list[str] | None:
    if not isinstance(groups, (list, tuple)) or not groups or not all(isinstance(g, str) and g.strip() for g in groups):
        problems.append(("groups", "must be a non-empty list of group labels"))
        return None
    if len(set(groups)) != len(groups):
        problems.append(("groups", "group labels must be distinct"))
        return None
    return list(groups)


def _helper(helper: Any, kind: str | None, groups: list[str] | None, problems: list[Problem]) -> dict:
    """The helper's parts that hold (bands, a mapping); what does not, in `problems`."""
    if not isinstance(helper, dict):
        problems.append(("helper", "must be an object"))
        return {}
    for key in helper:
        if key not in HELPERS:
            problems.append((f"helper.{key}", f"unknown field (expected one of: {', '.join(HELPERS)})"))
    read: dict[str, Any] = {}
    if "bands" in helper and (bands := _bands(helper["bands"], kind, groups, problems)) is not None:
        read["bands"] = bands
    if "mapping" in helper and (mapping := _mapping(helper["mapping"], groups, problems)) is not None:
        read["mapping"] = mapping
    return read


def _bands(bands: Any, kind: str | None, groups: list[str] | None, problems: list[Problem]) -> list | None:
    """Ordinal bands: K - 1 limits between K groups, strictly increasing."""
    ok = True
    if kind != ORDINAL:
        problems.append(("helper.bands", "bands need ordinal groups"))
        ok = False
    if not isinstance(bands, list) or not all(is_number(b) for b in bands):
        problems.append(("helper.bands", "must be a list of numbers (group limits)"))
    elif sorted(bands) != bands or len(set(bands)) != len(bands):
        problems.append(("helper.bands", "must be strictly increasing"))
    elif groups is not None and len(bands) != len(groups) - 1:
        problems.append(("helper.bands", f"{len(groups)} groups need {len(groups) - 1} band limits, found {len(bands)}"))
    else:
        return bands if ok else None
    return None


def _mapping(mapping: Any, groups: list[str] | None, problems: list[Problem]) -> dict | None:
    """Values -> a group label or a list of them; two values of one key (letter case, surrounding
    spaces: `mapping_key`) are refused, since evidence could not tell them apart."""
    if not isinstance(mapping, dict) or not mapping:
        problems.append(("helper.mapping", "must map values to group labels"))
        return None
    ok = True
    seen: dict[str, str] = {}
    for value, target in mapping.items():
        targets = [target] if isinstance(target, str) else target
        if (not isinstance(targets, list) or not targets or not all(isinstance(t, str) for t in targets)
                or (groups is not None and any(t not in groups for t in targets))):
            problems.append((f"helper.mapping.{value}", f"must be a group label (or a list of them): {', '.join(groups or [])}"))
            ok = False
        key = mapping_key(value) if isinstance(value, str) else value
        if key in seen:
            problems.append((f"helper.mapping.{value}", same_value_problem(seen[key])))
            ok = False
        seen.setdefault(key, value)
    return mapping if ok else None


def _target(target: Any, groups: list[str], helper: dict, problems: list[Problem], mapping_refused: bool) -> list | None:
    """A target as given: a list of probabilities, one per group, summing to 1 within 1e-5 and
    used as given (annotator.rules.vectors.check_target), "uniform", or "from-mapping"."""
    if target == UNIFORM:
        return [1 / len(groups)] * len(groups)
    if isinstance(target, str) and target in FROM_MAPPING:
        if mapping_refused:
            return None  # the mapping's own problems say what to fix
        if "mapping" not in helper:
            problems.append(("target", "deriving the target from the mapping needs a helper with a mapping"))
            return None
        try:
            return list(derived_target(helper["mapping"], groups))
        except EvidenceError as error:
            problems.append(("target", str(error)))
            return None
    if not isinstance(target, (list, tuple)):
        problems.append(("target", 'must be "uniform", "from-mapping" or a list of probabilities, one per group'))
        return None
    try:
        check_length(target, len(groups))  # before any number is read: a million values are refused at once
        exact = [_probability(i, value) for i, value in enumerate(target, 1)]
        check_target(exact)
    except VectorError as error:
        problems.append(("target", f"the target {error}"))
        return None
    return [float(v) for v in exact]


def _probability(index: int, value: Any):
    try:
        return exact_number(value)
    except VectorError as error:
        raise VectorError(str(error) if isinstance(value, str) else f"value {index} is not a number") from None
