"""Exports of a campaign's judgments and scores, as generators of text chunks.

Everything here streams: conversations are read from the database in batches and written out
as they come, so the console can serve any campaign as a download (StreamingHttpResponse over
`stream(campaign, kind)`) and the management commands write the same chunks to files.

Whose judgments: each conversation's judge (annotator.scores.per_conversation.gold_annotators: its gold annotator, else
its first assigned annotator), or the one ``annotator`` asked for.

Kinds (docs/formats.md, "Exports"):
- ``paper``: the paper's annotated text format, computed ``wc=`` lines, ``run=`` in each
  topic header: importing it gives back the same annotations;
- ``jsonl``: one conversation per line (same schema as the importer's);
- ``nuggets-tsv``: one row per nugget (pandas);
- ``qrels``: NTCIREVAL-style files: ``<campaign>.qrels``, ``<campaign>.<TYPE>-<ATTR>.gmemb``,
  ``<TYPE>-<ATTR>.golddistr`` (a zip for downloads, a folder for the command);
- ``scores-csv`` / ``scores-json``: one row per conversation plus per-run means (pandas);
- ``nuggets-csv`` / ``turns-csv``: the paper's Tables 1 and 2 for every conversation, the
  figures of the workspace's score panel, from the judges' stored inputs
  (annotator.scores.stored.judge_tables: re-scored per topic type, no judgment re-read).
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections import defaultdict
from collections.abc import Iterable, Iterator

import pandas as pd
from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper, F, Q, Value

from annotator.interchange.csvsafe import csv_text, frame_csv
from annotator.interchange.formats import ParsedConversation, ParsedMembership, ParsedNugget, ParsedTurn
from annotator.interchange.formats.jsonl import iter_jsonl
from annotator.interchange.formats.paper import iter_paper
from annotator.rules.identity import document_key
from annotator.scores.ranked_lists import document_judgments
from annotator.models import AttributeSet, Campaign, Conversation, Entity, Membership, Nugget, Run, Topic, Turn, TurnLabel
from annotator.rules.ids import ATTRIBUTE_SET, RUN, TOPIC, field_token, id_problem
from annotator.rules.vectors import format_vector
from annotator.scores import campaign_tables
from annotator.scores import per_conversation, stored
from annotator.rules.relevance import needs_every_membership
from scoring.words import span_text, tokenise, word_position

__all__ = [
    "stream",
    "KINDS",
    "iter_conversations",
    "iter_paper_export",
    "iter_jsonl_export",
    "iter_nuggets_tsv",
    "qrels_files",
    "iter_qrels_zip",
    "scores_as_exported",
    "iter_scores_csv",
    "iter_scores_json",
    "iter_score_nuggets_csv",
    "iter_score_turns_csv",
    "qrels_id",
]

# Conversations read per batch (`_batch_size`). SQLite finds a batch's rows through indexes: its
# size changes only the memory held and the wait for the first chunk. PostgreSQL hash-joins
# whole tables for a batch's range of topics, scanning every turn, nugget, label and membership
# of the campaign again for each batch, so it reads 10,000 at once, holding 35 MB at most
# instead of 16 MB (docs/benchmarks-history.md, "The exports within 3x again").
BATCH = 2000
POSTGRESQL_BATCH = 10_000
KINDS = ("paper", "jsonl", "nuggets-tsv", "qrels", "scores-csv", "scores-json", "nuggets-csv", "turns-csv", "assignments")


class ExportRefused(ValueError):
    """The campaign holds ids no export can write whole (stored before the ids rule): nothing is
    written, and the message names them."""


def unwritable_ids(campaign: Campaign) -> list[str]:
    """The campaign's topic, run and attribute-set ids that break annotator.rules.ids (each would
    forge a field or a line of a file, or stop the paper writer mid-stream)."""
    stored = [
        *((TOPIC, code) for code in Topic.objects.filter(campaign=campaign).values_list("code", flat=True)),
        *((RUN, name) for name in Run.objects.filter(campaign=campaign).values_list("name", flat=True)),
        *((ATTRIBUTE_SET, name) for name in AttributeSet.objects.filter(topic_type__campaign=campaign)
          .values_list("name", flat=True)),
    ]
    return [problem for kind, value in stored if (problem := id_problem(kind, value)) is not None]


def stream(campaign: Campaign, kind: str, annotator=None) -> Iterator[str | bytes]:
    """The chunks of one export (str, or bytes for the qrels zip). Raises ExportRefused, before
    anything is written, when the campaign holds ids an export cannot write whole."""
    problems = unwritable_ids(campaign)
    if problems:
        raise ExportRefused(f"campaign {campaign.slug} cannot be exported: " + "; ".join(problems[:10])
                            + (f" and {len(problems) - 10} more" if len(problems) > 10 else "")
                            + ". Rename them (admin) and export again.")
    if kind == "paper":
        return iter_paper_export(campaign, annotator)
    if kind == "jsonl":
        return iter_jsonl_export(campaign, annotator)
    if kind == "nuggets-tsv":
        return iter_nuggets_tsv(campaign, annotator)
    if kind == "qrels":
        return iter_qrels_zip(campaign, annotator)
    if kind == "scores-csv":
        return iter_scores_csv(campaign)
    if kind == "scores-json":
        return iter_scores_json(campaign)
    if kind == "nuggets-csv":
        return iter_score_nuggets_csv(campaign, annotator)
    if kind == "turns-csv":
        return iter_score_turns_csv(campaign, annotator)
    if kind == "assignments":
        from annotator.interchange.assignments_csv import iter_assignments_csv

        return iter_assignments_csv(campaign)
    raise ValueError(f"unknown export {kind!r} (one of {', '.join(KINDS)})")


# -- reading judgments in batches -------------------------------------------------------------


class _Named:
    """A topic or run as the exports read it with its conversation (no model instance)."""

    __slots__ = ("code", "name", "topic_type_id")

    def __init__(self, code: str = "", name: str = "", topic_type_id: int | None = None):
        self.code, self.name, self.topic_type_id = code, name, topic_type_id


class _ConversationRow:
    """A conversation as the exports and the scores read it: the attributes of `Conversation`
    they use, from one plain row."""

    __slots__ = ("pk", "topic", "run", "source", "gold_annotator_id")

    def __init__(self, pk, topic_code, topic_type_id, run_name, source, gold_annotator_id):
        self.pk, self.source, self.gold_annotator_id = pk, source, gold_annotator_id
        self.topic = _Named(code=topic_code, topic_type_id=topic_type_id)
        self.run = _Named(name=run_name)

    def __str__(self) -> str:
        return f"{self.topic.code} / {self.run.name}"


# A nugget whose entity is the one its words name (Nugget.text_*, stored for its span as it is
# now): compared in SQL, so the paper writer does not derive every nugget's entity again.
_NAMED_BY_ITS_WORDS = ExpressionWrapper(
    Q(text_start=F("start_word"), text_end=F("end_word"), text_key=F("entity__key"), text_name=F("entity__name")),
    output_field=BooleanField(),
)


class _Batch:
    """One batch of conversations with their turns and one judge's judgments each, read as
    plain rows (tuples: never a model instance, nor an object, per row)."""

    def __init__(self, campaign: Campaign, conversations: list[_ConversationRow], judge: dict[int, int | None],
                 named: bool = False):
        """`conversations` come in topic order: the batch reads the rows of its range of topic
        codes (two parameters, not an IN list of ids, which Django resolves one by one) and
        keeps those of its conversations. `named`: with whether each nugget's entity is the one
        its words name (ParsedNugget.entity_named_by_text, for the paper writer)."""
        self.conversations = conversations
        wanted = {c.pk for c in conversations}
        self.judge = judge = {c.pk: judge.get(c.pk) for c in conversations}
        topics = (conversations[0].topic.code, conversations[-1].topic.code) if conversations else ("", "")
        in_range = {"topic__campaign": campaign, "topic__code__range": topics}

        def where(prefix: str) -> dict:
            return {f"{prefix}{k}": v for k, v in in_range.items()}

        # conversation -> its turns (id, conversation id, role, number, text), in order: the rows
        # come a conversation after another, each looked up once
        self.turns: dict[int, list[tuple]] = defaultdict(list)
        turn_conversation: dict[int, int] = {}
        current, kept = None, None
        for row in Turn.objects.filter(**where("conversation__")).order_by(
            "conversation_id", "position"
        ).values_list("pk", "conversation_id", "role", "number", "text"):
            if row[1] != current:
                current = row[1]
                kept = self.turns[current] if current in wanted else None
            if kept is not None:
                kept.append(row)
                turn_conversation[row[0]] = current
        # conversation -> its judge's nuggets (turn id, start, end, entity id, key, name, comment,
        # grade label or None, named by its words), in turn and word order
        self.nuggets: dict[int, list[tuple]] = defaultdict(list)
        for turn_id, annotator_id, start, end, entity_id, key, name, comment, grade_id, label, named in (
            Nugget.objects.filter(**where("turn__conversation__")).order_by("turn__position", "start_word")
            .annotate(named=_NAMED_BY_ITS_WORDS if named else Value(False))
            .values_list("turn_id", "annotator_id", "start_word", "end_word", "entity_id", "entity__key",
                         "entity__name", "entity__comment", "entity__grade_id", "entity__grade__label", "named")
        ):
            conversation_id = turn_conversation.get(turn_id)
            if conversation_id is not None and annotator_id == judge[conversation_id]:
                self.nuggets[conversation_id].append(
                    (turn_id, start, end, entity_id, key, name, comment, label if grade_id else None, named))
        self.labels: dict[int, str] = {}
        for turn_id, annotator_id, label in TurnLabel.objects.filter(**where("turn__conversation__")).values_list(
            "turn_id", "annotator_id", "label"
        ):
            conversation_id = turn_conversation.get(turn_id)
            if conversation_id is not None and annotator_id == judge[conversation_id]:
                self.labels[turn_id] = label
        entity_ids = {n[3] for nuggets in self.nuggets.values() for n in nuggets}
        # entity -> [(attribute set name, vector, evidence)], in the sets' order
        self.memberships: dict[int, list[tuple]] = defaultdict(list)
        for entity_id, name, vector, evidence in (
            Membership.objects.filter(**where("entity__"))
            .order_by("attribute_set__position", "attribute_set__name")
            .values_list("entity_id", "attribute_set__name", "vector", "evidence")
        ):
            if entity_id in entity_ids:
                self.memberships[entity_id].append((name, vector, evidence))

    def parsed(self, conversation: _ConversationRow) -> ParsedConversation:
        turns = self.turns[conversation.pk]
        labels, system = self.labels, _SYSTEM
        parsed_turns = [
            ParsedTurn(role, number, labels.get(pk) if role == system else None, text)
            for pk, _conversation, role, number, text in turns
        ]
        nuggets = []
        turn_nuggets = self.nuggets.get(conversation.pk)
        if turn_nuggets:
            index = {t[0]: i for i, t in enumerate(turns)}
            words: dict[int, list[str]] = {}  # a turn's words, split once however many nuggets it holds
            memberships = self.memberships
            for turn_id, start, end, entity_id, key, name, comment, grade, named in turn_nuggets:
                i = index[turn_id]
                turn_words = words.get(i)
                if turn_words is None:
                    turn_words = words[i] = tokenise(turns[i][4])
                nuggets.append(
                    ParsedNugget(
                        turn=i,
                        start_word=start,
                        end_word=end,
                        text=span_text(turn_words, start, end),
                        grade=grade,
                        comment=comment,
                        memberships=self._memberships(entity_id) if entity_id in memberships else {},
                        entity_key=key,
                        entity_name=name,
                        entity_named_by_text=bool(named),
                    )
                )
        return ParsedConversation(
            topic=conversation.topic.code, run=conversation.run.name, turns=parsed_turns, nuggets=nuggets,
            source=conversation.source,
        )

    def _memberships(self, entity_id: int) -> dict[str, ParsedMembership]:
        """The entity's memberships by attribute-set name; most entities have none."""
        rows = self.memberships.get(entity_id)
        if not rows:
            return {}
        return {set_name: ParsedMembership(tuple(float(v) for v in vector), evidence) for set_name, vector, evidence in rows}


