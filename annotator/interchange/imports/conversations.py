"""Importing conversation files into a campaign: all or nothing, every problem by file:line.

    result = import_files(campaign, [("M002-bing-trial1.txt", data)], run="bing-trial1")
    if result.errors: ...   # nothing was written
    result = import_files(campaign, [("conversations.json", export)], run="chatgpt", topic="M003")
    result.read   # ["conversations.json: read as ChatGPT export: 12 conversations, 31 citations"]

Files are parsed by annotator.interchange.formats (the format told by the content: the paper's,
JSONL, or a harvest), then checked against the campaign (topic types, attribute sets and
their group counts, grades, spans, entities already judged), then written where nobody looks, in
short transactions, and published in one short transaction (annotator.interchange.imports.staging): an
import never holds SQLite's only writer for long, and nothing of it is visible before it is whole.

The annotations in the files are one annotator's judgments (``annotator``; default: the
uploading ``actor``, else the campaign's first organiser, else a user named "gold"). They
become that annotator's entities (one per topic and identity key: a URL mentioned in several
conversations is one entity, whose grade and memberships must agree), nuggets and turn
labels; the annotator is assigned the conversation and becomes its gold annotator (unless an
automatic judge: a judge is never gold, and a conversation only judges annotate has none).

The rules are annotator.judgments.edits' (annotator.rules.spans, by SpanSweep: nuggets lie in one system turn
and never overlap; entity_key_and_name for identity; annotator.rules.vectors.check_distribution for vectors),
applied here to whole files in memory instead of row by row. Every judgment an import
writes, changes or deletes (with a replaced conversation) is recorded as an AnnotationEvent,
like a workspace edit, marked `imported`: the history shows it, undo does not take it back.
Replacing a conversation keeps its history: the events move to the replacement, which is
recorded as a "replaced conversation" event (undo never goes back past it).

Harvests (a vendor's export or API log: no topic, no judgments) take their topic from
``topic``; several harvested conversations of one topic and run in one import are that run's
trials (``chatgpt`` -> ``chatgpt-trial1``, ``chatgpt-trial2``...). The systems' own citations
become nuggets of the automatic judge ``citations`` (annotator.rules.citations), proposals the
annotators see in the workspace and that compare_judges measures against the gold.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePath

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotator.interchange.imports.annotators import default_annotator
from annotator.rules.topics import topic_type_for
from annotator.rules.citations import CITATIONS_DESCRIPTION, CITATIONS_JUDGE, Citation, choose_cited_spans
from annotator.rules.evidence import EvidenceError, vector_from_evidence
from annotator.rules.identity import normalise_url, user_part
from annotator.interchange.formats import FormatError, ParsedConversation, ParseResult, parse_file
from annotator.interchange.imports.staging import Cancellation, ImportCancelled, StagingArea
from annotator.judgments import completion
from annotator.judgments.edits import Event, entity_state, label_state, membership_state, nugget_state
from annotator.models import (
    AnnotationEvent,
    AnnotatorProfile,
    Assignment,
    AttributeSet,
    Campaign,
    Conversation,
    Entity,
    Grade,
    Membership,
    Nugget,
    Run,
    Topic,
    TopicType,
    Turn,
    TurnLabel,
    is_automatic_judge,
)
from annotator.rules.ids import ENTITY, RUN, TOPIC, id_problem
from annotator.rules.relevance import needs_every_membership
from annotator.rules.spans import SpanSweep
from annotator.rules.vectors import VectorError, check_distribution, format_vector
from annotator.scores import stored
from scoring.words import tokenise

__all__ = ["ImportResult", "import_files", "import_parsed", "default_annotator", "run_from_filename", "read_as",
           "ImportCancelled"]

log = logging.getLogger(__name__)

# progress(stage, conversations done so far): stage is "parsing", "checking", "writing" (staging
# starts: nothing is visible until it is published) or "written".
Progress = Callable[[str, int], None]
PROGRESS_EVERY = 200  # conversations read or checked between two progress reports


@dataclass
class ImportResult:
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)
    conversations: int = 0
    added_to: int = 0  # conversations already there that this import adds an annotator's judgments to
    replaced: int = 0
    turns: int = 0
    nuggets: int = 0
    labels: int = 0
    entities_created: int = 0
    entities_updated: int = 0
    topics_created: list[str] = field(default_factory=list)
    runs_created: list[str] = field(default_factory=list)
    annotator: str | None = None
    read: list[str] = field(default_factory=list)  # per file: what it was read as, "x.json: read as ChatGPT export: ..."
    citations: int = 0  # cited spans written as nuggets of the judge CITATIONS_JUDGE
    done: int = 0  # conversations whose imported judgments are finished (annotator.judgments.completion)

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        if self.errors:
            return f"Nothing imported: {len(self.errors)} problem(s)."
        parts = []
        if self.conversations or not self.added_to:
            parts.append(f"{self.conversations} conversation(s) imported")
        if self.added_to:
            parts.append(f"added {self.annotator}'s judgments to {self.added_to} conversation{'s' if self.added_to != 1 else ''}"
                         " already there")
        if self.replaced:
            parts.append(f"{self.replaced} replaced")
        parts.append((f"{self.turns} turns, " if self.turns or not self.added_to else "")
                     + f"{self.nuggets} nuggets, {self.labels} turn labels")
        if self.nuggets or self.labels:
            parts.append(
                f"{self.entities_created} new and {self.entities_updated} updated entities, judged by {self.annotator}"
            )
        if self.done:
            parts.append(f"{self.done} done (nothing the campaign needs is missing)")
        if self.citations:
            parts.append(f"{self.citations} cited span(s) proposed as nuggets of the automatic judge {CITATIONS_JUDGE}")
        if self.topics_created:
            parts.append(f"new topics: {_some(self.topics_created)}")
        if self.runs_created:
            parts.append(f"new runs: {_some(self.runs_created)}")
        if self.warnings:
            parts.append(f"{len(self.warnings)} warning(s)")
        return "; ".join(parts) + "."


def _counted(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def read_as(path: str, format_name: str, conversations: list[ParsedConversation]) -> str:
    """What the importer says of a file: ``x.json: read as ChatGPT export: 12 conversations, 31 citations``
    (citations are counted for harvests, and for any file that has some)."""
    citations = sum(len(c.citations) for c in conversations)
    said = f"{PurePath(path).name}: read as {format_name}: {_counted(len(conversations), 'conversation')}"
    if citations or any(not c.topic for c in conversations):
        said += f", {_counted(citations, 'citation')}"
    return said


def _some(names: list[str], shown: int = 10) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def run_from_filename(path: str, topic: str) -> str:
    """A run name from a file name: ``M002-bing-trial1.txt`` (topic M002) -> ``bing-trial1``."""
    stem = PurePath(path).name
    if "." in stem:
        stem = stem.rsplit(".", 1)[0]
    for sep in ("-", "_", "."):
        if stem.startswith(topic + sep) and len(stem) > len(topic) + 1:
            return stem[len(topic) + 1 :]
    return stem


# -- the plan: everything checked before anything is written ---------------------------------


@dataclass
class _EntityPlan:
    topic: str
    key: str
    name: str = ""
    grade: str | None = None
    grade_at: tuple[str, int, str | None] = ("", 0, None)  # path, line, JSON field
    comment: str = ""
    # attribute set -> (vector, evidence, (path, line, field))
    memberships: dict[str, tuple[tuple[float, ...], str, tuple[str, int, str | None]]] = field(default_factory=dict)


@dataclass
class _ConversationPlan:
    conv: ParsedConversation
    run: str
    topic: str
    type_code: str
    replace_id: int | None = None
    add_to_id: int | None = None  # an existing conversation that gets this annotator's judgments
    has_annotations: bool = False
    harvest: bool = False  # the file gave no topic: the import's topic was given
    citations: list[Citation] = field(default_factory=list)  # checked; chosen once the topic's judged keys are known


def _where(path: str, line: int) -> str:
    return f"{path}:{line}" if line else path


def _same_vector(a, b) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b))


class _Importer:
    def __init__(self, campaign: Campaign, *, run: str | None, annotator, replace: bool, actor,
                 progress: Progress | None = None, topic: str | None = None, cancellation: Cancellation | None = None):
        self.campaign = campaign
        self.cancellation = cancellation
        told = progress or (lambda stage, done: None)

        def progressed(stage: str, done: int) -> None:
            if cancellation is not None and stage != "written":  # "written": published, too late to cancel
                cancellation.check()
            told(stage, done)

        self.progress = progressed
        self.run = run
        self.topic = topic
        self.annotator_arg = annotator
        self.replace = replace
        self.actor = actor
        self.result = ImportResult()
        self.evidence_cache: dict[tuple[int, str], tuple | None] = {}

    def error(self, path: str, line: int, message: str, field: str | None = None) -> None:
        self.result.errors.append(FormatError(path, line, message, field))

    def warn(self, path: str, line: int, message: str, field: str | None = None) -> None:
        self.result.warnings.append(FormatError(path, line, message, field))

    # -- checking --

    def run_import(self, files: Iterable[tuple[str, bytes]]) -> ImportResult:
        parsed_files = []
        read = 0
        for name, data in files:
            before = read
            parsed = parse_file(data, name, lambda n: n % PROGRESS_EVERY or self.progress("parsing", before + n))
            read += len(parsed.conversations)
            parsed_files.append((name, parsed))
        return self.import_parsed(parsed_files)

    def import_parsed(self, files: Iterable[tuple[str, ParseResult]]) -> ImportResult:
        conversations: list[ParsedConversation] = []
        names = []
        for name, parsed in files:
            names.append(name)
            self.result.errors.extend(parsed.errors)
            self.result.warnings.extend(parsed.warnings)
            if parsed.ok:
                self.result.read.append(read_as(name, parsed.format_name or "a conversation file", parsed.conversations))
            conversations.extend(parsed.conversations)
            self.progress("parsing", len(conversations))
        if not names:
            self.error("", 0, "no files given")
            return self.result
        if self.run is not None and (problem := id_problem(RUN, self.run)) is not None:
            self.error("", 0, f"{problem}: give a run name without spaces, at most 100 characters")
            return self.result
        if self.topic is not None and (not self.topic.strip() or any(c.isspace() for c in self.topic)):
            self.error("", 0, f"topic {self.topic!r}: give a topic id without spaces")
            return self.result
        harvested = self.give_topics(conversations)
        if self.result.errors and any(not c.topic for c in conversations):
            return self.result  # without a topic, nothing else can be checked

        campaign = self.campaign
        self.grades = {g.label: g for g in Grade.objects.filter(campaign=campaign)}
        self.types = {t.code: t for t in TopicType.objects.filter(campaign=campaign)}
        self.sets: dict[int, dict[str, AttributeSet]] = defaultdict(dict)
        for a in AttributeSet.objects.filter(topic_type__campaign=campaign):
            self.sets[a.topic_type_id][a.name] = a
        codes = sorted({c.topic for c in conversations})
        self.topics = {}
        for chunk in _chunks(codes):
            self.topics.update({t.code: t for t in Topic.objects.filter(campaign=campaign, code__in=chunk)})

        plans = []
        for checked, conversation in enumerate(conversations, 1):
            plan = self.plan_conversation(conversation)
            if plan is not None:
                plan.harvest = id(conversation) in harvested
                plans.append(plan)
            if checked % PROGRESS_EVERY == 0:
                self.progress("checking", checked)
        self.progress("checking", len(conversations))
        _number_trials(plans)
        runs = sorted({p.run for p in plans})
        self.runs = {}
        for chunk in _chunks(runs):
            self.runs.update({r.name: r for r in Run.objects.filter(campaign=campaign, name__in=chunk)})
        existing = {}
        run_ids = [r.pk for r in self.runs.values()]
        topic_ids = [t.pk for t in self.topics.values()]
        if run_ids and topic_ids:
            for chunk in _chunks(topic_ids):
                for pk, code, run_name, source in Conversation.objects.filter(
                    topic_id__in=chunk, run_id__in=run_ids
                ).values_list("pk", "topic__code", "run__name", "source"):
                    existing[(code, run_name)] = (pk, source)
        seen: dict[tuple[str, str], str] = {}
        for p in plans:
            key = (p.topic, p.run)
            where = _where(p.conv.source, p.conv.line)
            if p.run in self.runs and self.runs[p.run].kind != Run.Kind.CONVERSATIONS:
                self.error(p.conv.source, p.conv.line, f"run {p.run} is a ranked-list run: it holds no conversations")
                continue
            if key in seen:
                self.error(p.conv.source, p.conv.line, f"conversation {p.topic} / {p.run} is also in {seen[key]}")
                continue
            seen[key] = where
            if key in existing:
                pk, source = existing[key]
                if self.replace:
                    p.replace_id = pk
                elif self.annotator_arg is not None:
                    p.add_to_id = pk
                else:
                    self.error(p.conv.source, p.conv.line,
                               f"conversation {p.topic} / {p.run} exists already"
                               f"{' (imported from ' + source + ')' if source else ''}: use --replace to replace it, "
                               "or --annotator to add that annotator's judgments to it")
        self.existing_turns = self.check_additions([p for p in plans if p.add_to_id])

        annotated = [p for p in plans if p.has_annotations]
        self.annotator = None
        if self.annotator_arg is not None or annotated:
            self.annotator = self.annotator_arg or default_annotator(campaign, self.actor, create=False)
            self.result.annotator = self.annotator.get_username()

        entities = self.plan_entities(annotated)
        self.check_missing_memberships(annotated, entities)
        self.choose_citations(plans, entities)
        if self.result.errors:
            return self.result
        self.progress("writing", 0)
        self.write(plans, entities)
        self.progress("written", len(plans))
        return self.result

    def give_topics(self, conversations: list[ParsedConversation]) -> set[int]:
        """Harvested conversations (no topic of their own) take the import's topic; returns
        them (by id). Files with topics keep theirs."""
        harvested = [c for c in conversations if not c.topic]
        if self.topic is None:
            lacking: dict[str, list[ParsedConversation]] = defaultdict(list)
            for conversation in harvested:
                lacking[conversation.source].append(conversation)
            for path, group in lacking.items():
                self.error(path, group[0].line, f"{_counted(len(group), 'harvested conversation')} without a topic: "
                           "a harvest carries none, give the import one (--topic T)")
            return set()
        for conversation in harvested:
            conversation.topic = self.topic
        return {id(c) for c in harvested}

    def check_additions(self, plans: list[_ConversationPlan]) -> dict[int, list[int]]:
        """An annotator's judgments go onto a conversation already there only if its text is the
        same, turn for turn, and the annotator has not judged it yet. Returns the ids of each
        existing conversation's turns, in order."""
        if not plans:
            return {}
        ids = [p.add_to_id for p in plans]
        stored: dict[int, list[tuple]] = defaultdict(list)
        judged: set[int] = set()
        for chunk in _chunks(ids):
            for row in Turn.objects.filter(conversation_id__in=chunk).order_by("conversation_id", "position").values_list(
                "conversation_id", "pk", "role", "number", "text"
            ):
                stored[row[0]].append(row[1:])
            judged.update(Nugget.objects.filter(turn__conversation_id__in=chunk, annotator=self.annotator_arg)
                          .values_list("turn__conversation_id", flat=True))
            judged.update(TurnLabel.objects.filter(turn__conversation_id__in=chunk, annotator=self.annotator_arg)
                          .values_list("turn__conversation_id", flat=True))
        name = self.annotator_arg.get_username()
        for p in plans:
            path, there = p.conv.source, f"{p.topic} / {p.run}"
            turns = stored[p.add_to_id]
            if p.add_to_id in judged:
                self.error(path, p.conv.line, f"{name} has judged conversation {there} already: "
                           "use --replace to import it anew")
            for parsed, (_, role, number, text) in zip(p.conv.turns, turns):
                if (parsed.role, parsed.number, parsed.text) != (role, number, text):
                    self.error(path, parsed.line or p.conv.line, f"{parsed.name} differs from {role}{number} of "
                               f"conversation {there} already imported: judgments are added only to the same text",
                               parsed.field)
                    break
            else:
                if len(p.conv.turns) != len(turns):
                    self.error(path, p.conv.line, f"{len(p.conv.turns)} turns, but conversation {there} already "
                               f"imported has {len(turns)}: judgments are added only to the same text")
        return {pk: [row[0] for row in rows] for pk, rows in stored.items()}

    def plan_conversation(self, conv: ParsedConversation) -> _ConversationPlan | None:
        path, line = conv.source, conv.line
        ok = True
        run = conv.run
        if self.run is not None:
            if run is not None and run != self.run:
                self.error(path, line, f"the file names run {run!r} but the import is for run {self.run!r}")
                ok = False
            run = self.run
        elif run is None:
            run = run_from_filename(path, conv.topic)
        if (problem := id_problem(RUN, run)) is not None:
            self.error(path, line, f"{problem}: give --run (a name without spaces, at most 100 characters)")
            ok = False
        if (problem := id_problem(TOPIC, conv.topic)) is not None:
            self.error(path, line, problem)
            return None
        topic = self.topics.get(conv.topic)
        if topic is not None:
            type_code = next(code for code, t in self.types.items() if t.pk == topic.topic_type_id)
        else:
            type_code = topic_type_for(conv.topic, self.types)
            if type_code is None:
                known = ", ".join(sorted(self.types)) or "none"
                self.error(path, line, f"unknown topic {conv.topic}: its first letter names no topic type of "
                           f"campaign {self.campaign.slug} (topic types: {known})")
                return None
        topic_type = self.types[type_code]
        sets = self.sets[topic_type.pk]
        plan = _ConversationPlan(conv=conv, run=run or "", topic=conv.topic, type_code=type_code)
        plan.has_annotations = bool(conv.nuggets) or any(t.label for t in conv.turns)

        for turn in conv.turns:
            if turn.role == "U" and turn.label:
                self.error(path, turn.line, "a user turn has no usefulness label", turn.field)
                ok = False
        sweeps: dict[int, SpanSweep] = {}  # per turn: each turn's words are counted once
        for n in sorted(conv.nuggets, key=lambda n: (n.turn, n.start_word, n.end_word)):
            nline = n.line or line
            turn = conv.turns[n.turn] if 0 <= n.turn < len(conv.turns) else None
            if turn is None or turn.role != "S":
                self.error(path, nline, "nugget in a user turn: only system turns hold nuggets", n.field)
                ok = False
                continue
            sweep = sweeps.get(n.turn)
            if sweep is None:
                sweep = sweeps[n.turn] = SpanSweep(len(conv.words(n.turn)))
            problem = sweep.check(n.start_word, n.end_word, n)
            if problem is not None and problem.outside:
                self.error(path, nline, f"span {n.start_word}-{n.end_word} outside {turn.name}, which has "
                           f"{sweep.words} words", n.field)
                ok = False
                continue
            if problem is not None:
                self.error(path, nline, f"this nugget overlaps the nugget at line {problem.overlaps.line} "
                           f"(nuggets of one annotator never overlap)", n.field)
                ok = False
            if n.grade is not None and n.grade not in self.grades:
                self.error(path, n.grade_line or nline,
                           f"grade {n.grade} is not a grade of campaign {self.campaign.slug} ({', '.join(self.grades) or 'none'})",
                           n.field and n.field + ".grade")
                ok = False
            if n.entity_key is None:
                self.error(path, nline, "the nugget names no entity: its text has no URL and no name (add #ENTITY:)", n.field)
                ok = False
            elif (problem := id_problem(ENTITY, n.entity_key)) is not None:
                self.error(path, nline, problem, n.field)
                ok = False
            for name, m in n.memberships.items():
                mline = m.line or nline
                attribute_set = sets.get(name)
                if attribute_set is None:
                    known = ", ".join(sets) or "none"
                    self.error(path, mline, f"unknown attribute set {name} for topic type {type_code} ({known})", m.field)
                    ok = False
                    continue
                try:
                    check_distribution(list(m.vector), length=attribute_set.size)
                except VectorError as error:
                    self.error(path, mline, f"the {name} vector {error} ({', '.join(attribute_set.groups)})", m.field)
                    ok = False
                    continue
                self.check_evidence(attribute_set, m.vector, m.evidence, path, mline, m.field)
        ok = self.check_citations(plan) and ok
        return plan if ok else None

    def check_citations(self, plan: _ConversationPlan) -> bool:
        """A citation lies in the words of a system turn (else the file is refused: a reader
        that misplaces one misplaces others); one citing no http(s) page is left out, said."""
        conv, path = plan.conv, plan.conv.source
        ok = True
        words: dict[int, int] = {}
        for position, c in enumerate(conv.citations):
            where = c.line or conv.line
            turn = conv.turns[c.turn] if 0 <= c.turn < len(conv.turns) else None
            if turn is None or turn.role != "S":
                self.error(path, where, "a citation outside the system turns: only system turns cite", c.field)
                ok = False
                continue
            count = words.setdefault(c.turn, len(conv.words(c.turn)))
            if not 0 <= c.start_word <= c.end_word < count:
                self.error(path, where, f"cited span {c.start_word}-{c.end_word} outside {turn.name}, which has {count} words",
                           c.field)
                ok = False
                continue
            try:
                if not c.url.strip().lower().startswith(("http://", "https://")):
                    raise ValueError(c.url)
                key = normalise_url(c.url)
            except ValueError:
                self.warn(path, where, f"the citation of {c.url[:200]!r} is not an http(s) link: not proposed", c.field)
                continue
            if (problem := id_problem(ENTITY, key)) is not None:
                self.warn(path, where, f"the cited URL cannot be an entity ({problem}): not proposed", c.field)
                continue
            if part := user_part(c.url):
                name, colon, _password = part[:-1].partition(":")  # a password is not repeated
                self.warn(path, where, f"the cited URL has a user part before its host ({name[:100] + (':...' if colon else '')}@), "
                          f"which names no page and makes a link look like another site's: dropped, the source is {key}", c.field)
            plan.citations.append(Citation(c.turn, c.start_word, c.end_word, key, c.title, position, (path, where, c.field)))
        return ok

    def choose_citations(self, plans: list[_ConversationPlan], entities: dict[tuple[str, str], _EntityPlan]) -> None:
        """One proposal per cited span (annotator.rules.citations), preferring sources judged in
        the topic: in the database by a person, or graded in these files."""
        cited = [p for p in plans if p.citations]
        self.citations_judge = None
        if not cited:
            return
        User = get_user_model()
        judge = User.objects.filter(username=CITATIONS_JUDGE).select_related("annotator_profile").first()
        if judge is not None and not is_automatic_judge(judge):
            self.error("", 0, f"the account {CITATIONS_JUDGE!r} that holds the systems' citations exists and is not an "
                       "automatic judge: mark it as one (console: Accounts) or rename it")
            return
        self.citations_judge = judge
        judged: dict[str, set[str]] = defaultdict(set)
        for e in entities.values():
            if e.grade is not None:
                judged[e.topic].add(e.key)
        topic_ids = sorted({self.topics[p.topic].pk for p in cited if p.topic in self.topics})
        for chunk in _chunks(topic_ids):
            for code, key in (Entity.objects.filter(topic_id__in=chunk, grade__isnull=False)
                              .exclude(AnnotatorProfile.automatic("annotator__")).values_list("topic__code", "key")):
                judged[code].add(key)
        already: set[int] = set()
        additions = [p.add_to_id for p in cited if p.add_to_id]
        if judge is not None and additions:
            for chunk in _chunks(additions):
                already.update(Nugget.objects.filter(annotator=judge, turn__conversation_id__in=chunk)
                               .values_list("turn__conversation_id", flat=True))
        for p in cited:
            if p.add_to_id in already:
                self.warn(p.conv.source, p.conv.line, f"{p.topic} / {p.run}: its citations are proposed already")
                p.citations = []
                continue
            kept, dropped = choose_cited_spans(p.citations, judged[p.topic])
            p.citations = kept
            for citation, winner in dropped:
                path, line, field_ = citation.where
                self.warn(path, line, f"the span cited from {citation.key} (words {citation.start}-{citation.end} of "
                          f"{p.conv.turns[citation.turn].name}) overlaps the span cited from {winner.key} (words "
                          f"{winner.start}-{winner.end}): only that one is proposed", field_)

    def check_evidence(self, attribute_set: AttributeSet, vector, evidence: str, path: str, line: int, field) -> None:
        if not evidence or not attribute_set.helper:
            return
        cache_key = (attribute_set.pk, evidence)
        if cache_key not in self.evidence_cache:
            try:
                self.evidence_cache[cache_key] = vector_from_evidence(attribute_set.helper, attribute_set.groups, evidence)
            except (EvidenceError, ValueError, TypeError):
                self.evidence_cache[cache_key] = None
        implied = self.evidence_cache[cache_key]
        if implied is not None and not _same_vector(implied, vector):
            self.warn(path, line, f"{attribute_set.name}: the evidence {evidence!r} gives {format_vector(implied)} by the "
                      f"campaign's helper, the file says {format_vector(vector)}", field)

    def plan_entities(self, plans: list[_ConversationPlan]) -> dict[tuple[str, str], _EntityPlan]:
        entities: dict[tuple[str, str], _EntityPlan] = {}
        for p in plans:
            path = p.conv.source
            for n in p.conv.nuggets:
                if n.entity_key is None:
                    continue
                e = entities.get((p.topic, n.entity_key))
                if e is None:
                    e = entities[(p.topic, n.entity_key)] = _EntityPlan(topic=p.topic, key=n.entity_key)
                if not e.name and n.entity_name:
                    e.name = n.entity_name
                if n.grade is not None:
                    if e.grade is None:
                        e.grade, e.grade_at = n.grade, (path, n.grade_line or n.line, n.field)
                    elif e.grade != n.grade:
                        self.error(path, n.grade_line or n.line, f"entity {n.entity_key} is {n.grade} here but "
                                   f"{e.grade} at {_where(*e.grade_at[:2])} (one entity has one grade)", n.field)
                if n.comment:
                    if not e.comment:
                        e.comment = n.comment
                    elif e.comment != n.comment:
                        self.warn(path, n.grade_line or n.line, f"entity {n.entity_key}: comment {n.comment!r} differs from "
                                  f"{e.comment!r} given before; the first is kept", n.field)
                for name, m in n.memberships.items():
                    given = e.memberships.get(name)
                    if given is None:
                        e.memberships[name] = (m.vector, m.evidence, (path, m.line or n.line, m.field))
                    elif not _same_vector(given[0], m.vector):
                        self.error(path, m.line or n.line, f"entity {n.entity_key}: {name} {format_vector(m.vector)} here but "
                                   f"{format_vector(given[0])} at {_where(*given[2][:2])} (one entity has one membership "
                                   "per attribute set)", m.field)
        if not entities or self.annotator is None or self.annotator.pk is None:
            self.existing_entities, self.existing_memberships, self.locked = {}, {}, set()
            return entities

        # what the database already says about these entities (queries by topic, not by id:
        # no IN list grows with the file)
        topic_ids = sorted({self.topics[e.topic].pk for e in entities.values() if e.topic in self.topics})
        self.existing_entities: dict[tuple[str, str], Entity] = {}
        self.existing_memberships: dict[int, dict[str, Membership]] = defaultdict(dict)
        self.locked: set[int] = set()
        if not topic_ids:
            return entities
        mine = dict(topic_id__in=topic_ids, annotator=self.annotator)
        for entity in Entity.objects.filter(**mine).select_related("grade", "topic"):
            if (entity.topic.code, entity.key) in entities:
                self.existing_entities[(entity.topic.code, entity.key)] = entity
        wanted = {entity.pk for entity in self.existing_entities.values()}
        for m in Membership.objects.filter(entity__topic_id__in=topic_ids, entity__annotator=self.annotator).select_related("attribute_set"):
            if m.entity_id in wanted:
                self.existing_memberships[m.entity_id][m.attribute_set.name] = m
        replaced = {p.replace_id for p in plans if p.replace_id}
        for entity_id, conversation_id in (
            Nugget.objects.filter(entity__topic_id__in=topic_ids, entity__annotator=self.annotator)
            .order_by()  # not the model's ordering: it would join topic and run into the DISTINCT
            .values_list("entity_id", "turn__conversation_id")
            .distinct()
        ):
            if entity_id in wanted and conversation_id not in replaced:
                self.locked.add(entity_id)
        there = "in conversations already imported or annotated"
        for key, e in entities.items():
            entity = self.existing_entities.get(key)
            if entity is None or entity.pk not in self.locked:
                continue
            if e.grade is not None and entity.grade is not None and entity.grade.label != e.grade:
                path, line, field_ = e.grade_at
                self.error(path, line, f"entity {e.key} is judged {entity.grade.label} {there}; this file says {e.grade}", field_)
            for name, (vector, _, (path, line, field_)) in e.memberships.items():
                current = self.existing_memberships[entity.pk].get(name)
                if current is not None and not _same_vector(current.vector, vector):
                    self.error(path, line, f"entity {e.key}: {name} is {format_vector(current.vector)} {there}; "
                               f"this file says {format_vector(vector)}", field_)
        return entities

    def check_missing_memberships(self, plans: list[_ConversationPlan], entities: dict[tuple[str, str], _EntityPlan]) -> None:
        """A relevant entity without a membership in an attribute set of its topic type is
        counted as uniform there by the scores: a warning, or an error when the campaign says
        `missing_membership: refuse`. Memberships the entity already has in the database count."""
        refuse = self.campaign.missing_membership == Campaign.MissingMembership.REFUSE
        type_of_topic = {p.topic: self.types[p.type_code] for p in plans}
        for key, e in entities.items():
            grade = self.grades.get(e.grade) if e.grade is not None else None
            if grade is None or not needs_every_membership(grade.gain):
                continue  # ungraded in the file: nothing of it is scored yet, so nothing counts as uniform
            existing = self.existing_entities.get(key)
            known = set(e.memberships) | set(self.existing_memberships.get(existing.pk, {}) if existing else ())
            missing = [name for name in self.sets[type_of_topic[e.topic].pk] if name not in known]
            if not missing:
                continue
            path, line, field_ = e.grade_at
            lacking = f"entity {e.key} is {e.grade} but has no {', '.join(missing)} membership"
            if refuse:
                self.error(path, line, f"{lacking} (the campaign refuses it: missing_membership is refuse)", field_)
            else:
                self.warn(path, line, f"{lacking}: the scores count it as uniform there", field_)

    # -- writing --

    def write(self, plans: list[_ConversationPlan], entities: dict[tuple[str, str], _EntityPlan]) -> None:
        """Everything checked is staged in short transactions where nobody looks, then published
        in one short transaction (annotator.interchange.imports.staging): an import never holds the only
        writer (SQLite) for long, and nothing of it is visible before it is whole. On any failure
        the staged rows are deleted: nothing was ever visible."""
        if self.annotator is not None and self.annotator.pk is None:
            self.annotator.save()  # the user "gold", first needed now
        if self.citations_judge is None and any(p.citations for p in plans):
            self.citations_judge = _create_citations_judge()
        area = StagingArea.open(self.campaign, self.cancellation)
        try:
            publishing = self.stage(plans, entities, area)
            topics = set(self.final_topic.values())

            present: list[int] = []

            def publishing_and_figures() -> None:
                publishing()
                # The conversations already there of the topics written: the entities a topic
                # shares, or judgments added to them, may have changed their figures. Their
                # stored rows go in the publishing transaction (one DELETE a chunk; none for an
                # import into new topics) and are stored again below.
                present.extend(pk for chunk in _chunks(sorted(topics))
                               for pk in Conversation.objects.filter(topic_id__in=chunk).values_list("pk", flat=True)
                               if pk not in self.staged_conversations)
                stored.forget_conversations(present)
            area.publish(then=publishing_and_figures)
        except BaseException:
            try:
                area.discard()
            except Exception:  # the import's own error is the one to report; the area stays invisible
                log.exception("could not delete the staging area %s (sweep_abandoned will, once this process ends)",
                              area.area.slug)
            raise
        area.discard()  # the conversations publishing retired (replaced), in short transactions
        self.delete_orphans()
        # The figures of the new conversations and of those whose rows publishing deleted, in
        # short transactions too. Until each is stored, a page that reads it finds no row and
        # stores it then (annotator.scores.stored), so nothing reads stale figures, even if this
        # process dies here.
        area.in_short_transactions("figures", sorted(set(self.staged_conversations) | set(present)),
                                   lambda chunk: stored.refresh_conversations(self.campaign, chunk),
                                   what="conversations' figures")
        # finished judgments are done, by the rule an annotator's Done button follows
        if self.annotator is not None and self.annotated_conversations:
            self.result.done = completion.mark_done_if_ready(self.campaign, self.annotator.pk, self.annotated_conversations)

    def stage(self, plans: list[_ConversationPlan], entities: dict[tuple[str, str], _EntityPlan],
              area: StagingArea) -> Callable[[], None]:
        """Write the new rows into the staging area; returns what publishing does besides moving
        them: the changes to rows already visible (assignments, judgments added to conversations
        already there, entities updated, memberships replaced), with their history."""
        campaign, result, annotator = self.campaign, self.result, self.annotator
        judge_files = is_automatic_judge(annotator)  # a judge's file never makes it gold
        actor = self.actor if getattr(self.actor, "pk", None) else None
        history = _History(actor=actor)  # of staged rows: written staged
        later = _History(actor=actor)  # of visible rows: written at publish
        deferred: list[Callable[[], None]] = []

        type_of = {p.topic: self.types[p.type_code].pk for p in plans}
        staged_topics = area.topics((code, self.topics.get(code), type_id) for code, type_id in type_of.items())
        result.topics_created = sorted(code for code in staged_topics if code not in self.topics)
        # a new topic is staged as itself (moved into the campaign at publish); an existing one by a copy
        final_topic = {code: (self.topics[code] if code in self.topics else t).pk for code, t in staged_topics.items()}
        self.final_topic = final_topic
        staged_runs = area.runs((name, self.runs.get(name)) for name in sorted({p.run for p in plans}))
        result.runs_created = sorted(set(staged_runs) - set(self.runs))
        self.staged_topics = staged_topics

        # replacing: remember who was assigned and which entities were mentioned; retired at publish
        replaced = [p.replace_id for p in plans if p.replace_id]
        keep_assignees: dict[int, list[int]] = defaultdict(list)
        self.touched_entities: set[int] = set()
        if replaced:
            for chunk in _chunks(replaced):
                for conversation_id, annotator_id in Assignment.objects.filter(conversation_id__in=chunk).values_list(
                    "conversation_id", "annotator_id"
                ):
                    keep_assignees[conversation_id].append(annotator_id)
            others: set[int] = set()
            # the systems' citations this import proposes again are not someone's lost work
            citations_judge = getattr(self.citations_judge, "pk", None)
            proposed_anew = {p.replace_id for p in plans if p.replace_id and p.citations}
            topic_of = {c: t for chunk in _chunks(replaced)
                        for c, t in Conversation.objects.filter(pk__in=chunk).values_list("pk", "topic_id")}
            for chunk in _chunks(replaced):
                for nugget in (
                    Nugget.objects.filter(turn__conversation_id__in=chunk).select_related("turn")
                    .only("turn_id", "entity_id", "start_word", "end_word", "annotator_id", "turn__conversation_id")
                ):
                    conversation_id = nugget.turn.conversation_id
                    self.touched_entities.add(nugget.entity_id)
                    if (annotator is None or nugget.annotator_id != annotator.pk) and not (
                        nugget.annotator_id == citations_judge and conversation_id in proposed_anew
                    ):
                        others.add(conversation_id)
                    history.record(Event.Kind.NUGGET, Event.Action.DELETE, nugget.pk, topic_of[conversation_id],
                                   conversation_id, nugget.annotator_id, before=nugget_state(nugget))
            for chunk in _chunks(replaced):
                for label in (
                    TurnLabel.objects.filter(turn__conversation_id__in=chunk).select_related("turn")
                    .only("turn_id", "annotator_id", "label", "turn__conversation_id")
                ):
                    history.record(Event.Kind.LABEL, Event.Action.DELETE, label.pk, topic_of[label.turn.conversation_id],
                                   label.turn.conversation_id, label.annotator_id, before=label_state(label))
            for p in plans:
                if p.replace_id in others:
                    self.warn(p.conv.source, p.conv.line, f"{p.topic} / {p.run}: the judgments other annotators had "
                              "made on the replaced conversation were deleted with it")
            result.replaced = len(replaced)

        # a conversation already there (additions) keeps its text, source and gold
        conversations = [
            Conversation(pk=p.add_to_id, topic=self.topics[p.topic], run=self.runs[p.run]) if p.add_to_id else
            Conversation(
                topic=staged_topics[p.topic],
                run=staged_runs[p.run],
                source=PurePath(p.conv.source).name[:500],
                gold_annotator=annotator if p.has_annotations and not judge_files else None,
            )
            for p in plans
        ]
        area.write(Conversation, [c for c, p in zip(conversations, plans) if not p.add_to_id])
        staged_conversations = self.staged_conversations = {c.pk for c, p in zip(conversations, plans) if not p.add_to_id}
        self.annotated_conversations = [c.pk for c, p in zip(conversations, plans) if p.has_annotations]
        for ci, p in enumerate(plans):
            if p.replace_id:
                area.retire(p.replace_id, conversations[ci].pk, topic_id=self.topics[p.topic].pk, run_id=self.runs[p.run].pk)
                judges = [*keep_assignees[p.replace_id], *([annotator.pk] if annotator is not None else [])]
                history.replace(p.replace_id, conversations[ci], final_topic[p.topic], judges, conversations[ci].source)
        turns: list[Turn] = []
        turn_of: dict[tuple[int, int], Turn] = {}
        for ci, p in enumerate(plans):
            existing_turns = self.existing_turns.get(p.add_to_id, [])
            for ti, t in enumerate(p.conv.turns):
                turn = Turn(conversation_id=conversations[ci].pk, position=ti + 1, role=t.role, number=t.number, text=t.text)
                if p.add_to_id:
                    turn.pk = existing_turns[ti]
                else:
                    turns.append(turn)
                turn_of[(ci, ti)] = turn
        area.write(Turn, turns)
        result.added_to = sum(1 for p in plans if p.add_to_id)
        result.conversations, result.turns = len(conversations) - result.added_to, len(turns)
        staged_turns = {turn.pk for turn in turns}

        entity_of: dict[tuple[str, str], Entity] = {}
        if annotator is not None and entities:
            now = timezone.now()
            new_entities, updated = [], []
            for key, e in entities.items():
                entity = self.existing_entities.get(key)
                grade = self.grades[e.grade] if e.grade is not None else None
                if entity is None:
                    entity = Entity(topic=staged_topics[e.topic], annotator=annotator, key=e.key, name=e.name[:1000],
                                    grade=grade, comment=e.comment)
                    new_entities.append(entity)
                else:
                    before = entity_state(entity)
                    changed = False
                    if grade is not None and entity.grade_id != grade.pk:
                        entity.grade, changed = grade, True
                    if e.comment and entity.comment != e.comment and (entity.pk not in self.locked or not entity.comment):
                        entity.comment, changed = e.comment, True
                    if e.name and not entity.name:
                        entity.name, changed = e.name[:1000], True
                    memberships = self.existing_memberships.get(entity.pk, {})
                    if any(name not in memberships or not _same_vector(memberships[name].vector, v) or memberships[name].evidence != ev[:1000]
                           for name, (v, ev, _) in e.memberships.items()):
                        changed = True
                    if changed:
                        entity.version = F("version") + 1
                        entity.updated_at = now
                        updated.append((entity, before))
                entity_of[key] = entity
            area.write(Entity, new_entities)
            result.entities_created, result.entities_updated = len(new_entities), len(updated)
            for entity in new_entities:
                topic_id = final_topic[entity.topic.code]
                history.record(Event.Kind.ENTITY, Event.Action.CREATE, entity.pk, topic_id, None, annotator.pk,
                               after={**entity_state(entity), "topic": topic_id})

            def update_entities() -> None:
                if updated:
                    Entity.objects.bulk_update([e for e, _ in updated], ["grade", "comment", "name", "version", "updated_at"],
                                               batch_size=500)
                for entity, before in updated:
                    later.record(Event.Kind.ENTITY, Event.Action.UPDATE, entity.pk, entity.topic_id, None, annotator.pk,
                                 before=before, after=entity_state(entity))
            deferred.append(update_entities)

            stale, fresh, fresh_later = [], [], []
            type_of_topic = {p.topic: self.types[p.type_code] for p in plans}
            new_keys = {key for key in entities if key not in self.existing_entities}
            for key, e in entities.items():
                entity = entity_of[key]
                current = self.existing_memberships.get(entity.pk, {}) if key in self.existing_entities else {}
                topic_type = type_of_topic[e.topic]
                for name, (vector, evidence, _) in e.memberships.items():
                    old = current.get(name)
                    if old is not None and _same_vector(old.vector, vector) and old.evidence == evidence[:1000]:
                        continue
                    if old is not None:
                        stale.append((old, final_topic[e.topic]))
                    membership = Membership(entity=entity, attribute_set=self.sets[topic_type.pk][name],
                                            vector=[float(v) for v in vector], evidence=evidence[:1000])
                    (fresh if key in new_keys else fresh_later).append((membership, final_topic[e.topic]))
            area.write(Membership, [m for m, _ in fresh])
            for membership, topic_id in fresh:
                history.record(Event.Kind.MEMBERSHIP, Event.Action.CREATE, membership.pk, topic_id, None, annotator.pk,
                               after=membership_state(membership))

            def replace_memberships() -> None:
                for old, topic_id in stale:
                    later.record(Event.Kind.MEMBERSHIP, Event.Action.DELETE, old.pk, topic_id, None, annotator.pk,
                                 before=membership_state(old))
                for chunk in _chunks([old.pk for old, _ in stale]):
                    Membership.objects.filter(pk__in=chunk).delete()
                Membership.objects.bulk_create([m for m, _ in fresh_later], batch_size=1000)
                for membership, topic_id in fresh_later:
                    later.record(Event.Kind.MEMBERSHIP, Event.Action.CREATE, membership.pk, topic_id, None, annotator.pk,
                                 after=membership_state(membership))
            deferred.append(replace_memberships)

        nuggets, labels, assignments = [], [], []
        for ci, p in enumerate(plans):
            words = _TurnWords(p.conv)
            for n in p.conv.nuggets:
                nuggets.append(Nugget(turn_id=turn_of[(ci, n.turn)].pk, annotator_id=annotator.pk,
                                      entity_id=entity_of[(p.topic, n.entity_key)].pk,
                                      start_word=n.start_word, end_word=n.end_word,
                                      **Nugget.words_naming(words[n.turn], n.start_word, n.end_word)))
            for ti, t in enumerate(p.conv.turns):
                if t.role == "S" and t.label:
                    labels.append(TurnLabel(turn_id=turn_of[(ci, ti)].pk, annotator_id=annotator.pk, label=t.label))
            holders = set(keep_assignees.get(p.replace_id, [])) if p.replace_id else set()
            if annotator is not None and (p.has_annotations or self.annotator_arg is not None):
                holders.add(annotator.pk)
            assignments.extend(Assignment(conversation_id=conversations[ci].pk, annotator_id=a) for a in sorted(holders))
        result.nuggets, result.labels = len(nuggets), len(labels)
        # judgments on staged turns are staged; those added to conversations already there wait for publishing
        conversation_of_turn = {turn.pk: (conversations[ci].pk, final_topic[plans[ci].topic]) for (ci, _), turn in turn_of.items()}
        deferred.append(self.stage_judgments(area, [n for n in nuggets if n.turn_id in staged_turns],
                                             [n for n in nuggets if n.turn_id not in staged_turns],
                                             conversation_of_turn, history, later))
        deferred.append(self.stage_labels(area, [l for l in labels if l.turn_id in staged_turns],
                                          [l for l in labels if l.turn_id not in staged_turns],
                                          conversation_of_turn, history, later))
        deferred.append(self.write_citations(area, plans, conversations, turn_of, staged_turns, history, later))
        # assignments of staged conversations are staged (access leaves the area out); of conversations already there, published
        area.write(Assignment, [a for a in assignments if a.conversation_id in staged_conversations], ignore_conflicts=True)
        history.write(area)

        def publishing() -> None:
            Assignment.objects.bulk_create([a for a in assignments if a.conversation_id not in staged_conversations],
                                           batch_size=1000, ignore_conflicts=True)
            for step in deferred:
                step()
            later.write()
        return publishing

    def stage_judgments(self, area, staged: list[Nugget], visible: list[Nugget], conversation_of_turn, history: _History,
                        later: _History) -> Callable[[], None]:
        area.write(Nugget, staged)
        for nugget in staged:
            conversation_id, topic_id = conversation_of_turn[nugget.turn_id]
            history.record(Event.Kind.NUGGET, Event.Action.CREATE, nugget.pk, topic_id, conversation_id, nugget.annotator_id,
                           after=nugget_state(nugget))

        def add() -> None:
            Nugget.objects.bulk_create(visible, batch_size=1000)
            for nugget in visible:
                conversation_id, topic_id = conversation_of_turn[nugget.turn_id]
                later.record(Event.Kind.NUGGET, Event.Action.CREATE, nugget.pk, topic_id, conversation_id,
                             nugget.annotator_id, after=nugget_state(nugget))
        return add

    def stage_labels(self, area, staged: list[TurnLabel], visible: list[TurnLabel], conversation_of_turn,
                     history: _History, later: _History) -> Callable[[], None]:
        area.write(TurnLabel, staged)
        for label in staged:
            conversation_id, topic_id = conversation_of_turn[label.turn_id]
            history.record(Event.Kind.LABEL, Event.Action.CREATE, label.pk, topic_id, conversation_id, label.annotator_id,
                           after=label_state(label))

        def add() -> None:
            TurnLabel.objects.bulk_create(visible, batch_size=1000)
            for label in visible:
                conversation_id, topic_id = conversation_of_turn[label.turn_id]
                later.record(Event.Kind.LABEL, Event.Action.CREATE, label.pk, topic_id, conversation_id, label.annotator_id,
                             after=label_state(label))
        return add

    def delete_orphans(self) -> None:
        """Entities only the replaced conversations mentioned, and this import does not: deleted
        once those conversations are (after publishing), with their history."""
        for chunk in _chunks(sorted(self.touched_entities)):
            with transaction.atomic():
                orphans = list(Entity.objects.filter(pk__in=chunk, nuggets__isnull=True))
                history = _History(actor=self.actor if getattr(self.actor, "pk", None) else None)
                for entity in orphans:
                    history.record(Event.Kind.ENTITY, Event.Action.DELETE, entity.pk, entity.topic_id, None,
                                   entity.annotator_id, before=entity_state(entity))
                Entity.objects.filter(pk__in=[entity.pk for entity in orphans]).delete()
                history.write()

    def write_citations(self, area, plans, conversations, turn_of, staged_turns, history: _History,
                        later: _History) -> Callable[[], None]:
        """The chosen cited spans as nuggets of the automatic judge CITATIONS_JUDGE (created
        before staging when missing), its entities (one per topic and URL: the campaign's top
        grade, the source's title as name), and its assignment to each conversation."""
        cited = [(ci, p) for ci, p in enumerate(plans) if p.citations]
        if not cited:
            return lambda: None
        judge = self.citations_judge
        top = max(self.grades.values(), key=lambda g: g.level, default=None)
        topic_ids = sorted({self.topics[p.topic].pk for _, p in cited if p.topic in self.topics})
        code_of = {t.pk: code for code, t in self.topics.items()}
        entity_of: dict[tuple[str, str], Entity] = {}
        for chunk in _chunks(topic_ids):
            entity_of.update({(code_of[e.topic_id], e.key): e
                              for e in Entity.objects.filter(topic_id__in=chunk, annotator=judge)})
        new_entities = []
        for _, p in cited:
            for c in p.citations:
                if (p.topic, c.key) not in entity_of:
                    entity = Entity(topic=self.staged_topics[p.topic], annotator=judge, key=c.key, name=c.title[:1000],
                                    grade=top)
                    entity_of[(p.topic, c.key)] = entity
                    new_entities.append((entity, p.topic))
        area.write(Entity, [e for e, _ in new_entities])
        for entity, code in new_entities:
            topic_id = self.final_topic[code]
            history.record(Event.Kind.ENTITY, Event.Action.CREATE, entity.pk, topic_id, None, judge.pk,
                           after={**entity_state(entity), "topic": topic_id})
        nuggets = []
        for ci, p in cited:
            words = _TurnWords(p.conv)
            nuggets.extend(
                Nugget(turn_id=turn_of[(ci, c.turn)].pk, annotator_id=judge.pk, entity_id=entity_of[(p.topic, c.key)].pk,
                       start_word=c.start, end_word=c.end, **Nugget.words_naming(words[c.turn], c.start, c.end))
                for c in p.citations
            )
        conversation_of_turn = {turn_of[(ci, c.turn)].pk: (conversations[ci].pk, self.final_topic[p.topic])
                                for ci, p in cited for c in p.citations}
        add = self.stage_judgments(area, [n for n in nuggets if n.turn_id in staged_turns],
                                   [n for n in nuggets if n.turn_id not in staged_turns], conversation_of_turn, history, later)
        self.result.citations = len(nuggets)

        holds = [Assignment(conversation_id=conversations[ci].pk, annotator_id=judge.pk) for ci, _ in cited]
        area.write(Assignment, [a for a in holds if a.conversation_id in self.staged_conversations], ignore_conflicts=True)

        def publishing() -> None:
            add()
            Assignment.objects.bulk_create([a for a in holds if a.conversation_id not in self.staged_conversations],
                                           batch_size=1000, ignore_conflicts=True)
        return publishing


