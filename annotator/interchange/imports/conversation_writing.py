"""The writing half of a conversation import: a checked plan (imports.conversation_plan) staged
and published.

Everything new is written into a staging area, in short transactions, where nobody looks; then
published in one short transaction (annotator.interchange.imports.staging): an import never
holds SQLite's only writer for long, and nothing of it is visible before it is whole. The
changes to rows already visible (assignments, judgments added to conversations already there,
entities updated, memberships replaced, replaced conversations retired) wait for publishing and
happen in its transaction. On any failure the staged rows are deleted: nothing was ever
visible. The history of every change is written as a workspace edit would record it
(imports.history), staged with the staged rows or published with the others.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotator.interchange.imports import campaign_reads
from annotator.interchange.imports.conversation_plan import ImportPlan, chunks, same_vector
from annotator.interchange.imports.history import ImportHistory
from annotator.interchange.imports.staging import Cancellation, StagingArea
from annotator.judgments import completion
from annotator.judgments.edits import Event, entity_state, label_state, membership_state, nugget_state
from annotator.models import (
    AnnotatorProfile,
    Assignment,
    Conversation,
    Entity,
    Membership,
    Nugget,
    Turn,
    TurnLabel,
    is_automatic_judge,
)
from annotator.rules.citations import CITATIONS_DESCRIPTION, CITATIONS_JUDGE
from annotator.scores.stored import invalidation
from scoring.words import tokenise

__all__ = ["write_import"]

log = logging.getLogger(__name__)


def write_import(plan: ImportPlan, cancellation: Cancellation | None = None) -> None:
    """Stage and publish the plan, then delete what publishing retired, store the figures of
    every conversation written or touched, and mark finished judgments done."""
    if plan.annotator is not None and plan.annotator.pk is None:
        plan.annotator.save()  # the user "gold", first needed now
    if plan.citations_judge is None and any(p.citations for p in plan.conversations):
        plan.citations_judge = _create_citations_judge()
    area = StagingArea.open(plan.campaign, cancellation)
    writer = _Writer(plan, area)
    present: list[int] = []
    try:
        publishing = writer.stage()

        def publishing_and_figures() -> None:
            publishing()
            # the stored rows of the conversations already there that the import changed go with
            # the publishing (none for an import into new topics) and are stored again below
            present.extend(invalidation.conversations_published(
                writer.staged_conversations, added_to=[p.add_to_id for p in plan.conversations if p.add_to_id],
                entities_changed=writer.updated_entities, retired=[p.replace_id for p in plan.conversations if p.replace_id]))
        area.publish(then=publishing_and_figures)
    except BaseException:
        try:
            area.discard()
        except Exception:  # the import's own error is the one to report; the area stays invisible
            log.exception("could not delete the staging area %s (sweep_abandoned will, once this process ends)",
                          area.area.slug)
        raise
    area.discard()  # the conversations publishing retired (replaced), in short transactions
    _delete_orphans(writer.touched_entities, plan.actor)
    # The figures of the new conversations and of those whose rows publishing deleted, in short
    # transactions too. Until each is stored, a page that reads it finds no row and stores it
    # then (annotator.scores.stored), so nothing reads stale figures, even if this process dies here.
    area.in_short_transactions("figures", sorted(writer.staged_conversations | set(present)),
                               lambda chunk: invalidation.conversations_written(plan.campaign, chunk),
                               what="conversations' figures")
    # finished judgments are done, by the rule an annotator's Done button follows
    if plan.annotator is not None and writer.annotated_conversations:
        plan.result.done = completion.mark_done_if_ready(plan.campaign, plan.annotator.pk, writer.annotated_conversations)


# planned conversations made, staged and recorded at a time (their rows, turns, nuggets and
# labels): a campaign's instances of them, held at once, cost an import of 100,000 conversations
# 0.3 GB (its nuggets and labels)
JUDGMENTS_AT_ONCE = 2000
ENTITIES_AT_ONCE = 5000  # and entities, with their memberships (0.2 GB of instances at 100,000 conversations)


class _Writer:
    """The plan's rows staged, and the changes publishing makes to rows already visible."""

    def __init__(self, plan: ImportPlan, area: StagingArea):
        self.plan, self.area, self.result = plan, area, plan.result
        self.annotator = plan.annotator
        self.history = ImportHistory(plan.actor)  # of staged rows: written staged
        self.later = ImportHistory(plan.actor)  # of visible rows: written at publish
        self.deferred: list[Callable[[], None]] = []  # publishing's changes to visible rows
        self.staged_topics: dict = {}
        self.final_topic: dict[str, int] = {}  # topic code -> its id once published
        self.staged_runs: dict = {}
        self.keep_assignees: dict[int, list[int]] = defaultdict(list)  # replaced conversation -> who was assigned
        self.touched_entities: set[int] = set()  # entities the replaced conversations mentioned
        self.conversation_ids: list[int] = []  # one per planned conversation, in order
        self.staged_conversations: set[int] = set()
        self.annotated_conversations: list[int] = []
        # each planned conversation's turn ids, in order: ids, not the written Turns, whose
        # hundreds of thousands of instances a large import would hold to its end (nor a dict
        # a turn, 0.1 GB at 100,000 conversations)
        self.turn_ids: list[list[int]] = []
        self.entity_of: dict[tuple[str, str], int] = {}  # (topic code, key) -> the entity's id
        self.updated_entities: set[int] = set()  # entities already there whose judgment this import changes

    def stage(self) -> Callable[[], None]:
        """Write the new rows into the staging area; returns what publishing does besides moving
        them (with its history)."""
        self.stage_topics_and_runs()
        self.retire_replaced()
        self.stage_conversations()
        if self.annotator is not None and self.plan.entities:
            self.stage_entities()
            self.stage_memberships()
        assignments = self.stage_judgments()
        self.stage_citations()
        # assignments of staged conversations are staged (access leaves the area out); of conversations already there, published
        self.area.write(Assignment, [a for a in assignments if a.conversation_id in self.staged_conversations],
                        ignore_conflicts=True)
        self.history.write(self.area)

        def publishing() -> None:
            Assignment.objects.bulk_create([a for a in assignments if a.conversation_id not in self.staged_conversations],
                                           batch_size=1000, ignore_conflicts=True)
            for step in self.deferred:
                step()
            self.later.write()
        return publishing

    def stage_topics_and_runs(self) -> None:
        plan, area = self.plan, self.area
        type_of = {p.topic: plan.types[p.type_code].pk for p in plan.conversations}
        self.staged_topics = area.topics((code, plan.topics.get(code), type_id) for code, type_id in type_of.items())
        self.result.topics_created = sorted(code for code in self.staged_topics if code not in plan.topics)
        # a new topic is staged as itself (moved into the campaign at publish); an existing one by a copy
        self.final_topic = {code: (plan.topics[code] if code in plan.topics else t).pk for code, t in self.staged_topics.items()}
        self.staged_runs = area.runs((name, plan.runs.get(name)) for name in sorted({p.run for p in plan.conversations}))
        self.result.runs_created = sorted(set(self.staged_runs) - set(plan.runs))

    def retire_replaced(self) -> None:
        """Who was assigned the replaced conversations and which entities they mentioned; the
        deletion of their judgments, in the history (they are retired at publish)."""
        plan, annotator = self.plan, self.annotator
        replaced = [p.replace_id for p in plan.conversations if p.replace_id]
        if not replaced:
            return
        for chunk in chunks(replaced):
            for conversation_id, annotator_id in Assignment.objects.filter(conversation_id__in=chunk).values_list(
                    "conversation_id", "annotator_id"):
                self.keep_assignees[conversation_id].append(annotator_id)
        others: set[int] = set()
        # the systems' citations this import proposes again are not someone's lost work
        citations_judge = getattr(plan.citations_judge, "pk", None)
        proposed_anew = {p.replace_id for p in plan.conversations if p.replace_id and p.citations}
        topic_of = {c: t for chunk in chunks(replaced) for c, t in Conversation.objects.filter(pk__in=chunk).values_list("pk", "topic_id")}
        for chunk in chunks(replaced):
            for nugget in (Nugget.objects.filter(turn__conversation_id__in=chunk).select_related("turn")
                           .only("turn_id", "entity_id", "start_word", "end_word", "annotator_id", "turn__conversation_id")):
                conversation_id = nugget.turn.conversation_id
                self.touched_entities.add(nugget.entity_id)
                if (annotator is None or nugget.annotator_id != annotator.pk) and not (
                        nugget.annotator_id == citations_judge and conversation_id in proposed_anew):
                    others.add(conversation_id)
                self.history.record(Event.Kind.NUGGET, Event.Action.DELETE, nugget.pk, topic_of[conversation_id],
                                    conversation_id, nugget.annotator_id, before=nugget_state(nugget))
        for chunk in chunks(replaced):
            for label in (TurnLabel.objects.filter(turn__conversation_id__in=chunk).select_related("turn")
                          .only("turn_id", "annotator_id", "label", "turn__conversation_id")):
                self.history.record(Event.Kind.LABEL, Event.Action.DELETE, label.pk, topic_of[label.turn.conversation_id],
                                    label.turn.conversation_id, label.annotator_id, before=label_state(label))
        for p in plan.conversations:
            if p.replace_id in others:
                self.result.warn(p.conv.source, p.conv.line, f"{p.topic} / {p.run}: the judgments other annotators had "
                                 "made on the replaced conversation were deleted with it")
        self.result.replaced = len(replaced)

    def stage_conversations(self) -> None:
        """The new conversations and their turns (a conversation already there, given judgments,
        keeps its text, source and gold); replaced ones retired in their favour. Made and staged
        `JUDGMENTS_AT_ONCE` conversations at a time: only their ids are kept."""
        plan = self.plan
        self.result.turns = 0
        for start in range(0, len(plan.conversations), JUDGMENTS_AT_ONCE):
            self.stage_conversations_of(range(start, min(start + JUDGMENTS_AT_ONCE, len(plan.conversations))))
        self.result.added_to = sum(1 for p in plan.conversations if p.add_to_id)
        self.result.conversations = len(plan.conversations) - self.result.added_to

    def stage_conversations_of(self, indices: range) -> None:
        plan, area, annotator = self.plan, self.area, self.annotator
        planned = [plan.conversations[ci] for ci in indices]
        judge_files = is_automatic_judge(annotator)  # a judge's file never makes it gold
        conversations = [
            Conversation(pk=p.add_to_id, topic=plan.topics[p.topic], run=plan.runs[p.run]) if p.add_to_id else
            Conversation(topic=self.staged_topics[p.topic], run=self.staged_runs[p.run], source=PurePath(p.conv.source).name[:500],
                         gold_annotator=annotator if p.has_annotations and not judge_files else None, is_tree=p.conv.is_tree)
            for p in planned
        ]
        area.write(Conversation, [c for c, p in zip(conversations, planned) if not p.add_to_id])
        self.staged_conversations.update(c.pk for c, p in zip(conversations, planned) if not p.add_to_id)
        self.annotated_conversations.extend(c.pk for c, p in zip(conversations, planned) if p.has_annotations)
        for c, p in zip(conversations, planned):
            if p.replace_id:
                area.retire(p.replace_id, c.pk, topic_id=plan.topics[p.topic].pk, run_id=plan.runs[p.run].pk)
                judges = [*self.keep_assignees[p.replace_id], *([annotator.pk] if annotator is not None else [])]
                self.history.replace(p.replace_id, c.pk, self.final_topic[p.topic], judges, c.source)
        self.conversation_ids.extend(c.pk for c in conversations)
        turns: list[Turn] = []
        for c, p in zip(conversations, planned):
            if not p.add_to_id:
                turns.extend(Turn(conversation_id=c.pk, position=ti + 1, role=t.role, number=t.number, text=t.text,
                                  **(_tree_fields(ti, t) if p.conv.is_tree else {})) for ti, t in enumerate(p.conv.turns))
        area.write(Turn, turns)
        written = iter(turns)
        for p in planned:
            self.turn_ids.append(list(plan.existing_turns[p.add_to_id][:len(p.conv.turns)]) if p.add_to_id
                                 else [next(written).pk for _ in p.conv.turns])
        self.result.turns += len(turns)

    def stage_entities(self) -> None:
        """New entities staged; those the annotator has already updated at publish (grade,
        comment, name; a changed membership moves the version on too)."""
        plan, annotator = self.plan, self.annotator
        now = timezone.now()
        updated = []
        self.result.entities_created = 0
        for chunk in chunks(plan.entities.items(), ENTITIES_AT_ONCE):  # instances of a chunk at a time: see turn_ids
            new_entities = []
            for key, e in chunk:
                entity = plan.existing_entities.get(key)
                grade = plan.grades[e.grade] if e.grade is not None else None
                if entity is None:
                    entity = Entity(topic=self.staged_topics[e.topic], annotator=annotator, key=e.key, name=e.name[:1000],
                                    grade=grade, comment=e.comment)
                    new_entities.append((key, entity))
                    continue
                if (before := _judged_anew(entity, e, grade, plan)) is not None:
                    entity.version = F("version") + 1
                    entity.updated_at = now
                    updated.append((entity, before))
                self.entity_of[key] = entity.pk
            self.area.write(Entity, [entity for _, entity in new_entities])
            for key, entity in new_entities:
                self.entity_of[key] = entity.pk
                topic_id = self.final_topic[entity.topic.code]
                self.history.record(Event.Kind.ENTITY, Event.Action.CREATE, entity.pk, topic_id, None, annotator.pk,
                                    after={**entity_state(entity), "topic": topic_id})
            self.history.write(self.area)
            self.result.entities_created += len(new_entities)
        self.result.entities_updated = len(updated)
        self.updated_entities = {entity.pk for entity, _ in updated}

        def update_entities() -> None:
            if updated:
                Entity.objects.bulk_update([e for e, _ in updated], ["grade", "comment", "name", "version", "updated_at"],
                                           batch_size=500)
            for entity, before in updated:
                self.later.record(Event.Kind.ENTITY, Event.Action.UPDATE, entity.pk, entity.topic_id, None, annotator.pk,
                                  before=before, after=entity_state(entity))
        self.deferred.append(update_entities)

    def stage_memberships(self) -> None:
        """The memberships of new entities staged; those of entities already there replaced at
        publish (only where the vector or the evidence changed)."""
        plan, annotator = self.plan, self.annotator
        stale, fresh_later = [], []
        type_of_topic = {p.topic: plan.types[p.type_code] for p in plan.conversations}
        for chunk in chunks(plan.entities.items(), ENTITIES_AT_ONCE):  # instances of a chunk at a time: see turn_ids
            fresh = []
            for key, e in chunk:
                entity_id = self.entity_of[key]
                current = plan.existing_memberships.get(entity_id, {}) if key in plan.existing_entities else {}
                for name, (vector, evidence, _) in e.memberships.items():
                    old = current.get(name)
                    if old is not None and same_vector(old.vector, vector) and old.evidence == evidence[:1000]:
                        continue
                    if old is not None:
                        stale.append((old, self.final_topic[e.topic]))
                    membership = Membership(entity_id=entity_id, attribute_set=plan.sets[type_of_topic[e.topic].pk][name],
                                            vector=[float(v) for v in vector], evidence=evidence[:1000])
                    (fresh_later if key in plan.existing_entities else fresh).append((membership, self.final_topic[e.topic]))
            self.area.write(Membership, [m for m, _ in fresh])
            for membership, topic_id in fresh:
                self.history.record(Event.Kind.MEMBERSHIP, Event.Action.CREATE, membership.pk, topic_id, None, annotator.pk,
                                    after=membership_state(membership))
            self.history.write(self.area)

        def replace_memberships() -> None:
            for old, topic_id in stale:
                self.later.record(Event.Kind.MEMBERSHIP, Event.Action.DELETE, old.pk, topic_id, None, annotator.pk,
                                  before=membership_state(old))
            for chunk in chunks([old.pk for old, _ in stale]):
                Membership.objects.filter(pk__in=chunk).delete()
            Membership.objects.bulk_create([m for m, _ in fresh_later], batch_size=1000)
            for membership, topic_id in fresh_later:
                self.later.record(Event.Kind.MEMBERSHIP, Event.Action.CREATE, membership.pk, topic_id, None, annotator.pk,
                                  after=membership_state(membership))
        self.deferred.append(replace_memberships)

    def stage_judgments(self) -> list[Assignment]:
        """The files' nuggets and turn labels: staged on staged conversations, published on
        conversations already there; returns the assignments they make."""
        plan = self.plan
        assignments: list[Assignment] = []
        self.result.nuggets = self.result.labels = 0
        for start in range(0, len(plan.conversations), JUDGMENTS_AT_ONCE):
            assignments.extend(self.stage_judgments_of(range(start, min(start + JUDGMENTS_AT_ONCE, len(plan.conversations)))))
            # their events too, as they go: a large import's hundreds of thousands are not held to its end
            self.history.write(self.area)
        return assignments

    def stage_judgments_of(self, indices: range) -> list[Assignment]:
        """`stage_judgments` for the planned conversations at these indices."""
        plan, annotator = self.plan, self.annotator
        nuggets, labels, assignments = [], [], []
        for ci in indices:
            p = plan.conversations[ci]
            words = _TurnWords(p.conv)
            for n in p.conv.nuggets:
                nuggets.append((ci, Nugget(turn_id=self.turn_ids[ci][n.turn], annotator_id=annotator.pk,
                                           entity_id=self.entity_of[(p.topic, n.entity_key)],
                                           start_word=n.start_word, end_word=n.end_word,
                                           **Nugget.words_naming(words[n.turn], n.start_word, n.end_word))))
            for ti, t in enumerate(p.conv.turns):
                if t.role == "S" and t.label:
                    labels.append((ci, TurnLabel(turn_id=self.turn_ids[ci][ti], annotator_id=annotator.pk, label=t.label)))
            holders = set(self.keep_assignees.get(p.replace_id, [])) if p.replace_id else set()
            if annotator is not None and (p.has_annotations or plan.annotator_given is not None):
                holders.add(annotator.pk)
            assignments.extend(Assignment(conversation_id=self.conversation_ids[ci], annotator_id=a) for a in sorted(holders))
        self.result.nuggets += len(nuggets)
        self.result.labels += len(labels)
        self.stage_rows(Nugget, Event.Kind.NUGGET, nuggets, nugget_state)
        self.stage_rows(TurnLabel, Event.Kind.LABEL, labels, label_state)
        return assignments

    def stage_rows(self, model, kind: str, rows: list[tuple[int, Any]], state: Callable) -> None:
        """Judgments (nuggets, turn labels), each with its planned conversation's index: on staged
        conversations staged, with their history; on conversations already there created at publish."""
        conversations = self.plan.conversations
        staged = [(ci, r) for ci, r in rows if not conversations[ci].add_to_id]
        visible = [(ci, r) for ci, r in rows if conversations[ci].add_to_id]
        self.area.write(model, [r for _, r in staged])
        for ci, row in staged:
            self.history.record(kind, Event.Action.CREATE, row.pk, self.final_topic[conversations[ci].topic],
                                self.conversation_ids[ci], row.annotator_id, after=state(row))

        def add() -> None:
            model.objects.bulk_create([r for _, r in visible], batch_size=1000)
            for ci, row in visible:
                self.later.record(kind, Event.Action.CREATE, row.pk, self.final_topic[conversations[ci].topic],
                                  self.conversation_ids[ci], row.annotator_id, after=state(row))
        self.deferred.append(add)

    def stage_citations(self) -> None:
        """The chosen cited spans as nuggets of the automatic judge CITATIONS_JUDGE (created
        before staging when missing), its entities (one per topic and URL: the campaign's top
        grade, the source's title as name), and its assignment to each conversation."""
        plan = self.plan
        cited = [(ci, p) for ci, p in enumerate(plan.conversations) if p.citations]
        if not cited:
            return
        judge = plan.citations_judge
        top = max(plan.grades.values(), key=lambda g: g.level, default=None)
        code_of = {t.pk: code for code, t in plan.topics.items()}
        # the judge's entities of the sources cited, not every one of the topics
        entity_of: dict[tuple[str, str], Entity] = {(code_of[e.topic_id], e.key): e for e in campaign_reads.annotator_entities(
            judge, {(plan.topics[p.topic].pk, c.key) for _, p in cited if p.topic in plan.topics for c in p.citations})}
        new_entities = []
        for _, p in cited:
            for c in p.citations:
                if (p.topic, c.key) not in entity_of:
                    entity = Entity(topic=self.staged_topics[p.topic], annotator=judge, key=c.key, name=c.title[:1000], grade=top)
                    entity_of[(p.topic, c.key)] = entity
                    new_entities.append((entity, p.topic))
        self.area.write(Entity, [e for e, _ in new_entities])
        for entity, code in new_entities:
            topic_id = self.final_topic[code]
            self.history.record(Event.Kind.ENTITY, Event.Action.CREATE, entity.pk, topic_id, None, judge.pk,
                                after={**entity_state(entity), "topic": topic_id})
        nuggets = []
        for ci, p in cited:
            words = _TurnWords(p.conv)
            nuggets.extend(
                (ci, Nugget(turn_id=self.turn_ids[ci][c.turn], annotator_id=judge.pk, entity_id=entity_of[(p.topic, c.key)].pk,
                            start_word=c.start, end_word=c.end, **Nugget.words_naming(words[c.turn], c.start, c.end)))
                for c in p.citations)
        self.stage_rows(Nugget, Event.Kind.NUGGET, nuggets, nugget_state)
        self.result.citations = len(nuggets)
        holds = [Assignment(conversation_id=self.conversation_ids[ci], annotator_id=judge.pk) for ci, _ in cited]
        self.area.write(Assignment, [a for a in holds if a.conversation_id in self.staged_conversations], ignore_conflicts=True)
        self.deferred.append(lambda: Assignment.objects.bulk_create(
            [a for a in holds if a.conversation_id not in self.staged_conversations], batch_size=1000, ignore_conflicts=True))


