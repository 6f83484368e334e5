"""Every tabular export is safe to open in a spreadsheet: text cells that a spreadsheet would run
as a formula are written as text; numbers stay numbers; the paper and JSONL formats keep text."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotator.interchange.exports import catalogue as exporting
from annotator.interchange.csvsafe import csv_lines, frame_csv, neutralise
from annotator.models import Entity, Run
from tests.interchange.test_exporting import judged  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

ATTACKS = ["=HYPERLINK(\"http://evil\",\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


@pytest.mark.parametrize("text", ATTACKS)
def test_a_text_cell_a_spreadsheet_would_run_is_written_as_text(text):
    assert neutralise(text) == "'" + text


@pytest.mark.parametrize("text", ["-inf", "+nan", "-1_000", "-Infinity", "+ 1", "-1\n", "-0x10"])
def test_text_that_python_but_no_spreadsheet_reads_as_a_number_is_written_as_text(text):
    assert neutralise(text) == "'" + text


@pytest.mark.parametrize("value", [-0.5, -3, 0.25, "-0.5", "-1e-3", "+2", "-.5", "plain text", "(0,1/2,1/2)"])
def test_numbers_and_ordinary_text_stay_as_they_are(value):
    assert neutralise(value) == value


def test_frames_keep_numeric_columns_numbers_and_neutralise_text():
    frame = pd.DataFrame({"run": ["=cmd", "ok"], "R": [-0.5, 0.25]})
    assert frame_csv(frame) == "run,R\n'=cmd,-0.5\nok,0.25\n"
    assert frame_csv(frame, sep="\t", header=False) == "'=cmd\t-0.5\nok\t0.25\n"


def test_rows_are_written_as_csv_lines():
    assert list(csv_lines([["a", "b"], ["@x", -1], [None, {"k": 1}]])) == ["a,b\n", "'@x,-1\n", ',"{""k"": 1}"\n']


def rows_of(text: str, sep: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(text), delimiter=sep))


def poison(campaign):
    Run.objects.filter(campaign=campaign, name="bing-trial1").update(name="=HYPERLINK(\"http://evil\")")
    Entity.objects.filter(topic__campaign=campaign).update(name="@SUM(1)")


def test_the_scores_csv_neutralises_run_names_and_keeps_scores_numbers(judged):  # noqa: F811
    campaign, _ = judged
    poison(campaign)
    rows = rows_of("".join(exporting.stream(campaign, "scores-csv")))
    runs = {row[1] for row in rows[1:]}
    assert "'=HYPERLINK(\"http://evil\")" in runs and not any(r.startswith("=") for r in runs)
    r_column = rows[0].index("R")
    assert all(float(row[r_column]) >= 0 for row in rows[1:])


def test_the_nuggets_tsv_neutralises_entity_names(judged):  # noqa: F811
    campaign, _ = judged
    poison(campaign)
    rows = rows_of("".join(exporting.stream(campaign, "nuggets-tsv")), sep="\t")
    names = {row[rows[0].index("entity_name")] for row in rows[1:]}
    assert names == {"'@SUM(1)"}
    assert {row[rows[0].index("run")] for row in rows[1:]} == {"'=HYPERLINK(\"http://evil\")", "bard-trial1"}


def test_the_paper_and_jsonl_exports_keep_the_text_exactly(judged):  # noqa: F811
    campaign, _ = judged
    poison(campaign)
    for kind in ("paper", "jsonl"):
        text = "".join(exporting.stream(campaign, kind))
        assert "'=HYPERLINK" not in text and "'@SUM" not in text, kind


def test_the_report_csv_neutralises_run_names(client, judged):  # noqa: F811
    campaign, _ = judged
    poison(campaign)
    organiser = get_user_model().objects.create_user("olga")
    campaign.organisers.add(organiser)
    client.force_login(organiser)
    response = client.get(reverse("console:report_csv", args=[campaign.slug]))
    text = b"".join(response.streaming_content).decode()
    assert "'=HYPERLINK" in text
    assert not any(line.startswith("=") for line in text.splitlines())


@pytest.mark.parametrize("kind", ["nuggets-csv", "turns-csv"])
def test_the_score_detail_csvs_neutralise_run_names(judged, kind):  # noqa: F811
    campaign, _ = judged
    poison(campaign)
    rows = rows_of("".join(exporting.stream(campaign, kind)))
    runs = {row[rows[0].index("run")] for row in rows[1:]}
    assert "'=HYPERLINK(\"http://evil\")" in runs and not any(r.startswith("=") for r in runs)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from annotator.interchange.csvsafe import _pandas_frame_csv, _plain_frame_csv  # noqa: E402

_TEXTS = st.text(alphabet=st.sampled_from(list("ab-+=@ \t\r\n\",;'.0123456789eE")), max_size=6)
_FLOATS = st.sampled_from([float("nan"), -0.0, 0.0, 1e-5, 1e16, 0.1 + 0.2, float("inf")]) | st.floats(allow_nan=True, width=64)
_INTS = st.integers(min_value=-2**63, max_value=2**63 - 1)


_KINDS = st.lists(st.sampled_from(["float", "int", "text", "object"]), min_size=1, max_size=4)


def _drawn_columns(data, rows: int, kinds: list[str]) -> dict[str, np.ndarray]:
    """Columns of each kind as numpy arrays: floats (NaN, infinities), 64-bit integers, texts
    (formula starts, separators, quotes, line breaks) and objects (texts or None)."""
    columns = {}
    for i, kind in enumerate(kinds):
        if kind == "float":
            columns[f"c{i}"] = np.array(data.draw(st.lists(_FLOATS, min_size=rows, max_size=rows)), dtype=np.float64)
        elif kind == "int":
            columns[f"c{i}"] = np.array(data.draw(st.lists(_INTS, min_size=rows, max_size=rows)), dtype=np.int64)
        else:
            texts = _TEXTS if kind == "text" else _TEXTS | st.none()
            columns[f"c{i}"] = np.array(data.draw(st.lists(texts, min_size=rows, max_size=rows)) + ["x"], dtype=object)[:rows]
    return columns


@settings(max_examples=300, deadline=None)
@given(rows=st.integers(min_value=0, max_value=6), kinds=_KINDS, data=st.data(), sep=st.sampled_from([",", "\t"]), header=st.booleans())
def test_a_frame_written_directly_is_what_pandas_writes_or_is_left_to_pandas(rows, kinds, data, sep, header):
    drawn = _drawn_columns(data, rows, kinds)
    dtypes = {"float": "float64", "int": "int64", "text": "str", "object": object}
    frame = pd.DataFrame({name: pd.Series(values, dtype=dtypes[kind]) for (name, values), kind in zip(drawn.items(), kinds)})
    direct = _plain_frame_csv(frame, sep, header)
    assert direct is None or direct == _pandas_frame_csv(frame, sep, header, None)


def test_the_round_of_ranked_lists_figures_is_written_directly():
    frame = pd.DataFrame({"run": ["a", "=b"] * 2, "topic": ["T1"] * 4, "value": [0.1, -0.0, 1e-7, 2.0], "cutoff": [20] * 4})
    assert _plain_frame_csv(frame, "\t", True) == _pandas_frame_csv(frame, "\t", True, None) == (
        "run\ttopic\tvalue\tcutoff\na\tT1\t0.1\t20\n'=b\tT1\t-0.0\t20\na\tT1\t1e-07\t20\n'=b\tT1\t2.0\t20\n")


@settings(max_examples=200, deadline=None)
@given(rows=st.integers(min_value=0, max_value=6), kinds=_KINDS, data=st.data(), sep=st.sampled_from([",", "\t"]), header=st.booleans())
def test_columns_are_written_as_the_frame_of_them_is(rows, kinds, data, sep, header):
    from annotator.interchange.csvsafe import columns_csv

    columns = _drawn_columns(data, rows, kinds)
    assert columns_csv(columns, sep=sep, header=header) == frame_csv(pd.DataFrame(columns), sep=sep, header=header)
