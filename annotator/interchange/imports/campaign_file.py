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

from annotator.interchange.formats.model import loads_json
from annotator.models import AttributeSet, Campaign, Entity, Grade, Membership, Run, Topic, TopicType
from annotator.rules.attribute_sets import HELPERS, read_attribute_set, regrouping_problem
from annotator.rules.campaign_settings import (
    HARVEST_SETTINGS, PAPER_FOLLOW_UPS, SETTINGS, SIMULATED_USER_PROMPT, grade_problems, harvest_problems,
    ranked_list_gain_of, read_settings, repeated_grade_problems,
)
from annotator.rules.ids import RUN, TOPIC, id_problem
from annotator.rules.problems import choice_problem, number_problem
from annotator.rules.topics import TYPE_CODE_MAX, TYPE_CODE_PATTERN, topic_type_for  # noqa: F401 (re-exported)
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
    "ranked_list_gains": None,  # FairWeb-1's (scoring.gfr.DEFAULT_GAINS) for the grades it names
    "ranked_list_cutoff": gfr.DEFAULT_CUTOFF,
    # what a harvest asks (annotator.harvesting): each topic type's first user turn, the follow-ups, a simulated user's prompt
    "harvest_templates": {},
    "harvest_follow_ups": list(PAPER_FOLLOW_UPS),
    "harvest_user_prompt": SIMULATED_USER_PROMPT,
}
# The file's name of a setting the rules (and the model) call otherwise.
FILE_SETTING = {"patience": "L"}


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
        problem = number_problem(value, low=low, high=high, integer=integer)
        if problem is not None:
            self.error(where, problem)
            return None
        return int(value) if integer else float(value)

    def choice(self, value: Any, where: str, choices) -> str | None:
        if value not in choices:
            self.error(where, choice_problem(choices))
            return None
        return value


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
    values, problems = read_settings({field: merged[FILE_SETTING.get(field, field)] for field in SETTINGS})
    for field, message in problems:
        c.error(f"settings.{FILE_SETTING.get(field, field)}", message)
    spec.update(values)
    spec["grades"] = _grades(c, merged["grades"], merged["ranked_list_gains"])

    spec["topic_types"] = _topic_types(c, top.get("topic_types"))
    harvest = {field: merged[field] for field in HARVEST_SETTINGS}
    for field, message in harvest_problems(harvest, [t["code"] for t in spec["topic_types"] if t["code"]]):
        c.error(f"settings.{field}", message)
    spec.update(harvest)
    spec["topics"] = _topics(c, top.get("topics", []), sorted({t["code"] for t in spec["topic_types"] if t["code"]}))
    spec["runs"] = _runs(c, top.get("runs", []))
    organisers = top.get("organisers", [])
    if not isinstance(organisers, list) or not all(isinstance(o, str) and o for o in organisers):
        c.error("organisers", "must be a list of user names")
        organisers = []
    spec["organisers"] = organisers
    return spec, c.problems


def _topic_types(c: _Checker, types: Any) -> list[dict]:
    """The topic types, each with its attribute sets (`_attribute_set`)."""
    read: list[dict] = []
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
        read.append(tspec)
    return read


def _topics(c: _Checker, topics: Any, known_types: list[str]) -> list[dict]:
    """The topics, each of a topic type: the one it names, else the one its id starts with."""
    read: list[dict] = []
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
        if "type" in t:  # named (FairWeb-1's pilot topics P001... are of types R, M, T, Y)
            type_code = c.choice(t["type"], where + ".type", known_types)
        else:
            type_code = topic_type_for(tid, known_types)
            if type_code is None:
                c.error(where + ".id", f"no topic type for {tid}: its first letter must be a topic type code ({', '.join(known_types)}), or name its \"type\"")
        read.append({"code": tid, "type": type_code,
                     "description": c.string(t.get("description", ""), where + ".description", max_length=100_000, required=False) or ""})
    return read


