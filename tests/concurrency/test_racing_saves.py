"""Two saves racing in real threads, each with its own database connection, on whichever
database the suite runs on (SQLite file with WAL + IMMEDIATE transactions, or PostgreSQL).

Exactly one wins; the other gets StaleEdit or AnnotationRefused (never a database error, never
a silent overwrite); the winner's change is in the database and recorded exactly once.
Where the window between reading and writing is tiny, the test widens it with a short sleep
inside the business rule, so the race happens every time rather than by luck.
"""

from __future__ import annotations

import time

import pytest
from django.db import connection, transaction

from annotator.judgments import edits
from annotator.judgments.edits import entities, labels, nuggets, undo
from annotator.judgments.edits import AnnotationRefused, StaleEdit
from annotator.models import AnnotationEvent, Entity, Membership, Nugget, TurnLabel
from tests.concurrency.conftest import race

pytestmark = pytest.mark.django_db(transaction=True)

REFUSALS = (StaleEdit, AnnotationRefused)


def one_winner(outcomes):
    """Exactly one outcome succeeded and every other is a clean refusal; returns the winner's index."""
    errors = [o.error for o in outcomes if o.error is not None]
    for error in errors:
        assert isinstance(error, REFUSALS), f"a racing save failed with {type(error).__name__}: {error}"
    winners = [i for i, o in enumerate(outcomes) if o.error is None]
    assert len(winners) == 1, f"expected one winner, got {len(winners)}: {outcomes}"
    return winners[0]


def slowed(monkeypatch, module, name: str, seconds: float = 0.3):
    """Make <name>, as the edit service's `module` calls it, sleep after it returns: widens a
    read-then-write window."""
    original = getattr(module, name)

    def slow(*args, **kwargs):
        result = original(*args, **kwargs)
        time.sleep(seconds)
        return result

    monkeypatch.setattr(module, name, slow)


def events(kind, action=None):
    qs = AnnotationEvent.objects.filter(kind=kind)
    return qs.filter(action=action) if action else qs


@pytest.mark.parametrize("round_", range(3))
def test_two_tabs_renaming_one_entity(world, round_):
    nugget = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    version = nugget.entity.version
    names = ["From tab one", "From tab two"]
    outcomes = race(*[
        (lambda name=name: edits.update_entity(
            Entity.objects.get(pk=nugget.entity_id), actor=world.alice, expected_version=version, name=name))
        for name in names
    ])
    winner = one_winner(outcomes)
    entity = Entity.objects.get(pk=nugget.entity_id)
    assert entity.name == names[winner] and entity.version == version + 1
    assert events("entity", "update").count() == 1
    loser = outcomes[1 - winner].error
    assert isinstance(loser, StaleEdit) and loser.current.name == names[winner]


def test_two_annotators_grading_and_splitting_one_entity_in_the_same_instant(world):
    """A grade and a membership on the same entity from two tabs: the entity's version guards both."""
    nugget = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    origin = world.attribute_set("ORIGIN")
    outcomes = race(
        lambda: edits.update_entity(Entity.objects.get(pk=nugget.entity_id), actor=world.alice,
                                          expected_version=1, grade=world.grade("L2")),
        lambda: edits.set_membership(Entity.objects.get(pk=nugget.entity_id), origin, actor=world.alice,
                                           expected_version=1, vector=[0, 0.5, 0, 0, 0, 0.5, 0, 0], evidence="UK, US"),
    )
    winner = one_winner(outcomes)
    entity = Entity.objects.get(pk=nugget.entity_id)
    assert entity.version == 2
    if winner == 0:
        assert entity.grade.label == "L2" and not Membership.objects.exists()
    else:
        assert entity.grade is None and Membership.objects.get().evidence == "UK, US"
    assert events("entity", "update").count() + events("membership").count() == 1


def test_moving_and_deleting_one_nugget_at_once(world):
    nugget = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)
    tab1, tab2 = Nugget.objects.get(pk=nugget.pk), Nugget.objects.get(pk=nugget.pk)  # both tabs show version 1
    tab1.turn, tab2.turn  # (loaded now, as a view would have)
    outcomes = race(
        lambda: edits.update_nugget(tab1, actor=world.alice, expected_version=1, end_word=4),
        lambda: edits.delete_nugget(tab2, actor=world.alice, expected_version=1),
    )
    winner = one_winner(outcomes)
    if winner == 0:
        assert Nugget.objects.get(pk=nugget.pk).end_word == 4
        assert events("nugget", "update").count() == 1 and not events("nugget", "delete").exists()
    else:
        assert not Nugget.objects.filter(pk=nugget.pk).exists()
        assert events("nugget", "delete").count() == 1 and not events("nugget", "update").exists()


