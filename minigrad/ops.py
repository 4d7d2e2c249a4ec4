"""The operations: one small class per op, its forward and its backward side by side.

Every class is named like the `grad_fn` torch gives the same operation (`MulBackward0`, ...).
`forward` computes the output array from the input tensors and saves what `backward` will
need; `backward` gets the gradient of the output and returns one gradient per input, in the
order of the inputs (broadcast inputs are summed back to their shape by the engine).

`run_op` connects a forward to the graph; the functions at the bottom of each section are what
`Tensor`'s methods call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .autograd import Node, edge_to
from .dtypes import float_dtype, result_dtype
from .grad_mode import _GradMode
from .tensor import Tensor

# --------------------------------------------------------------------------------------------
# Connecting an op to the graph
# --------------------------------------------------------------------------------------------


def run_op(node: Node, *inputs: Tensor) -> Tensor:
    """Run `node.forward(*inputs)`; when recording, make the node the output's grad_fn."""
    recording = False
    if _GradMode.enabled:
        for tensor in inputs:
            if tensor._requires_grad or tensor.grad_fn is not None:
                recording = True
                break
    node.recording = recording
    output = Tensor._from_array(node.forward(*inputs))
    if recording:
        connect(node, output, inputs)
    return output


def connect(node: Node, output: Tensor, inputs: Sequence[Tensor]) -> None:
    """Make `node` the grad_fn of `output`, with one edge per input."""
    node.next_functions = tuple([edge_to(t) for t in inputs])
    node.input_shapes = tuple([t._array.shape for t in inputs])
    output.grad_fn = node  # (the property setter also notes a view's version)
    if node.saves_result:
        node.save("result", output, is_output=True)


def check_broadcast(a: Tensor, b: Tensor) -> None:
    """Raise torch's error when two shapes cannot be broadcast together."""
    shape_a, shape_b = a._array.shape, b._array.shape
    if shape_a == shape_b:
        return
    for offset in range(1, min(len(shape_a), len(shape_b)) + 1):
        size_a, size_b = shape_a[-offset], shape_b[-offset]
        if size_a != size_b and size_a != 1 and size_b != 1:
            dim = max(len(shape_a), len(shape_b)) - offset
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {dim}"
            )


def normalize_dims(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Turn `dim` (an int, a sequence or None for all) into sorted non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    checked = []
    for d in dims:
        low, high = -max(ndim, 1), max(ndim, 1) - 1
        if not low <= d <= high:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{low}, {high}], but got {d})"
            )
        checked.append(d % max(ndim, 1))
    return tuple(sorted(set(checked)))


# --------------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------------