_SYSTEM = str(Turn.Role.SYSTEM.value)  # a plain str to compare each turn's role with


def _conversation_rows(campaign: Campaign, annotator=None) -> tuple[list[_ConversationRow], dict[int, int | None]]:
    """The campaign's conversations in export order (topic code, run name) and whose judgments
    each exports: `annotator`'s, else its judge's."""
    rows = [
        _ConversationRow(*row) for row in Conversation.objects.filter(topic__campaign=campaign)
        .order_by("topic__code", "run__name")
        .values_list("pk", "topic__code", "topic__topic_type_id", "run__name", "source", "gold_annotator_id")
    ]
    if annotator is not None:
        judge = {c.pk: annotator.pk for c in rows}
    else:
        judge = per_conversation.gold_annotator_rows(campaign, [(c.pk, c.gold_annotator_id) for c in rows])
    return rows, judge


def _conversation_batches(campaign: Campaign, annotator=None, named: bool = False) -> Iterator[_Batch]:
    rows, judge = _conversation_rows(campaign, annotator)
    size = _batch_size()
    for i in range(0, len(rows), size):
        yield _Batch(campaign, rows[i : i + size], judge, named)


def _batch_size() -> int:
    return POSTGRESQL_BATCH if connection.vendor == "postgresql" else BATCH


