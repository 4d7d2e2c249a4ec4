"""Data types with torch's names (`minigrad.float32`, ...), each backed by a numpy dtype."""

from __future__ import annotations

from typing import Any

import numpy as np


class DType:
    """A tensor's element type; prints like torch's (`minigrad.float32`)."""

    def __init__(self, name: str, numpy_dtype: type, torch_kind: str) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.torch_kind = torch_kind  # how torch's messages name it: Float, Double, Long, ...

    @property
    def is_floating_point(self) -> bool:
        """True for float16/32/64: only these can require grad."""
        return self.numpy.kind == "f"

    @property
    def name_in_errors(self) -> str:
        """How torch names this dtype inside error messages, e.g. 'float'."""
        return {"Float": "float", "Double": "double", "Long": "long int", "Int": "int"}.get(
            self.torch_kind, self.torch_kind
        )

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self.numpy == other.numpy
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.numpy)


float16 = DType("float16", np.float16, "Half")
float32 = DType("float32", np.float32, "Float")
float64 = DType("float64", np.float64, "Double")
int8 = DType("int8", np.int8, "Char")
int16 = DType("int16", np.int16, "Short")
int32 = DType("int32", np.int32, "Int")
int64 = DType("int64", np.int64, "Long")
uint8 = DType("uint8", np.uint8, "Byte")
bool_ = DType("bool", np.bool_, "Bool")

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
_BY_NUMPY = {d.numpy: d for d in ALL}

# torch's aliases: torch.float is float32, torch.double float64, torch.long int64, ...
ALIASES = {"float": float32, "double": float64, "half": float16, "long": int64, "int": int32}


def from_numpy_dtype(numpy_dtype: np.dtype) -> DType:
    """The DType for a numpy dtype; an error for dtypes minigrad does not support."""
    try:
        return _BY_NUMPY[np.dtype(numpy_dtype)]
    except KeyError:
        raise TypeError(
            f"minigrad does not support numpy dtype {np.dtype(numpy_dtype)}; use one of "
            + ", ".join(repr(d) for d in ALL)
        ) from None


def to_numpy_dtype(dtype: object) -> np.dtype:
    """Accept a minigrad dtype (or Python's float/int/bool, as torch does) -> numpy dtype."""
    if isinstance(dtype, DType):
        return dtype.numpy
    python_types = {float: float64, int: int64, bool: bool_}
    if dtype in python_types:
        return python_types[dtype].numpy  # type: ignore[index]
    raise TypeError(f"dtype must be a minigrad dtype such as minigrad.float32, not {dtype!r}")


# ---- type promotion: the dtype of a result made from several tensors ----------------------

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def result_dtype(*tensors: Any) -> np.dtype:
    """torch's type promotion: the highest category wins (bool < integer < floating); within
    it, tensors with dimensions decide before 0-d tensors (float32 + 0-d float64 is float32)."""
    if len(tensors) == 2 and tensors[0]._array.dtype == tensors[1]._array.dtype:
        return tensors[0]._array.dtype  # the common case, decided without the rules below
    category = max(_CATEGORY[t._array.dtype.kind] for t in tensors)
    top = [t._array for t in tensors if _CATEGORY[t._array.dtype.kind] == category]
    deciding = [a.dtype for a in top if a.ndim > 0] or [a.dtype for a in top]
    return np.result_type(*deciding)


def float_dtype(*tensors: Any) -> np.dtype:
    """The dtype of a result that is always floating (division, exp, mean of integers)."""
    dtype = tensors[0]._array.dtype if len(tensors) == 1 else result_dtype(*tensors)
    return dtype if dtype.kind == "f" else np.dtype(np.float32)
