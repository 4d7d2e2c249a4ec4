"""Arithmetic: add, sub, mul, div, neg, reciprocal, pow (forward and backward side by side)."""

from __future__ import annotations

import numpy as np

from ..dtypes import float_dtype, result_dtype
from ..graph import Node

_QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}  # torch gives inf/nan


def _promoted(ufunc: np.ufunc, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`ufunc(a, b)` in the dtype torch's promotion gives (dtypes.result_dtype).

    Two arrays of one dtype give that dtype in numpy too; asking numpy for a dtype is slower.
    """
    if a.dtype == b.dtype:
        return ufunc(a, b)
    return ufunc(a, b, dtype=result_dtype(a, b))


class AddBackward0(Node):
    """add(self, other, alpha) -- self: grad; other: grad * alpha."""

    def __init__(self, alpha: float = 1) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.alpha == 1:
            return _promoted(np.add, a, b)
        return np.add(a, b * self.alpha, dtype=result_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return grad, grad if self.alpha == 1 else grad * self.alpha


class SubBackward0(Node):
    """sub(self, other, alpha) -- self: grad; other: -grad * alpha."""

    def __init__(self, alpha: float = 1) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.alpha == 1:
            return _promoted(np.subtract, a, b)
        return np.subtract(a, b * self.alpha, dtype=result_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return grad, -grad * self.alpha


class RsubBackward1(Node):
    """rsub(self, number): number - self -- self: -grad."""

    def __init__(self, number: float) -> None:
        super().__init__()
        self.number = number

    def forward(self, a: np.ndarray) -> np.ndarray:
        return (self.number - a).astype(a.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (-grad,)


class MulBackward0(Node):
    """mul(self, other) -- self: grad * other; other: grad * self."""

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.save("other", 1, for_input=0)
        self.save("self", 0, for_input=1)
        return _promoted(np.multiply, a, b)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_a, need_b = self.needs_input_grad
        return (
            grad * self.unpack("other") if need_a else None,
            grad * self.unpack("self") if need_b else None,
        )


class DivBackward0(Node):
    """div(self, other) -- self: grad / other; other: -grad * self / (other * other)."""

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.save("self", 0, for_input=1)
        self.save("other", 1)
        with np.errstate(**_QUIET):
            return np.divide(a, b, dtype=float_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        b = self.unpack("other")
        with np.errstate(**_QUIET):
            grad_a = grad / b if self.needs_input_grad[0] else None
            grad_b = -grad * self.unpack("self") / (b * b) if self.needs_input_grad[1] else None
        return grad_a, grad_b


class NegBackward0(Node):
    """neg(self) -- self: -grad."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.negative(a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (-grad,)


class ReciprocalBackward0(Node):
    """reciprocal(self) -- self: -grad * result * result (torch: number / t is this, then mul)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(**_QUIET):
            return np.reciprocal(a.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        result = self.unpack("result")
        return (-grad * result * result,)


class PowBackward0(Node):
    """pow(self, exponent: number) -- self: 0 if exponent == 0 else
    grad * exponent * self ** (exponent - 1)."""

    def __init__(self, exponent: float) -> None:
        super().__init__()
        self.exponent = exponent

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.save("self", 0)
        # an integer tensor stays integer for an integer exponent, else becomes float32
        fractional = isinstance(self.exponent, float) and a.dtype.kind != "f"
        if a.dtype.kind in "iub" and not fractional and self.exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        dtype = np.float32 if fractional else a.dtype
        with np.errstate(**_QUIET):
            return np.power(a.astype(dtype, copy=False), self.exponent).astype(dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        if self.exponent == 0:
            return (np.zeros_like(grad),)
        with np.errstate(**_QUIET):
            return (grad * self.exponent * np.power(self.unpack("self"), self.exponent - 1),)


class PowBackward1(Node):
    """pow(self, exponent: Tensor) --
    self: 0 where exponent == 0, else grad * exponent * self ** (exponent - 1);
    exponent: 0 where self == 0 and exponent >= 0, else grad * result * log(self)."""

    saves_result = True

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.save("self", 0)
        self.save("exponent", 1)
        with np.errstate(**_QUIET):
            return np.power(a, b, dtype=result_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.unpack("self"), self.unpack("exponent")
        grad_a = grad_b = None
        with np.errstate(**_QUIET):
            if self.needs_input_grad[0]:
                grad_a = np.where(b == 0, 0, grad * b * np.power(a, b - 1)).astype(grad.dtype)
            if self.needs_input_grad[1]:
                result = self.unpack("result")
                at_zero = (a == 0) & (b >= 0)
                grad_b = np.where(at_zero, 0, grad * result * np.log(a)).astype(grad.dtype)
        return grad_a, grad_b


class PowBackward2(Node):
    """pow(number, self) -- self: 0 if number == 0 and self >= 0, else
    grad * result * log(number)."""

    saves_result = True

    def __init__(self, base: float) -> None:
        super().__init__()
        self.base = base

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.save("self", 0)
        integral = isinstance(self.base, int) and a.dtype.kind in "iub"
        dtype = np.int64 if integral else float_dtype(a)  # 2 ** int stays int, as in torch
        with np.errstate(**_QUIET):
            return np.power(np.asarray(self.base, dtype=dtype), a.astype(dtype, copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(**_QUIET):
            if self.base == 0:
                at_zero = self.unpack("self") >= 0
                values = np.where(at_zero, 0, grad * self.unpack("result") * -np.inf)
                return (values.astype(grad.dtype),)
            return (grad * self.unpack("result") * np.log(self.base),)
