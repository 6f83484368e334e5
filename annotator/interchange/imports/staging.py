"""Staging areas: where an import writes its rows, in short transactions, before anyone sees them.

    area = StagingArea.open(campaign)
    topics = area.topics([("M002", existing_or_none, movies.pk)])   # where rows of M002 go now
    runs = area.runs([("bing-trial1", existing_or_none)])
    area.write(Conversation, conversations)      # batches of short transactions
    ...                                          # the new conversations are complete here
    area.publish(then=lambda: ...)               # one short transaction: everything visible at once
    area.discard()                               # the area and what is left in it, in short transactions

On SQLite there is one writer: an import of 30,000 conversations written in one transaction held
it longer than the 20 s busy timeout, and annotators' saves failed (docs/benchmarks-history.md,
"Saves during an import of 30,000 conversations (issue 26)"). So an import writes where no
reader looks and then publishes:

- The area is a hidden campaign (`Campaign.staging_for` names the campaign imported into). A
  topic or run the import creates is created in it; one that exists gets a copy there (same
  code or name). New conversations hang under those topics and runs; their turns, nuggets,
  turn labels, new entities and their memberships hang under the conversations and topics. Every
  campaign-wide read selects by campaign, and the area is nobody's (no organisers, no
  assignments; `access` leaves it out even for superusers), so nothing staged is ever visible.
- `publish` moves it all in one transaction: the new topics and runs by one UPDATE each (what
  hangs below comes along), conversations and entities staged under copies by one UPDATE per
  copy (an indexed set update: little work a row), then runs the caller's changes to
  rows that are visible already (assignments, judgments added to conversations already there,
  entities updated, replaced conversations retired).
- A replaced conversation is retired at publish: moved into the area (one row each), deleted
  with everything on it after publishing, by `discard`, in short transactions.
- An import may be cancelled (a background job's organiser): `cancellation.check()` runs
  between two batches and raises ImportCancelled, and `cancellation.before_publishing()` runs
  first in the publishing transaction (it refuses once the job was cancelled, and makes it
  uncancellable otherwise): a cancelled import publishes nothing.
- On any failure `discard` deletes the area: nothing of the import was ever visible. A process
  that dies mid-import leaves its area behind, invisible; `sweep_abandoned` (called by every
  import) deletes areas whose process is gone, or, from another host, that showed no sign of
  life for ABANDONED_AFTER.

Between two batches on SQLite the importer lets waiting saves in: a waiting save's busy handler
polls the lock every 1-100 ms, and without a gap it could miss the free moments of a writer that
starts the next batch at once. It pauses only while someone waits for the lock (annotator.writers:
every connection says so), at most as long as the batch took or the busy handler's longest sleep
(100 ms), whichever is longer; when nobody waits, it goes on at once. A database that cannot tell
(in memory) pauses about as long as the batch took, with jitter. PostgreSQL lets writers of
different rows work at the same time: no pauses there.
"""

from __future__ import annotations

import gc
import logging
import random
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from datetime import timedelta
from typing import Protocol

from django.db import connection, models, transaction
from django.utils import timezone

from annotator import writers
from annotator.background import processes
from annotator.models import AnnotationEvent, Assignment, Campaign, Conversation, Entity, Membership, Run, Topic

__all__ = ["StagingArea", "sweep_abandoned", "no_collection", "ABANDONED_AFTER", "ImportCancelled", "Cancellation"]

log = logging.getLogger(__name__)

BATCH_SECONDS = 0.03  # a batch aims at this long in the writer's lock (SQLite), then lets waiting saves in
LONGEST_POLL = 0.1  # SQLite's busy handler sleeps at most this long between two tries for the lock
ABANDONED_AFTER = timedelta(minutes=10)  # an area of another host without a sign of life this long is dead
HEARTBEAT_SECONDS = 5.0
DELETE_CHUNK = 200  # conversations (with their turns, nuggets, labels) deleted per transaction


class ImportCancelled(BaseException):
    """Someone cancelled the import before it published: nothing of it is imported. A
    BaseException, as asyncio's CancelledError: no reader's or checker's `except Exception`
    takes it for a problem of the file."""


class Cancellation(Protocol):
    def check(self) -> None:
        """Raise ImportCancelled if the import was cancelled (cheap: called between batches)."""

    def before_publishing(self) -> None:
        """In the publishing transaction, first: raise ImportCancelled if the import was
        cancelled, else make it uncancellable from now on."""


