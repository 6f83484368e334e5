import pytest

from annotator.console.assigning import AssignmentRefused, plan


def test_round_robin_spreads_conversations_evenly():
    pairs = plan([1, 2, 3, 4, 5, 6], [10, 20, 30], 1)
    assert [a for _, a in pairs] == [10, 20, 30, 10, 20, 30]


def test_two_per_conversation_gives_each_two_distinct_annotators_and_even_loads():
    pairs = plan([1, 2, 3], [10, 20, 30], 2)
    by_conversation = {}
    for c, a in pairs:
        by_conversation.setdefault(c, set()).add(a)
    assert all(len(v) == 2 for v in by_conversation.values())
    loads = [a for _, a in pairs]
    assert sorted(loads.count(a) for a in (10, 20, 30)) == [2, 2, 2]


def test_existing_assignments_count_towards_the_number_wanted():
    assert plan([1, 2], [10, 20], 2, existing={1: {10}, 2: {10, 20}}) == [(1, 20)]


def test_running_the_plan_twice_adds_nothing():
    assert plan([1], [10, 20], 1, existing={1: {20}}) == []


def test_more_per_conversation_than_annotators_is_refused():
    with pytest.raises(AssignmentRefused):
        plan([1], [10], 2)