def _judged_anew(entity: Entity, e, grade, plan: ImportPlan) -> dict | None:
    """Apply the file's judgment to an entity the annotator has; its state before when anything
    changed, else None. A comment already there stays when the entity is judged in
    conversations this import leaves in place."""
    before = entity_state(entity)
    changed = False
    if grade is not None and entity.grade_id != grade.pk:
        entity.grade, changed = grade, True
    if e.comment and entity.comment != e.comment and (entity.pk not in plan.locked or not entity.comment):
        entity.comment, changed = e.comment, True
    if e.name and not entity.name:
        entity.name, changed = e.name[:1000], True
    memberships = plan.existing_memberships.get(entity.pk, {})
    changed = changed or any(name not in memberships or not same_vector(memberships[name].vector, v)
                             or memberships[name].evidence != ev[:1000] for name, (v, ev, _) in e.memberships.items())
    return before if changed else None


def _delete_orphans(touched_entities: set[int], actor) -> None:
    """Entities only the replaced conversations mentioned, and this import does not: deleted
    once those conversations are (after publishing), with their history."""
    for chunk in chunks(sorted(touched_entities)):
        with transaction.atomic():
            orphans = list(Entity.objects.filter(pk__in=chunk, nuggets__isnull=True))
            history = ImportHistory(actor)
            for entity in orphans:
                history.record(Event.Kind.ENTITY, Event.Action.DELETE, entity.pk, entity.topic_id, None,
                               entity.annotator_id, before=entity_state(entity))
            Entity.objects.filter(pk__in=[entity.pk for entity in orphans]).delete()
            history.write()


def _create_citations_judge():
    user = get_user_model()(username=CITATIONS_JUDGE)
    user.set_unusable_password()
    user.save()
    AnnotatorProfile.mark(user, automatic=True, description=CITATIONS_DESCRIPTION)
    return user


class _TurnWords(dict):
    """A conversation's turns' words (scoring.words.tokenise), each split when first asked for."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def __missing__(self, turn: int) -> list[str]:
        words = self[turn] = tokenise(self.conv.turns[turn].text)
        return words


def _tree_fields(index: int, turn) -> dict:
    """A tree's turn as Turn stores it: the position it follows (0: a root after the first
    turn; empty for the first), its p, whether it was shown, its id in the file."""
    if turn.parent is not None:
        follows = turn.parent + 1
    else:
        follows = None if index == 0 else 0
    return {"follows": follows, "p": turn.p, "shown": turn.shown, "key": turn.id[:200]}
