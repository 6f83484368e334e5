"""Importing NTCIREVAL's judgment files (FairWeb-1): a qrels file and membership files become
entity judgments of one annotator, all or nothing.

Each judged document becomes an entity of its topic, keyed like any entity (the normalised URL
when the id is a URL, else the document id: `rules.identity.document_key`) and named by the id
as written, so that the qrels export gives the same files back. Its grade is the qrels level;
its memberships come from the ``<prefix>.<TYPE>-<ATTR>.gmemb`` files. A document with a
membership but no qrels line is an ungraded entity with that membership (it still counts in
the achieved distributions of the runs that rank it). Entities the annotator already has are
updated: the files are the judgments. Every change is an AnnotationEvent marked `imported`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from annotator.interchange.formats.model import FormatError
from annotator.interchange.formats.ntcireval import gmemb_name, read_gmemb, read_qrels
from annotator.interchange.importing import default_annotator
from annotator.judgments.edits import Event, entity_state, membership_state
from annotator.models import AnnotationEvent, AttributeSet, Campaign, Entity, Grade, Membership, Topic
from annotator.rules.identity import document_key

__all__ = ["JudgmentImport", "import_ntcireval"]


@dataclass
class JudgmentImport:
    errors: list[FormatError] = field(default_factory=list)
    warnings: list[FormatError] = field(default_factory=list)
    judged: int = 0  # qrels lines
    memberships: int = 0
    entities_created: int = 0
    entities_updated: int = 0
    annotator: str = ""

    def summary(self) -> str:
        if self.errors:
            return f"Nothing imported: {len(self.errors)} problem(s)."
        return (f"{self.judged} judged document(s) and {self.memberships} membership(s) imported for {self.annotator}: "
                f"{self.entities_created} new and {self.entities_updated} updated entities")


@dataclass
class _Document:
    topic: Topic
    key: str
    name: str
    where: str
    grade: Grade | None = None
    vectors: dict[int, list[float]] = field(default_factory=dict)  # attribute set id -> vector


def import_ntcireval(campaign: Campaign, files: list[tuple[str, bytes]], annotator=None, actor=None) -> JudgmentImport:
    """Import (name, bytes) files: ``*.gmemb`` are memberships, any other a qrels file."""
    result = JudgmentImport()
    topics = {t.code: t for t in Topic.objects.filter(campaign=campaign).select_related("topic_type")}
    grades = {g.label: g for g in Grade.objects.filter(campaign=campaign)}
    sets = {(a.topic_type.code, a.name): a for a in AttributeSet.objects.filter(topic_type__campaign=campaign).select_related("topic_type")}
    documents: dict[tuple[int, str], _Document] = {}

    def document(path: str, line: int, topic_code: str, name: str) -> _Document | None:
        topic = topics.get(topic_code)
        if topic is None:
            result.errors.append(FormatError(path, line, f"no topic {topic_code[:40]!r} in campaign {campaign.slug}"))
            return None
        key = document_key(name)
        found = documents.get((topic.pk, key))
        if found is None:
            found = documents[(topic.pk, key)] = _Document(topic, key, name, f"{path}:{line}")
        elif found.name != name:
            result.errors.append(FormatError(path, line, f"{name[:100]} and {found.name[:100]} ({found.where}) are one page: give one id"))
            return None
        return found

    for path, data in sorted(files, key=lambda f: f[0].endswith(".gmemb")):  # qrels first: grades before memberships
        if path.endswith(".golddistr"):
            result.errors.append(FormatError(path, 0, "a target distribution belongs in the campaign file (the attribute set's target)"))
        elif path.endswith(".gmemb"):
            _memberships(path, data, sets, document, result)
        else:
            read = read_qrels(data, path)
            result.errors.extend(read.errors)
            for q in read.content:
                grade = grades.get(q.level)
                if grade is None:
                    result.errors.append(FormatError(path, q.line, f"no grade {q.level} in campaign {campaign.slug} ({', '.join(grades)})"))
                    continue
                found = document(path, q.line, q.topic, q.document)
                if found is not None:
                    if found.grade is not None:
                        result.errors.append(FormatError(path, q.line, f"{q.topic} {q.document} is judged twice (also at {found.where})"))
                    found.grade = grade
                    result.judged += 1
    if result.errors:
        return result
    annotator = annotator or default_annotator(campaign, actor)
    result.annotator = annotator.get_username()
    _write(list(documents.values()), annotator, actor, result)
    return result


def _memberships(path, data, sets, document, result: JudgmentImport) -> None:
    name = gmemb_name(path)
    if name is None:
        result.errors.append(FormatError(path, 0, "a membership file is named <prefix>.<TYPE>-<ATTR>.gmemb"))
        return
    attribute_set = sets.get(name)
    if attribute_set is None:
        result.errors.append(FormatError(path, 0, f"no attribute set {name[1]} in topic type {name[0]}"))
        return
    read = read_gmemb(data, path)
    result.errors.extend(read.errors)
    for m in read.content:
        found = document(path, m.line, m.topic, m.document)
        if found is None:
            continue
        if found.topic.topic_type_id != attribute_set.topic_type_id:
            result.errors.append(FormatError(path, m.line, f"topic {m.topic} is of type {found.topic.topic_type.code}, "
                                                           f"not {name[0]}: it has no {name[1]} memberships"))
        elif len(m.vector) != attribute_set.size:
            result.errors.append(FormatError(path, m.line, f"{name[1]} has {attribute_set.size} groups: "
                                                           f"the vector has {len(m.vector)} values"))
        else:
            found.vectors[attribute_set.pk] = list(m.vector)
            result.memberships += 1


@transaction.atomic
def _write(documents: list[_Document], annotator, actor, result: JudgmentImport) -> None:
    if annotator.pk is None:
        annotator.save()  # the user "gold", first needed now
    actor = actor if getattr(actor, "pk", None) else None
    wanted = {(d.topic.pk, d.key) for d in documents}
    existing = {
        (e.topic_id, e.key): e
        for e in Entity.objects.filter(annotator=annotator, topic_id__in={d.topic.pk for d in documents})
        if (e.topic_id, e.key) in wanted
    }
    events: list[AnnotationEvent] = []

    def record(kind, action, object_id, topic_id, before=None, after=None):
        events.append(Event(kind=kind, action=action, object_id=object_id, topic_id=topic_id, conversation_id=None,
                            annotator_id=annotator.pk, actor=actor, before=before, after=after, imported=True))

    new = [Entity(topic=d.topic, annotator=annotator, key=d.key, name=d.name, grade=d.grade)
           for d in documents if (d.topic.pk, d.key) not in existing]
    Entity.objects.bulk_create(new, batch_size=1000)
    if new and new[0].pk is None:  # a database that does not return ids from bulk inserts
        new = list(Entity.objects.filter(annotator=annotator, key__in=[e.key for e in new]))
    for entity in new:
        existing[(entity.topic_id, entity.key)] = entity
        record(Event.Kind.ENTITY, Event.Action.CREATE, entity.pk, entity.topic_id, after=entity_state(entity))
    result.entities_created = len(new)
    created = {e.pk for e in new}

    # The entity's version guards its memberships too (judgments.edits): a changed grade or
    # membership moves it on, so a workspace edit based on the old state is refused.
    changed: dict[int, Entity] = {}
    for d in documents:
        entity = existing[(d.topic.pk, d.key)]
        if entity.pk not in created and d.grade is not None and entity.grade_id != d.grade.pk:
            before = entity_state(entity)
            entity.grade = d.grade
            changed[entity.pk] = entity
            record(Event.Kind.ENTITY, Event.Action.UPDATE, entity.pk, entity.topic_id, before=before, after=entity_state(entity))

    by_entity = {existing[(d.topic.pk, d.key)].pk: d for d in documents if d.vectors}
    present = {(m.entity_id, m.attribute_set_id): m for m in Membership.objects.filter(entity_id__in=list(by_entity))}
    fresh, updated = [], []
    for entity_id, d in by_entity.items():
        entity = existing[(d.topic.pk, d.key)]
        for attribute_set_id, vector in d.vectors.items():
            membership = present.get((entity_id, attribute_set_id))
            if membership is None:
                fresh.append(Membership(entity_id=entity_id, attribute_set_id=attribute_set_id, vector=vector))
            elif membership.vector != vector:
                before = membership_state(membership)
                membership.vector = vector
                updated.append(membership)
                record(Event.Kind.MEMBERSHIP, Event.Action.UPDATE, membership.pk, d.topic.pk, before=before,
                       after=membership_state(membership))
            else:
                continue
            if entity.pk not in created:
                changed[entity.pk] = entity
    for entity in changed.values():
        entity.version += 1
    Entity.objects.bulk_update(list(changed.values()), ["grade", "version"], batch_size=1000)
    Membership.objects.bulk_create(fresh, batch_size=1000)
    Membership.objects.bulk_update(updated, ["vector"], batch_size=1000)
    for membership in fresh:
        record(Event.Kind.MEMBERSHIP, Event.Action.CREATE, membership.pk, by_entity[membership.entity_id].topic.pk,
               after=membership_state(membership))
    result.entities_updated = len(changed)
    AnnotationEvent.objects.bulk_create(events, batch_size=1000)