def iter_conversations(campaign: Campaign, annotator=None, named: bool = False) -> Iterator[ParsedConversation]:
    """Every conversation of the campaign with its judge's judgments, as the formats hold them
    (`named`: ParsedNugget.entity_named_by_text set where it holds)."""
    for batch in _conversation_batches(campaign, annotator, named):
        for conversation in batch.conversations:
            yield batch.parsed(conversation)


# The text formats are written a conversation at a time and sent 200 at a time (75-220 KB): each
# chunk is a write to the client's socket, and one per conversation was 10,000 writes of ~400
# bytes (docs/benchmarks-history.md, "Where it stands: every page and export within 1 s and 3x
# its floor").
CONVERSATIONS_PER_CHUNK = 200


def iter_paper_export(campaign: Campaign, annotator=None) -> Iterator[str]:
    yield from _in_chunks(iter_paper(iter_conversations(campaign, annotator, named=True)), CONVERSATIONS_PER_CHUNK)


def iter_jsonl_export(campaign: Campaign, annotator=None) -> Iterator[str]:
    yield from _in_chunks(iter_jsonl(iter_conversations(campaign, annotator)), CONVERSATIONS_PER_CHUNK)


# -- nuggets TSV ------------------------------------------------------------------------------


def iter_nuggets_tsv(campaign: Campaign, annotator=None) -> Iterator[str]:
    """One row per nugget: topic, run, turn, start, end, text, entity key and name, grade,
    gain, WC, duplicate (a later mention that gains nothing), then per attribute set its
    vector and its evidence. Written as pandas would write the rows' frame (`frame_csv`: the
    same cells, the same quoting), a batch at a time, without building the frame."""
    gains = {g.label: g.gain for g in campaign.grades.all()}
    attribute_names: list[str] = []
    for a in AttributeSet.objects.filter(topic_type__campaign=campaign).order_by("topic_type__code", "position", "name"):
        if a.name not in attribute_names:
            attribute_names.append(a.name)
    columns = ["topic", "run", "turn", "start", "end", "text", "entity_key", "entity_name", "grade", "gain", "wc", "duplicate"]
    for name in attribute_names:
        columns += [name, f"{name}_evidence"]
    # an attribute set named like a column ("wc") replaces that column's cells, as a row dict would
    as_dicts = len(set(columns)) < len(columns)
    once = campaign.duplicates_count_once
    header = csv_text([columns], sep="\t")
    for batch in _conversation_batches(campaign, annotator):
        rows = []
        for conversation in batch.conversations:
            parsed = batch.parsed(conversation)
            offsets = parsed.offsets()
            seen: set[str] = set()
            for wc, n in sorted(((word_position(offsets[n.turn], n.end_word), n) for n in parsed.nuggets),
                                key=lambda pair: pair[0]):
                row = [parsed.topic, parsed.run, parsed.turns[n.turn].name, n.start_word, n.end_word, n.text,
                       n.entity_key, n.entity_name, n.grade or "", gains.get(n.grade, 0.0) if n.grade else 0.0, wc,
                       bool(once and n.entity_key in seen)]
                seen.add(n.entity_key)
                for name in attribute_names:
                    m = n.memberships.get(name)
                    row += [format_vector(m.vector), m.evidence] if m else ["", ""]
                if as_dicts:
                    cells = dict(zip(columns[:12], row[:12]))
                    for k, name in enumerate(attribute_names):
                        cells[name], cells[f"{name}_evidence"] = row[12 + 2 * k], row[13 + 2 * k]
                    row = [cells[c] for c in columns]
                rows.append(row)
        if rows or header:
            yield header + csv_text(rows, sep="\t")
            header = ""


