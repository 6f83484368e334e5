"""annotator.rules.spans: the one rule on nugget spans that the workspace, the API and the importer share."""

import pytest

from annotator.rules.spans import SpanProblem, SpanSweep, span_problem


def test_a_span_inside_its_turn_that_overlaps_nothing_is_fine():
    assert span_problem(0, 5, words=6, others=[(7, 9)]) is None
    assert span_problem(2, 2, words=3) is None


@pytest.mark.parametrize("start, end", [(-1, 2), (3, 2), (0, 6), (6, 6)])
def test_a_span_that_is_not_a_word_range_of_the_turn_is_outside(start, end):
    assert span_problem(start, end, words=6) == SpanProblem(outside=True)


def test_spans_that_share_a_word_overlap_and_the_first_one_overlapped_is_named():
    others = [(0, 1), (4, 6), (6, 9)]
    assert span_problem(6, 8, words=20, others=others) == SpanProblem(overlaps=1)
    assert span_problem(1, 1, words=20, others=others) == SpanProblem(overlaps=0)


def test_spans_that_only_touch_do_not_overlap():
    assert span_problem(2, 3, words=20, others=[(0, 1), (4, 6)]) is None


def test_a_span_outside_its_turn_is_reported_as_outside_even_if_it_also_overlaps():
    assert span_problem(0, 10, words=6, others=[(0, 2)]) == SpanProblem(outside=True)


def test_a_sweep_over_sorted_spans_finds_exactly_the_overlaps_span_problem_finds():
    import random

    rng = random.Random(21)
    for _ in range(300):
        spans = sorted((s, s + rng.randrange(4)) for s in (rng.randrange(40) for _ in range(rng.randrange(1, 12))))
        sweep = SpanSweep(words=42)
        for index, (start, end) in enumerate(spans):
            swept = sweep.check(start, end, tag=index)
            slow = span_problem(start, end, words=42, others=spans[:index])
            assert (swept is None) == (slow is None), (spans, index)
            if swept is not None and not swept.outside:
                other_start, other_end = spans[swept.overlaps]
                assert other_start <= end and start <= other_end  # the span named does share words


def test_a_sweep_refuses_spans_out_of_order():
    sweep = SpanSweep(words=10)
    sweep.check(4, 5)
    with pytest.raises(ValueError):
        sweep.check(1, 2)
