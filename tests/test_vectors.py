"""Membership vectors are typed as annotators write them, and only distributions are accepted."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.vectors import VectorError, check_distribution, format_vector, parse_vector


def test_fractions_and_loose_spacing_are_read_exactly():
    assert parse_vector("(0, 1/2,0,0,0, 1/2 ,0,0)") == (0, 0.5, 0, 0, 0, 0.5, 0, 0)
    assert sum(parse_vector("(0,2/3,0,0,0,1/3,0,0)")) == pytest.approx(1)
    assert parse_vector("[0.25 0.25 0.5]") == (0.25, 0.25, 0.5)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("(0,1/2,0)", "sums to 0.5"),
        ("(1.5,-1/2)", "negative"),
        ("(a,1)", "not a number"),
        ("()", "empty"),
        ("(nan,1)", "not a finite number"),
        ("(1/0,1)", "division by zero"),
    ],
)
def test_vectors_that_are_not_distributions_are_refused_with_the_reason(text, reason):
    with pytest.raises(VectorError, match=reason):
        parse_vector(text)


def test_the_length_must_match_the_attribute_sets_groups():
    with pytest.raises(VectorError, match="expected 8"):
        check_distribution([0.5, 0.5], length=8)
    with pytest.raises(VectorError, match="finite"):
        check_distribution([float("nan"), 1.0])


@given(st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=8).filter(lambda xs: sum(xs) > 0))
def test_a_written_vector_reads_back_the_same(counts):
    vector = tuple(float(Fraction(c, sum(counts))) for c in counts)
    assert parse_vector(format_vector(vector)) == pytest.approx(vector)