# -- qrels (NTCIREVAL) ------------------------------------------------------------------------


def qrels_id(key: str) -> str:
    """An entity key as one NTCIREVAL token: whitespace and control characters percent-encoded
    (name keys have spaces)."""
    return field_token(key)


def _judged_entities(campaign: Campaign, annotator=None) -> tuple[list[_EntityRow], set[int]]:
    """The entities the judges' nuggets point at and the documents judged for ranked lists
    (entities no nugget points at, of each topic's document judge), one per (topic, key), in
    topic/key order; and the ids of the documents."""
    if annotator is not None:
        judge = None
    else:
        judge = per_conversation.gold_annotator_rows(campaign, list(
            Conversation.objects.filter(topic__campaign=campaign).values_list("pk", "gold_annotator_id")))
    ids: set[int] = set()
    nuggets = Nugget.objects.filter(turn__conversation__topic__campaign=campaign)
    if annotator is not None:
        nuggets = nuggets.filter(annotator_id=annotator.pk)
    for conversation_id, annotator_id, entity_id in nuggets.values_list("turn__conversation_id", "annotator_id", "entity_id"):
        if judge is None or judge.get(conversation_id) == annotator_id:
            ids.add(entity_id)
    documents = set(_document_entities(campaign, annotator))
    ids.update(documents)
    chosen: dict[tuple[str, str], _EntityRow] = {}
    # the campaign's entities in one read (by campaign, not by lists of ids), those chosen kept
    for row in Entity.objects.filter(topic__campaign=campaign).order_by("pk").values_list(
        "pk", "key", "name", "grade_id", "grade__label", "topic__code", "topic__topic_type_id"
    ):
        if row[0] in ids:
            entity = _EntityRow(*row)
            chosen.setdefault((entity.topic.code, entity.key), entity)
    return [chosen[k] for k in sorted(chosen)], documents


