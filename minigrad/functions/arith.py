"""Arithmetic: add, sub, mul, div, neg, reciprocal, pow (forward and backward side by side).

Forward works on numpy arrays. Backward works on arrays, or on tensors during
`backward(create_graph=True)`: see formulas.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._fast import quietly
from ..dtypes import float_dtype, result_dtype, scalar_dtype
from ..graph import Node, Save
from .formulas import constant, is_array, record, values_of, zeros_like
from .unary import LogBackward0, WhereBackward0, minus, scaled
from .views import MaskedFillBackward0

_QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}  # torch gives inf/nan


def _promoted(ufunc: np.ufunc, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`ufunc(a, b)` in the dtype torch's promotion gives (dtypes.result_dtype).

    Two arrays of one dtype give that dtype in numpy too; asking numpy for a dtype is slower.
    """
    if a.dtype == b.dtype:
        return ufunc(a, b)
    # (torch's dtype may be one numpy would not cast to by itself: uint8 + an int64 0-d tensor)
    return ufunc(a, b, dtype=result_dtype(a, b), casting="unsafe")


class AddBackward0(Node):
    """add(self, other, alpha) -- self: grad; other: grad * alpha."""

    saved_numbers = ("alpha",)

    def __init__(self, alpha: float = 1) -> None:
        self.alpha = alpha

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.alpha == 1:
            return _promoted(np.add, a, b)
        return np.add(a, b * self.alpha, dtype=result_dtype(a, b))

    def forward_into(self, a: np.ndarray, b: np.ndarray) -> None:
        """`a += alpha * b`, written into a's memory (add_ when nothing is recorded)."""
        np.add(a, b if self.alpha == 1 else b * self.alpha, out=a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return grad, grad if self.alpha == 1 else grad * self.alpha


class SubBackward0(Node):
    """sub(self, other, alpha) -- self: grad; other: -grad * alpha."""

    saved_numbers = ("alpha",)

    def __init__(self, alpha: float = 1) -> None:
        self.alpha = alpha

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.alpha == 1:
            return _promoted(np.subtract, a, b)
        return np.subtract(a, b * self.alpha, dtype=result_dtype(a, b))

    def forward_into(self, a: np.ndarray, b: np.ndarray) -> None:
        """`a -= alpha * b`, written into a's memory (sub_ when nothing is recorded)."""
        np.subtract(a, b if self.alpha == 1 else b * self.alpha, out=a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return grad, -grad * self.alpha


class RsubBackward1(Node):
    """rsub(self, number): number - self -- self: -grad."""

    saved_numbers = ("alpha",)
    alpha = 1  # (`number - self` has none to give: torch shows 1)

    def __init__(self, number: float) -> None:
        self.number = number

    def forward(self, a: np.ndarray) -> np.ndarray:
        # the number's category may be higher: 1.5 - int tensor is float32, as in torch
        dtype = scalar_dtype(self.number, a.dtype)
        if dtype.kind in "iu":  # the number in the tensor's integer type first (wraps, as torch)
            return np.asarray(self.number).astype(dtype) - a.astype(dtype, copy=False)
        return (self.number - a).astype(dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (-grad,)


class MulBackward0(Node):
    """mul(self, other) -- self: grad * other; other: grad * self."""

    saves = (Save("other", input=1, needed_for=0), Save("self", input=0, needed_for=1))

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _promoted(np.multiply, a, b)

    def forward_into(self, a: np.ndarray, b: np.ndarray) -> None:
        """`a *= b`, written into a's memory (mul_ when nothing is recorded)."""
        np.multiply(a, b, out=a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_a, need_b = self.needs_input_grad
        return (
            grad * self.unpack("other") if need_a else None,
            grad * self.unpack("self") if need_b else None,
        )


class DivBackward0(Node):
    """div(self, other) -- self: grad / other; other: -grad * self / (other * other)."""

    saves = (Save("self", input=0, needed_for=1), Save("other", input=1))

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return quietly(np.divide, a, b, dtype=float_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        b = self.unpack("other")
        with np.errstate(**_QUIET):
            grad_a = grad / b if self.needs_input_grad[0] else None
            # torch's formula and order: -grad * ((self / other) / other)
            grad_b = -grad * (self.unpack("self") / b / b) if self.needs_input_grad[1] else None
        return grad_a, grad_b


class DivBackward1(Node):
    """div(self, other: number), as torch's own functions call it (the mean of a loss):
    self: grad / other. (`t / 2` in Python records DivBackward0, as in torch.)"""

    def __init__(self, other: float) -> None:
        self.other = other

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(**_QUIET):
            return np.divide(a, self.other, dtype=float_dtype(a))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad / self.other,)


class NegBackward0(Node):
    """neg(self) -- self: -grad."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.negative(a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (-grad,)


class ReciprocalBackward0(Node):
    """reciprocal(self) -- self: -grad * (result * result) (torch: number / t is this, then
    mul)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(**_QUIET):
            return np.reciprocal(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        result = self.unpack("result")
        return (-grad * (result * result),)  # (torch's grouping: its graph, its rounding)


class PowBackward0(Node):
    """pow(self, exponent: number) -- self: 0 if exponent == 0 else
    grad * exponent * self ** (exponent - 1)."""

    saves = (Save("self", input=0),)
    saved_numbers = ("exponent",)

    def __init__(self, exponent: float) -> None:
        self.exponent = exponent

    def forward(self, a: np.ndarray) -> np.ndarray:
        # an integer tensor stays integer for an integer exponent, else becomes float32
        fractional = isinstance(self.exponent, float) and a.dtype.kind != "f"
        if a.dtype.kind in "iub" and not fractional and self.exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if fractional:
            dtype = np.dtype(np.float32)
        elif a.dtype.kind == "b" and not isinstance(self.exponent, bool):
            dtype = np.dtype(np.int64)  # a bool tensor to an int power counts in int64
        else:
            dtype = a.dtype  # (a bool tensor to a bool power stays bool, as in torch)
        base = a.astype(np.int64 if a.dtype.kind == "b" else dtype, copy=False)
        return quietly(np.power, base, self.exponent).astype(dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        if self.exponent == 0:
            return (zeros_like(grad),)
        with np.errstate(**_QUIET):  # torch's order: grad * (exponent * self ** (exponent - 1))
            return (grad * scaled(self.unpack("self") ** (self.exponent - 1), self.exponent),)


class PowBackward1(Node):
    """pow(self, exponent: Tensor) --
    self: 0 where exponent == 0, else grad * exponent * self ** (exponent - 1);
    exponent: 0 where self == 0 and exponent >= 0, else grad * result * log(self)."""

    saves = (Save("self", input=0), Save("exponent", input=1))

    saves_result = True

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        dtype = result_dtype(a, b)
        if dtype.kind in "iu" and (b < 0).any():
            return integer_power(a, b, dtype)
        with np.errstate(**_QUIET):
            return np.power(a, b, dtype=dtype, casting="unsafe")  # (as _promoted)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.unpack("self"), self.unpack("exponent")
        grad_a = grad_b = None
        with np.errstate(**_QUIET):
            # (torch's grouping of each formula: its graph under create_graph, its rounding)
            if self.needs_input_grad[0]:
                grad_a = record(WhereBackward0(), b == 0, 0.0, grad * (b * a ** minus(b, 1)))
            if self.needs_input_grad[1]:
                at_zero = (a == 0) & (b >= 0)
                log_a = record(LogBackward0(), a)
                spread = self.unpack("result") * log_a
                grad_b = grad * record(WhereBackward0(), at_zero, 0.0, spread)
        return grad_a, grad_b


def integer_power(a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Integers to integer powers, some negative: numpy refuses; torch gives the integer part of
    the true value (1 for a base of 1, +-1 for -1, 0 for any other base; 0 ** -n is 0 too)."""
    a, b = np.asarray(a).astype(dtype), np.asarray(b).astype(dtype)
    positive = np.power(a, np.maximum(b, 0))
    odd = (b % 2) == 1
    negative = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
    return np.where(b < 0, negative, positive).astype(dtype)


class MaximumBackward0(Node):
    """maximum(self, other) -- self: grad where self > other, grad / 2 where they tie;
    other: the same with the roles swapped (`minigrad.max(a, b)`)."""

    saves = (Save("self", input=0), Save("other", input=1))

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _promoted(np.maximum, a, b)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.unpack("self"), self.unpack("other")
        a_values, b_values = values_of(a), values_of(b)
        return (
            winner_gradient(grad, a == b, a_values < b_values),
            winner_gradient(grad, a == b, a_values > b_values),
        )


class MinimumBackward0(Node):
    """minimum(self, other) -- self: grad where self < other, grad / 2 where they tie;
    other: the same with the roles swapped (`minigrad.min(a, b)`)."""

    saves = (Save("self", input=0), Save("other", input=1))

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _promoted(np.minimum, a, b)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.unpack("self"), self.unpack("other")
        a_values, b_values = values_of(a), values_of(b)
        return (
            winner_gradient(grad, a == b, a_values > b_values),
            winner_gradient(grad, a == b, a_values < b_values),
        )


def winner_gradient(grad: np.ndarray, tie: np.ndarray, loses: np.ndarray) -> np.ndarray:
    """The gradient of one side of maximum / minimum, as torch's formula records it:
    where(tie, grad / 2, grad), then 0 where this side lost (masked_fill_)."""
    half = grad / 2 if is_array(grad) else record(DivBackward1(2), grad)
    return record(MaskedFillBackward0(loses, 0), record(WhereBackward0(), tie, half, grad))


class PowBackward2(Node):
    """pow(self, exponent) with a number as self (`2 ** x`) -- exponent: 0 if self == 0 and
    exponent >= 0, else grad * result * log(self). As in torch, the tensor is kept as
    `exponent` and the number shows as `_saved_self`."""

    saves = (Save("exponent", input=0),)
    saved_numbers = ("self",)
    saves_result = True

    def __init__(self, base: float) -> None:
        self.base = base

    def forward(self, a: np.ndarray) -> np.ndarray:
        if isinstance(self.base, int) and a.dtype.kind in "iub":  # integers stay integers
            if isinstance(self.base, bool) and a.dtype.kind == "b":
                raise NotImplementedError("\"pow\" not implemented for 'Bool'")
            dtype = scalar_dtype(self.base, a.dtype)  # the tensor's (int64 for a bool tensor)
            base = np.asarray(self.base).astype(dtype)  # (-1 wraps to 255 in uint8, as torch)
            return integer_power(base, a, dtype)  # (2 ** -1 is 0, as torch)
        dtype = float_dtype(a)
        with np.errstate(**_QUIET):
            return np.power(np.asarray(self.base, dtype=dtype), a.astype(dtype, copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        exponent = self.unpack("exponent")  # (read as torch reads it: fails if changed in place)
        with np.errstate(**_QUIET):
            result = self.unpack("result")
            if self.base == 0:
                at_zero = exponent >= 0
                return (grad * record(WhereBackward0(), at_zero, 0.0, scaled(result, -math.inf)),)
            return (grad * scaled(result, float(np.log(self.base))),)

    def saved_number(self, name: str) -> Any:
        """`_saved_self` is the number (`self` of torch's pow(Scalar self, Tensor exponent))."""
        return self.base if name == "self" else super().saved_number(name)


def floor_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """floor(a / b), elementwise; an integer division by zero is torch's ZeroDivisionError."""
    if b.dtype.kind in "iub" and a.dtype.kind in "iub" and np.any(b == 0):
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(**_QUIET):
        return _promoted(np.floor_divide, a, b)


def remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a - floor(a / b) * b, elementwise (the sign of b, as Python's %)."""
    if b.dtype.kind in "iub" and a.dtype.kind in "iub":
        if np.any(b == 0):
            raise RuntimeError("ZeroDivisionError")
        return _promoted(np.remainder, a, b)
    with np.errstate(**_QUIET):  # torch's way for floats: fmod, then moved to b's sign (a zero
        mod = _promoted(np.fmod, a, b)  # keeps a's sign, where numpy's remainder takes b's)
        return np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod).astype(mod.dtype)


class NotDifferentiable(Node):
    """An op torch records but cannot differentiate (`//`, `number % t`): its backward raises."""

    def __init__(self, op: str, compute: Callable[..., np.ndarray]) -> None:
        self.op, self.compute = op, compute

    def name(self) -> str:
        return "NotImplemented"

    def forward(self, *arrays: np.ndarray) -> np.ndarray:
        return self.compute(*arrays)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


class DivBackward2(Node):
    """div(self, other, rounding_mode) -- self: zeros_like(grad); other: zeros_like(grad)
    (a rounded quotient is flat almost everywhere)."""

    def __init__(self, rounding_mode: str) -> None:
        self.rounding_mode = rounding_mode

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.rounding_mode == "floor":
            return floor_divide(a, b)
        if b.dtype.kind in "iub" and a.dtype.kind in "iub" and np.any(b == 0):
            raise RuntimeError("ZeroDivisionError")
        with np.errstate(**_QUIET):
            return np.trunc(np.divide(a, b)).astype(result_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return zeros_like(grad), zeros_like(grad)


class RemainderBackward0(Node):
    """remainder(self, other: number) -- self: grad."""

    def __init__(self, number: np.ndarray) -> None:
        self.number = number

    def forward(self, a: np.ndarray) -> np.ndarray:
        return remainder(a, self.number)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


class RemainderBackward1(Node):
    """remainder(self, other) -- self: grad; other: -grad * floor(self / other)."""

    saves = (Save("self", input=0, needed_for=1), Save("other", input=1, needed_for=1))

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return remainder(a, b)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        grad_b = None
        if self.needs_input_grad[1]:
            quotient = constant(_floor_quotient, self.unpack("self"), self.unpack("other"))
            grad_b = -grad * quotient
        return grad, grad_b


def _floor_quotient(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(**_QUIET):
        return np.floor(a / b)
