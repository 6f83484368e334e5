"""pyarrow arrays from numpy arrays and Python strings, built from their buffers.

`pa.array` (and every pyarrow call handed a numpy array or a list, which goes through it)
imports pandas to ask whether its argument is a pandas object: much of the start of a process
that needs no pandas (`manage.py import_runs`; docs/benchmarks-history.md, "`import_runs`
without a Python string a document (pyarrow)"). These build the same arrays without it.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["numbers", "strings", "to_numpy"]

_TYPES = {np.dtype(np.int32): pa.int32(), np.dtype(np.int64): pa.int64(), np.dtype(np.float64): pa.float64()}


def numbers(values: np.ndarray) -> pa.Array:
    """A numpy array of int32, int64 or float64 as a pyarrow array of that type (no nulls)."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(_TYPES[values.dtype], len(values), [None, pa.py_buffer(values)])


def strings(texts: list[str]) -> pa.Array:
    """Python strings as a pyarrow string array (no nulls)."""
    encoded = [text.encode() for text in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    if offsets[-1] > np.iinfo(np.int32).max:
        raise ValueError("more than 2 GB of text in one string array")
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets.astype(np.int32)),
                                                              pa.py_buffer(b"".join(encoded))])


def to_numpy(array: pa.Array, null=None) -> np.ndarray:
    """A pyarrow array of int32, int64, float64 or booleans as numpy (read-only when it is a
    view of the array's memory), its nulls as `null` (Array.to_numpy imports pandas too)."""
    validity, data = array.buffers()[:2]
    if pa.types.is_boolean(array.type):
        values = _bits(data, array.offset, len(array))
    else:
        dtype = _DTYPES[array.type]
        values = np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)
    if array.null_count:
        if null is None:
            raise ValueError("the array has nulls: say what they are")
        values = np.where(_bits(validity, array.offset, len(array)), values, null)
    return values


_DTYPES = {pa.int32(): np.dtype(np.int32), pa.int64(): np.dtype(np.int64), pa.float64(): np.dtype(np.float64)}


def _bits(buffer: pa.Buffer, offset: int, length: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(buffer, dtype=np.uint8), bitorder="little")[offset:offset + length].astype(bool)
