"""Arithmetic between dtypes, as torch computes it: the result's dtype, its values, or the error.

Every dtype a tensor can have here (bool, uint8, int32, int64, float16, float32, float64) meets
Python numbers (2, 2.5, True, -1), a tensor of every dtype and 0-d tensors, through + - * / //
% ** < and maximum / clamp, on both sides. numpy's own rules differ in many of these corners
(uint8 with -1, an int to a negative power, the sign of a zero remainder); the learner gets
torch's.

The last test writes Python numbers into tensors of every dtype (fill_, masked_fill, full,
full_like, a clamp bound, `t[i] = v`): torch converts each with a check of its own, refusing a
number the dtype cannot hold, where numpy wraps, saturates or raises its OverflowError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from .conftest import error_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

DTYPES = ("bool", "uint8", "int32", "int64", "float16", "float32", "float64")
VALUES = {"bool": [True, False], "uint8": [3, 4], "int32": [3, -4], "int64": [3, -4]}
OTHERS = ("2", "2.5", "True", "-1", *DTYPES, "0-d 2.5", "0-d 3")
OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
    "<": lambda a, b: a < b,
}
# (dtype, other, op, order) -> why minigrad differs from torch there (none left: the last two
# were `True % bool_tensor` and `bool_tensor ** True`)
KNOWN_DIFFERENCES: dict[tuple[str, str, str, str], str] = {}


def tensor(lib: Any, dtype: str) -> Any:
    return lib.tensor(VALUES.get(dtype, [1.5, -2.0]), dtype=getattr(lib, dtype))


def other(lib: Any, name: str) -> Any:
    numbers = {"2": 2, "2.5": 2.5, "True": True, "-1": -1}
    if name in numbers:
        return numbers[name]
    if name.startswith("0-d"):
        return lib.tensor(float(name.split()[1]) if "." in name else int(name.split()[1]))
    return tensor(lib, name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("second", OTHERS)
def test_arithmetic_between_dtypes(parity: Callable[..., None], dtype: str, second: str) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        a, b = tensor(lib, dtype), other(lib, second)
        number = isinstance(b, (int, float))
        orders = ("tensor first", "number first") if number else ("a, b", "b, a")
        for name, op in OPS.items():
            for order in orders:
                if (dtype, second, name, order) in KNOWN_DIFFERENCES:
                    continue
                left, right = (a, b) if order in ("tensor first", "a, b") else (b, a)
                failure = error_of(lambda op=op, left=left, right=right: op(left, right))
                if failure is not None:
                    note(f"{name} ({order})", failure)
                    continue
                result = op(left, right)
                values = np.asarray(result.numpy(), dtype=float)
                dtype_name = str(result.dtype).split(".")[-1]
                # (the sign of a zero too: a remainder's -0. shows when the tensor is printed)
                note(f"{name} ({order})", (dtype_name, values, np.signbit(values).tolist()))

    parity(script)


WRITTEN_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32")
WRITTEN_NUMBERS = (300, -1, -200, -256, 2**40, 2.7, -2.7, 70000.0, 1e39, float("inf"), float("nan"))
WRITES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "clamp(min=v)": lambda lib, t, v: t.clamp(min=v),
    "clamp(max=v)": lambda lib, t, v: t.clamp(max=v),
    "clamp(v, v)": lambda lib, t, v: t.clamp(v, v),
    "fill_(v)": lambda lib, t, v: t.fill_(v),
    "masked_fill(t > 0, v)": lambda lib, t, v: t.masked_fill(t > 0, v),
    "full_like(t, v)": lambda lib, t, v: lib.full_like(t, v),
    "full((2,), v, dtype=)": lambda lib, t, v: lib.full((2,), v, dtype=t.dtype),
    "t[0] = v": lambda lib, t, v: t.__setitem__(0, v) or t,
}


@pytest.mark.parametrize("dtype", WRITTEN_DTYPES)
@pytest.mark.parametrize("number", WRITTEN_NUMBERS, ids=repr)
def test_number_written_into_dtype(parity: Callable[..., None], dtype: str, number: float) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        for name, write in WRITES.items():
            t = lib.tensor([1, 2], dtype=getattr(lib, dtype))
            failure = error_of(lambda write=write, t=t: write(lib, t, number))
            if failure is not None:
                note(name, failure)
                continue
            result = write(lib, t, number)
            values = np.asarray(result.numpy(), dtype=float)
            note(name, (str(result.dtype).split(".")[-1], values))

    parity(script)
