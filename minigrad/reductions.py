"""Reductions: sum, mean and max, which shrink a tensor along some (or all) dimensions.

Their backward does the opposite: it stretches the output's gradient back over the elements
that were reduced. For `sum` every element gets the gradient, for `mean` a share of it, and for
`max` only the element(s) that won.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .autograd import Node
from .ops import normalize_dims, run_op
from .tensor import Tensor

# Above this many elements, the backward of a full sum or mean hands out a read-only broadcast
# view of its one gradient value: no memory written, a whole pass saved at 10^6 elements. Below
# it, numpy makes an array filled with the value faster than it makes the view.
SPREAD_AS_VIEW_ABOVE = 16_384


def _spread(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """One gradient value at every position of `shape` (the backward of a full reduction)."""
    if math.prod(shape) > SPREAD_AS_VIEW_ABOVE:
        return np.broadcast_to(value, shape)
    return np.full(shape, value, dtype=value.dtype)


def _expand_back(grad: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...], keepdim: bool):
    """Broadcast a reduced gradient back to the input's shape."""
    if not keepdim and shape:
        grad = np.expand_dims(grad, axes)
    return np.broadcast_to(grad, shape)


class SumBackward0(Node):
    """Sum of all elements: every element gets the output's gradient."""

    def forward(self, a: Tensor) -> np.ndarray:
        dtype = a._array.dtype if a._array.dtype.kind == "f" else np.int64
        return np.asarray(np.add.reduce(a._array, axis=None, dtype=dtype))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (_spread(grad, self.input_shapes[0]),)


class SumBackward1(Node):
    """Sum over the dimensions `dim`."""

    def __init__(self, dim: int | Sequence[int], keepdim: bool) -> None:
        super().__init__()
        self.dim, self.keepdim = dim, keepdim

    def forward(self, a: Tensor) -> np.ndarray:
        self.axes = normalize_dims(self.dim, a.ndim)
        dtype = a._array.dtype if a._array.dtype.kind == "f" else np.int64
        return np.asarray(a._array.sum(axis=self.axes, keepdims=self.keepdim, dtype=dtype))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (_expand_back(grad, self.input_shapes[0], self.axes, self.keepdim),)


def _check_mean_dtype(a: Tensor) -> None:
    if a._array.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {a.dtype.torch_kind}"
        )


class MeanBackward0(Node):
    """Mean of all elements: every element gets grad / n."""

    def forward(self, a: Tensor) -> np.ndarray:
        _check_mean_dtype(a)
        return np.asarray(a._array.mean(dtype=a._array.dtype))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        return (_spread(grad / max(math.prod(shape), 1), shape),)


class MeanBackward1(Node):
    """Mean over the dimensions `dim`."""

    def __init__(self, dim: int | Sequence[int], keepdim: bool) -> None:
        super().__init__()
        self.dim, self.keepdim = dim, keepdim

    def forward(self, a: Tensor) -> np.ndarray:
        _check_mean_dtype(a)
        self.axes = normalize_dims(self.dim, a.ndim)
        return np.asarray(a._array.mean(axis=self.axes, keepdims=self.keepdim))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        count = int(np.prod([shape[i] for i in self.axes])) if shape else 1
        return (_expand_back(grad / count, shape, self.axes, self.keepdim),)


class MaxBackward1(Node):
    """Maximum of all elements: the gradient is shared evenly between tied maxima (as torch)."""

    def forward(self, a: Tensor) -> np.ndarray:
        if a._array.size == 0:
            raise RuntimeError(
                "max(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        self.save("self", a)
        return np.asarray(a._array.max())

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        a = self.unpack("self")
        winners = a == a.max()
        return (grad * winners / winners.sum(),)


class MaxBackward0(Node):
    """Maximum along `dim`: the gradient goes to the first index of the maximum."""

    def __init__(self, dim: int, keepdim: bool) -> None:
        super().__init__()
        self.dim, self.keepdim = dim, keepdim

    def forward(self, a: Tensor) -> np.ndarray:
        (self.axis,) = normalize_dims(self.dim, a.ndim)
        self.indices = np.expand_dims(np.argmax(a._array, axis=self.axis), self.axis)
        values = np.take_along_axis(a._array, self.indices, axis=self.axis)
        return values if self.keepdim else np.squeeze(values, axis=self.axis)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        if not self.keepdim:
            grad = np.expand_dims(grad, self.axis)
        full = np.zeros(self.input_shapes[0], dtype=grad.dtype)
        np.put_along_axis(full, self.indices, grad, axis=self.axis)
        return (full,)


class MaxResult(NamedTuple):
    """What `t.max(dim)` returns: the maxima and where they are (torch.return_types.max)."""

    values: Tensor
    indices: Tensor


def max_along(a: Tensor, dim: int, keepdim: bool = False) -> MaxResult:
    """(values, indices) of the maximum along `dim`."""
    node = MaxBackward0(dim, keepdim)
    values = run_op(node, a)
    indices = node.indices if keepdim else np.squeeze(node.indices, axis=node.axis)
    return MaxResult(values, Tensor._from_array(indices.astype(np.int64)))
