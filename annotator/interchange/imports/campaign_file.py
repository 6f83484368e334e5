"""Campaign files: a whole campaign set-up (settings, grades, topic types with their attribute
sets, topics, runs) in one JSON file, loaded idempotently (docs/formats.md, "Campaign file").

`validate_campaign(data)` checks the JSON alone and returns every problem with its JSON path;
`load_campaign(data)` then creates or updates the campaign in one transaction (running it
twice changes nothing), refusing what would break judgments already in the database (changing
the number of groups of an attribute set that has memberships, moving a judged topic to
another type).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from annotator.rules.ids import ATTRIBUTE_SET, RUN, TOPIC, id_problem
from annotator.rules.topics import TYPE_CODE_MAX, TYPE_CODE_PATTERN, topic_type_for  # noqa: F401 (re-exported)
from annotator.rules.evidence import derived_target
from annotator.interchange.formats.model import loads_json
from annotator.models import AttributeSet, Campaign, Entity, Grade, Membership, Run, Topic, TopicType
from annotator.rules.vectors import VectorError, check_target, exact_number
from annotator.scores.stored import invalidation
from scoring import gfr

__all__ = [
    "CampaignProblem",
    "CampaignFileError",
    "LoadReport",
    "validate_campaign",
    "load_campaign",
    "load_campaign_file",
    "topic_type_for",
    "describe_campaign",
    "create_campaign",
    "parse_campaign_file",
]

SLUG_RE = re.compile(r"^[-a-zA-Z0-9_]+$")
GRADE_RE = re.compile(r"^L(\d+)$")

PAPER_SETTINGS = {
    "L": 1250,
    "grades": {"L0": 0.0, "L1": 0.5, "L2": 1.0},
    "alpha": 0.5,
    "method": "independent",
    "empty_turns": "ignore",
    "turn_weight": "one",
    "duplicates_count_once": True,
    "missing_membership": "uniform",
    "ranked_list_gains": None,  # FairWeb-1's (RANKED_LIST_GAINS) for the grades it names
    "ranked_list_cutoff": gfr.DEFAULT_CUTOFF,
}
RANKED_LIST_GAINS = gfr.DEFAULT_GAINS


@dataclass(frozen=True)
class CampaignProblem:
    source: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.where}: {self.message}" if self.where else f"{self.source}: {self.message}"


class CampaignFileError(Exception):
    def __init__(self, problems: list[CampaignProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass
class LoadReport:
    campaign: Campaign
    created: bool
    changes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    contents: str = ""

    def summary(self) -> str:
        if self.created:
            return f"Campaign {self.campaign.slug} created: {self.contents}"
        if self.changes:
            return f"Campaign {self.campaign.slug} updated: {len(self.changes)} change(s)"
        return f"Campaign {self.campaign.slug} unchanged"


# -- validation (no database) ---------------------------------------------------------------


class _Checker:
    def __init__(self, source: str):
        self.source = source
        self.problems: list[CampaignProblem] = []

    def error(self, where: str, message: str) -> None:
        self.problems.append(CampaignProblem(self.source, where, message))

    def obj(self, value: Any, where: str, allowed: set[str], required: set[str] = frozenset()) -> dict | None:
        if not isinstance(value, dict):
            self.error(where, "must be an object")
            return None
        for key in value:
            if key not in allowed and key not in ("note", "_note", "comment"):
                self.error(f"{where}.{key}" if where else key, f"unknown field (expected one of: {', '.join(sorted(allowed))})")
        for key in sorted(required):
            if key not in value:
                self.error(f"{where}.{key}" if where else key, "required")
        return value

    def string(self, value: Any, where: str, *, max_length: int, required: bool = True, pattern=None, hint: str = "") -> str | None:
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value.strip()):
            self.error(where, "must be a non-empty string" if required else "must be a string")
            return None
        if len(value) > max_length:
            self.error(where, f"is longer than {max_length} characters")
            return None
        if pattern is not None and not pattern.fullmatch(value):
            self.error(where, f"{value!r} is not allowed{': ' + hint if hint else ''}")
            return None
        return value

    def id(self, value: Any, where: str, kind: str) -> str | None:
        """A topic or attribute-set id, by the one rule on ids (annotator.rules.ids)."""
        problem = id_problem(kind, value)
        if problem is not None:
            self.error(where, problem)
            return None
        return value

    def number(self, value: Any, where: str, *, low: float | None = None, high: float | None = None, integer: bool = False):
        ok = _is_number(value)
        if ok and integer and not (isinstance(value, int) or float(value).is_integer()):
            ok = False
        if not ok:
            self.error(where, "must be a whole number" if integer else "must be a number")
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
            self.error(where, f"must be {bounds}")
            return None
        return int(value) if integer else float(value)

    def choice(self, value: Any, where: str, choices) -> str | None:
        if value not in choices:
            self.error(where, f"must be one of: {', '.join(choices)}")
            return None
        return value


def _is_number(value: Any) -> bool:
    """A JSON number the bounded reader accepts (finite, at most 1e300)."""
    if isinstance(value, str):
        return False
    try:
        exact_number(value)
    except VectorError:
        return False
    return True


def validate_campaign(data: Any, source: str = "campaign") -> tuple[dict, list[CampaignProblem]]:
    """The campaign file's content checked and normalised (defaults filled in), and every
    problem with its JSON path. Nothing is read from or written to the database."""
    c = _Checker(source)
    spec: dict[str, Any] = {}
    top = c.obj(data, "", {"slug", "name", "description", "settings", "topic_types", "topics", "runs", "organisers"}, {"slug", "topic_types"})
    if top is None:
        return spec, c.problems
    spec["slug"] = c.string(top.get("slug"), "slug", max_length=50, pattern=SLUG_RE, hint="letters, digits, - and _")
    spec["name"] = c.string(top.get("name", spec["slug"] or ""), "name", max_length=200, required=False) or spec["slug"] or ""
    spec["description"] = c.string(top.get("description", ""), "description", max_length=100_000, required=False) or ""

    settings = top.get("settings", {})
    s = c.obj(settings, "settings", set(PAPER_SETTINGS)) or {}
    merged = {**PAPER_SETTINGS, **{k: v for k, v in s.items() if k in PAPER_SETTINGS}}
    spec["patience"] = c.number(merged["L"], "settings.L", low=1, integer=True)
    spec["alpha"] = c.number(merged["alpha"], "settings.alpha", low=0, high=1)
    spec["method"] = c.choice(merged["method"], "settings.method", Campaign.Method.values)
    spec["empty_turns"] = c.choice(merged["empty_turns"], "settings.empty_turns", Campaign.EmptyTurns.values)
    spec["turn_weight"] = c.choice(merged["turn_weight"], "settings.turn_weight", Campaign.TurnWeight.values)
    if not isinstance(merged["duplicates_count_once"], bool):
        c.error("settings.duplicates_count_once", "must be true or false")
    spec["duplicates_count_once"] = bool(merged["duplicates_count_once"])
    spec["missing_membership"] = c.choice(
        merged["missing_membership"], "settings.missing_membership", Campaign.MissingMembership.values
    )
    grades = merged["grades"]
    spec["grades"] = []
    if isinstance(grades, list):
        grades = {g.get("label"): g.get("gain") for g in grades if isinstance(g, dict)}
    if not isinstance(grades, dict) or not grades:
        c.error("settings.grades", 'must map grade labels to gains, e.g. {"L0": 0, "L1": 0.5, "L2": 1}')
    else:
        levels = set()
        for index, (label, gain) in enumerate(grades.items()):
            where = f"settings.grades.{label}"
            if not isinstance(label, str) or not label.strip() or len(label) > 16:
                c.error(where, "a grade label is a short non-empty string")
                continue
            m = GRADE_RE.match(label)
            level = int(m.group(1)) if m else index
            if level in levels:
                c.error(where, f"level {level} is given twice")
            levels.add(level)
            gain = c.number(gain, where, low=0, high=1)
            if gain is not None:
                spec["grades"].append({"label": label, "level": level, "gain": gain})
    _ranked_list_settings(c, merged, spec)

    spec["topic_types"] = []
    types = top.get("topic_types")
    if not isinstance(types, list) or not types:
        c.error("topic_types", "must be a non-empty list")
        types = []
    codes = set()
    for i, t in enumerate(types):
        where = f"topic_types[{i}]"
        t = c.obj(t, where, {"code", "name", "attribute_sets"}, {"code"})
        if t is None:
            continue
        code = c.string(t.get("code"), where + ".code", max_length=TYPE_CODE_MAX, pattern=TYPE_CODE_PATTERN,
                        hint="letters and digits, starting with a letter")
        if code in codes:
            c.error(where + ".code", f"topic type {code} is defined twice")
        codes.add(code)
        tspec = {"code": code, "name": c.string(t.get("name", ""), where + ".name", max_length=100, required=False) or "", "attribute_sets": []}
        sets = t.get("attribute_sets", [])
        if not isinstance(sets, list):
            c.error(where + ".attribute_sets", "must be a list")
            sets = []
        names = set()
        for j, a in enumerate(sets):
            aspec = _attribute_set(c, a, f"{where}.attribute_sets[{j}]", j)
            if aspec is None:
                continue
            if aspec["name"] is not None and aspec["name"] in names:
                c.error(f"{where}.attribute_sets[{j}].name", f"attribute set {aspec['name']} is defined twice in this topic type")
            names.add(aspec["name"])
            tspec["attribute_sets"].append(aspec)
        spec["topic_types"].append(tspec)

    spec["topics"] = []
    topics = top.get("topics", [])
    if not isinstance(topics, list):
        c.error("topics", "must be a list")
        topics = []
    seen_topics = set()
    for i, t in enumerate(topics):
        where = f"topics[{i}]"
        if isinstance(t, str):
            t = {"id": t}
        t = c.obj(t, where, {"id", "type", "description"}, {"id"})
        if t is None:
            continue
        tid = c.id(t.get("id"), where + ".id", TOPIC)
        if tid is None:
            continue
        if tid in seen_topics:
            c.error(where + ".id", f"topic {tid} is listed twice")
        seen_topics.add(tid)
        known_types = sorted(x for x in codes if x)
        if "type" in t:  # named (FairWeb-1's pilot topics P001... are of types R, M, T, Y)
            type_code = c.choice(t["type"], where + ".type", known_types)
        else:
            type_code = topic_type_for(tid, known_types)
            if type_code is None:
                c.error(where + ".id", f"no topic type for {tid}: its first letter must be a topic type code ({', '.join(known_types)}), or name its \"type\"")
        spec["topics"].append({"code": tid, "type": type_code,
                               "description": c.string(t.get("description", ""), where + ".description", max_length=100_000, required=False) or ""})

    spec["runs"] = []
    runs = top.get("runs", [])
    if not isinstance(runs, list):
        c.error("runs", "must be a list")
        runs = []
    seen_runs = set()
    for i, r in enumerate(runs):
        where = f"runs[{i}]"
        if isinstance(r, str):
            r = {"name": r}
        r = c.obj(r, where, {"name", "kind", "system", "trial"}, {"name"})
        if r is None:
            continue
        name = c.id(r.get("name"), where + ".name", RUN)
        if name in seen_runs:
            c.error(where + ".name", f"run {name} is listed twice")
        seen_runs.add(name)
        named_system, named_trial = Run.system_and_trial_of(name or "")
        spec["runs"].append({
            "name": name,
            "kind": c.choice(r.get("kind", Run.Kind.CONVERSATIONS), where + ".kind", Run.Kind.values),
            "system": c.string(r.get("system", ""), where + ".system", max_length=100, required=False) or named_system,
            "trial": c.number(r.get("trial", named_trial), where + ".trial", low=1, integer=True) or named_trial,
        })

    organisers = top.get("organisers", [])
    if not isinstance(organisers, list) or not all(isinstance(o, str) and o for o in organisers):
        c.error("organisers", "must be a list of user names")
        organisers = []
    spec["organisers"] = organisers
    return spec, c.problems


def _ranked_list_settings(c: _Checker, merged: dict, spec: dict) -> None:
    """The cutoff and the gain of each grade in ranked lists (GFR): FairWeb-1's L1 -> 1,
    L2 -> 3 unless the file says otherwise; a grade FairWeb-1 has no gain for must be given."""
    spec["ranked_list_cutoff"] = c.number(merged["ranked_list_cutoff"], "settings.ranked_list_cutoff", low=1, integer=True)
    given = merged["ranked_list_gains"]
    if given is None:
        given = {}
    elif not isinstance(given, dict):
        c.error("settings.ranked_list_gains", 'must map grade labels to gains, e.g. {"L0": 0, "L1": 1, "L2": 3}')
        given = {}
    labels = {g["label"] for g in spec["grades"]}
    for label in given:
        if label not in labels:
            c.error(f"settings.ranked_list_gains.{label}", f"no grade {label} in settings.grades")
    for grade in spec["grades"]:
        label = grade["label"]
        if label in given:
            grade["ranked_list_gain"] = c.number(given[label], f"settings.ranked_list_gains.{label}", low=0, high=1e6)
        elif label in RANKED_LIST_GAINS:
            grade["ranked_list_gain"] = RANKED_LIST_GAINS[label]
        else:
            c.error("settings.ranked_list_gains", f"give the ranked-list gain of {label} (FairWeb-1's defaults cover L0, L1 and L2)")


def _attribute_set(c: _Checker, a: Any, where: str, position: int) -> dict | None:
    a = c.obj(a, where, {"name", "kind", "groups", "target", "divergence", "weight", "helper"}, {"name", "kind", "groups"})
    if a is None:
        return None
    name = c.id(a.get("name"), where + ".name", ATTRIBUTE_SET)
    kind = c.choice(a.get("kind"), where + ".kind", AttributeSet.Kind.values)
    groups = a.get("groups")
    if not isinstance(groups, list) or not groups or not all(isinstance(g, str) and g.strip() for g in groups):
        c.error(where + ".groups", "must be a non-empty list of group labels")
        groups = None
    elif len(set(groups)) != len(groups):
        c.error(where + ".groups", "group labels must be distinct")
        groups = None
    default_divergence = "jsd" if kind == "nominal" else "rnod"
    divergence = c.choice(a.get("divergence", default_divergence), where + ".divergence", AttributeSet.Divergence.values)
    if kind == "nominal" and divergence not in (None, "jsd"):
        c.error(where + ".divergence", "nominal groups have no order: use jsd")
    weight = c.number(a.get("weight", 1), where + ".weight", low=0)
    helper = _helper(c, a.get("helper", {}), where + ".helper", kind, groups)
    target = a.get("target", "uniform")
    values = None
    if groups is not None:
        if target == "uniform":
            values = [1 / len(groups)] * len(groups)
        elif target in ("from-mapping", "from_mapping"):
            if not helper or "mapping" not in helper:
                c.error(where + ".target", '"from-mapping" needs a helper with a mapping')
            else:
                values = list(derived_target(helper["mapping"], groups))
        elif isinstance(target, list):
            try:
                exact = [exact_number(v) for v in target]
                check_target(exact, length=len(groups))
                values = [float(v) for v in exact]
            except VectorError as error:
                c.error(where + ".target", f"the target {error}")
        else:
            c.error(where + ".target", 'must be "uniform", "from-mapping" or a list of probabilities, one per group')
    return {"name": name, "kind": kind, "groups": groups, "target": values, "divergence": divergence,
            "weight": weight if weight is not None else 1.0, "helper": helper, "position": position}


def _helper(c: _Checker, helper: Any, where: str, kind: str | None, groups: list[str] | None) -> dict:
    if helper in (None, {}):
        return {}
    helper = c.obj(helper, where, {"bands", "mapping"})
    if helper is None:
        return {}
    out: dict[str, Any] = {}
    if "bands" in helper:
        bands = helper["bands"]
        if kind != "ordinal":
            c.error(where + ".bands", "bands need ordinal groups")
        if not isinstance(bands, list) or not all(_is_number(b) for b in bands):
            c.error(where + ".bands", "must be a list of numbers (group limits)")
        elif sorted(bands) != bands or len(set(bands)) != len(bands):
            c.error(where + ".bands", "must be strictly increasing")
        elif groups is not None and len(bands) != len(groups) - 1:
            c.error(where + ".bands", f"{len(groups)} groups need {len(groups) - 1} band limits, found {len(bands)}")
        else:
            out["bands"] = bands
    if "mapping" in helper:
        mapping = helper["mapping"]
        if not isinstance(mapping, dict) or not mapping:
            c.error(where + ".mapping", "must map values to group labels")
        else:
            ok = True
            seen: dict[str, str] = {}
            for value, target in mapping.items():
                targets = [target] if isinstance(target, str) else target
                if not isinstance(targets, list) or not targets or (groups is not None and any(t not in groups for t in targets)):
                    c.error(f"{where}.mapping.{value}", f"must be a group label (or a list of them): {', '.join(groups or [])}")
                    ok = False
                folded = value.strip().casefold()
                if folded in seen:
                    c.error(f"{where}.mapping.{value}", f"the same value as {seen[folded]!r} (values match case-insensitively)")
                    ok = False
                seen[folded] = value
            if ok:
                out["mapping"] = mapping
    return out


# -- loading --------------------------------------------------------------------------------


def load_campaign_file(path: str | Path) -> LoadReport:
    path = Path(path)
    return load_campaign(parse_campaign_file(path.read_bytes(), str(path)), source=str(path))


def parse_campaign_file(data: bytes, source: str) -> Any:
    """A campaign file's bytes as JSON (CampaignFileError: not UTF-8, not JSON, where)."""
    try:
        return loads_json(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise CampaignFileError([CampaignProblem(source, "", f"not UTF-8 text ({error.reason} at byte {error.start})")]) from None
    except json.JSONDecodeError as error:
        raise CampaignFileError([CampaignProblem(source, f"line {error.lineno} column {error.colno}", f"invalid JSON: {error.msg}")]) from None


def create_campaign(data: Any, *, slug: str, name: str, organiser, source: str = "campaign") -> LoadReport:
    """A new campaign from a campaign file's content (or a template's: `describe_campaign`), under
    the slug and name given, checked by `load_campaign` with its messages at their JSON paths;
    `organiser` organises it. An existing slug, and a file naming organisers (people come in
    on the campaign's accounts page), are refused; nothing is written then."""
    if isinstance(data, dict):
        if data.get("organisers"):
            raise CampaignFileError([CampaignProblem(source, "organisers", "a campaign made in the console is organised "
                                                     "by its maker, who adds people on its accounts page: leave organisers out")])
        data = {**data, "slug": slug, "name": name}
    try:
        with transaction.atomic():
            if Campaign.objects.filter(slug=slug).exists():
                raise IntegrityError(slug)
            report = load_campaign(data, source=source)
            report.campaign.organisers.add(organiser)
    except IntegrityError:  # the slug is taken (or was taken meanwhile)
        raise CampaignFileError([CampaignProblem(source, "slug", f"a campaign {slug!r} exists already: choose another "
                                                 "slug")]) from None
    return report


def describe_campaign(campaign: Campaign, *, topics: bool = False, runs: bool = False) -> dict:
    """The campaign as a campaign file describes it (what `load_campaign` reads back the same):
    its settings, grades, ranked-list gains and cutoff, topic types with their attribute sets;
    its topics and runs when asked; never its organisers."""
    grades = list(Grade.objects.filter(campaign=campaign).order_by("level"))
    data: dict[str, Any] = {
        "slug": campaign.slug, "name": campaign.name, "description": campaign.description,
        "settings": {
            "L": campaign.patience, "grades": {g.label: g.gain for g in grades}, "alpha": campaign.alpha,
            "method": campaign.method, "empty_turns": campaign.empty_turns, "turn_weight": campaign.turn_weight,
            "duplicates_count_once": campaign.duplicates_count_once, "missing_membership": campaign.missing_membership,
            "ranked_list_gains": {g.label: g.ranked_list_gain for g in grades},
            "ranked_list_cutoff": campaign.ranked_list_cutoff,
        },
        "topic_types": [
            {"code": t.code, "name": t.name, "attribute_sets": [
                {"name": a.name, "kind": a.kind, "groups": list(a.groups), "target": list(a.target),
                 "divergence": a.divergence, "weight": a.weight, **({"helper": a.helper} if a.helper else {})}
                for a in t.attribute_sets.order_by("position", "name")
            ]}
            for t in TopicType.objects.filter(campaign=campaign).order_by("code")
        ],
    }
    if topics:
        data["topics"] = [{"id": t.code, "type": t.topic_type.code, "description": t.description}
                          for t in Topic.objects.filter(campaign=campaign).select_related("topic_type").order_by("code")]
    if runs:
        data["runs"] = [{"name": r.name, "kind": r.kind, "system": r.system, "trial": r.trial}
                        for r in Run.objects.filter(campaign=campaign).order_by("name")]
    return data


def _set(obj, changes: list[str], label: str, **values) -> bool:
    changed = False
    for name, value in values.items():
        if getattr(obj, name) != value:
            setattr(obj, name, value)
            changed = True
    if changed:
        changes.append(label)
    return changed


@transaction.atomic
def load_campaign(data: Any, source: str = "campaign") -> LoadReport:
    """Create or update the campaign a campaign file describes; raises CampaignFileError with
    every problem (and writes nothing) when the file or the database state refuse it."""
    spec, problems = validate_campaign(data, source)
    if problems:
        raise CampaignFileError(problems)
    problems = []
    User = get_user_model()
    organisers = []
    for i, username in enumerate(spec["organisers"]):
        user = User.objects.filter(username=username).first()
        if user is None:
            problems.append(CampaignProblem(source, f"organisers[{i}]", f"no user named {username!r}"))
        organisers.append(user)

    campaign = Campaign.objects.filter(slug=spec["slug"]).first()
    created = campaign is None
    changes: list[str] = []
    warnings: list[str] = []
    if created:
        campaign = Campaign(slug=spec["slug"])
    fields = {k: spec[k] for k in ("name", "description", "patience", "alpha", "method", "empty_turns", "turn_weight",
                                   "duplicates_count_once", "missing_membership", "ranked_list_cutoff")}
    if _set(campaign, changes, "settings", **fields) and not created:
        campaign.version += 1
    campaign.save()

    # grades
    existing = {g.label: g for g in Grade.objects.filter(campaign=campaign)}
    wanted = {g["label"] for g in spec["grades"]}
    for label, grade in existing.items():
        if label not in wanted:
            warnings.append(f"grade {label} is in the database but not in the file: kept")
    # free the levels first so a renumbering never collides
    for g in spec["grades"]:
        grade = existing.get(g["label"])
        if grade is None:
            Grade.objects.create(campaign=campaign, label=g["label"], level=g["level"], gain=g["gain"],
                                 ranked_list_gain=g["ranked_list_gain"])
            changes.append(f"grade {g['label']} added")
        elif (grade.level, grade.gain, grade.ranked_list_gain) != (g["level"], g["gain"], g["ranked_list_gain"]):
            Grade.objects.filter(pk=grade.pk).update(level=g["level"] + 10_000)
    for g in spec["grades"]:
        grade = existing.get(g["label"])
        if grade is not None and (grade.level, grade.gain, grade.ranked_list_gain) != (g["level"], g["gain"], g["ranked_list_gain"]):
            Grade.objects.filter(pk=grade.pk).update(level=g["level"], gain=g["gain"], ranked_list_gain=g["ranked_list_gain"])
            changes.append(f"grade {g['label']} changed")

    # topic types and attribute sets
    types = {t.code: t for t in TopicType.objects.filter(campaign=campaign)}
    for ti, t in enumerate(spec["topic_types"]):
        topic_type = types.get(t["code"])
        if topic_type is None:
            topic_type = TopicType.objects.create(campaign=campaign, code=t["code"], name=t["name"])
            types[t["code"]] = topic_type
            changes.append(f"topic type {t['code']} added")
        elif _set(topic_type, changes, f"topic type {t['code']} renamed", name=t["name"]):
            topic_type.save()
        sets = {a.name: a for a in AttributeSet.objects.filter(topic_type=topic_type)}
        for name in sets:
            if name not in {a["name"] for a in t["attribute_sets"]}:
                warnings.append(f"attribute set {t['code']}-{name} is in the database but not in the file: kept")
        for ai, a in enumerate(t["attribute_sets"]):
            values = dict(kind=a["kind"], groups=a["groups"], target=a["target"], divergence=a["divergence"],
                          weight=a["weight"], helper=a["helper"], position=a["position"])
            current = sets.get(a["name"])
            if current is None:
                AttributeSet.objects.create(topic_type=topic_type, name=a["name"], **values)
                changes.append(f"attribute set {t['code']}-{a['name']} added")
                continue
            if len(current.groups) != len(a["groups"]) and Membership.objects.filter(attribute_set=current).exists():
                problems.append(CampaignProblem(
                    source, f"topic_types[{ti}].attribute_sets[{ai}].groups",
                    f"{a['name']} has {len(current.groups)} groups and memberships judged against them: "
                    f"its number of groups cannot change to {len(a['groups'])}"))
                continue
            if _set(current, changes, f"attribute set {t['code']}-{a['name']} changed", **values):
                current.version += 1
                current.save()

    # topics
    topics = {t.code: t for t in Topic.objects.filter(campaign=campaign)}
    for i, t in enumerate(spec["topics"]):
        topic_type = types[t["type"]]
        topic = topics.get(t["code"])
        if topic is None:
            Topic.objects.create(campaign=campaign, code=t["code"], topic_type=topic_type, description=t["description"])
            changes.append(f"topic {t['code']} added")
            continue
        if topic.topic_type_id != topic_type.pk and Entity.objects.filter(topic=topic).exists():
            problems.append(CampaignProblem(source, f"topics[{i}].id", f"{t['code']} has judgments under topic type "
                                            f"{topic.topic_type.code}: it cannot move to {t['type']}"))
            continue
        if _set(topic, changes, f"topic {t['code']} changed", topic_type_id=topic_type.pk, description=t["description"]):
            topic.save()

    # runs
    runs = {r.name: r for r in Run.objects.filter(campaign=campaign)}
    for r in spec["runs"]:
        run = runs.get(r["name"])
        if run is None:
            Run.objects.create(campaign=campaign, name=r["name"], kind=r["kind"], system=r["system"], trial=r["trial"])
            changes.append(f"run {r['name']} added")
            continue
        if run.kind != r["kind"] and (run.conversations.exists() or run.ranked_lists.exists()):
            problems.append(CampaignProblem(source, "runs", f"run {r['name']} holds {run.get_kind_display()}: "
                                            f"it cannot become a run of {Run.Kind(r['kind']).label}"))
            continue
        if _set(run, changes, f"run {r['name']} changed", kind=r["kind"], system=r["system"], trial=r["trial"]):
            run.save()

    if problems:
        raise CampaignFileError(problems)  # rolls the transaction back
    present = set(campaign.organisers.values_list("pk", flat=True))
    for user in organisers:
        if user.pk not in present:
            campaign.organisers.add(user)
            changes.append(f"organiser {user.get_username()} added")
    if changes and not created:
        invalidation.campaign_judged_anew(campaign)  # grades, attribute sets or settings: every stored figure again
    n_sets = sum(len(t["attribute_sets"]) for t in spec["topic_types"])
    contents = (f"{len(spec['grades'])} grades, {len(spec['topic_types'])} topic types, {n_sets} attribute sets, "
                f"{len(spec['topics'])} topics, {len(spec['runs'])} runs")
    return LoadReport(campaign=campaign, created=created, changes=changes, warnings=warnings, contents=contents)
