"""Turning what a user passes in into numpy arrays: data for a new tensor, and index keys.

Nothing here knows about tensors: the callers hand over a tensor's array where there is one.
Each function gives torch's error where numpy would accept or misread the input.
"""

from __future__ import annotations

import numpy as np

from . import dtypes

__all__ = [
    "check_mask_shapes",
    "data_to_array",
    "expand_basic_index",
    "index_message",
    "is_basic_index",
    "type_name",
]


def type_name(value: object) -> str:
    """torch.typename: 'float', 'numpy.ndarray'."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def data_to_array(data: object, dtype: dtypes.DType | None) -> np.ndarray:
    """The array behind a new tensor made from `data`, with torch's default dtypes and checks.

    Python floats become the default float dtype (float32 unless changed), ints int64. With a
    dtype given, Python numbers go straight to it: `tensor(0.1, dtype=float64)` is exactly 0.1.
    """
    if isinstance(data, (np.ndarray, np.generic)):
        dtypes.from_numpy_dtype(data.dtype)  # refuses dtypes we do not support
        array = np.array(data)  # numpy arrays and scalars keep their dtype, as in torch
        return array if dtype is None else array.astype(dtypes.to_numpy_dtype(dtype))
    _check_python_data(data)
    array = np.array(data)
    if dtype is not None:
        if array.dtype.kind not in "fiub":
            _refuse_kind(array, data)
        return np.array(data, dtype=dtypes.to_numpy_dtype(dtype))
    if array.dtype.kind == "f":
        return array.astype(dtypes.default_float())
    if array.dtype.kind in "iu":
        if array.dtype == np.uint64:
            raise ValueError("Overflow when unpacking long long")
        return array.astype(np.int64)
    if array.dtype.kind == "b":
        return array
    _refuse_kind(array, data)
    raise AssertionError  # not reached


def _refuse_kind(array: np.ndarray, data: object) -> None:
    if array.dtype.kind == "O":
        raise ValueError("Overflow when unpacking long long")
    raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


def _check_python_data(data: object) -> None:
    """torch's errors for data numpy would accept or misread (None, strings, ragged lists).

    Like torch, the shape is read off the first element at each depth, and every list must
    have that length at its depth.
    """
    shape = []
    first = data
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        first = first[0] if first else None
    _check_nested(data, shape, 0)


def _check_nested(data: object, shape: list[int], depth: int) -> None:
    if data is None or isinstance(data, (dict, set)):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, int) and not isinstance(data, bool) and not -(2**63) <= data < 2**63:
        raise ValueError("Overflow when unpacking long long")
    if not isinstance(data, (list, tuple)):
        if depth < len(shape):
            raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} (got 0)")
        return
    if any(isinstance(item, str) for item in data):
        raise ValueError("too many dimensions 'str'")
    if depth >= len(shape) or len(data) != shape[depth]:
        expected = shape[depth] if depth < len(shape) else 0
        raise ValueError(f"expected sequence of length {expected} at dim {depth} (got {len(data)})")
    for item in data:
        _check_nested(item, shape, depth + 1)


# ---- index keys --------------------------------------------------------------------------------


def is_basic_index(key: object) -> bool:
    """True when numpy's indexing with `key` returns a view (ints, slices, None, Ellipsis)."""
    parts = key if isinstance(key, tuple) else (key,)
    for part in parts:
        if isinstance(part, bool):  # a bool is an int to Python but a mask to numpy
            return False
        if not (isinstance(part, (int, np.integer, slice)) or part is None or part is Ellipsis):
            return False
    return True


def expand_basic_index(key: object, ndim: int) -> list[object]:
    """Spell out a basic index one entry per dimension step (Ellipsis expanded, None kept).

    torch records `b[1:, 0]` as a SliceBackward0 followed by a SelectBackward0, one node per
    indexed dimension; this list is that sequence of steps.
    """
    parts = list(key) if isinstance(key, tuple) else [key]
    while parts.count(Ellipsis) > 1:  # torch reads `t[..., ...]` as one ellipsis
        parts.remove(Ellipsis)
    consumed = sum(1 for part in parts if part is not None and part is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if Ellipsis in parts:
        where = parts.index(Ellipsis)
        parts[where : where + 1] = [slice(None)] * (ndim - consumed)
    return parts


def check_mask_shapes(key: object, shape: tuple[int, ...]) -> None:
    """torch's IndexError for a bool mask whose shape differs from the dims it covers.

    torch applies the integer parts of the index first, so it names the shape that is left,
    and the first dim where mask and tensor differ. Keys with `...`, None or a Python bool are
    left to numpy.
    """
    parts = key if isinstance(key, tuple) else (key,)
    if any(part is Ellipsis or part is None or isinstance(part, bool) for part in parts):
        return
    # (zip stops at the shorter: too many parts is numpy's "too many indices", below)
    left = [
        n for part, n in zip(parts, shape, strict=False) if not isinstance(part, (int, np.integer))
    ]
    left += shape[len(parts) :]
    position = 0  # the dim of `left` that the next part indexes
    for part in parts:
        if isinstance(part, (int, np.integer)):
            continue
        if isinstance(part, np.ndarray) and part.dtype == np.bool_:
            covered = left[position : position + part.ndim]
            for index, (mask_size, size) in enumerate(zip(part.shape, covered, strict=False)):
                if mask_size != size:
                    raise IndexError(
                        f"The shape of the mask {list(part.shape)} at index {index} does not "
                        f"match the shape of the indexed tensor {left} at index "
                        f"{position + index}"
                    )
            position += part.ndim
        else:
            position += 1


def index_message(numpy_message: str, shape: tuple[int, ...]) -> str:
    """numpy's IndexError in torch's words ('index 5 is out of bounds for dimension 0 ...')."""
    message = numpy_message.replace("axis", "dimension")
    if message.startswith("too many indices"):
        return f"too many indices for tensor of dimension {len(shape)}"
    return message
