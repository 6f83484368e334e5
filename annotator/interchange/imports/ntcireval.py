"""Importing NTCIREVAL's judgment files (FairWeb-1): a qrels file and membership files become
entity judgments of one annotator, all or nothing.

Each judged document becomes an entity of its topic, keyed like any entity (the normalised URL
when the id is a URL, else the document id: `rules.identity.document_key`) and named by the id
as written, so that the qrels export gives the same files back. Its grade is the qrels level;
its memberships come from the ``<prefix>.<TYPE>-<ATTR>.gmemb`` files. A document with a
membership but no qrels line is an ungraded entity with that membership (it still counts in
the achieved distributions of the runs that rank it). Entities the annotator already has are
updated: the files are the judgments. Every change is an AnnotationEvent marked `imported`.

All files are read and checked before anything is written (`_plan`); then each topic's
documents are written LOOKUP at a time as plain rows (`imports.rows`), in one transaction
(`imports.all_or_nothing`): 50,000 judged documents are a few hundred statements, not 300,000
model instances (docs/benchmarks-history.md, "NTCIREVAL and run imports at campaign scale").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


from annotator.interchange.formats.model import FormatError
from annotator.interchange.formats.ntcireval import gmemb_name, read_gmemb, read_qrels
from annotator.interchange.imports.annotators import default_annotator
from annotator.interchange.imports.rows import insert_rows, select_rows, update_rows
from annotator.interchange.imports.all_or_nothing import one_transaction
from annotator.interchange.imports.history import ImportHistory
from annotator.interchange.imports.result import ImportResult
from annotator.interchange.imports.staging import no_collection
from annotator.judgments.edits import Event, entity_state, membership_state
from annotator.models import AttributeSet, Campaign, Entity, Grade, Membership, Topic
from annotator.models.rows import EntityRow, MembershipRow
from annotator.rules.identity import document_key
from annotator.scores.stored import invalidation

__all__ = ["import_ntcireval"]


@dataclass(slots=True)
class _Document:
    topic: Topic
    type_id: int  # the topic's type's
    key: str
    name: str
    where: str
    grade_id: int | None = None
    vectors: dict[int, list[float]] = field(default_factory=dict)  # attribute set id -> vector


def import_ntcireval(campaign: Campaign, files: list[tuple[str, bytes]], annotator=None, actor=None) -> ImportResult:
    """Import (name, bytes) files: ``*.gmemb`` are memberships, any other a qrels file."""
    # Hundreds of thousands of lines, documents and rows alive at once: a cyclic collection
    # would scan them over and over and hold SQLite's writer meanwhile
    # (docs/benchmarks-history.md, "Third pass").
    with no_collection():
        result, documents = _plan(campaign, files)
        if result.ok:
            annotator = annotator or default_annotator(campaign, actor)
            result.annotator = annotator.get_username()
            with one_transaction(result):
                _write(documents, annotator, actor, result)
    return result


def _plan(campaign: Campaign, files: list[tuple[str, bytes]]) -> tuple[ImportResult, list[_Document]]:
    """Read every file and check it against the campaign (topics, grades, attribute sets, one
    id a page, one grade a document); writes nothing."""
    result = ImportResult(what="judgments")
    topics = {t.code: t for t in Topic.objects.filter(campaign=campaign).select_related("topic_type")}
    grades = {g.label: g.pk for g in Grade.objects.filter(campaign=campaign)}
    sets = {(a.topic_type.code, a.name): a for a in AttributeSet.objects.filter(topic_type__campaign=campaign).select_related("topic_type")}
    documents: dict[tuple[int, str], _Document] = {}
    named: dict[tuple[str, str], _Document] = {}  # by (topic code, id as written): a gmemb line's document is a qrels line's

    def document(path: str, line: int, topic_code: str, name: str) -> _Document | None:
        found = named.get((topic_code, name))
        if found is not None:
            return found
        topic = topics.get(topic_code)
        if topic is None:
            result.errors.append(FormatError(path, line, f"no topic {topic_code[:40]!r} in campaign {campaign.slug}"))
            return None
        key = document_key(name)
        found = documents.get((topic.pk, key))
        if found is None:
            found = documents[(topic.pk, key)] = _Document(topic, topic.topic_type_id, key, name, f"{path}:{line}")
        elif found.name != name:
            result.errors.append(FormatError(path, line, f"{name[:100]} and {found.name[:100]} ({found.where}) are one page: give one id"))
            return None
        named[(topic_code, name)] = found
        return found

    for path, data in sorted(files, key=lambda f: f[0].endswith(".gmemb")):  # qrels first: grades before memberships
        if path.endswith(".golddistr"):
            result.errors.append(FormatError(path, 0, "a target distribution belongs in the campaign file (the attribute set's target)"))
        elif path.endswith(".gmemb"):
            _memberships(path, data, sets, document, result)
        else:
            read = read_qrels(data, path)
            result.errors.extend(read.errors)
            for topic_code, name, level, line in read.content:
                grade_id = grades.get(level)
                if grade_id is None:
                    result.errors.append(FormatError(path, line, f"no grade {level} in campaign {campaign.slug} ({', '.join(grades)})"))
                    continue
                found = document(path, line, topic_code, name)
                if found is not None:
                    if found.grade_id is not None:
                        result.errors.append(FormatError(path, line, f"{topic_code} {name} is judged twice (also at {found.where})"))
                    found.grade_id = grade_id
                    result.judged += 1
    return result, list(documents.values())


def _memberships(path, data, sets, document, result: ImportResult) -> None:
    name = gmemb_name(path)
    if name is None:
        result.errors.append(FormatError(path, 0, "a membership file is named <prefix>.<TYPE>-<ATTR>.gmemb"))
        return
    attribute_set = sets.get(name)
    if attribute_set is None:
        result.errors.append(FormatError(path, 0, f"no attribute set {name[1]} in topic type {name[0]}"))
        return
    read = read_gmemb(data, path, (name[1], attribute_set.size))  # a vector's length before its numbers
    result.errors.extend(read.errors)
    vectors: dict[tuple[float, ...], list[float]] = {}  # one list a distinct vector: its JSON is made once (rows)
    type_id, set_id = attribute_set.topic_type_id, attribute_set.pk
    for topic_code, document_id, read_vector, line in read.content:
        found = document(path, line, topic_code, document_id)
        if found is None:
            continue
        if found.type_id != type_id:
            result.errors.append(FormatError(path, line, f"topic {topic_code} is of type {found.topic.topic_type.code}, "
                                                         f"not {name[0]}: it has no {name[1]} memberships"))
        else:  # its length was checked as it was read
            vector = vectors.get(read_vector)
            if vector is None:
                vector = vectors[read_vector] = list(read_vector)
            found.vectors[set_id] = vector
            result.memberships += 1


# the columns of a stored entity the import compares, in the order of EntityRow's fields
ENTITY_COLUMNS = ("pk", "key", "name", "comment", "version", "grade_id", "topic_id")
LOOKUP = 900  # documents of one topic written together: their keys are one lookup's parameters (SQLite: 999)


def _write(documents: list[_Document], annotator, actor, result: ImportResult) -> None:
    """Each topic's documents, LOOKUP at a time: one lookup of the stored entities and one of
    their memberships (none in a topic where the annotator has no entity), then the new and
    changed rows and their history, each one executemany."""
    if annotator.pk is None:
        annotator.save()  # the user "gold", first needed now
    history = ImportHistory(actor)
    by_topic: dict[int, list[_Document]] = {}
    for d in documents:
        by_topic.setdefault(d.topic.pk, []).append(d)
    # the topics where the annotator has entities: elsewhere (a first import) nothing is looked up
    judged = set(Entity.objects.filter(annotator_id=annotator.pk, topic_id__in=list(by_topic)).order_by()
                 .values_list("topic_id", flat=True).distinct())
    for topic_id, topic_documents in by_topic.items():
        for start in range(0, len(topic_documents), LOOKUP):
            _write_batch(topic_id, topic_documents[start : start + LOOKUP], annotator.pk, history, result, topic_id in judged)
            history.write()
    # entities and memberships a topic's conversations may name: their stored figures
    invalidation.topics_judged(documents[0].topic.campaign_id if documents else 0, by_topic)


def _write_batch(topic_id: int, documents: list[_Document], annotator_id: int, history: ImportHistory, result: ImportResult,
                 judged: bool) -> None:
    def record(kind: str, action: str, events: list[tuple]) -> None:
        history.record_all(kind, action, events, topic_id=topic_id, annotator_id=annotator_id)

    mine = {"topic_id": topic_id, "annotator_id": annotator_id}
    existing = {row.key: row for row in (EntityRow(*row) for row in select_rows(
        Entity, ENTITY_COLUMNS, mine, "key", [d.key for d in documents]))} if judged else {}
    new = [d for d in documents if d.key not in existing]
    insert_rows(Entity, ["key", "name", "grade_id"], [(d.key, d.name, d.grade_id) for d in new],
                same={**mine, "comment": "", "version": 1, "updated_at": history.at})
    created = dict(select_rows(Entity, ["key", "pk"], mine, "key", [d.key for d in new])) if new else {}
    entities = [EntityRow(created[d.key], d.key, d.name, "", 1, d.grade_id, topic_id) for d in new]
    existing.update((entity.key, entity) for entity in entities)
    record(Event.Kind.ENTITY, Event.Action.CREATE, [(entity.pk, None, entity_state(entity)) for entity in entities])
    result.entities_created += len(new)

    # The entity's version guards its memberships too (judgments.edits): a changed grade or
    # membership moves it on, so a workspace edit based on the old state is refused.
    changed: dict[int, EntityRow] = {}
    for d in documents:
        entity = existing[d.key]
        if d.key not in created and d.grade_id is not None and entity.grade_id != d.grade_id:
            changed[entity.pk] = replace(entity, grade_id=d.grade_id)
    record(Event.Kind.ENTITY, Event.Action.UPDATE, [(pk, entity_state(existing[entity.key]), entity_state(entity))
                                                            for pk, entity in changed.items()])

    with_vectors = [d for d in documents if d.vectors]
    stored = [existing[d.key].pk for d in with_vectors if d.key not in created]
    present = {(m.entity_id, m.attribute_set_id): m for m in (MembershipRow(*row) for row in Membership.objects.filter(
        entity_id__in=stored).values_list("pk", "entity_id", "attribute_set_id", "vector", "evidence"))} if stored else {}
    fresh, updated, updates = [], [], []
    for d in with_vectors:
        entity = existing[d.key]
        for attribute_set_id, vector in d.vectors.items():
            membership = present.get((entity.pk, attribute_set_id))
            if membership is None:
                fresh.append((entity.pk, attribute_set_id, vector))
            elif membership.vector != vector:
                updated.append((vector, membership.pk))
                updates.append((membership.pk, membership_state(membership), membership_state(replace(membership, vector=vector))))
            else:
                continue
            if d.key not in created:
                changed.setdefault(entity.pk, entity)
    record(Event.Kind.MEMBERSHIP, Event.Action.UPDATE, updates)
    update_rows(Entity, ["grade_id"], [(entity.grade_id, pk) for pk, entity in changed.items()], bump="version")
    insert_rows(Membership, ["entity_id", "attribute_set_id", "vector"], fresh, same={"evidence": ""})
    update_rows(Membership, ["vector"], updated)
    if fresh:
        ids = {(entity_id, attribute_set_id): pk for entity_id, attribute_set_id, pk in select_rows(
            Membership, ["entity_id", "attribute_set_id", "pk"], {}, "entity_id", {entity_id for entity_id, _, _ in fresh})}
        record(Event.Kind.MEMBERSHIP, Event.Action.CREATE, [
            (membership.pk, None, membership_state(membership)) for membership in
            (MembershipRow(ids[(entity_id, attribute_set_id)], entity_id, attribute_set_id, vector, "")
             for entity_id, attribute_set_id, vector in fresh)])
    result.entities_updated += len(changed)
