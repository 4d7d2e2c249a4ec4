"""Data types with torch's names (`minigrad.float32`, ...), each backed by a numpy dtype.

This is the one table of dtypes: their names, the words torch's messages use for them
("Float", "Long", "FloatTensor"), and type promotion (the dtype of `a + b`).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DType",
    "default_float",
    "float_dtype",
    "from_numpy_dtype",
    "get_default_dtype",
    "result_dtype",
    "set_default_dtype",
    "to_numpy_dtype",
]


class DType:
    """A tensor's element type; prints like torch's (`minigrad.float32`)."""

    def __init__(self, name: str, numpy_dtype: type, torch_kind: str, in_errors: str) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.torch_kind = torch_kind  # how torch's messages name it: Float, Double, Long, ...
        self.name_in_errors = in_errors  # how some messages spell it: 'float', 'long int'

    @property
    def is_floating_point(self) -> bool:
        """True for float16/32/64: only these can require grad."""
        return self.numpy.kind == "f"

    @property
    def is_signed(self) -> bool:
        """False for uint8 and bool, True for the others."""
        return self.numpy.kind in "if"

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.numpy.itemsize

    @property
    def tensor_type(self) -> str:
        """torch's legacy type name, as the version error prints it: 'FloatTensor'."""
        return f"{self.torch_kind}Tensor"

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self.numpy == other.numpy
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.numpy)


float16 = DType("float16", np.float16, "Half", "c10::Half")
float32 = DType("float32", np.float32, "Float", "float")
float64 = DType("float64", np.float64, "Double", "double")
int8 = DType("int8", np.int8, "Char", "signed char")
int16 = DType("int16", np.int16, "Short", "short int")
int32 = DType("int32", np.int32, "Int", "int")
int64 = DType("int64", np.int64, "Long", "long int")
uint8 = DType("uint8", np.uint8, "Byte", "unsigned char")
bool_ = DType("bool", np.bool_, "Bool", "bool")

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
_BY_NUMPY = {d.numpy: d for d in ALL}


class _Defaults:
    """The dtype Python floats become (torch.get_default_dtype); one setting for the process."""

    float_dtype = np.dtype(np.float32)


def default_float() -> np.dtype:
    """The numpy dtype of the default float (float32 unless set_default_dtype changed it)."""
    return _Defaults.float_dtype


def get_default_dtype() -> DType:
    """The dtype Python floats become in a new tensor (float32 by default)."""
    return _BY_NUMPY[_Defaults.float_dtype]


def set_default_dtype(dtype: DType) -> None:
    """Make Python floats become `dtype` in new tensors (float16, float32 or float64)."""
    if not isinstance(dtype, DType):
        raise TypeError(
            "invalid dtype object: only floating-point types are supported as the default type"
        )
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _Defaults.float_dtype = dtype.numpy


def from_numpy_dtype(numpy_dtype: np.dtype) -> DType:
    """The DType for a numpy dtype; an error for dtypes minigrad does not support."""
    try:
        return _BY_NUMPY[np.dtype(numpy_dtype)]
    except KeyError:
        pass
    numpy_dtype = np.dtype(numpy_dtype)
    if numpy_dtype.kind in "fciu":  # torch has it, minigrad does not
        raise TypeError(
            f"minigrad does not support numpy dtype {numpy_dtype}; use one of "
            + ", ".join(repr(d) for d in ALL)
        )
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{numpy_dtype.type.__name__}. The only supported "
        "types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
    )


def to_numpy_dtype(dtype: object, what: str = "tensor") -> np.dtype:
    """Accept a minigrad dtype (or Python's float/int/bool, as torch does) -> numpy dtype."""
    if isinstance(dtype, DType):
        return dtype.numpy
    python_types = {float: float64, int: int64, bool: bool_}
    if isinstance(dtype, type) and dtype in python_types:
        return python_types[dtype].numpy
    raise TypeError(
        f"{what}(): argument 'dtype' must be minigrad.dtype, not {type(dtype).__name__}"
    )


def kind_word(numpy_dtype: np.dtype) -> str:
    """torch's word for a dtype in messages: 'Float', 'Long', 'Bool'."""
    return _BY_NUMPY[np.dtype(numpy_dtype)].torch_kind


# ---- type promotion: the dtype of a result made from several arrays -------------------------

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def category(dtype: np.dtype) -> int:
    """0 for bool, 1 for integers, 2 for floating point: promotion never goes down."""
    return _CATEGORY[dtype.kind]


def result_dtype(*arrays: np.ndarray) -> np.dtype:
    """torch's type promotion: the highest category wins (bool < integer < floating); within
    it, arrays with dimensions decide before 0-d ones (float32 + 0-d float64 is float32)."""
    first = arrays[0].dtype
    if len(arrays) == 2 and first == arrays[1].dtype:
        return first  # the common case, decided without the rules below
    category = max(_CATEGORY[a.dtype.kind] for a in arrays)
    top = [a for a in arrays if _CATEGORY[a.dtype.kind] == category]
    deciding = [a.dtype for a in top if a.ndim > 0] or [a.dtype for a in top]
    return np.result_type(*deciding)


def float_dtype(*arrays: np.ndarray) -> np.dtype:
    """The dtype of a result that is always floating (division, exp, mean of integers)."""
    dtype = arrays[0].dtype if len(arrays) == 1 else result_dtype(*arrays)
    return dtype if dtype.kind == "f" else _Defaults.float_dtype


def scalar_dtype(value: object, tensor_dtype: np.dtype) -> np.dtype:
    """The dtype a Python number takes next to a tensor of `tensor_dtype` (torch's rule).

    The tensor's dtype wins inside a category (float32 stays float32, int32 stays int32); a
    number of a higher category gives that category's default (a float with an int tensor is
    float32, an int with a bool tensor is int64).
    """
    kind = tensor_dtype.kind
    if isinstance(value, (bool, np.bool_)):
        return tensor_dtype
    if isinstance(value, (float, np.floating)):
        return tensor_dtype if kind == "f" else _Defaults.float_dtype
    return np.dtype(np.int64) if kind == "b" else tensor_dtype
