"""Elementwise functions of one tensor: exp, log, sin, cos, sigmoid, tanh, relu, sqrt, abs,
sign, clamp, round, where, and the copies (clone, dtype conversion).

Forward works on numpy arrays. Backward works on arrays, or on tensors during
`backward(create_graph=True)`: see formulas.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._convert import number_in
from .._fast import quietly
from ..dtypes import float_dtype, result_dtype
from ..graph import Node, Save
from .formulas import cast, constant, is_array, record, zeros_like

_QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}  # torch gives inf/nan


class WhereBackward0(Node):
    """where(condition, self, other) -- self: where(condition, grad, 0);
    other: where(condition, 0, grad). The bool condition is saved, but no edge of the graph:
    `next_functions` has self's and other's (as torch's)."""

    saves = (Save("condition", input=0),)
    edge_inputs = (1, 2)

    def forward(self, condition: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        result = np.where(condition, a, b)
        if type(a) is np.ndarray and type(b) is np.ndarray and a.dtype != b.dtype:
            return result.astype(result_dtype(a, b), copy=False)  # torch's promotion
        return result

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        condition = self.unpack("condition")
        _, need_a, need_b = self.needs_input_grad
        return (
            record(WhereBackward0(), condition, grad, 0.0) if need_a else None,
            record(WhereBackward0(), condition, 0.0, grad) if need_b else None,
        )


class ExpBackward0(Node):
    """exp(self) -- self: grad * result (its derivative is itself, so it saves its output)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.exp(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * self.unpack("result"),)


class SinBackward0(Node):
    """sin(self) -- self: grad * cos(self)."""

    saves = (Save("self", input=0),)

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.sin(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * record(CosBackward0(), self.unpack("self")),)


class CosBackward0(Node):
    """cos(self) -- self: grad * -sin(self)."""

    saves = (Save("self", input=0),)

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.cos(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * -record(SinBackward0(), self.unpack("self")),)


class LogBackward0(Node):
    """log(self) -- self: grad / self."""

    saves = (Save("self", input=0),)

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(**_QUIET):
            return np.log(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(**_QUIET):
            return (grad / self.unpack("self"),)


class Log1PBackward0(Node):
    """log1p(self) = log(1 + self), accurate near 0 -- self: grad / (self + 1)."""

    saves = (Save("self", input=0),)

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(**_QUIET):
            return np.log1p(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(**_QUIET):
            return (grad / plus(self.unpack("self"), 1),)


class MulBackward1(Node):
    """mul(self, other: number) -- self: grad * other.

    What a derivative formula records when it multiplies by a number under create_graph=True
    (torch's formulas call mul(Tensor, Scalar)); `t * 2` written by a user is MulBackward0.
    """

    def __init__(self, other: float) -> None:
        self.other = other

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a * self.other

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (scaled(grad, self.other),)


class AddBackward1(Node):
    """add(self, other: number) -- self: grad. What a derivative formula records when it adds
    a number under create_graph=True (`t + 1` written by a user is AddBackward0, as in torch)."""

    def __init__(self, other: float) -> None:
        self.other = other

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a + self.other

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


class SubBackward1(Node):
    """sub(self, other: number) -- self: grad. What a derivative formula records when it
    subtracts a number under create_graph=True (`t - 1` by a user is SubBackward0)."""

    def __init__(self, other: float) -> None:
        self.other = other

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a - self.other

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


def minus(value: np.ndarray, number: float) -> np.ndarray:
    """`value - number` inside a derivative formula: on arrays the difference, on tensors (while
    create_graph records) a SubBackward1 node, as torch's formulas record it."""
    if is_array(value):
        return value - number
    return record(SubBackward1(number), value)


def plus(value: np.ndarray, number: float) -> np.ndarray:
    """`value + number` inside a derivative formula: on arrays the sum, on tensors (while
    create_graph records) an AddBackward1 node, as torch's formulas record it."""
    if is_array(value):
        return value + number
    return record(AddBackward1(number), value)


def scaled(value: np.ndarray, number: float) -> np.ndarray:
    """`number * value` inside a derivative formula: on arrays the product, on tensors (while
    create_graph records) a MulBackward1 node, as torch's formulas record it."""
    if is_array(value):
        return value * number
    return record(MulBackward1(number), value)


class SigmoidBackward0(Node):
    """sigmoid(self) = 1 / (1 + exp(-self)) -- self: sigmoid_backward(grad, result), which is
    grad * result * (1 - result)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        x = a if a.dtype.kind == "f" else a.astype(float_dtype(a))
        # 1 / (1 + exp(-x)), as torch computes it (the tanh form differs in the last bit).
        # exp(-x) overflows to inf for very negative x, and 1 / (1 + inf) is the right 0.
        # then in place: one new array in all (asarray: for a 0-d input numpy returns a
        # scalar, which cannot be written into)
        result = np.asarray(np.negative(x))
        quietly(np.exp, result, out=result)
        result += 1
        np.reciprocal(result, out=result)
        return result

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (record(SigmoidBackwardBackward0(), grad, self.unpack("result")),)


class SigmoidBackwardBackward0(Node):
    """sigmoid_backward(grad_output, output) = grad_output * output * (1 - output): the formula
    of SigmoidBackward0 as an op of its own, as in torch, so it can be differentiated again --
    grad_output: grad * output * (1 - output); output: grad * grad_output * (1 - 2 * output)."""

    saves = (Save("grad_output", input=0, needed_for=1), Save("output", input=1))

    def forward(self, grad_output: np.ndarray, output: np.ndarray) -> np.ndarray:
        local = np.asarray(np.subtract(1, output))  # in one new array
        local *= output
        local *= grad_output
        return local

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_grad_output, need_output = self.needs_input_grad
        s = self.unpack("output")
        return (
            grad * s * (1 - s) if need_grad_output else None,
            grad * self.unpack("grad_output") * (1 - 2 * s) if need_output else None,
        )


class TanhBackward0(Node):
    """tanh(self) -- self: tanh_backward(grad, result), which is grad * (1 - result * result)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.tanh(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (record(TanhBackwardBackward0(), grad, self.unpack("result")),)


class TanhBackwardBackward0(Node):
    """tanh_backward(grad_output, output) = grad_output * (1 - output * output): the formula of
    TanhBackward0 as an op of its own, as in torch -- grad_output: tanh_backward(grad, output);
    output: grad * (-2 * output * grad_output)."""

    saves = (Save("grad_output", input=0, needed_for=1), Save("output", input=1))

    def forward(self, grad_output: np.ndarray, output: np.ndarray) -> np.ndarray:
        local = np.multiply(output, output, out=np.empty_like(output))  # in one new array
        np.subtract(1, local, out=local)
        local *= grad_output
        return local

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_grad_output, need_output = self.needs_input_grad
        y = self.unpack("output")
        return (
            record(TanhBackwardBackward0(), grad, y) if need_grad_output else None,
            grad * (-2 * y * self.unpack("grad_output")) if need_output else None,
        )


class ReluBackward0(Node):
    """relu(self) = max(self, 0) -- self: 0 where result <= 0, else grad (so relu'(0) = 0)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.maximum(a, 0).astype(a.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (record(ThresholdBackwardBackward0(), grad, self.unpack("result")),)


class ThresholdBackwardBackward0(Node):
    """threshold_backward(grad_output, self, 0) = grad_output where self > 0, else 0: relu's
    formula as an op of its own, as in torch, so the gradient of a gradient stays connected to
    relu's output -- grad_output: the same rule; self: zeros (flat almost everywhere)."""

    saves = (Save("self", input=1, needed_for=0),)

    def forward(self, grad_output: np.ndarray, output: np.ndarray) -> np.ndarray:
        # `<= 0` rather than `> 0`: a nan passes its gradient through, as in torch
        return np.where(output <= 0, 0, grad_output).astype(grad_output.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_grad_output, need_output = self.needs_input_grad
        return (
            record(ThresholdBackwardBackward0(), grad, self.unpack("self"))
            if need_grad_output
            else None,
            zeros_like(grad) if need_output else None,
        )


class SqrtBackward0(Node):
    """sqrt(self) -- self: grad / (2 * result)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.sqrt(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(**_QUIET):  # (2 * result: a MulBackward1 while create_graph records)
            return (grad / scaled(self.unpack("result"), 2),)


def sign_or_zero(values: np.ndarray) -> np.ndarray:
    """The sign of each value, 0 for 0 and for nan (torch's sgn in the backward of abs): on
    tensors (create_graph) a recorded sgn, an SgnBackward0 node, as in torch's formula."""
    if is_array(values):
        return np.nan_to_num(np.sign(values), nan=0.0)
    return record(SgnBackward0(), values)


class AbsBackward0(Node):
    """abs(self) -- self: grad * sgn(self) (0 at 0 and at nan, as in torch)."""

    saves = (Save("self", input=0),)

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.abs(a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * sign_or_zero(self.unpack("self")),)


class SignBackward0(Node):
    """sign(self) -- self: zeros_like(grad) (flat almost everywhere)."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        if a.dtype.kind == "f":  # torch's sign of nan is 0, numpy's nan
            return np.where(np.isnan(a), 0, np.sign(a)).astype(a.dtype, copy=False)
        return np.sign(a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (zeros_like(grad),)


class SgnBackward0(SignBackward0):
    """sgn(self): for real numbers the same as sign -- self: zeros_like(grad)."""


class ClampBackward1(Node):
    """clamp(self, min, max) -- self: grad where min <= self <= max, else 0."""

    saves = (Save("self", input=0),)
    saved_numbers = ("min", "max")

    def __init__(self, low: float | None, high: float | None) -> None:
        if low is None and high is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        self.low, self.high = low, high

    def forward(self, a: np.ndarray) -> np.ndarray:
        dtype = a.dtype
        if dtype.kind != "f" and any(isinstance(b, float) for b in (self.low, self.high)):
            dtype = np.dtype(np.float32)  # a float bound makes an integer tensor float, as torch
        elif dtype.kind == "b":
            dtype = np.dtype(np.int64)  # an int bound makes a bool tensor int64
        # (an int bound becomes the integer dtype's value first: -1 is 255 for uint8, as in torch)
        low, high = number_in(self.low, dtype), number_in(self.high, dtype)
        return np.clip(a.astype(dtype, copy=False), low, high).astype(dtype, copy=False)

    def inside(self, a: np.ndarray) -> np.ndarray:
        """Where `a` lies within the bounds (there the gradient passes)."""
        mask = np.ones(a.shape, dtype=bool)
        if self.low is not None:
            mask &= a >= self.low
        if self.high is not None:
            mask &= a <= self.high
        return mask

    def saved_number(self, name: str) -> Any:
        """`_saved_min` / `_saved_max`: the bounds as given (None for one not given)."""
        if name in ("min", "max"):
            return self.low if name == "min" else self.high
        return super().saved_number(name)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        inside = constant(self.inside, self.unpack("self"))
        return (record(WhereBackward0(), inside, grad, 0.0),)  # (torch's clamp_backward)


class ClampBackward0(Node):
    """clamp(self, min, max) with tensor bounds (a missing one is +-inf here) -- self: grad
    where min <= self <= max; min: grad where self < min; max: grad where self > max."""

    saves = (Save("self", input=0), Save("min", input=1), Save("max", input=2))

    def forward(self, a: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        dtype = result_dtype(a, low, high)
        return np.minimum(np.maximum(a, low), high).astype(dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a, low, high = self.unpack("self"), self.unpack("min"), self.unpack("max")
        # clamp is minimum(maximum(self, min), max): max wins where max(self, min) > max
        to_high = (a > high) | (low > high)
        to_low = (a < low) & ~to_high
        return (
            record(WhereBackward0(), to_low | to_high, 0.0, grad),
            record(WhereBackward0(), to_low, grad, 0.0),
            record(WhereBackward0(), to_high, grad, 0.0),
        )


class RoundBackward0(Node):
    """round(self) -- self: zeros_like(grad) (flat almost everywhere)."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.round(a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (zeros_like(grad),)


class CloneBackward0(Node):
    """clone(self) -- self: grad (a copy in new memory)."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a.copy()

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


class ToCopyBackward0(Node):
    """_to_copy(self, dtype) -- self: grad.to(self.dtype) (`.double()`, `.float()`, `.to()`)."""

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.source_dtype = a.dtype
        with np.errstate(invalid="ignore", over="ignore"):  # nan and inf to int: as torch, quietly
            return a.astype(self.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (cast(grad, self.source_dtype),)