class _EntityRow:
    """An entity as the NTCIREVAL files read it: the attributes of `Entity` they use, from one
    plain row (no model instance)."""

    __slots__ = ("pk", "key", "name", "grade_id", "grade", "topic")

    def __init__(self, pk, key, name, grade_id, grade_label, topic_code, topic_type_id):
        self.pk, self.key, self.name, self.grade_id = pk, key, name, grade_id
        self.grade = _Named(name=grade_label) if grade_id is not None else None
        self.topic = _Named(code=topic_code, topic_type_id=topic_type_id)


def _document_entities(campaign: Campaign, annotator=None) -> list[int]:
    """The judgments of documents that score ranked lists (scores.ranked_lists.document_judgments,
    of `annotator` when given) that no nugget points at."""
    judged_alone = Entity.objects.filter(topic__campaign=campaign, nuggets__isnull=True).filter(
        Q(grade__isnull=False) | Q(memberships__isnull=False))
    if not judged_alone.exists():  # every judged entity is a nugget's: no document to look for
        return []
    judged = document_judgments(campaign, annotator)["entity_id"].tolist()
    with_nuggets = set(Nugget.objects.filter(entity__topic__campaign=campaign).values_list("entity_id", flat=True))
    return [pk for pk in judged if pk not in with_nuggets]


def _qrels_document(entity: _EntityRow) -> str:
    """How the NTCIREVAL files name an entity: a document by the id it was imported with (its
    name, when that is what the key came from), anything else by its key."""
    return qrels_id(entity.name if entity.name and document_key(entity.name) == entity.key else entity.key)


LINES_PER_CHUNK = 2000  # lines of a qrels file written (and compressed) at once


def _in_chunks(lines: Iterable[str], size: int = LINES_PER_CHUNK) -> Iterator[str]:
    chunk: list[str] = []
    for line in lines:
        chunk.append(line)
        if len(chunk) == size:
            yield "".join(chunk)
            chunk = []
    if chunk:
        yield "".join(chunk)


