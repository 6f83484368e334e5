"""The planning half of a conversation import: parsed files checked against the campaign, and
what to write, decided; nothing is written.

`plan_import` reads what the campaign holds once (grades, topic types and their attribute sets,
the topics and runs named, the conversations already there: only those the files name, in bulk,
imports.campaign_reads), then checks every conversation
(topic and run ids, turns, nugget spans and grades, memberships and their evidence, citations),
the entities across files (one grade and one membership per attribute set each), and against
the database (judgments added only to the same text; an entity judged in other conversations
keeps its judgment). Every problem is the result's, by file:line. The plan it returns is all
the writing half (imports.conversation_writing) needs.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import PurePath

from django.contrib.auth import get_user_model

from annotator.interchange.formats import ParsedConversation
from annotator.interchange.imports import campaign_reads
from annotator.interchange.imports.annotators import default_annotator
from annotator.interchange.imports.result import ImportResult, counted
from annotator.models import (
    AttributeSet,
    Campaign,
    Entity,
    Grade,
    Membership,
    Nugget,
    Run,
    Topic,
    TopicType,
    Turn,
    is_automatic_judge,
)
from annotator.rules.citations import CITATIONS_JUDGE, Citation, choose_cited_spans
from annotator.rules.evidence import EvidenceError, vector_from_evidence
from annotator.rules.identity import normalise_url, user_part
from annotator.rules.ids import ENTITY, RUN, TOPIC, id_problem
from annotator.rules.relevance import needs_every_membership
from annotator.rules.spans import SpanSweep
from annotator.rules.topics import topic_type_for
from annotator.rules.vectors import VectorError, check_distribution, format_vector

__all__ = ["EntityPlan", "ConversationPlan", "ImportPlan", "plan_import", "run_from_filename", "chunks", "same_vector",
           "PROGRESS_EVERY"]

Where = tuple[str, int, "str | None"]  # path, line, JSON field
PROGRESS_EVERY = 200  # conversations read or checked between two progress reports


@dataclass(slots=True)
class EntityPlan:
    topic: str
    key: str
    name: str = ""
    grade: str | None = None
    grade_at: Where = ("", 0, None)
    comment: str = ""
    memberships: dict[str, tuple[tuple[float, ...], str, Where]] = field(default_factory=dict)  # set -> (vector, evidence, where)


@dataclass(slots=True)
class ConversationPlan:
    conv: ParsedConversation
    run: str
    topic: str
    type_code: str
    replace_id: int | None = None
    add_to_id: int | None = None  # an existing conversation that gets this annotator's judgments
    has_annotations: bool = False
    harvest: bool = False  # the file gave no topic: the import's topic was given
    citations: list[Citation] = field(default_factory=list)  # checked; chosen once the topic's judged keys are known


@dataclass
class ImportPlan:
    """Everything checked, and what the database said while checking, for the writing half."""

    campaign: Campaign
    result: ImportResult
    actor: object
    annotator_given: object  # the annotator the import names (None: the file's judgments are the default annotator's)
    replace: bool = False
    conversations: list[ConversationPlan] = field(default_factory=list)
    entities: dict[tuple[str, str], EntityPlan] = field(default_factory=dict)  # (topic, key) -> entity
    annotator: object = None  # whose judgments the files hold (unsaved when it is a "gold" still to create)
    citations_judge: object = None  # the account CITATIONS_JUDGE, None until created
    grades: dict[str, Grade] = field(default_factory=dict)
    types: dict[str, TopicType] = field(default_factory=dict)
    sets: dict[int, dict[str, AttributeSet]] = field(default_factory=lambda: defaultdict(dict))  # type id -> name -> set
    topics: dict[str, Topic] = field(default_factory=dict)  # the campaign's topics named by the files
    runs: dict[str, Run] = field(default_factory=dict)
    existing_turns: dict[int, list[int]] = field(default_factory=dict)  # conversation added to -> its turns' ids
    existing_entities: dict[tuple[str, str], Entity] = field(default_factory=dict)  # the annotator's, by (topic, key)
    existing_memberships: dict[int, dict[str, Membership]] = field(default_factory=lambda: defaultdict(dict))
    locked: set[int] = field(default_factory=set)  # entities judged in conversations this import leaves in place


def run_from_filename(path: str, topic: str) -> str:
    """A run name from a file name: ``M002-bing-trial1.txt`` (topic M002) -> ``bing-trial1``."""
    stem = PurePath(path).name
    if "." in stem:
        stem = stem.rsplit(".", 1)[0]
    for sep in ("-", "_", "."):
        if stem.startswith(topic + sep) and len(stem) > len(topic) + 1:
            return stem[len(topic) + 1 :]
    return stem


def same_vector(a, b) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b))


def chunks(items, size: int = 500):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _where(path: str, line: int) -> str:
    return f"{path}:{line}" if line else path


def plan_import(plan: ImportPlan, conversations: list[ParsedConversation], *, run: str | None, topic: str | None,
                progress) -> ImportPlan:
    """Check `conversations` (parsed, their files' problems already in plan.result) into `plan`."""
    result = plan.result
    if run is not None and (problem := id_problem(RUN, run)) is not None:
        result.error("", 0, f"{problem}: give a run name without spaces, at most 100 characters")
        return plan
    if topic is not None and (not topic.strip() or any(c.isspace() for c in topic)):
        result.error("", 0, f"topic {topic!r}: give a topic id without spaces")
        return plan
    harvested = _give_topics(result, conversations, topic)
    if result.errors and any(not c.topic for c in conversations):
        return plan  # without a topic, nothing else can be checked
    _read_campaign(plan, conversations)
    checker = _ConversationChecks(plan)
    for checked, conversation in enumerate(conversations, 1):
        planned = checker.check(conversation, run)
        if planned is not None:
            planned.harvest = id(conversation) in harvested
            plan.conversations.append(planned)
        if checked % PROGRESS_EVERY == 0:
            progress("checking", checked)
    progress("checking", len(conversations))
    _number_trials(plan.conversations)
    _place(plan)
    plan.existing_turns = _check_additions(plan, [p for p in plan.conversations if p.add_to_id])
    annotated = [p for p in plan.conversations if p.has_annotations]
    if plan.annotator_given is not None or annotated:
        plan.annotator = plan.annotator_given or default_annotator(plan.campaign, plan.actor, create=False)
        result.annotator = plan.annotator.get_username()
    _plan_entities(plan, annotated)
    _compare_with_the_database(plan)
    _check_missing_memberships(plan, annotated)
    _choose_citations(plan)
    return plan


def _give_topics(result: ImportResult, conversations: list[ParsedConversation], topic: str | None) -> set[int]:
    """Harvested conversations (no topic of their own) take the import's topic; returns them
    (by id). Files with topics keep theirs."""
    harvested = [c for c in conversations if not c.topic]
    if topic is None:
        lacking: dict[str, list[ParsedConversation]] = defaultdict(list)
        for conversation in harvested:
            lacking[conversation.source].append(conversation)
        for path, group in lacking.items():
            result.error(path, group[0].line, f"{counted(len(group), 'harvested conversation')} without a topic: "
                         "a harvest carries none, give the import one (--topic T)")
        return set()
    for conversation in harvested:
        conversation.topic = topic
    return {id(c) for c in harvested}


def _read_campaign(plan: ImportPlan, conversations: list[ParsedConversation]) -> None:
    campaign = plan.campaign
    plan.grades = {g.label: g for g in Grade.objects.filter(campaign=campaign)}
    plan.types = {t.code: t for t in TopicType.objects.filter(campaign=campaign)}
    for a in AttributeSet.objects.filter(topic_type__campaign=campaign):
        plan.sets[a.topic_type_id][a.name] = a
    for chunk in chunks(sorted({c.topic for c in conversations})):
        plan.topics.update({t.code: t for t in Topic.objects.filter(campaign=campaign, code__in=chunk)})


def _number_trials(plans: list[ConversationPlan]) -> None:
    """Harvested conversations sharing a topic and a run in one import are the run's trials,
    in file order: ``chatgpt`` -> ``chatgpt-trial1``, ``chatgpt-trial2``; ``gpt-trial3`` ->
    ``gpt-trial3``, ``gpt-trial4``."""
    groups: dict[tuple[str, str], list[ConversationPlan]] = defaultdict(list)
    for p in plans:
        if p.harvest:
            groups[(p.topic, p.run)].append(p)
    for (_, run), group in groups.items():
        if len(group) < 2:
            continue
        system, trial = Run.system_and_trial_of(run)
        for k, p in enumerate(group):
            p.run = f"{system}-trial{trial + k}"


def _place(plan: ImportPlan) -> None:
    """Each conversation's run, and what it meets there: a ranked-list run (refused), the same
    topic and run twice in the files (refused), a conversation already there (replaced with
    `replace`, given the named annotator's judgments, else refused)."""
    result = plan.result
    for chunk in chunks(sorted({p.run for p in plan.conversations})):
        plan.runs.update({r.name: r for r in Run.objects.filter(campaign=plan.campaign, name__in=chunk)})
    # the conversations at the files' (topic, run) pairs, not every run's of every topic named
    topic_code = {t.pk: code for code, t in plan.topics.items()}
    run_name = {r.pk: name for name, r in plan.runs.items()}
    existing = {(topic_code[topic_id], run_name[run_id]): found for (topic_id, run_id), found in campaign_reads.conversations_at(
        (plan.topics[p.topic].pk, plan.runs[p.run].pk) for p in plan.conversations if p.topic in plan.topics and p.run in plan.runs
    ).items()}
    seen: dict[tuple[str, str], str] = {}
    for p in plan.conversations:
        key, path, line = (p.topic, p.run), p.conv.source, p.conv.line
        if p.run in plan.runs and plan.runs[p.run].kind != Run.Kind.CONVERSATIONS:
            result.error(path, line, f"run {p.run} is a ranked-list run: it holds no conversations")
            continue
        if key in seen:
            result.error(path, line, f"conversation {p.topic} / {p.run} is also in {seen[key]}")
            continue
        seen[key] = _where(path, line)
        if key not in existing:
            continue
        pk, source = existing[key]
        if plan.replace:
            p.replace_id = pk
        elif plan.annotator_given is not None:
            p.add_to_id = pk
        else:
            result.error(path, line, f"conversation {p.topic} / {p.run} exists already"
                         f"{' (imported from ' + source + ')' if source else ''}: use --replace to replace it, "
                         "or --annotator to add that annotator's judgments to it")


def _check_additions(plan: ImportPlan, plans: list[ConversationPlan]) -> dict[int, list[int]]:
    """An annotator's judgments go onto a conversation already there only if its text is the
    same, turn for turn, and the annotator has not judged it yet. Returns the ids of each
    existing conversation's turns, in order."""
    if not plans:
        return {}
    annotator, result = plan.annotator_given, plan.result
    stored: dict[int, list[tuple]] = defaultdict(list)
    for chunk in chunks([p.add_to_id for p in plans]):
        for row in Turn.objects.filter(conversation_id__in=chunk).order_by("conversation_id", "position").values_list(
            "conversation_id", "pk", "role", "number", "text"
        ):
            stored[row[0]].append(row[1:])
    judged = campaign_reads.judged_conversations(annotator, {pk: [row[0] for row in rows] for pk, rows in stored.items()})
    name = annotator.get_username()
    for p in plans:
        path, there = p.conv.source, f"{p.topic} / {p.run}"
        turns = stored[p.add_to_id]
        if p.add_to_id in judged:
            result.error(path, p.conv.line, f"{name} has judged conversation {there} already: use --replace to import it anew")
        for parsed, (_, role, number, text) in zip(p.conv.turns, turns):
            if (parsed.role, parsed.number, parsed.text) != (role, number, text):
                result.error(path, parsed.line or p.conv.line, f"{parsed.name} differs from {role}{number} of "
                             f"conversation {there} already imported: judgments are added only to the same text", parsed.field)
                break
        else:
            if len(p.conv.turns) != len(turns):
                result.error(path, p.conv.line, f"{len(p.conv.turns)} turns, but conversation {there} already "
                             f"imported has {len(turns)}: judgments are added only to the same text")
    return {pk: [row[0] for row in rows] for pk, rows in stored.items()}


class _ConversationChecks:
    """One conversation at a time: its ids, turns, nuggets and citations against the campaign."""

    def __init__(self, plan: ImportPlan):
        self.plan, self.result, self.campaign = plan, plan.result, plan.campaign
        self.evidence_cache: dict[tuple[int, str], tuple | None] = {}

    def check(self, conv: ParsedConversation, given_run: str | None) -> ConversationPlan | None:
        path, line = conv.source, conv.line
        run, ok = self.run_of(conv, given_run)
        if (problem := id_problem(TOPIC, conv.topic)) is not None:
            self.result.error(path, line, problem)
            return None
        type_code = self.type_of(conv)
        if type_code is None:
            return None
        plan = ConversationPlan(conv=conv, run=run or "", topic=conv.topic, type_code=type_code)
        plan.has_annotations = bool(conv.nuggets) or any(t.label for t in conv.turns)
        for turn in conv.turns:
            if turn.role == "U" and turn.label:
                self.result.error(path, turn.line, "a user turn has no usefulness label", turn.field)
                ok = False
        ok = self.check_nuggets(conv, self.plan.sets[self.plan.types[type_code].pk], type_code) and ok
        ok = self.check_citations(plan) and ok
        return plan if ok else None

    def run_of(self, conv: ParsedConversation, given_run: str | None) -> tuple[str | None, bool]:
        path, line, run, ok = conv.source, conv.line, conv.run, True
        if given_run is not None:
            if run is not None and run != given_run:
                self.result.error(path, line, f"the file names run {run!r} but the import is for run {given_run!r}")
                ok = False
            run = given_run
        elif run is None:
            run = run_from_filename(path, conv.topic)
        if (problem := id_problem(RUN, run)) is not None:
            self.result.error(path, line, f"{problem}: give --run (a name without spaces, at most 100 characters)")
            ok = False
        return run, ok

    def type_of(self, conv: ParsedConversation) -> str | None:
        types, topic = self.plan.types, self.plan.topics.get(conv.topic)
        if topic is not None:
            return next(code for code, t in types.items() if t.pk == topic.topic_type_id)
        type_code = topic_type_for(conv.topic, types)
        if type_code is None:
            known = ", ".join(sorted(types)) or "none"
            self.result.error(conv.source, conv.line, f"unknown topic {conv.topic}: its first letter names no topic type of "
                              f"campaign {self.campaign.slug} (topic types: {known})")
        return type_code

    def check_nuggets(self, conv: ParsedConversation, sets: dict[str, AttributeSet], type_code: str) -> bool:
        path, ok, error, grades = conv.source, True, self.result.error, self.plan.grades
        sweeps: dict[int, SpanSweep] = {}  # per turn: each turn's words are counted once
        for n in sorted(conv.nuggets, key=lambda n: (n.turn, n.start_word, n.end_word)):
            nline = n.line or conv.line
            turn = conv.turns[n.turn] if 0 <= n.turn < len(conv.turns) else None
            if turn is None or turn.role != "S":
                error(path, nline, "nugget in a user turn: only system turns hold nuggets", n.field)
                ok = False
                continue
            sweep = sweeps.get(n.turn)
            if sweep is None:
                sweep = sweeps[n.turn] = SpanSweep(len(conv.words(n.turn)))
            problem = sweep.check(n.start_word, n.end_word, n)
            if problem is not None and problem.outside:
                error(path, nline, f"span {n.start_word}-{n.end_word} outside {turn.name}, which has {sweep.words} words", n.field)
                ok = False
                continue
            if problem is not None:
                error(path, nline, f"this nugget overlaps the nugget at line {problem.overlaps.line} "
                      f"(nuggets of one annotator never overlap)", n.field)
                ok = False
            if n.grade is not None and n.grade not in grades:
                error(path, n.grade_line or nline, f"grade {n.grade} is not a grade of campaign {self.campaign.slug} "
                      f"({', '.join(grades) or 'none'})", n.field and n.field + ".grade")
                ok = False
            if n.entity_key is None:
                error(path, nline, "the nugget names no entity: its text has no URL and no name (add #ENTITY:)", n.field)
                ok = False
            elif (problem := id_problem(ENTITY, n.entity_key)) is not None:
                error(path, nline, problem, n.field)
                ok = False
            ok = self.check_memberships(path, nline, n, sets, type_code) and ok
        return ok

    def check_memberships(self, path: str, nline: int, n, sets: dict[str, AttributeSet], type_code: str) -> bool:
        ok = True
        for name, m in n.memberships.items():
            mline = m.line or nline
            attribute_set = sets.get(name)
            if attribute_set is None:
                known = ", ".join(sets) or "none"
                self.result.error(path, mline, f"unknown attribute set {name} for topic type {type_code} ({known})", m.field)
                ok = False
                continue
            try:
                check_distribution(list(m.vector), length=attribute_set.size)
            except VectorError as error:
                self.result.error(path, mline, f"the {name} vector {error} ({', '.join(attribute_set.groups)})", m.field)
                ok = False
                continue
            self.check_evidence(attribute_set, m.vector, m.evidence, path, mline, m.field)
        return ok

    def check_evidence(self, attribute_set: AttributeSet, vector, evidence: str, path: str, line: int, field_) -> None:
        if not evidence or not attribute_set.helper:
            return
        cache_key = (attribute_set.pk, evidence)
        if cache_key not in self.evidence_cache:
            try:
                self.evidence_cache[cache_key] = vector_from_evidence(attribute_set.helper, attribute_set.groups, evidence)
            except (EvidenceError, ValueError, TypeError):
                self.evidence_cache[cache_key] = None
        implied = self.evidence_cache[cache_key]
        if implied is not None and not same_vector(implied, vector):
            self.result.warn(path, line, f"{attribute_set.name}: the evidence {evidence!r} gives {format_vector(implied)} by "
                             f"the campaign's helper, the file says {format_vector(vector)}", field_)

    def check_citations(self, plan: ConversationPlan) -> bool:
        """A citation lies in the words of a system turn (else the file is refused: a reader
        that misplaces one misplaces others); one citing no http(s) page is left out, said."""
        conv, path, ok = plan.conv, plan.conv.source, True
        error, warn = self.result.error, self.result.warn
        words: dict[int, int] = {}
        for position, c in enumerate(conv.citations):
            where = c.line or conv.line
            turn = conv.turns[c.turn] if 0 <= c.turn < len(conv.turns) else None
            if turn is None or turn.role != "S":
                error(path, where, "a citation outside the system turns: only system turns cite", c.field)
                ok = False
                continue
            count = words.setdefault(c.turn, len(conv.words(c.turn)))
            if not 0 <= c.start_word <= c.end_word < count:
                error(path, where, f"cited span {c.start_word}-{c.end_word} outside {turn.name}, which has {count} words", c.field)
                ok = False
                continue
            try:
                if not c.url.strip().lower().startswith(("http://", "https://")):
                    raise ValueError(c.url)
                key = normalise_url(c.url)
            except ValueError:
                warn(path, where, f"the citation of {c.url[:200]!r} is not an http(s) link: not proposed", c.field)
                continue
            if (problem := id_problem(ENTITY, key)) is not None:
                warn(path, where, f"the cited URL cannot be an entity ({problem}): not proposed", c.field)
                continue
            if part := user_part(c.url):
                name, colon, _password = part[:-1].partition(":")  # a password is not repeated
                warn(path, where, f"the cited URL has a user part before its host ({name[:100] + (':...' if colon else '')}@), "
                     f"which names no page and makes a link look like another site's: dropped, the source is {key}", c.field)
            plan.citations.append(Citation(c.turn, c.start_word, c.end_word, key, c.title, position, (path, where, c.field)))
        return ok


def _plan_entities(plan: ImportPlan, annotated: list[ConversationPlan]) -> None:
    """The entities the files judge, one per topic and key: one grade, one membership per
    attribute set each (a first comment kept, a different one said)."""
    entities, error, warn = plan.entities, plan.result.error, plan.result.warn
    for p in annotated:
        path = p.conv.source
        for n in p.conv.nuggets:
            if n.entity_key is None:
                continue
            e = entities.get((p.topic, n.entity_key))
            if e is None:
                e = entities[(p.topic, n.entity_key)] = EntityPlan(topic=p.topic, key=n.entity_key)
            if not e.name and n.entity_name:
                e.name = n.entity_name
            if n.grade is not None:
                if e.grade is None:
                    e.grade, e.grade_at = n.grade, (path, n.grade_line or n.line, n.field)
                elif e.grade != n.grade:
                    error(path, n.grade_line or n.line, f"entity {n.entity_key} is {n.grade} here but "
                          f"{e.grade} at {_where(*e.grade_at[:2])} (one entity has one grade)", n.field)
            if n.comment:
                if not e.comment:
                    e.comment = n.comment
                elif e.comment != n.comment:
                    warn(path, n.grade_line or n.line, f"entity {n.entity_key}: comment {n.comment!r} differs from "
                         f"{e.comment!r} given before; the first is kept", n.field)
            for name, m in n.memberships.items():
                given = e.memberships.get(name)
                if given is None:
                    e.memberships[name] = (m.vector, m.evidence, (path, m.line or n.line, m.field))
                elif not same_vector(given[0], m.vector):
                    error(path, m.line or n.line, f"entity {n.entity_key}: {name} {format_vector(m.vector)} here but "
                          f"{format_vector(given[0])} at {_where(*given[2][:2])} (one entity has one membership "
                          "per attribute set)", m.field)


def _compare_with_the_database(plan: ImportPlan) -> None:
    """What the database already says about the files' entities (read by topic and key:
    campaign_reads): an entity judged in conversations this import leaves in place keeps its
    grade and memberships, and a file saying otherwise is refused."""
    entities, annotator = plan.entities, plan.annotator
    if not entities or annotator is None or annotator.pk is None:
        return
    keys = {(plan.topics[e.topic].pk, e.key) for e in entities.values() if e.topic in plan.topics}
    if not keys:
        return
    for entity in campaign_reads.annotator_entities(annotator, keys):
        plan.existing_entities[(entity.topic.code, entity.key)] = entity
    wanted = {entity.pk for entity in plan.existing_entities.values()}
    for m in campaign_reads.memberships_of(wanted):
        plan.existing_memberships[m.entity_id][m.attribute_set.name] = m
    replaced = {p.replace_id for p in plan.conversations if p.replace_id}
    for entity_id, conversation_id in campaign_reads.conversations_naming(wanted):
        if conversation_id not in replaced:
            plan.locked.add(entity_id)
    there = "in conversations already imported or annotated"
    for key, e in entities.items():
        entity = plan.existing_entities.get(key)
        if entity is None or entity.pk not in plan.locked:
            continue
        if e.grade is not None and entity.grade is not None and entity.grade.label != e.grade:
            path, line, field_ = e.grade_at
            plan.result.error(path, line, f"entity {e.key} is judged {entity.grade.label} {there}; this file says {e.grade}", field_)
        for name, (vector, _, (path, line, field_)) in e.memberships.items():
            current = plan.existing_memberships[entity.pk].get(name)
            if current is not None and not same_vector(current.vector, vector):
                plan.result.error(path, line, f"entity {e.key}: {name} is {format_vector(current.vector)} {there}; "
                                  f"this file says {format_vector(vector)}", field_)


def _check_missing_memberships(plan: ImportPlan, annotated: list[ConversationPlan]) -> None:
    """A relevant entity without a membership in an attribute set of its topic type is
    counted as uniform there by the scores: a warning, or an error when the campaign says
    `missing_membership: refuse`. Memberships the entity already has in the database count."""
    refuse = plan.campaign.missing_membership == Campaign.MissingMembership.REFUSE
    type_of_topic = {p.topic: plan.types[p.type_code] for p in annotated}
    for key, e in plan.entities.items():
        grade = plan.grades.get(e.grade) if e.grade is not None else None
        if grade is None or not needs_every_membership(grade.gain):
            continue  # ungraded in the file: nothing of it is scored yet, so nothing counts as uniform
        existing = plan.existing_entities.get(key)
        known = set(e.memberships) | set(plan.existing_memberships.get(existing.pk, {}) if existing else ())
        missing = [name for name in plan.sets[type_of_topic[e.topic].pk] if name not in known]
        if not missing:
            continue
        path, line, field_ = e.grade_at
        lacking = f"entity {e.key} is {e.grade} but has no {', '.join(missing)} membership"
        if refuse:
            plan.result.error(path, line, f"{lacking} (the campaign refuses it: missing_membership is refuse)", field_)
        else:
            plan.result.warn(path, line, f"{lacking}: the scores count it as uniform there", field_)


def _choose_citations(plan: ImportPlan) -> None:
    """One proposal per cited span (annotator.rules.citations), preferring sources judged in
    the topic: in the database by a person, or graded in these files."""
    cited = [p for p in plan.conversations if p.citations]
    if not cited:
        return
    judge = get_user_model().objects.filter(username=CITATIONS_JUDGE).select_related("annotator_profile").first()
    if judge is not None and not is_automatic_judge(judge):
        plan.result.error("", 0, f"the account {CITATIONS_JUDGE!r} that holds the systems' citations exists and is not an "
                          "automatic judge: mark it as one (console: Accounts) or rename it")
        return
    plan.citations_judge = judge
    judged: dict[str, set[str]] = defaultdict(set)
    for e in plan.entities.values():
        if e.grade is not None:
            judged[e.topic].add(e.key)
    # the cited sources only, not every entity of the topics
    topic_code = {t.pk: code for code, t in plan.topics.items()}
    for topic_id, key in campaign_reads.graded_keys(
            (plan.topics[p.topic].pk, c.key) for p in cited if p.topic in plan.topics for c in p.citations):
        judged[topic_code[topic_id]].add(key)
    already: set[int] = set()
    additions = [p.add_to_id for p in cited if p.add_to_id]
    if judge is not None and additions:
        already = campaign_reads.judged_conversations(judge, {pk: plan.existing_turns.get(pk, []) for pk in additions},
                                                      models=(Nugget,))
    for p in cited:
        if p.add_to_id in already:
            plan.result.warn(p.conv.source, p.conv.line, f"{p.topic} / {p.run}: its citations are proposed already")
            p.citations = []
            continue
        kept, dropped = choose_cited_spans(p.citations, judged[p.topic])
        p.citations = kept
        for citation, winner in dropped:
            path, line, field_ = citation.where
            plan.result.warn(path, line, f"the span cited from {citation.key} (words {citation.start}-{citation.end} of "
                             f"{p.conv.turns[citation.turn].name}) overlaps the span cited from {winner.key} (words "
                             f"{winner.start}-{winner.end}): only that one is proposed", field_)