def _create_citations_judge():
    user = get_user_model()(username=CITATIONS_JUDGE)
    user.set_unusable_password()
    user.save()
    AnnotatorProfile.mark(user, automatic=True, description=CITATIONS_DESCRIPTION)
    return user


def _number_trials(plans: list[_ConversationPlan]) -> None:
    """Harvested conversations sharing a topic and a run in one import are the run's trials,
    in file order: ``chatgpt`` -> ``chatgpt-trial1``, ``chatgpt-trial2``; ``gpt-trial3`` ->
    ``gpt-trial3``, ``gpt-trial4``."""
    groups: dict[tuple[str, str], list[_ConversationPlan]] = defaultdict(list)
    for p in plans:
        if p.harvest:
            groups[(p.topic, p.run)].append(p)
    for (_, run), group in groups.items():
        if len(group) < 2:
            continue
        system, trial = Run.system_and_trial_of(run)
        for k, p in enumerate(group):
            p.run = f"{system}-trial{trial + k}"


class _History:
    """The import's changes to judgments, as AnnotationEvents (the same states as workspace
    edits record), written in bulk with the rest of the import. `imported` keeps them out of
    reach of the workspace's undo: an import is where the annotator's work starts."""

    def __init__(self, actor):
        self.actor = actor
        self.events: list[Event] = []
        self.replaced_by: dict[int, int] = {}  # replaced conversation id -> its replacement's

    def record(self, kind, action, object_id, topic_id, conversation_id, annotator_id, *, before=None, after=None):
        self.events.append(Event(kind=kind, action=action, object_id=object_id, topic_id=topic_id,
                                 conversation_id=conversation_id, annotator_id=annotator_id, actor=self.actor,
                                 before=before, after=after, imported=True))

    def replace(self, replaced_id: int, replacement: Conversation, topic_id: int, annotator_ids: Iterable[int],
                source: str) -> None:
        """The replacement itself, once in the history of each annotator whose judgments it
        replaced: the older events (moved to the replacement) stay, and undo stops there."""
        self.replaced_by[replaced_id] = replacement.pk
        for annotator_id in sorted(set(annotator_ids)):
            self.record(Event.Kind.CONVERSATION, Event.Action.REPLACE, replacement.pk, topic_id,
                        replacement.pk, annotator_id, before={"conversation": replaced_id},
                        after={"conversation": replacement.pk, "source": source})

    def write(self, area: StagingArea | None = None) -> None:
        """In the staging area's short transactions (events of staged rows), else at once."""
        for event in self.events:  # events of replaced conversations belong to the replacement
            event.conversation_id = self.replaced_by.get(event.conversation_id, event.conversation_id)
        if area is not None:
            area.insert(AnnotationEvent, self.events)
        else:
            AnnotationEvent.objects.bulk_create(self.events, batch_size=1000)