def qrels_files(campaign: Campaign, annotator=None) -> Iterator[tuple[str, Iterator[str]]]:
    """(file name, chunks) of the NTCIREVAL files: qrels, one .gmemb per attribute set
    (every judged entity of the type's topics; uniform where no membership was given, as
    FairWeb does), one .golddistr per attribute set (its target)."""
    entities, documents = _judged_entities(campaign, annotator)
    slug = campaign.slug
    names = {e.pk: f"{field_token(e.topic.code)} {_qrels_document(e)} " for e in entities}  # each line's start

    def qrels() -> Iterator[str]:
        for e in entities:
            if e.grade_id is not None:
                yield f"{names[e.pk]}{field_token(e.grade.name)}\n"

    yield f"{slug}.qrels", _in_chunks(qrels())
    memberships: dict[tuple[int, int], list[float]] = {}
    # the campaign's memberships in one read (by campaign, not by lists of ids), those of the entities kept
    for entity_id, attribute_set_id, vector in Membership.objects.filter(entity__topic__campaign=campaign).values_list(
        "entity_id", "attribute_set_id", "vector"
    ):
        if entity_id in names:
            memberships[(entity_id, attribute_set_id)] = vector
    for a in AttributeSet.objects.filter(topic_type__campaign=campaign).select_related("topic_type").order_by(
        "topic_type__code", "position", "name"
    ):
        def gmemb(a=a) -> Iterator[str]:
            uniform = " ".join(repr(float(v)) for v in [1.0 / a.size] * a.size)  # written alike on every line that has it
            for e in entities:
                # an ungraded document is written only with a membership of its own
                if e.topic.topic_type_id == a.topic_type_id and (
                    e.grade_id is not None or (e.pk in documents and (e.pk, a.pk) in memberships)
                ):
                    vector = memberships.get((e.pk, a.pk))
                    yield names[e.pk] + (uniform if vector is None else " ".join(repr(float(v)) for v in vector)) + "\n"

        def golddistr(a=a) -> Iterator[str]:
            for p in a.target:
                yield f"{float(p)!r}\n"

        yield f"{slug}.{a.topic_type.code}-{a.name}.gmemb", _in_chunks(gmemb())
        yield f"{a.topic_type.code}-{a.name}.golddistr", golddistr()


