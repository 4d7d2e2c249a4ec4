"""Turning what a user passes in into numpy arrays: data for a new tensor, and index keys.

Nothing here knows about tensors: the callers hand over a tensor's array where there is one.
Each function gives torch's error where numpy would accept or misread the input.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes

__all__ = [
    "SCALAR_OF_GRAD_MESSAGE",
    "check_mask_shapes",
    "check_strides",
    "data_to_array",
    "dims_indexed",
    "expand_basic_index",
    "index_message",
    "is_basic_index",
    "number_in",
    "torch_index_entries",
    "type_name",
    "warn_scalar_of_grad",
]


def type_name(value: object) -> str:
    """torch.typename: 'float', 'numpy.ndarray'."""
    kind = type(value)
    if kind.__module__ == "builtins" or kind.__module__.startswith("minigrad"):
        return kind.__name__  # torch's own classes are named without their module: 'Tensor'
    return f"{kind.__module__}.{kind.__name__}"


SCALAR_OF_GRAD_MESSAGE = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)


class _Warned:
    """torch gives the scalar-of-grad warning once per process (TORCH_WARN_ONCE)."""

    scalar_of_grad = False


def warn_scalar_of_grad(stacklevel: int) -> None:
    """torch's warning for float(t) (or a tensor inside tensor([...])) when t requires grad:
    the number leaves the graph. Once per process, as torch gives it."""
    if not _Warned.scalar_of_grad:
        _Warned.scalar_of_grad = True
        warnings.warn(SCALAR_OF_GRAD_MESSAGE, UserWarning, stacklevel=stacklevel + 1)


# the C type names torch's overflow message uses for each integer dtype
_C_TYPE_NAMES = {
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "uint8": "uint8_t",
    "float16": "c10::Half",
    "float32": "float",
}


def number_in(value: Any, dtype: np.dtype) -> Any:
    """A Python number as torch writes it into a tensor of `dtype` (`fill_`, `masked_fill`,
    `full`, `full_like`, a clamp bound, `t[i] = v`), with torch's error for one that does not
    fit: into an integer dtype, nan, inf and numbers out of its range; into float16 or float32,
    a finite number beyond its largest (inf and nan fit). Into an integer dtype a float is cut
    towards 0, and uint8 takes a negative int down to -255, which wraps around (-1 is 255), as
    C's conversion does. Anything else is returned as it is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if dtype.kind == "f":
        largest = float(np.finfo(dtype).max)
        fits = dtype.itemsize == 8 or not math.isfinite(value) or abs(value) <= largest
    elif dtype.kind in "iu":
        limits = np.iinfo(dtype)
        wraps = dtype.kind == "u" and isinstance(value, int)  # (torch lets a negative float fail)
        low = -int(limits.max) if wraps else int(limits.min)
        fits = math.isfinite(value) and low <= value <= limits.max
    else:
        return value
    if not fits:
        raise RuntimeError(
            f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow"
        )
    return np.array(value).astype(dtype)[()] if dtype.kind in "iu" else value


NEGATIVE_STRIDE_MESSAGE = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a "
    "copy of your array  with array.copy().) "
)


def check_strides(array: np.ndarray) -> None:
    """torch's ValueError for a numpy array read backwards (`a[::-1]`): it has no such tensors."""
    if any(stride < 0 for stride in array.strides):
        raise ValueError(NEGATIVE_STRIDE_MESSAGE)


def data_to_array(data: object, dtype: dtypes.DType | None) -> np.ndarray:
    """The array behind a new tensor made from `data`, with torch's default dtypes and checks.

    Python floats become the default float dtype (float32 unless changed), ints int64. With a
    dtype given, Python numbers go straight to it: `tensor(0.1, dtype=float64)` is exactly 0.1.
    """
    if isinstance(data, (np.ndarray, np.generic)):
        dtypes.from_numpy_dtype(data.dtype)  # refuses dtypes we do not support
        if isinstance(data, np.ndarray):
            check_strides(data)
        array = np.array(data)  # numpy arrays and scalars keep their dtype, as in torch
        return array if dtype is None else array.astype(dtypes.to_numpy_dtype(dtype))
    data = _check_python_data(data)
    array = np.array(data)
    if dtype is not None:
        if array.dtype.kind not in "fiub":
            _refuse_kind(array, data)
        return _exact(data, dtypes.to_numpy_dtype(dtype))
    if array.dtype.kind == "f":
        with np.errstate(over="ignore"):  # 1e40 is inf in float32, silently as in torch
            return array.astype(dtypes.default_float())
    if array.dtype.kind in "iu":
        if array.dtype == np.uint64:
            raise ValueError("Overflow when unpacking long long")
        return array.astype(np.int64)
    if array.dtype.kind == "b":
        return array
    _refuse_kind(array, data)
    raise AssertionError  # not reached