def _alive(area: Campaign, now) -> bool:
    # its writes are its signs of life (`_beat` marks one between them)
    return processes.alive(area.staged_by, area.updated_at, ABANDONED_AFTER, now)




@contextmanager
def no_collection():
    """No cyclic garbage collection inside: an import holds hundreds of thousands of objects, a
    full collection walks them all (longer as they grow), and one that starts inside a write
    transaction holds SQLite's only writer all that time (docs/benchmarks-history.md, "Saves
    during an import of 30,000 conversations"). It runs after the commit instead, at the next
    allocation."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class StagingArea:
    def __init__(self, campaign: Campaign, area: Campaign, cancellation: Cancellation | None = None):
        self.campaign = campaign
        self.area = area
        self.cancellation = cancellation
        self.new_topics: list[Topic] = []
        self.new_runs: list[Run] = []
        self.topic_copies: list[tuple[Topic, Topic]] = []  # (copy, real)
        self.run_copies: list[tuple[Run, Run]] = []
        self.retired: list[tuple[int, int]] = []  # (replaced conversation id, its replacement's)
        self.retire_to: dict[int, tuple[int, int]] = {}  # replaced conversation id -> (topic, run) in the area
        self.trash_topics: dict[int, Topic] = {}  # real topic id -> where its replaced conversations wait
        self.trash_runs: dict[int, Run] = {}  # real run id -> likewise
        self.topic_copy_of: dict[int, Topic] = {}  # real topic id -> its copy
        self.batch_size: dict[type, int] = {}
        self.last_beat = time.monotonic()
        self.published = False
        self.transactions, self.rows, self.longest, self.longest_what, self.publish_seconds = 0, 0, 0.0, "", 0.0

    @classmethod
    def open(cls, campaign: Campaign, cancellation: Cancellation | None = None) -> StagingArea:
        sweep_abandoned()
        area = Campaign.objects.create(
            slug=f"~import-{uuid.uuid4().hex}", name=f"import into {campaign.slug} (staged)",
            staging_for=campaign, staged_by=processes.this_process(),
        )
        return cls(campaign, area, cancellation)

    # -- where the staged rows go --

    def topics(self, wanted: Iterable[tuple[str, Topic | None, int]]) -> dict[str, Topic]:
        """The topic staged rows of each code hang under, from (code, the real topic or None,
        topic type id): the new topic itself (moved into the campaign at publish), or a copy of the
        real one."""
        wanted = list(wanted)
        topics = [Topic(campaign=self.area, code=code, topic_type_id=type_id) for code, _, type_id in wanted]
        Topic.objects.bulk_create(topics, batch_size=500)
        for topic, (_, real, _) in zip(topics, wanted):
            if real is None:
                self.new_topics.append(topic)
            else:
                self.topic_copies.append((topic, real))
                self.topic_copy_of[real.pk] = topic
        return {topic.code: topic for topic in topics}

    def runs(self, wanted: Iterable[tuple[str, Run | None]]) -> dict[str, Run]:
        """Likewise for runs, from (name, the real run or None)."""
        wanted = list(wanted)
        runs = [Run(campaign=self.area, name=name, system=system, trial=trial)
                for name, _ in wanted for system, trial in [Run.system_and_trial_of(name)]]
        Run.objects.bulk_create(runs, batch_size=500)
        for run, (_, real) in zip(runs, wanted):
            if real is None:
                self.new_runs.append(run)
            else:
                self.run_copies.append((run, real))
        return {run.name: run for run in runs}

    def retire(self, replaced: int, replacement: int, *, topic_id: int, run_id: int) -> None:
        """At publish, the replaced conversation leaves the campaign for the area (deleted by
        `discard`) and its history moves to its replacement."""
        # a topic and a run of their own per real topic and run (never the copies, whose rows move
        # into the campaign at publish): (topic, run) stays unique, as it was in the campaign
        if topic_id not in self.trash_topics:
            self.trash_topics[topic_id] = Topic.objects.create(
                campaign=self.area, code=f"~replaced-{len(self.trash_topics)}",
                topic_type_id=self.topic_copy_of[topic_id].topic_type_id)
        if run_id not in self.trash_runs:
            self.trash_runs[run_id] = Run.objects.create(campaign=self.area, name=f"~replaced-{len(self.trash_runs)}")
        self.retired.append((replaced, replacement))
        self.retire_to[replaced] = (self.trash_topics[topic_id].pk, self.trash_runs[run_id].pk)

    # -- writing --

    def write(self, model: type[models.Model], objects: Sequence[models.Model], *, ignore_conflicts: bool = False) -> None:
        """bulk_create in batches, each its own short transaction (pks are set, as bulk_create does).
        Inside a caller's transaction (a test's) there is nobody to let in: one bulk_create."""
        self.in_short_transactions(
            model, objects, lambda chunk: model.objects.bulk_create(chunk, ignore_conflicts=ignore_conflicts),
            what=model.__name__)

    def in_short_transactions(self, key, items: Sequence, work: Callable[[Sequence], object], *,
                              prepare: Callable[[Sequence], Sequence] | None = None, what: str = "") -> None:
        """`work(chunk)` over `items` chunk by chunk, each chunk in a transaction of its own aimed
        at BATCH_SECONDS (the size follows the last chunk's time, per `key`), then the pause that
        lets waiting writers in; `prepare(chunk)`, when given, runs before the transaction and its
        result is what `work` gets. Inside a caller's transaction (a test's): everything at once."""
        if connection.in_atomic_block:
            work(prepare(items) if prepare else items)
            return
        size = self.batch_size.get(key, 100)
        start = 0
        while start < len(items):
            chunk = items[start : start + size]
            prepared = prepare(chunk) if prepare else chunk
            began = time.perf_counter()
            with no_collection(), transaction.atomic():
                work(prepared)
                self._beat()
            took = self._count(what or str(key), chunk, time.perf_counter() - began)
            start += len(chunk)
            # aim each chunk at BATCH_SECONDS: at most twice as many items as the last, within 20..5000
            size = self.batch_size[key] = max(20, min(5000, 2 * size, int(size * BATCH_SECONDS / max(took, 1e-4))))
            self._pause(took)
            if self.cancellation is not None and not self.published:
                self.cancellation.check()

    def _count(self, what: str, chunk, took: float) -> float:
        self.transactions, self.rows = self.transactions + 1, self.rows + len(chunk)
        if took > self.longest:
            self.longest, self.longest_what = took, f"{len(chunk)} {what}"
        return took

    def _pause(self, took: float) -> None:
        if connection.vendor == "sqlite":  # one writer: let the others in
            began = time.perf_counter()
            with connection.cursor() as cursor:
                # copy the batch from the WAL into the database now, outside any transaction: else
                # the commit that finds the WAL over 1,000 pages does it (a save's, as likely as ours)
                cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self.checkpoints = getattr(self, "checkpoints", 0.0) + time.perf_counter() - began
            # until the waiting saves got the lock: each polls within LONGEST_POLL of our commit
            paused = writers.while_someone_waits(connection, max(took, LONGEST_POLL))
            if paused is None:  # who waits cannot be told: pause about as long as the batch took
                time.sleep(max(took, 0.005) * random.uniform(0.7, 1.3))

    def _beat(self) -> None:
        now = time.monotonic()
        if now - self.last_beat >= HEARTBEAT_SECONDS:
            self.last_beat = now
            Campaign.objects.filter(pk=self.area.pk).update(updated_at=timezone.now())

    # -- publishing --

    def publish(self, then: Callable[[], None] = lambda: None) -> None:
        """One transaction: retire the replaced conversations, move every staged row into the
        campaign, then `then()` (the caller's changes to rows visible already)."""
        quote = connection.ops.quote_name
        conversations, entities = quote(Conversation._meta.db_table), quote(Entity._meta.db_table)
        events, assignments = quote(AnnotationEvent._meta.db_table), quote(Assignment._meta.db_table)
        began = time.perf_counter()
        with no_collection(), transaction.atomic(), connection.cursor() as cursor:
            if self.cancellation is not None:
                self.cancellation.before_publishing()
            if self.retired:
                # out of every queue and campaign; its history goes to the replacement
                cursor.executemany(f"UPDATE {conversations} SET topic_id = %s, run_id = %s WHERE id = %s",
                                   [(*self.retire_to[old], old) for old, _ in self.retired])
                cursor.executemany(f"DELETE FROM {assignments} WHERE conversation_id = %s", [(old,) for old, _ in self.retired])
                cursor.executemany(f"UPDATE {events} SET conversation_id = %s WHERE conversation_id = %s",
                                   [(new, old) for old, new in self.retired])
            if self.new_topics:
                Topic.objects.filter(pk__in=[t.pk for t in self.new_topics]).update(campaign=self.campaign)
            if self.new_runs:
                Run.objects.filter(pk__in=[r.pk for r in self.new_runs]).update(campaign=self.campaign)
            if self.topic_copies:
                pairs = [(real.pk, copy.pk) for copy, real in self.topic_copies]
                cursor.executemany(f"UPDATE {conversations} SET topic_id = %s WHERE topic_id = %s", pairs)
                cursor.executemany(f"UPDATE {entities} SET topic_id = %s WHERE topic_id = %s", pairs)
            if self.run_copies:
                cursor.executemany(f"UPDATE {conversations} SET run_id = %s WHERE run_id = %s",
                                   [(real.pk, copy.pk) for copy, real in self.run_copies])
            then()
        self.published = True
        self.publish_seconds = time.perf_counter() - began
        log.info("import into %s: staged %d rows in %d transactions (longest %.0f ms: %s), published in %.0f ms"
                 " (checkpoints %.1f s)",
                 self.campaign.slug, self.rows, self.transactions, self.longest * 1e3, self.longest_what,
                 self.publish_seconds * 1e3, getattr(self, "checkpoints", 0.0))

    # -- deleting --

    def discard(self) -> None:
        """Delete the area and everything still in it, in short transactions: after a failure, all
        that was staged; after publishing, only the conversations it retired."""
        if self.published:
            for chunk in _chunks([old for old, _ in self.retired], DELETE_CHUNK):
                with transaction.atomic():
                    Conversation.objects.filter(pk__in=chunk).delete()
            _delete_area(self.area)
        else:
            discard(self.area)


def discard(area: Campaign) -> None:
    """Delete a staging area with every row staged in it, in short transactions."""
    staged = Conversation.objects.filter(topic__campaign=area)
    entity_ids = list(Entity.objects.filter(topic__campaign=area).values_list("pk", flat=True))
    # the history of staged rows: on staged conversations, or (entities, memberships) on their topic
    while ids := list(AnnotationEvent.objects.filter(conversation__in=staged).values_list("pk", flat=True)[:5000]):
        AnnotationEvent.objects.filter(pk__in=ids).delete()
    for chunk in _chunks(entity_ids, 500):
        membership_ids = list(Membership.objects.filter(entity_id__in=chunk).values_list("pk", flat=True))
        AnnotationEvent.objects.filter(kind=AnnotationEvent.Kind.ENTITY, object_id__in=chunk).filter(
            conversation__isnull=True).delete()
        for ids in _chunks(membership_ids, 500):
            AnnotationEvent.objects.filter(kind=AnnotationEvent.Kind.MEMBERSHIP, object_id__in=ids).filter(
                conversation__isnull=True).delete()
    while ids := list(staged.values_list("pk", flat=True)[:DELETE_CHUNK]):
        with transaction.atomic():
            Conversation.objects.filter(pk__in=ids).delete()
    for chunk in _chunks(entity_ids, 1000):
        with transaction.atomic():
            Entity.objects.filter(pk__in=chunk).delete()
    _delete_area(area)


def _delete_area(area: Campaign) -> None:
    """The emptied area: its topics and runs (copies, and the trash runs), then itself. Nothing
    else refers to them by now; the database's foreign keys would refuse the commit otherwise."""
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {quote(Topic._meta.db_table)} WHERE campaign_id = %s", [area.pk])
        cursor.execute(f"DELETE FROM {quote(Run._meta.db_table)} WHERE campaign_id = %s", [area.pk])
        cursor.execute(f"DELETE FROM {quote(Campaign._meta.db_table)} WHERE id = %s", [area.pk])


def sweep_abandoned() -> int:
    """Delete the staging areas whose import died (its process gone, or no sign of life for
    ABANDONED_AFTER from another host); returns how many."""
    now = timezone.now()
    dead = [area for area in Campaign.objects.filter(staging_for__isnull=False).only("pk", "staged_by", "updated_at")
            if not _alive(area, now)]
    for area in dead:
        discard(area)
    return len(dead)


def _chunks(items: Iterable, size: int):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i : i + size]