class _Sink(io.RawIOBase):
    """A write-only, unseekable file: zipfile then streams (data descriptors after each file)."""

    def __init__(self):
        self.chunks: list[bytes] = []
        self.position = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        data = bytes(data)
        self.chunks.append(data)
        self.position += len(data)
        return len(data)

    def tell(self) -> int:
        return self.position

    def drain(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks = []
        return data


def iter_qrels_zip(campaign: Campaign, annotator=None) -> Iterator[bytes]:
    """The qrels files as one zip, streamed."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, chunks in qrels_files(campaign, annotator):
            info = zipfile.ZipInfo(f"{campaign.slug}-qrels/{name}", date_time=time.localtime()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as member:
                for chunk in chunks:
                    member.write(chunk.encode("utf-8"))
                    data = sink.drain()
                    if data:
                        yield data
            data = sink.drain()
            if data:
                yield data
    yield sink.drain()


# -- scores -----------------------------------------------------------------------------------


def scores_as_exported(campaign: Campaign) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per conversation, per-run means over topics), from annotator.scores.campaign_tables."""
    table = campaign_tables.score_table(campaign)
    score_columns = campaign_tables.score_columns(table)
    means = campaign_tables.run_means(table) if len(table) else pd.DataFrame(columns=["run", "topics", *score_columns])
    table = campaign_tables.with_usernames(table)
    table = table[["topic", "run", "judge"] + score_columns]
    means = means[["run", "topics"] + [c for c in score_columns if c in means.columns]]
    return table, means


def iter_scores_csv(campaign: Campaign) -> Iterator[str]:
    """Conversation rows, then one row per run with topic "ALL": the run's means over topics."""
    table, means = scores_as_exported(campaign)
    yield frame_csv(table)
    if len(means):
        rows = means.drop(columns=["topics"]).assign(topic="ALL", judge="")[table.columns]
        yield frame_csv(rows, header=False)


def iter_scores_json(campaign: Campaign) -> Iterator[str]:
    table, means = scores_as_exported(campaign)
    settings = per_conversation.campaign_settings(campaign)

    def records(frame: pd.DataFrame) -> list[dict]:
        frame = frame.astype(object).where(frame.notna(), None)
        return frame.to_dict(orient="records")

    yield json.dumps(
        {
            "campaign": campaign.slug,
            "settings": {
                "L": settings.patience,
                "alpha": settings.alpha,
                "method": settings.method,
                "empty_turns": settings.empty_turns,
                "turn_weight": settings.turn_weight,
                "duplicates_count_once": settings.duplicates_count_once,
                "missing_membership": campaign.missing_membership,
                "grades": {g.label: g.gain for g in campaign.grades.all()},
            },
            "conversations": records(table),
            "runs": records(means),
        },
        indent=1,
        ensure_ascii=False,
        default=lambda o: o.item() if hasattr(o, "item") else str(o),
    )
    yield "\n"


# -- the paper's Tables 1 and 2 ----------------------------------------------------------------

SCORE_NUGGET_COLUMNS = [
    "topic", "run", "annotator", "turn", "start", "end", "entity_key", "entity_name", "grade",
    "wc", "pw", "g", "pw_g", "duplicate", "missing_membership",
]
SCORE_TURN_COLUMNS = [
    "topic", "run", "annotator", "turn", "end_wc", "attribute_set", "scored", "turn_weight",
    "achieved", "target", "distr_sim",
]


class _JudgedBatch:
    """One batch of conversations (in export order) with their judges' usernames and their
    judges' stored inputs scored (annotator.scores.stored.judge_tables): Tables 1 and 2 of each
    without reading a turn's text or re-scoring judgments."""

    def __init__(self, campaign: Campaign, conversations: list[_ConversationRow], judge: dict[int, int | None],
                 usernames: dict[int, str], memberships: bool):
        self.campaign, self.conversations, self.memberships = campaign, conversations, memberships
        self.judge = {c.pk: judge.get(c.pk) for c in conversations}
        self.usernames = usernames
        self.topics = (conversations[0].topic.code, conversations[-1].topic.code)
        self.read()

    def read(self) -> None:
        self.tables = stored.judge_tables(self.campaign, [(c.pk, c.topic.topic_type_id) for c in self.conversations],
                                          self.judge, memberships=self.memberships)

    def username(self, conversation: _ConversationRow) -> str:
        return self.usernames.get(self.judge[conversation.pk], "")


def _judged_batches(campaign: Campaign, annotator=None, *, memberships: bool) -> Iterator[_JudgedBatch]:
    """The conversations in batches, their judges' stored inputs scored (with their attribute
    sets when `memberships`: Table 2; Table 1's figures need none)."""
    from django.contrib.auth import get_user_model

    rows, judge = _conversation_rows(campaign, annotator)
    usernames = dict(get_user_model().objects.filter(pk__in={j for j in judge.values() if j is not None})
                     .values_list("pk", "username"))
    size = _batch_size()
    for i in range(0, len(rows), size):
        yield _JudgedBatch(campaign, rows[i : i + size], judge, usernames, memberships)


def _csv_chunks(columns: list[str], rows_of_batches: Iterator[list[list]]) -> Iterator[str]:
    """A header, then one CSV chunk per batch of rows (cells made safe by annotator.interchange.csvsafe)."""
    header = csv_text([columns])
    for rows in rows_of_batches:
        yield header + csv_text(rows)
        header = ""
    if header:
        yield header


def _judged_nuggets(batch: _JudgedBatch) -> dict[int, list[tuple]]:
    """conversation id -> its judge's nuggets as plain rows (turn id, turn position, turn name,
    start, end, entity id, key, name, grade id, grade label, gain), in (turn id, start word)
    order: the order of the stored inputs' nuggets."""
    judged: dict[int, list[tuple]] = defaultdict(list)
    judge = batch.judge
    for (conversation_id, annotator_id, turn_id, position, role, number, start, end, entity_id, key, name, grade_id,
         label, gain) in Nugget.objects.filter(
            turn__conversation__topic__campaign=batch.campaign, turn__conversation__topic__code__range=batch.topics,
    ).order_by().values_list("turn__conversation_id", "annotator_id", "turn_id", "turn__position", "turn__role", "turn__number",
                  "start_word", "end_word", "entity_id", "entity__key", "entity__name", "entity__grade_id",
                  "entity__grade__label", "entity__grade__gain"):
        if conversation_id in judge and annotator_id == judge[conversation_id]:
            judged[conversation_id].append((turn_id, position, f"{role}{number}", start, end, entity_id, key, name,
                                            grade_id, label, gain))
    for nuggets in judged.values():
        nuggets.sort(key=lambda n: (n[0], n[3]))
    return judged


def _stale(batch: _JudgedBatch, judged: dict[int, list[tuple]]) -> list[int]:
    """The conversations whose stored inputs do not hold their judge's nuggets (written by a path
    that bypassed the edit service): their figures are stored again before they are exported."""
    stale = []
    for c in batch.conversations:
        nuggets, stored_nuggets = judged.get(c.pk, []), batch.tables.inputs[c.pk]["n"]
        if len(nuggets) != len(stored_nuggets) or any(n[5] != s[3] for n, s in zip(nuggets, stored_nuggets)):
            stale.append(c.pk)
    return stale


def iter_score_nuggets_csv(campaign: Campaign, annotator=None) -> Iterator[str]:
    """Table 1 for every conversation: one row per nugget, WC, pw, g, pw x g, duplicate, and the
    attribute sets a graded nugget has no membership in (counted uniform, or refused on import).
    The figures are the judges' stored inputs scored (annotator.scores.stored.judge_tables)."""
    set_names: dict[int, list[tuple[int, str]]] = defaultdict(list)  # topic type -> its attribute sets, in order
    for pk, type_id, name in AttributeSet.objects.filter(topic_type__campaign=campaign).values_list(
            "pk", "topic_type_id", "name"):
        set_names[type_id].append((pk, name))

    def rows() -> Iterator[list[list]]:
        for batch in _judged_batches(campaign, annotator, memberships=False):
            judged = _judged_nuggets(batch)
            stale = _stale(batch, judged)
            if stale:
                stored.refresh_conversations(campaign, stale)
                batch.read()
            given: dict[int, set[int]] = defaultdict(set)
            for entity_id, set_id in Membership.objects.filter(
                    entity__topic__campaign=campaign, entity__topic__code__range=batch.topics,
            ).values_list("entity_id", "attribute_set_id"):
                given[entity_id].add(set_id)
            figures: dict[int, tuple] = {}  # per topic type's scores: its columns as lists, once
            out = []
            for conversation in batch.conversations:
                scores, _k, _turn, first = batch.tables.where[conversation.pk]
                if id(scores) not in figures:
                    figures[id(scores)] = (scores.pw.tolist(), scores.contribution.tolist(), scores.duplicate.tolist())
                pw, contribution, duplicate = figures[id(scores)]
                stored_nuggets = batch.tables.inputs[conversation.pk]["n"]
                nuggets = judged.get(conversation.pk, [])
                sets = set_names.get(conversation.topic.topic_type_id, [])
                topic, run, judge = conversation.topic.code, conversation.run.name, batch.username(conversation)
                for i in sorted(range(len(nuggets)), key=lambda i: (nuggets[i][1], nuggets[i][3])):
                    _turn_id, _position, turn, start, end, entity_id, key, name, grade_id, label, gain = nuggets[i]
                    missing = ""
                    if needs_every_membership(float(gain) if grade_id is not None else None):
                        has = given.get(entity_id, ())
                        missing = ";".join(set_name for pk, set_name in sets if pk not in has)
                    out.append([
                        topic, run, judge, turn, start, end, key, name, label if grade_id else "",
                        stored_nuggets[i][1], repr(pw[first + i]), repr(stored_nuggets[i][2]),
                        repr(contribution[first + i]), duplicate[first + i], missing,
                    ])
            yield out

    return _csv_chunks(SCORE_NUGGET_COLUMNS, rows())


def iter_score_turns_csv(campaign: Campaign, annotator=None) -> Iterator[str]:
    """Table 2 for every conversation: one row per system turn and attribute set, achieved
    distribution against the target, DistrSim (blank when the turn is not scored) and PW(S).
    The figures are the judges' stored inputs scored (annotator.scores.stored.judge_tables)."""

    def rows() -> Iterator[list[list]]:
        targets: dict = {}  # a target is written on every row: formatted once
        for batch in _judged_batches(campaign, annotator, memberships=True):
            figures: dict[int, tuple] = {}  # per topic type's scores: its columns as lists, once
            out = []
            for conversation in batch.conversations:
                scores, _k, first, _nugget = batch.tables.where[conversation.pk]
                if id(scores) not in figures:
                    specs = scores.attribute_sets
                    for spec in specs:
                        if spec not in targets:
                            targets[spec] = format_vector(spec.target.tolist())
                    figures[id(scores)] = (scores.scored.tolist(), scores.turn_weight.tolist(),
                                           [scores.achieved[spec.name].tolist() for spec in specs],
                                           scores.distr_sim.tolist(), [(spec.name, targets[spec]) for spec in specs])
                scored, weight, achieved, distr_sim, names = figures[id(scores)]
                inputs = batch.tables.inputs[conversation.pk]
                topic, run, judge = conversation.topic.code, conversation.run.name, batch.username(conversation)
                for j, (end_wc, number) in enumerate(zip(inputs["t"], inputs["s"])):
                    row = first + j
                    turn, is_scored, turn_weight = f"S{number}", scored[row], repr(weight[row])
                    for m, (name, target) in enumerate(names):
                        out.append([
                            topic, run, judge, turn, end_wc, name, is_scored, turn_weight,
                            format_vector(achieved[m][row]) if is_scored else "",
                            target,
                            repr(distr_sim[row][m]) if is_scored else "",
                        ])
            yield out

    return _csv_chunks(SCORE_TURN_COLUMNS, rows())


def write_chunks(chunks: Iterable[str | bytes], handle) -> None:
    """Write an export's chunks to a binary file handle."""
    for chunk in chunks:
        handle.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