@pytest.mark.parametrize("spans", [((0, 5), (0, 5)), ((0, 5), (3, 8))], ids=["same-words", "overlapping"])
def test_two_tabs_marking_the_same_words(world, monkeypatch, spans):
    slowed(monkeypatch, nuggets, "check_span")  # both check "no overlap" before either writes
    turn = world.turn(2)
    outcomes = race(*[
        (lambda s=s: edits.create_nugget(annotator=world.alice, actor=world.alice,
                                               turn=type(turn).objects.get(pk=turn.pk), start_word=s[0], end_word=s[1]))
        for s in spans
    ])
    one_winner(outcomes)
    assert Nugget.objects.filter(turn=turn, annotator=world.alice).count() == 1
    assert events("nugget", "create").count() == 1


def test_one_entity_named_in_two_turns_at_once_is_one_entity(world, monkeypatch):
    """Two tabs mark Primer in S1 and in S2 at the same moment: both nuggets, one entity."""
    slowed(monkeypatch, entities, "entity_key_and_name")
    s1, s2 = world.turn(2), world.turn(4)
    outcomes = race(
        lambda: edits.create_nugget(annotator=world.alice, actor=world.alice, turn=type(s1).objects.get(pk=s1.pk),
                                          start_word=9, end_word=11),
        lambda: edits.create_nugget(annotator=world.alice, actor=world.alice, turn=type(s2).objects.get(pk=s2.pk),
                                          start_word=1, end_word=3),
    )
    for outcome in outcomes:
        assert outcome.error is None, f"{type(outcome.error).__name__}: {outcome.error}"
    keys = set(Nugget.objects.values_list("entity__key", flat=True))
    assert keys == {"https://imdb.com/title/tt0390384"}
    assert Entity.objects.count() == 1
    assert events("entity", "create").count() == 1 and events("nugget", "create").count() == 2


@pytest.mark.parametrize("round_", range(2))
def test_two_tabs_labelling_an_unlabelled_turn(world, round_):
    turn = world.turn(2)
    outcomes = race(*[
        (lambda label=label: edits.set_turn_label(type(turn).objects.get(pk=turn.pk), annotator=world.alice,
                                                        actor=world.alice, label=label, expected_version=None))
        for label in ("o", "x")
    ])
    winner = one_winner(outcomes)
    assert TurnLabel.objects.get().label == ("o", "x")[winner]
    assert events("label").count() == 1


def test_changing_and_clearing_a_label_at_once(world, monkeypatch):
    turn = world.turn(2)
    edits.set_turn_label(turn, annotator=world.alice, actor=world.alice, label="o", expected_version=None)
    slowed(monkeypatch, labels, "label_state")  # both read version 1 before either writes
    outcomes = race(
        lambda: edits.set_turn_label(type(turn).objects.get(pk=turn.pk), annotator=world.alice,
                                           actor=world.alice, label="x", expected_version=1),
        lambda: edits.set_turn_label(type(turn).objects.get(pk=turn.pk), annotator=world.alice,
                                           actor=world.alice, label=None, expected_version=1),
    )
    winner = one_winner(outcomes)
    if winner == 0:
        assert TurnLabel.objects.get().label == "x"
    else:
        assert not TurnLabel.objects.exists()
    assert events("label").count() == 2  # the create, and the winner's change


def test_undo_pressed_in_two_tabs_at_once_undoes_each_change_at_most_once(world, monkeypatch):
    for start in (0, 8):
        edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=start, end_word=start + 2)
    slowed(monkeypatch, undo, "last_undoable", 0.2)
    outcomes = race(*[
        (lambda: edits.undo_last(type(world.conversation).objects.get(pk=world.conversation.pk), world.alice, actor=world.alice))
        for _ in range(2)
    ])
    for outcome in outcomes:
        assert outcome.error is None or isinstance(outcome.error, REFUSALS), repr(outcome.error)
    undone = list(AnnotationEvent.objects.filter(undo_of__isnull=False).values_list("undo_of_id", flat=True))
    assert len(undone) == len(set(undone)) >= 1
    # What is left is consistent: every nugget created and not undone is there, the rest is not.
    created = AnnotationEvent.objects.filter(kind="nugget", action="create", undo_of__isnull=True)
    alive = {e.object_id for e in created if not AnnotationEvent.objects.filter(undo_of=e).exists()}
    assert set(Nugget.objects.values_list("pk", flat=True)) == alive


def test_a_busy_database_makes_the_second_writer_wait_not_fail(world):
    """One save holds the write lock for a moment; the other queues behind it and succeeds."""
    nugget = edits.create_nugget(annotator=world.alice, actor=world.alice, turn=world.turn(2), start_word=0, end_word=5)

    def slow_writer():
        with transaction.atomic():
            Entity.objects.filter(pk=nugget.entity_id).update(comment="held")
            time.sleep(1.0)
        return "slow"

    def quick_writer():
        time.sleep(0.2)
        edits.set_turn_label(world.turn(4), annotator=world.bob, actor=world.bob, label="o", expected_version=None)
        return "quick"

    started = time.monotonic()
    outcomes = race(slow_writer, quick_writer)
    assert [o.error for o in outcomes] == [None, None]
    assert TurnLabel.objects.get().label == "o" and Entity.objects.get(pk=nugget.entity_id).comment == "held"
    if connection.vendor == "sqlite":
        assert time.monotonic() - started >= 0.9  # it waited for the lock (busy timeout), it did not fail