def import_files(
    campaign: Campaign,
    files: Iterable[tuple[str, bytes]],
    *,
    run: str | None = None,
    annotator=None,
    replace: bool = False,
    actor=None,
    progress: Progress | None = None,
    topic: str | None = None,
    cancellation: Cancellation | None = None,
) -> ImportResult:
    """Import (name, bytes) files into the campaign: everything or, on any error, nothing.

    ``run``: the run of every conversation (else the file's own ``run=`` / ``"run"``, else the
    file name: ``M002-bing-trial1.txt`` -> ``bing-trial1``). ``replace``: an existing
    conversation of the same topic and run is deleted (with every judgment on it) and
    imported anew; without it, that is an error. ``progress``: called as the import goes
    (see Progress), for the console's background import jobs. ``topic``: the topic of harvested
    conversations (files that name topics keep theirs). ``cancellation``: a background job's
    (annotator.interchange.imports.staging.Cancellation): ImportCancelled, and nothing imported, once
    its organiser cancels it before it publishes.
    """
    files = list(files)
    importer = _Importer(campaign, run=run, annotator=annotator, replace=replace, actor=actor, progress=progress,
                         topic=topic, cancellation=cancellation)
    result = importer.run_import(files)
    # Problems are found stage by stage (reading, then checking against the campaign); the
    # organiser fixes files top to bottom: list them in file order, line by line.
    order = {name: i for i, (name, _data) in enumerate(files)}
    result.errors.sort(key=lambda e: (order.get(e.path, -1), e.line))
    result.warnings.sort(key=lambda e: (order.get(e.path, -1), e.line))
    return result


def import_parsed(campaign: Campaign, files: Iterable[tuple[str, ParseResult]], **options) -> ImportResult:
    """Like import_files, for files already parsed: (name, ParseResult) pairs."""
    importer = _Importer(campaign, **{"run": None, "annotator": None, "replace": False, "actor": None, **options})
    return importer.import_parsed(files)


class _TurnWords(dict):
    """A conversation's turns' words (scoring.words.tokenise), each split when first asked for."""

    def __init__(self, conv: ParsedConversation):
        super().__init__()
        self.conv = conv

    def __missing__(self, turn: int) -> list[str]:
        words = self[turn] = tokenise(self.conv.turns[turn].text)
        return words


def _chunks(items, size: int = 500):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]

