"""The NTCIREVAL files of a campaign's judgments: ``<campaign>.qrels``, one
``<campaign>.<TYPE>-<ATTR>.gmemb`` per attribute set (uniform where no membership was given, as
FairWeb does) and one ``<TYPE>-<ATTR>.golddistr`` (its target); a folder for the command, a
streamed zip for downloads. Entities are read as plain rows (`annotator.models.rows.EntityRow`), no model instance."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator

from django.db.models import Q

from annotator.interchange.exports.batches import in_chunks
from annotator.models import AttributeSet, Campaign, Conversation, Entity, Membership, Nugget
from annotator.models.rows import EntityRow, Named
from annotator.rules.identity import document_key
from annotator.rules.ids import field_token
from annotator.scores import per_conversation
from annotator.scores.ranked_lists import document_judgments

__all__ = ["qrels_id", "qrels_files", "iter_qrels_zip"]


def qrels_id(key: str) -> str:
    """An entity key as one NTCIREVAL token: whitespace and control characters percent-encoded
    (name keys have spaces)."""
    return field_token(key)


def _judged_entities(campaign: Campaign, annotator=None) -> tuple[list[EntityRow], set[int]]:
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
    chosen: dict[tuple[str, str], EntityRow] = {}
    # the campaign's entities in one read (by campaign, not by lists of ids), those chosen kept
    for row in Entity.objects.filter(topic__campaign=campaign).order_by("pk").values_list(
        "pk", "key", "name", "grade_id", "grade__label", "topic__code", "topic__topic_type_id"
    ):
        if row[0] in ids:
            entity = _entity_row(*row)
            chosen.setdefault((entity.topic.code, entity.key), entity)
    return [chosen[k] for k in sorted(chosen)], documents


def _entity_row(pk, key, name, grade_id, grade_label, topic_code, topic_type_id) -> EntityRow:
    grade = Named(name=grade_label) if grade_id is not None else None
    return EntityRow(pk, key, name, grade_id=grade_id, grade=grade, topic=Named(code=topic_code, topic_type_id=topic_type_id))


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


def _qrels_document(entity: EntityRow) -> str:
    """How the NTCIREVAL files name an entity: a document by the id it was imported with (its
    name, when that is what the key came from), anything else by its key."""
    return qrels_id(entity.name if entity.name and document_key(entity.name) == entity.key else entity.key)


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

    yield f"{slug}.qrels", in_chunks(qrels())
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

        yield f"{slug}.{a.topic_type.code}-{a.name}.gmemb", in_chunks(gmemb())
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
