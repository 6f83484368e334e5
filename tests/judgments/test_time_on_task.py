"""Time on task: each sign of work adds the gap since the one before, unless the annotator was
away (a gap over IDLE_SECONDS); computed by the database, one UPDATE a sign (activity.record),
checked against a plain computation of the same signs (activity.active_time)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.judgments import activity
from annotator.models import Assignment
from tests.factories import make_campaign, make_conversation, make_user

pytestmark = pytest.mark.django_db

T0 = 1_800_000_000.0


@pytest.fixture
def assignment(db):
    ann = make_user("ann")
    conversation = make_conversation(make_campaign(), [("U", "q"), ("S", "a")], annotators=[ann])
    return Assignment.objects.get(conversation=conversation, annotator=ann)


def seconds_of(assignment) -> float:
    return Assignment.objects.get(pk=assignment.pk).active_seconds


def test_the_docs_example_reading_marking_reading_then_leaving_the_page_open_for_an_hour(assignment):
    """Two minutes of reading, a save, ten minutes of reading (heartbeats), an hour away: 12 minutes."""
    signs = [T0, T0 + 120] + [T0 + 120 + 30 * k for k in range(1, 21)] + [T0 + 720 + 3600]
    for sign in signs:
        activity.record(assignment.pk, sign)
    assert seconds_of(assignment) == pytest.approx(720.0)
    assert activity.active_time(signs) == pytest.approx(720.0)


def test_a_gap_longer_than_the_idle_limit_counts_nothing_and_one_at_it_counts_whole(assignment):
    for sign in (T0, T0 + activity.IDLE_SECONDS, T0 + activity.IDLE_SECONDS + activity.IDLE_SECONDS + 1):
        activity.record(assignment.pk, sign)
    assert seconds_of(assignment) == pytest.approx(activity.IDLE_SECONDS)


def test_the_first_sign_counts_nothing_and_a_late_sign_never_moves_the_clock_back(assignment):
    activity.record(assignment.pk, T0)
    assert seconds_of(assignment) == 0.0
    activity.record(assignment.pk, T0 + 60)
    activity.record(assignment.pk, T0 + 50)  # a sign from another tab that arrives late
    activity.record(assignment.pk, T0 + 70)
    assert seconds_of(assignment) == pytest.approx(70.0)
    assert Assignment.objects.get(pk=assignment.pk).last_active == T0 + 70


def _one_assignment() -> Assignment:
    """The same assignment for every example (made by the first), its clock reset."""
    found = Assignment.objects.filter(annotator__username="hypothesis").first()
    if found is None:
        ann = make_user("hypothesis")
        make_conversation(make_campaign("hyp"), [("U", "q"), ("S", "a")], annotators=[ann])
        found = Assignment.objects.get(annotator=ann)
    Assignment.objects.filter(pk=found.pk).update(active_seconds=0.0, last_active=None)
    return found


@given(st.lists(st.floats(min_value=0, max_value=5_000, allow_nan=False), min_size=1, max_size=30))
def test_the_database_adds_what_a_plain_computation_of_the_same_signs_gives(gaps):
    assignment = _one_assignment()
    signs, now = [], T0
    for gap in gaps:
        now += gap
        signs.append(now)
        activity.record(assignment.pk, now)
    assert seconds_of(assignment) == pytest.approx(activity.active_time(signs), abs=1e-6)
