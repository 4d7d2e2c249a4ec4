"""What a backward formula is written with, so that each derivative is written once.

A formula normally runs on numpy arrays. During `backward(create_graph=True)` the very same
formula runs on tensors, and every step of it is recorded, so a gradient can be differentiated
again. `+ - * / ** @` and comparisons already work on both. For the rest a formula calls:

- `record(node, *inputs)`: run an op node; on arrays that is just its `forward`, on tensors it
  is recorded in the graph (by a method of the tensors given: this module never names the
  Tensor class, which is defined above it);
- the small helpers below, each an array branch and a tensor branch side by side.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..dtypes import from_numpy_dtype
from ..engine import unbroadcast
from ..grad_mode import _state
from ..graph import Node

__all__ = [
    "cast",
    "clamp_min",
    "constant",
    "expand_to",
    "is_array",
    "lift",
    "permute",
    "record",
    "sum_keepdim",
    "sum_to",
    "zeros",
    "zeros_like",
]


def is_array(value: Any) -> bool:
    """True for numpy values (backward on arrays), False for tensors (create_graph)."""
    return isinstance(value, (np.ndarray, np.generic))


def record(node: Node, *inputs: Any) -> Any:
    """`node`'s op on `inputs`: its forward on arrays, a recorded op on tensors.

    Backward runs with grad mode off, except with create_graph=True: then the values are
    tensors and the op is recorded, through the first tensor given (numbers beside it become
    tensors); on arrays and numbers alone it is a bare forward.
    """
    if not _state.enabled:
        return node.forward(*inputs)  # (numbers stay Python numbers: numpy keeps the dtype)
    like = _first_tensor(inputs)
    if like is None:
        return node.forward(*inputs)
    return like._apply_with_numbers(node, *inputs)


def _first_tensor(values: tuple[Any, ...]) -> Any:
    """The first value that is a tensor (not an array, not a Python number), or None."""
    for value in values:
        if not is_array(value) and not isinstance(value, (bool, int, float)):
            return value
    return None


sum_to = unbroadcast  # `grad` summed down to `shape` (the backward of broadcasting)


def expand_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """`grad` broadcast to `shape` without copying (torch's expand)."""
    if is_array(grad):
        return np.broadcast_to(grad, shape)
    return grad.expand(shape)


def zeros_like(value: Any) -> Any:
    """Zeros of `value`'s shape and dtype: a constant, on either kind of value."""
    if is_array(value):
        return np.zeros_like(value)
    return value.new_zeros(value.shape)


def cast(value: Any, dtype: np.dtype) -> Any:
    """`value` converted to `dtype` (numpy's astype, torch's `.to`)."""
    if is_array(value):
        return value.astype(dtype)
    return value.to(from_numpy_dtype(dtype))


def constant(compute: Callable[..., np.ndarray], *values: Any) -> Any:
    """`compute(the values of values)`, as a constant with no history.

    For the parts of a formula whose own derivative is zero wherever it exists (a sign, a mask
    of where the gradient passes, which element won a max): on tensors they are computed from
    the values and enter the graph as constants.
    """
    if all(is_array(value) for value in values):
        return compute(*values)
    arrays = [value if is_array(value) else value.detach().numpy() for value in values]
    return _first_tensor(values)._sibling(compute(*arrays))


def values_of(value: Any) -> np.ndarray:
    """The array of values of an array, or of a tensor (under create_graph): for a mask that
    enters a formula as an argument of its node, not as an input."""
    return value if is_array(value) else value.detach().numpy()


def lift(array: np.ndarray, like: Any) -> Any:
    """A stored array (a weight, a mask) next to `like`: itself beside arrays, a tensor without
    history beside tensors."""
    return array if is_array(like) else like._sibling(array)


def sum_keepdim(value: Any, dims: int | tuple[int, ...]) -> Any:
    """`value` summed over `dims`, keeping them as size 1."""
    if is_array(value):
        return value.sum(axis=dims, keepdims=True)
    return value.sum(dims, keepdim=True)


def mean_keepdim(value: Any, dims: int | tuple[int, ...]) -> Any:
    """The mean of `value` over `dims`, keeping them as size 1."""
    if is_array(value):
        return value.mean(axis=dims, keepdims=True)
    return value.mean(dims, keepdim=True)


def clamp_min(value: Any, low: float) -> Any:
    """max(value, low), elementwise."""
    if is_array(value):
        return np.maximum(value, low)
    return value.clamp(min=low)


def permute(value: Any, dims: tuple[int, ...]) -> Any:
    """`value` with its dimensions in the order `dims`."""
    if is_array(value):
        return np.transpose(value, dims)
    return value.permute(dims)


def transposed(matrix: Any) -> Any:
    """`matrix` transposed: `.T` on arrays; on tensors (create_graph) `t()`, which records
    torch's TBackward0 as its formulas do (`.T` on a tensor records PermuteBackward0)."""
    return matrix.T if is_array(matrix) else matrix.t()


def zeros(shape: tuple[int, ...], like: Any) -> Any:
    """Zeros of `shape`, in `like`'s dtype and kind (array or tensor): a constant."""
    if is_array(like):
        return np.zeros(shape, dtype=like.dtype)
    return like.new_zeros(shape)