def _runs(c: _Checker, runs: Any) -> list[dict]:
    """The runs; a system and trial not given come from the run's name."""
    read: list[dict] = []
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
        read.append({
            "name": name,
            "kind": c.choice(r.get("kind", Run.Kind.CONVERSATIONS), where + ".kind", Run.Kind.values),
            "system": c.string(r.get("system", ""), where + ".system", max_length=100, required=False) or named_system,
            "trial": c.number(r.get("trial", named_trial), where + ".trial", low=1, integer=True) or named_trial,
        })
    return read


def _grades(c: _Checker, grades: Any, ranked_list_gains: Any) -> list[dict]:
    """The grades: label -> gain (or a list of {"label", "gain"}), `Lk` at level k (else its
    place), each with its ranked-list gain: the file's (settings.ranked_list_gains), else
    FairWeb-1's L1 -> 1, L2 -> 3 (annotator.rules.campaign_settings)."""
    if isinstance(grades, list):
        grades = [(g.get("label"), g.get("gain")) for g in grades if isinstance(g, dict)]
    elif isinstance(grades, dict):
        grades = list(grades.items())
    if not grades:
        c.error("settings.grades", 'must map grade labels to gains, e.g. {"L0": 0, "L1": 0.5, "L2": 1}')
        return []
    given = {} if ranked_list_gains is None else ranked_list_gains
    if not isinstance(given, dict):
        c.error("settings.ranked_list_gains", 'must map grade labels to gains, e.g. {"L0": 0, "L1": 1, "L2": 3}')
        given = {}
    for label in given:
        if label not in {label for label, _gain in grades}:
            c.error(f"settings.ranked_list_gains.{label}", f"no grade {label} in settings.grades")
    paths = {"label": "settings.grades.{}", "level": "settings.grades.{}", "gain": "settings.grades.{}",
             "ranked_list_gain": "settings.ranked_list_gains.{}"}
    levels = [int(m.group(1)) if isinstance(label, str) and (m := GRADE_RE.match(label)) else index
              for index, (label, _gain) in enumerate(grades)]
    read = []
    for (label, gain), level in zip(grades, levels):
        problems = grade_problems(label, gain, given.get(label))
        for field, message in problems:
            c.error("settings.ranked_list_gains" if field == "ranked_list_gain" and label not in given
                    else paths[field].format(label), message)
        if not problems:
            read.append({"label": label, "level": level, "gain": float(gain),
                         "ranked_list_gain": float(ranked_list_gain_of(label, given.get(label)))})
    for index, (field, message) in repeated_grade_problems(list(zip((label for label, _ in grades), levels))):
        c.error(paths[field].format(grades[index][0]), message)
    return read


def _attribute_set(c: _Checker, a: Any, where: str, position: int) -> dict | None:
    """One attribute set's entry, judged by its rules (annotator.rules.attribute_sets), each
    problem at its JSON path."""
    a = c.obj(a, where, {"name", "kind", "groups", "target", "divergence", "weight", "helper"}, {"name", "kind", "groups"})
    if a is None:
        return None
    helper = a.get("helper")
    if isinstance(helper, dict):  # its notes and unknown fields, as everywhere in the file
        c.obj(helper, where + ".helper", set(HELPERS))
        a = {**a, "helper": {key: value for key, value in helper.items() if key in HELPERS}}
    read, problems = read_attribute_set(a)
    for field, message in problems:
        c.error(f"{where}.{field}", message)
    return {**read, "weight": 1.0 if read["weight"] is None else read["weight"], "position": position}


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
            **{field: getattr(campaign, field) for field in HARVEST_SETTINGS},
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
    asked: list[str] = []  # what a harvest asks changes no score: no figure is recomputed for it
    _set(campaign, asked, "harvest settings", **{field: spec[field] for field in HARVEST_SETTINGS})
    campaign.save()

    _load_grades(campaign, spec["grades"], changes, warnings)
    types = _load_topic_types(campaign, spec["topic_types"], source, changes, warnings, problems)
    _load_topics(campaign, spec["topics"], types, source, changes, problems)
    _load_runs(campaign, spec["runs"], source, changes, problems)

    if problems:
        raise CampaignFileError(problems)  # rolls the transaction back
    present = set(campaign.organisers.values_list("pk", flat=True))
    for user in organisers:
        if user.pk not in present:
            campaign.organisers.add(user)
            changes.append(f"organiser {user.get_username()} added")
    if changes and not created:
        invalidation.campaign_judged_anew(campaign)  # grades, attribute sets or settings: every stored figure again
    changes += asked
    n_sets = sum(len(t["attribute_sets"]) for t in spec["topic_types"])
    contents = (f"{len(spec['grades'])} grades, {len(spec['topic_types'])} topic types, {n_sets} attribute sets, "
                f"{len(spec['topics'])} topics, {len(spec['runs'])} runs")
    return LoadReport(campaign=campaign, created=created, changes=changes, warnings=warnings, contents=contents)


