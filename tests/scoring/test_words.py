"""scoring.words: the offsets of a conversation's turns, as an array and as a list."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scoring.words import offsets_of_counts, tokenise, turn_offsets, turn_offsets_list


@given(st.lists(st.text(alphabet=st.sampled_from(["a", "b", " ", "\n", "\t", "\u00a0"]), max_size=12), max_size=6))
def test_turn_offsets_list_gives_the_offsets_of_turn_offsets(texts):
    assert turn_offsets_list(texts) == turn_offsets(texts).tolist()


@given(st.lists(st.text(alphabet=st.sampled_from(["a", "b", " ", "\n", "\t", "\u00a0"]), max_size=12), max_size=6))
def test_offsets_of_counts_gives_the_offsets_of_turn_offsets(texts):
    assert offsets_of_counts([len(tokenise(t)) for t in texts]) == turn_offsets(texts).tolist()


def test_offsets_along_a_path_count_only_the_turns_before_it_on_that_path():
    from scoring.words import offsets_of_counts, path_offsets

    assert path_offsets([4, 5, 3, 6, 2], [None, 0, 0, 1, 2]) == [0, 4, 4, 9, 7]
    assert path_offsets([4, 5, 3], [None, 0, 1]) == offsets_of_counts([4, 5, 3])
