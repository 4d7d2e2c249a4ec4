"""Elementwise functions of one tensor: exp, log, sigmoid, tanh, relu, sqrt, abs, clamp, round,
and the copies (clone, dtype conversion)."""

from __future__ import annotations

import numpy as np

from ..dtypes import float_dtype
from ..graph import Node

_QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}  # torch gives inf/nan


class ExpBackward0(Node):
    """exp(self) -- self: grad * result (its derivative is itself, so it saves its output)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.exp(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * self.unpack("result"),)


class LogBackward0(Node):
    """log(self) -- self: grad / self."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.save("self", 0)
        with np.errstate(**_QUIET):
            return np.log(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(**_QUIET):
            return (grad / self.unpack("self"),)


class SigmoidBackward0(Node):
    """sigmoid(self) = 1 / (1 + exp(-self)) -- self: grad * result * (1 - result)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        x = a.astype(float_dtype(a), copy=False)
        # 1 / (1 + exp(-x)), as torch computes it (the tanh form differs in the last bit).
        # exp(-x) overflows to inf for very negative x, and 1 / (1 + inf) is the right 0.
        # then in place: one new array in all (given as `out`, because for a 0-d input numpy
        # returns a scalar, which cannot be written into)
        result = np.negative(x, out=np.empty_like(x))
        with np.errstate(over="ignore"):
            np.exp(result, out=result)
        result += 1
        np.reciprocal(result, out=result)
        return result

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        s = self.unpack("result")
        local = np.subtract(1, s, out=np.empty_like(s))  # s * (1 - s) * grad, in one new array
        local *= s
        local *= grad
        return (local,)


class TanhBackward0(Node):
    """tanh(self) -- self: grad * (1 - result * result)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.tanh(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        t = self.unpack("result")
        return (grad * (1 - t * t),)


class ReluBackward0(Node):
    """relu(self) = max(self, 0) -- self: 0 where result <= 0, else grad (so relu'(0) = 0)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.maximum(a, 0).astype(a.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        # `<= 0` rather than `> 0`: a nan passes its gradient through, as in torch
        return (np.where(self.unpack("result") <= 0, 0, grad).astype(grad.dtype, copy=False),)


class SqrtBackward0(Node):
    """sqrt(self) -- self: grad / (2 * result)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.sqrt(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(**_QUIET):
            return (grad / (2 * self.unpack("result")),)


class AbsBackward0(Node):
    """abs(self) -- self: grad * sgn(self) (0 at 0 and at nan, as in torch)."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.save("self", 0)
        return np.abs(a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        sign = np.nan_to_num(np.sign(self.unpack("self")), nan=0.0)
        return (grad * sign,)


class ClampBackward1(Node):
    """clamp(self, min, max) -- self: grad where min <= self <= max, else 0."""

    def __init__(self, low: float | None, high: float | None) -> None:
        super().__init__()
        if low is None and high is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        self.low, self.high = low, high

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.save("self", 0)
        dtype = a.dtype
        if dtype.kind != "f" and any(isinstance(b, float) for b in (self.low, self.high)):
            dtype = np.dtype(np.float32)  # a float bound makes an integer tensor float, as torch
        return np.clip(a.astype(dtype, copy=False), self.low, self.high).astype(dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        a = self.unpack("self")
        inside = np.ones(a.shape, dtype=bool)
        if self.low is not None:
            inside &= a >= self.low
        if self.high is not None:
            inside &= a <= self.high
        return (grad * inside,)


class RoundBackward0(Node):
    """round(self) -- self: zeros_like(grad) (flat almost everywhere)."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.round(a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (np.zeros_like(grad),)


class CloneBackward0(Node):
    """clone(self) -- self: grad (a copy in new memory)."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a.copy()

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


class ToCopyBackward0(Node):
    """_to_copy(self, dtype) -- self: grad.to(self.dtype) (`.double()`, `.float()`, `.to()`)."""

    def __init__(self, dtype: np.dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.source_dtype = a.dtype
        return a.astype(self.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.astype(self.source_dtype),)
