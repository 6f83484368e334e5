"""Turn usefulness statistics as printed under the paper's Figures 2-4."""

from __future__ import annotations

import pytest

from scoring.usefulness import (
    CELL_COLOURS,
    ave_percent_useful,
    cell_colour,
    cell_colour_of,
    percent_recovery,
    percent_useful,
    recovery_counts,
    summarise,
)


def google_trial_2_like() -> dict[str, str]:
    """15 topics, 14 unsuccessful first turns, 9 of them recovered (the paper's G2 example)."""
    labels = {"M001": "oo"}
    labels.update({f"M{n:03d}": "xo" for n in range(2, 11)})  # 9 recovered
    labels.update({"M011": "xx", "M012": "xx", "M013": "xx"})  # 3 still failing
    labels.update({"M014": "x-", "M015": "x-"})  # 2 breakdowns: unsuccessful, not recovered
    return labels


def test_the_papers_recovery_example_nine_of_fourteen_is_64_3_percent():
    labels = google_trial_2_like()
    assert recovery_counts(labels) == (9, 14)
    assert round(percent_recovery(labels), 1) == 64.3


def test_percent_useful_counts_breakdowns_as_not_useful_over_all_topics():
    labels = google_trial_2_like()
    assert percent_useful(labels) == pytest.approx((100 / 15, 100 * 10 / 15))
    assert ave_percent_useful(labels) == pytest.approx((100 / 15 + 100 * 10 / 15) / 2)


def test_hand_case_of_four_topics():
    labels = {"A": ["o", "o"], "B": ["o", "x"], "C": ["x", "o"], "D": ["x", "-"]}
    summary = summarise(labels)
    assert summary.n_topics == 4
    assert summary.percent_useful == (50.0, 50.0)
    assert summary.ave_percent_useful == 50.0
    assert (summary.recovered, summary.unsuccessful_first) == (1, 2)
    assert summary.percent_recovery == 50.0


def test_recovery_is_undefined_when_every_first_turn_was_useful():
    assert percent_recovery({"A": "oo", "B": "ox"}) is None
    assert summarise({"A": "oo"}).percent_recovery is None


def test_short_label_sequences_are_padded_with_no_turn():
    assert percent_useful({"A": "o", "B": "oo"}) == (100.0, 50.0)
    assert percent_useful({"A": "o"}, n_positions=3) == (100.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        percent_useful({"A": "ooo"}, n_positions=2)


def test_a_run_without_topics_has_no_statistics():
    summary = summarise({})
    assert summary.percent_useful == () and summary.ave_percent_useful is None
    assert summary.percent_recovery is None


def test_labels_outside_o_x_dash_are_refused():
    with pytest.raises(ValueError, match="turn label"):
        percent_useful({"A": ["o", "?"]})


@pytest.mark.parametrize(
    ("first", "second", "colour"),
    [("o", "o", "green"), ("o", "x", "light-green"), ("x", "o", "yellow"), ("x", "x", "orange"), ("x", "-", "grey")],
)
def test_cells_are_coloured_as_in_the_paper(first, second, colour):
    assert cell_colour(first, second) == colour
    assert cell_colour_of(first + second) == colour


def test_every_pair_of_labels_has_a_colour_class():
    assert len(CELL_COLOURS) == 9
    assert cell_colour("o", "-") == "pale-green"
    assert cell_colour_of(["x"]) == "grey"  # a single x turn: the dialogue went no further
    assert cell_colour("-", "o") == "invalid"  # nothing can follow a breakdown
