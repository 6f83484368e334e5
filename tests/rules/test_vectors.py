"""Membership vectors are typed as annotators write them, and only distributions are accepted."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.rules.vectors import (
    VectorError,
    check_distribution,
    exact_number,
    format_vector,
    parse_number,
    parse_vector,
    read_vector,
    vector_problem,
)


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


@pytest.mark.parametrize(
    "text, reason",
    [
        ("(1e-99999999,0,0,1)", "exponent is out of range"),
        ("(1e-99999,0,0,1)", "exponent is out of range"),
        ("(1e999,0,0,0)", "exponent is out of range"),
        ("(9e300,0,0,0)", "out of range"),
        ("(1/1e-999,0,0,0)", "exponent is out of range"),
        ("(0." + "1" * 60 + ",0,0,1)", "too many digits"),
        ("(" + "9" * 100_000 + ",0,0,1)", "too many digits"),
    ],
)
def test_numbers_beyond_the_bounds_are_refused_with_the_reason(text, reason):
    with pytest.raises(VectorError, match=reason):
        parse_vector(text)


def test_numbers_within_the_bounds_are_still_read_exactly():
    assert parse_number("1e-300") == Fraction(1, 10**300)
    assert parse_number("0." + "3" * 39) == Fraction(int("3" * 39), 10**39)
    assert parse_number("-2.5E+2") == -250


@pytest.mark.parametrize("value", [10**400, float("inf"), True, None, [1]])
def test_json_numbers_are_bounded_like_typed_ones(value):
    with pytest.raises(VectorError):
        exact_number(value)


def test_a_vector_summing_to_a_huge_number_is_described_not_converted():
    assert vector_problem([10**308, 10**308]) == "vector sums to a huge number, not 1"
    assert vector_problem([1.7e308, 1.7e308]) == "vector sums to a huge number, not 1"


def test_a_vector_longer_than_its_groups_is_refused_before_its_numbers_are_read():
    # 'x' is no number: the length is judged first, so reading never reaches it
    with pytest.raises(VectorError, match="^has 1000000 values, expected 4$"):
        parse_vector("x " * 10**6, length=4)
    with pytest.raises(VectorError, match="^has 1000000 values, expected 4$"):
        read_vector(["x"] * 10**6, 4)


def test_a_vector_is_read_from_a_list_of_numbers_or_from_text():
    assert read_vector([0, "1/2", 0.5, 0], 4) == (0, 0.5, 0.5, 0)
    assert read_vector("(0,1/2,1/2,0)", 4) == (0, 0.5, 0.5, 0)
    with pytest.raises(VectorError, match="value 2 is not a number"):
        read_vector([0, True, 0.5, 0.5], 4)
    with pytest.raises(VectorError, match="must be a list of numbers"):
        read_vector({"a": 1}, 1)