def _exact(data: object, numpy_dtype: np.dtype) -> np.ndarray:
    """Python numbers as `numpy_dtype`: torch refuses an integer that does not fit (and a nan or
    inf for an integer dtype), where numpy would wrap or fail with its own words."""
    if numpy_dtype.kind == "u":
        data = _wrap_negative(data, int(np.iinfo(numpy_dtype).max))
    try:
        with np.errstate(over="ignore"):
            array = np.array(data, dtype=numpy_dtype)
    except (OverflowError, ValueError):
        array = None
    if numpy_dtype.kind in "iu" and array is not None:  # (to bool, anything nonzero is True)
        exact = np.array(data, dtype=object)
        if array.ndim == 0 and isinstance(data, int):
            return np.array(data % 2 ** (8 * numpy_dtype.itemsize), dtype=numpy_dtype)
        if exact.size and not all(
            isinstance(v, (bool, float)) or int(v) == int(w)
            for v, w in zip(exact.flat, array.flat, strict=True)
        ):
            array = None
    if array is None:
        name = dtypes.from_numpy_dtype(numpy_dtype).name
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return array


def _wrap_negative(data: object, largest: int) -> object:
    """Negative Python ints down to -largest wrapped around into an unsigned dtype (-1 is 255
    in uint8), as torch's range check allows; floats and ints out of range are left to fail."""
    if isinstance(data, (list, tuple)):
        return [_wrap_negative(item, largest) for item in data]
    if isinstance(data, int) and not isinstance(data, bool) and -largest <= data < 0:
        return data + largest + 1
    return data


def _refuse_kind(array: np.ndarray, data: object) -> None:
    if array.dtype.kind == "O":
        raise ValueError("Overflow when unpacking long long")
    raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


def _check_python_data(data: object) -> object:
    """torch's errors for data numpy would accept or misread (None, strings, ragged lists);
    returns the data with one-element tensors inside lists replaced by their values.

    Like torch, the shape is read off the first element at each depth, and every list must
    have that length at its depth.
    """
    shape = []
    first = data
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        first = first[0] if first else None
    if _is_tensor(first) and first.ndim > 0:  # [tensor([1]), tensor([2])] is [1, 2] to torch
        shape.extend(first.shape)
    if isinstance(first, str) and shape:  # torch reads a string as one more dimension; a
        raise ValueError("too many dimensions 'str'")  # string later on is a wrong type
    return _check_nested(data, shape, 0, first)


def _is_tensor(value: object) -> bool:
    """A minigrad tensor (known by what it has: this module sits below the Tensor class)."""
    return hasattr(value, "_array") and hasattr(value, "item")


def _check_nested(data: object, shape: list[int], depth: int, first: object) -> object:
    if _is_tensor(data) and depth > 0:
        if data._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if data.requires_grad:  # (torch reads each one as float(t) does, with its warning)
            warn_scalar_of_grad(stacklevel=5)
        return data._array.reshape(()).item()
    if depth < len(shape) and shape[depth] == 0 and isinstance(data, (list, tuple)):
        return []  # torch reads no further once a dim is empty: [[], [1]] is a (2, 0) tensor
    if data is None or isinstance(data, (dict, set)):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, int) and not isinstance(data, bool) and not -(2**63) <= data < 2**63:
        raise ValueError("Overflow when unpacking long long")
    if not isinstance(data, (list, tuple)):
        if depth < len(shape):
            if not isinstance(data, (int, float, complex, np.number, np.bool_, range)):
                raise TypeError("not a sequence")
            raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} (got 0)")
        if isinstance(data, bytes):
            raise TypeError("new(): invalid data type 'bytes'")
        if not isinstance(data, (int, float, complex, np.number, np.bool_, np.ndarray, range)):
            raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
        return data
    if depth >= len(shape) and depth > 0:  # a list where the first element had a number
        if isinstance(first, float):
            raise TypeError(f"must be real number, not {type(data).__name__}")
        raise TypeError(f"'{type(data).__name__}' object cannot be interpreted as an integer")
    if depth >= len(shape) or len(data) != shape[depth]:
        expected = shape[depth] if depth < len(shape) else 0
        raise ValueError(f"expected sequence of length {expected} at dim {depth} (got {len(data)})")
    return [_check_nested(item, shape, depth + 1, first) for item in data]


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


def dims_indexed(parts: Sequence[object]) -> int:
    """How many dims of a tensor these index parts take up (a bool mask: as many as it has;
    None and ... none)."""
    count = 0
    for part in parts:
        if isinstance(part, (int, np.integer, slice)):
            count += 1
        elif part is not None and part is not Ellipsis:
            positions = np.asarray(part)
            count += positions.ndim if positions.dtype == np.bool_ else 1
    return count


def torch_index_entries(key: object, ndim: int) -> list[np.ndarray | None]:
    """An index of arrays, `:` and `...` as torch's IndexBackward0 keeps it (`_saved_indices`):
    one entry per dim up to the last array, the array (a mask: one entry for its dims) or None
    for a dim left whole."""
    parts = key if isinstance(key, tuple) else (key,)
    entries: list[np.ndarray | None] = []
    for index, part in enumerate(parts):
        if part is Ellipsis:
            others = parts[:index] + parts[index + 1 :]
            entries += [None] * (ndim - dims_indexed(others))
        elif isinstance(part, slice):
            entries.append(None)
        else:
            entries.append(np.asarray(part))
    while entries and entries[-1] is None:
        entries.pop()
    return entries


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
            if position + part.ndim > len(left):
                raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
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
    if message.startswith("shape mismatch: indexing arrays"):  # numpy's shapes, torch's words
        shapes = re.findall(r"\(([\d, ]*)\)", message)
        listed = ", ".join(
            "[" + ", ".join(n for n in found.split(",") if n.strip()) + "]" for found in shapes
        )
        return (
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}"
        )
    return message
