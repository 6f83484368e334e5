"""The one writer of tabular exports (CSV and TSV): cells safe to open in a spreadsheet.

Names, texts and evidence come from annotators and from LLM output; a cell beginning with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as a formula by Excel, LibreOffice
and Google Sheets. Such a text cell is written with a leading ``'`` (shown as text, not run).
Numbers stay numbers, negative ones included (-0.5 is written -0.5). The paper and JSONL
formats do not come here: they are data for programs and keep the text exactly.

Every tabular export goes through `neutralise`: pandas frames with `frame_csv`, whole columns
(numpy arrays, no frame) with `columns_csv`, rows of values with `csv_lines` (line by line) or
`csv_text` (a batch at once).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from numbers import Number
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """The cell as written: numbers unchanged, None empty, lists and dicts as JSON, and text that
    a spreadsheet would run as a formula prefixed with ``'``."""
    kind = type(value)
    if kind is str:  # the common cells first: an export writes hundreds of thousands
        text = value
        if not text.startswith(FORMULA_STARTS):
            return text
    elif kind is int or kind is float or kind is bool:
        return value
    elif value is None:
        return ""
    elif isinstance(value, Number):  # numpy numbers, Decimal, ...
        return value
    else:
        if isinstance(value, (dict, list)):
            value = json.dumps(value, ensure_ascii=False, sort_keys=True)
        text = str(value)
    if text in ("-", "+"):  # a lone sign is no formula: NTCIREVAL-style "-" for "no attribute set"
        return text
    if text.startswith(FORMULA_STARTS) and not _is_number(text):
        return "'" + text
    return text


# A plain decimal number: float() also takes "-inf", "+nan", "-1_000" and surrounding spaces,
# which a spreadsheet reads as text or a formula.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def _is_number(text: str) -> bool:
    return _PLAIN_NUMBER.fullmatch(text) is not None


def frame_csv(frame: pd.DataFrame, *, sep: str = ",", header: bool = True, float_format: str | None = None) -> str:
    """A pandas frame as CSV (or TSV with sep="\\t") text, every text cell neutralised."""
    if float_format is None and (fast := _plain_frame_csv(frame, sep, header)) is not None:
        return fast
    return _pandas_frame_csv(frame, sep, header, float_format)


def columns_csv(columns: Mapping[str, np.ndarray], *, sep: str = ",", header: bool = True) -> str:
    """Whole columns (name -> numpy array, all of one length) as `frame_csv` writes the frame of
    them, without building it where they need nothing of pandas' (a command that writes a round
    of ranked-list figures then never imports pandas, much of its start)."""
    fast = _plain_csv(list(columns), list(columns.values()), sep, header)
    if fast is not None:
        return fast
    import pandas as pd

    return _pandas_frame_csv(pd.DataFrame(dict(columns)), sep, header, None)


def _pandas_frame_csv(frame: pd.DataFrame, sep: str, header: bool, float_format: str | None) -> str:
    import pandas as pd

    safe = frame.copy()
    # by position: an attribute set may share its name with another column ("wc", "topic")
    for i in range(safe.shape[1]):
        values = safe.iloc[:, i]
        if not pd.api.types.is_numeric_dtype(values):
            distinct = values.unique()
            if len(distinct) < len(values) and all(type(v) is str for v in distinct):
                # A column of a few names repeated (run, topic, measure: 600,000 cells of a
                # round's scores): each text neutralised once.
                safe.isetitem(i, values.map({v: neutralise(v) for v in distinct}))
            else:
                safe.isetitem(i, values.map(neutralise))
    return safe.to_csv(sep=sep, index=False, header=header, lineterminator="\n", float_format=float_format)


def _plain_frame_csv(frame: pd.DataFrame, sep: str, header: bool) -> str | None:
    """`frame_csv`'s text written directly, for a frame of whole columns of floats (no NaN),
    integers and text that needs no quoting: what pandas writes, without its per-cell work (a
    round of ranked lists' 475,000 figures: docs/benchmarks-history.md, "Ranked-list runs").
    None for any other frame."""
    import pandas as pd

    arrays = []
    for i in range(frame.shape[1]):
        values = frame.iloc[:, i]
        kind = values.dtype
        if kind == np.float64 or kind == np.int64:
            arrays.append(values.to_numpy())
        elif pd.api.types.is_string_dtype(kind):
            arrays.append(values.to_numpy(dtype=object))
        else:
            return None
    return _plain_csv(list(frame.columns), arrays, sep, header)


def _plain_csv(names: list, arrays: list[np.ndarray], sep: str, header: bool) -> str | None:
    """The columns written directly when each is floats (no NaN: pandas writes an empty cell),
    integers, or texts (object) that need no quoting once neutralised; else None."""
    columns = []
    for array in arrays:
        array = np.asarray(array)
        if array.dtype == np.float64:
            if np.isnan(array).any():
                return None
            columns.append(list(map(repr, array.tolist())))
        elif array.dtype == np.int64:
            columns.append(list(map(str, array.tolist())))
        elif array.dtype == object:
            texts = array.tolist()
            written = {}
            for text in set(texts):
                if type(text) is not str:
                    return None
                written[text] = cell = neutralise(text)
                if sep in cell or '"' in cell or "\n" in cell or "\r" in cell or (cell == "" and len(arrays) == 1):
                    return None  # csv would quote it (a row of one empty cell too)
            columns.append([written[text] for text in texts])
        else:
            return None
    head = csv_text([list(map(str, names))], sep=sep) if header else ""
    return head + "".join(sep.join(row) + "\n" for row in zip(*columns))


def csv_lines(rows: Iterable[Iterable[object]], *, sep: str = ",") -> Iterator[str]:
    """Rows of values (the first one a header, if wanted) as CSV lines, every cell neutralised."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=sep, lineterminator="\n")
    for row in rows:
        writer.writerow([neutralise(value) for value in row])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def csv_text(rows: Iterable[Iterable[object]], *, sep: str = ",") -> str:
    """The text of `csv_lines(rows)`, written in one go (a batch of an export's rows)."""
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=sep, lineterminator="\n").writerows(
        [[neutralise(value) for value in row] for row in rows])
    return buffer.getvalue()