class AddBackward0(Node):
    """a + alpha * b: the gradient passes through unchanged (times alpha for b)."""

    def __init__(self, alpha: float = 1) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        check_broadcast(a, b)
        other = b._array if self.alpha == 1 else b._array * self.alpha
        return np.add(a._array, other, dtype=result_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return grad, grad if self.alpha == 1 else grad * self.alpha


class SubBackward0(Node):
    """a - alpha * b: the gradient of b is the negated gradient of the output."""

    def __init__(self, alpha: float = 1) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        check_broadcast(a, b)
        other = b._array if self.alpha == 1 else b._array * self.alpha
        return np.subtract(a._array, other, dtype=result_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return grad, -grad * self.alpha


class RsubBackward1(Node):
    """number - a (torch records it as one op with a single input)."""

    def __init__(self, number: float) -> None:
        super().__init__()
        self.number = number

    def forward(self, a: Tensor) -> np.ndarray:
        return (self.number - a._array).astype(a._array.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (-grad,)


class MulBackward0(Node):
    """a * b: each input's gradient is the output's gradient times the other input."""

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        check_broadcast(a, b)
        if b.requires_grad:
            self.save("self", a)
        if a.requires_grad:
            self.save("other", b)
        return np.multiply(a._array, b._array, dtype=result_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        grad_a = grad * self.unpack("other") if "other" in self.saved else None
        grad_b = grad * self.unpack("self") if "self" in self.saved else None
        return grad_a, grad_b


class DivBackward0(Node):
    """a / b: d/da = 1/b, d/db = -a/b**2."""

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        check_broadcast(a, b)
        if b.requires_grad:
            self.save("self", a)
        self.save("other", b)
        with np.errstate(divide="ignore", invalid="ignore"):  # torch gives inf/nan silently
            return np.divide(a._array, b._array, dtype=float_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        b = self.unpack("other")
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_a = grad / b
            grad_b = -grad * self.unpack("self") / (b * b) if "self" in self.saved else None
        return grad_a, grad_b


class NegBackward0(Node):
    """-a."""

    def forward(self, a: Tensor) -> np.ndarray:
        return np.negative(a._array)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (-grad,)


class ReciprocalBackward0(Node):
    """1 / a (torch computes `number / a` as reciprocal then multiply)."""

    saves_result = True

    def forward(self, a: Tensor) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.reciprocal(a._array.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        result = self.unpack("result")
        return (-grad * result * result,)


class PowBackward0(Node):
    """a ** exponent, for a number exponent: d/da = exponent * a ** (exponent - 1)."""

    def __init__(self, exponent: float) -> None:
        super().__init__()
        self.exponent = exponent

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        # an integer tensor stays integer for an integer exponent, else becomes float32
        fractional = isinstance(self.exponent, float) and a._array.dtype.kind != "f"
        dtype = np.float32 if fractional else a._array.dtype
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.power(a._array, self.exponent).astype(dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        if self.exponent == 0:
            return (np.zeros_like(grad),)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (grad * self.exponent * np.power(self.unpack("self"), self.exponent - 1),)


class PowBackward1(Node):
    """a ** b for two tensors: d/da = b * a ** (b - 1), d/db = a ** b * log(a)."""

    saves_result = True

    def forward(self, a: Tensor, b: Tensor) -> np.ndarray:
        check_broadcast(a, b)
        self.save("self", a)
        self.save("exponent", b)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.power(a._array, b._array, dtype=float_dtype(a, b))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b, result = self.unpack("self"), self.unpack("exponent"), self.unpack("result")
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_a = grad * b * np.power(a, b - 1)
            grad_b = np.where(a > 0, grad * result * np.log(np.where(a > 0, a, 1)), 0)
        return grad_a, grad_b


class PowBackward2(Node):
    """number ** a: d/da = number ** a * log(number)."""

    saves_result = True

    def __init__(self, base: float) -> None:
        super().__init__()
        self.base = base

    def forward(self, a: Tensor) -> np.ndarray:
        integral = isinstance(self.base, int) and a._array.dtype.kind in "iub"
        dtype = np.int64 if integral else float_dtype(a)  # 2 ** int stays int, as in torch
        return np.power(np.asarray(self.base, dtype=dtype), a._array.astype(dtype, copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * self.unpack("result") * np.log(self.base),)


# --------------------------------------------------------------------------------------------
# Elementwise functions
# --------------------------------------------------------------------------------------------


class ExpBackward0(Node):
    """exp(a): its derivative is itself, so it saves its own result."""

    saves_result = True

    def forward(self, a: Tensor) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.exp(a._array.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * self.unpack("result"),)


class LogBackward0(Node):
    """log(a): d/da = 1 / a."""

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(a._array.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(divide="ignore"):
            return (grad / self.unpack("self"),)


class SigmoidBackward0(Node):
    """sigmoid(a) = 1 / (1 + exp(-a)); d/da = s * (1 - s), written with the saved output s."""

    saves_result = True

    def forward(self, a: Tensor) -> np.ndarray:
        x = a._array.astype(float_dtype(a), copy=False)
        # exp(-x) overflows to inf for very negative x, and 1 / (1 + inf) is the right 0
        result = np.negative(x, out=np.empty_like(x))  # then in place: one array in all
        with np.errstate(over="ignore"):
            np.exp(result, out=result)
        result += 1
        return np.reciprocal(result, out=result)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        s = self.unpack("result")
        local = 1 - s  # s * (1 - s) * grad, computed in place in one new array
        local *= s
        local *= grad
        return (local,)


class TanhBackward0(Node):
    """tanh(a); d/da = 1 - tanh(a)**2, written with the saved output."""

    saves_result = True

    def forward(self, a: Tensor) -> np.ndarray:
        return np.tanh(a._array.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        t = self.unpack("result")
        return (grad * (1 - t * t),)


class ReluBackward0(Node):
    """max(a, 0); the gradient passes where the output is positive (0 at a == 0, as torch)."""

    saves_result = True

    def forward(self, a: Tensor) -> np.ndarray:
        return np.maximum(a._array, 0).astype(a._array.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * (self.unpack("result") > 0),)


class SqrtBackward0(Node):
    """sqrt(a); d/da = 1 / (2 sqrt(a))."""

    saves_result = True

    def forward(self, a: Tensor) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.sqrt(a._array.astype(float_dtype(a), copy=False))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        with np.errstate(divide="ignore"):
            return (grad / (2 * self.unpack("result")),)


class AbsBackward0(Node):
    """|a|; d/da = sign(a) (0 at a == 0, as torch)."""

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return np.abs(a._array)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad * np.sign(self.unpack("self")),)


class ClampBackward1(Node):
    """min(max(a, low), high); the gradient passes where a is inside [low, high] (inclusive)."""

    def __init__(self, low: float | None, high: float | None) -> None:
        super().__init__()
        if low is None and high is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        self.low, self.high = low, high

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        return np.clip(a._array, self.low, self.high).astype(a._array.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        a = self.unpack("self")
        inside = np.ones(a.shape, dtype=bool)
        if self.low is not None:
            inside &= a >= self.low
        if self.high is not None:
            inside &= a <= self.high
        return (grad * inside,)


class RoundBackward0(Node):
    """round(a): flat almost everywhere, so its gradient is zero (straight-through needs detach)."""

    def forward(self, a: Tensor) -> np.ndarray:
        return np.round(a._array)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (np.zeros_like(grad),)


class CloneBackward0(Node):
    """A copy in new memory; the gradient passes through unchanged."""

    def forward(self, a: Tensor) -> np.ndarray:
        return a._array.copy()

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


class ToCopyBackward0(Node):
    """A copy converted to another dtype (`.double()`, `.float()`, `.to(dtype)`)."""

    def __init__(self, dtype: np.dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def forward(self, a: Tensor) -> np.ndarray:
        self.source_dtype = a._array.dtype
        return a._array.astype(self.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.astype(self.source_dtype),)
