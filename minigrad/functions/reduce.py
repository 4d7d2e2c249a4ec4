"""Reductions: sum, mean and max, which shrink a tensor along some (or all) dimensions.

Their backward does the opposite: it stretches the output's gradient back over the elements
that were reduced. For `sum` every element gets the gradient, for `mean` a share of it, and for
`max` only the element(s) that won. The dims arrive already checked (`_shapes.normalize_dims`).
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Node

# Above this many elements, the backward of a full sum or mean hands out a read-only broadcast
# view of its one gradient value: no memory written, a whole pass saved at 10^6 elements. Below
# it, numpy makes an array filled with the value faster than it makes the view.
SPREAD_AS_VIEW_ABOVE = 16_384


def _spread(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """One gradient value at every position of `shape` (the backward of a full reduction)."""
    if math.prod(shape) > SPREAD_AS_VIEW_ABOVE:
        return np.broadcast_to(value, shape)
    filled = np.empty(shape, dtype=value.dtype)  # (np.full, without its Python-level steps)
    filled[...] = value
    return filled


def _expand_back(grad: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...], keepdim: bool):
    """Broadcast a reduced gradient back to the input's shape."""
    if not keepdim and shape:
        grad = np.expand_dims(grad, axes)
    return np.broadcast_to(grad, shape)


def _sum_dtype(a: np.ndarray) -> np.dtype:
    return a.dtype if a.dtype.kind == "f" else np.dtype(np.int64)


class SumBackward0(Node):
    """sum(self) -- self: grad.expand(self.sizes())."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(np.add.reduce(a, axis=None, dtype=_sum_dtype(a)))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (_spread(grad, self.input_shapes[0]),)


class SumBackward1(Node):
    """sum(self, dim, keepdim) -- self: grad, unsqueezed at dim unless keepdim, expanded."""

    def __init__(self, axes: tuple[int, ...], keepdim: bool) -> None:
        super().__init__()
        self.axes, self.keepdim = axes, keepdim

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(a.sum(axis=self.axes, keepdims=self.keepdim, dtype=_sum_dtype(a)))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (_expand_back(grad, self.input_shapes[0], self.axes, self.keepdim),)


def _check_mean_dtype(a: np.ndarray, kind: str) -> None:
    if a.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {kind}"
        )


class MeanBackward0(Node):
    """mean(self) -- self: grad.expand(self.sizes()) / self.numel()."""

    def __init__(self, kind: str = "Float") -> None:
        super().__init__()
        self.kind = kind  # the input dtype's word, for the error about integer inputs

    def forward(self, a: np.ndarray) -> np.ndarray:
        _check_mean_dtype(a, self.kind)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(np.add.reduce(a, axis=None, dtype=a.dtype) / a.size).astype(a.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        return (_spread(grad / max(math.prod(shape), 1), shape),)


class MeanBackward1(Node):
    """mean(self, dim, keepdim) -- self: grad expanded back over dim, / the number reduced."""

    def __init__(self, axes: tuple[int, ...], keepdim: bool, kind: str = "Float") -> None:
        super().__init__()
        self.axes, self.keepdim, self.kind = axes, keepdim, kind

    def forward(self, a: np.ndarray) -> np.ndarray:
        _check_mean_dtype(a, self.kind)
        count = math.prod(a.shape[i] for i in self.axes)
        total = np.add.reduce(a, axis=self.axes, keepdims=self.keepdim, dtype=a.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0 is nan, quietly, as torch
            return np.asarray(total / count).astype(a.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        count = math.prod(shape[i] for i in self.axes) if shape else 1
        return (_expand_back(grad / count, shape, self.axes, self.keepdim),)


class MaxBackward1(Node):
    """max(self) -- self: evenly_distribute_backward(grad, self, result): the gradient is shared
    between the elements equal to the maximum (the nan ones, if the maximum is nan)."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        if a.size == 0:
            raise RuntimeError(
                "max(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        self.save("self", 0)
        return np.asarray(np.max(a))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        a = self.unpack("self")
        top = np.max(a)
        winners = np.isnan(a) if np.isnan(top) else a == top
        return ((grad * winners / winners.sum()).astype(grad.dtype, copy=False),)


class MaxBackward0(Node):
    """max(self, dim, keepdim) -- self: value_selecting_reduction_backward(grad, dim, indices):
    the gradient goes to the (first) index of each maximum."""

    def __init__(self, axis: int | None, keepdim: bool) -> None:
        super().__init__()
        self.axis, self.keepdim = axis, keepdim  # axis None: a 0-d input

    def forward(self, a: np.ndarray) -> np.ndarray:
        if self.axis is None:
            self.indices = np.zeros((), dtype=np.int64)
            return a.copy()
        if a.shape[self.axis] == 0:
            raise IndexError(f"max(): Expected reduction dim {self.axis} to have non-zero size.")
        self.indices = np.expand_dims(np.argmax(a, axis=self.axis), self.axis)
        values = np.take_along_axis(a, self.indices, axis=self.axis)
        if not self.keepdim:
            values = np.squeeze(values, axis=self.axis)
            self.indices = np.squeeze(self.indices, axis=self.axis)
        return values

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        if self.axis is None:
            return (grad,)
        indices = self.indices
        if not self.keepdim:
            grad = np.expand_dims(grad, self.axis)
            indices = np.expand_dims(indices, self.axis)
        full = np.zeros(self.input_shapes[0], dtype=grad.dtype)
        np.put_along_axis(full, indices, grad, axis=self.axis)
        return (full,)