def _load_grades(campaign: Campaign, grades: list[dict], changes: list[str], warnings: list[str]) -> None:
    """Grades by label: added or changed; one the file lacks is kept."""
    existing = {g.label: g for g in Grade.objects.filter(campaign=campaign)}
    wanted = {g["label"] for g in grades}
    for label, grade in existing.items():
        if label not in wanted:
            warnings.append(f"grade {label} is in the database but not in the file: kept")
    # free the levels first so a renumbering never collides
    for g in grades:
        grade = existing.get(g["label"])
        if grade is None:
            Grade.objects.create(campaign=campaign, label=g["label"], level=g["level"], gain=g["gain"],
                                 ranked_list_gain=g["ranked_list_gain"])
            changes.append(f"grade {g['label']} added")
        elif (grade.level, grade.gain, grade.ranked_list_gain) != (g["level"], g["gain"], g["ranked_list_gain"]):
            Grade.objects.filter(pk=grade.pk).update(level=g["level"] + 10_000)
    for g in grades:
        grade = existing.get(g["label"])
        if grade is not None and (grade.level, grade.gain, grade.ranked_list_gain) != (g["level"], g["gain"], g["ranked_list_gain"]):
            Grade.objects.filter(pk=grade.pk).update(level=g["level"], gain=g["gain"], ranked_list_gain=g["ranked_list_gain"])
            changes.append(f"grade {g['label']} changed")


def _load_topic_types(campaign: Campaign, topic_types: list[dict], source: str, changes: list[str], warnings: list[str],
                      problems: list[CampaignProblem]) -> dict[str, TopicType]:
    """Topic types by code and their attribute sets by name; a set whose memberships were judged
    keeps its number of groups (annotator.rules.attribute_sets.regrouping_problem)."""
    types = {t.code: t for t in TopicType.objects.filter(campaign=campaign)}
    for ti, t in enumerate(topic_types):
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
            regrouped = len(current.groups) != len(a["groups"]) and regrouping_problem(
                a["name"], len(current.groups), len(a["groups"]), Membership.objects.filter(attribute_set=current).exists())
            if regrouped:
                problems.append(CampaignProblem(source, f"topic_types[{ti}].attribute_sets[{ai}].{regrouped[0]}", regrouped[1]))
                continue
            if _set(current, changes, f"attribute set {t['code']}-{a['name']} changed", **values):
                current.version += 1
                current.save()
    return types


def _load_topics(campaign: Campaign, topics: list[dict], types: dict[str, TopicType], source: str, changes: list[str],
                 problems: list[CampaignProblem]) -> None:
    """Topics by id; a judged topic keeps its topic type."""
    existing = {t.code: t for t in Topic.objects.filter(campaign=campaign)}
    for i, t in enumerate(topics):
        topic_type = types[t["type"]]
        topic = existing.get(t["code"])
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


def _load_runs(campaign: Campaign, runs: list[dict], source: str, changes: list[str], problems: list[CampaignProblem]) -> None:
    """Runs by name; a run holding conversations or ranked lists keeps its kind."""
    existing = {r.name: r for r in Run.objects.filter(campaign=campaign)}
    for r in runs:
        run = existing.get(r["name"])
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
