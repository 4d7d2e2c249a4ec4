"""Reductions: sum, mean and max, which shrink a tensor along some (or all) dimensions.

Their backward does the opposite: it stretches the output's gradient back over the elements
that were reduced. For `sum` every element gets the gradient, for `mean` a share of it, and for
`max` only the element(s) that won. The dims arrive already checked (`_shapes.normalize_dims`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..graph import Node, Save
from .formulas import (
    constant,
    expand_to,
    is_array,
    lift,
    mean_keepdim,
    record,
    sum_keepdim,
    values_of,
)
from .unary import AbsBackward0, WhereBackward0, scaled, sign_or_zero
from .views import MaskedFillBackward0, SavesIndices, unsqueeze_to

# Above this many elements, the backward of a full sum or mean hands out a read-only broadcast
# view of its one gradient value: no memory written, a whole pass saved at 10^6 elements. Below
# it, numpy makes an array filled with the value faster than it makes the view. Either way the
# gradient is read-only, as torch's expanded one is (one value in memory): a hook that writes
# into it in place gets torch's error, and the engine copies it before adding into it.
SPREAD_AS_VIEW_ABOVE = 16_384


def _spread(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """One gradient value at every position of `shape` (the backward of a full reduction)."""
    if not is_array(value) or math.prod(shape) > SPREAD_AS_VIEW_ABOVE:
        return expand_to(value, shape)
    filled = np.empty(shape, dtype=value.dtype)  # (np.full, without its Python-level steps)
    filled[...] = value
    filled.setflags(write=False)
    return filled


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with the reduced `axes` kept as size 1 (what keepdim=True gives)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _expand_back(grad: np.ndarray, shape: tuple[int, ...], axes: tuple[int, ...], keepdim: bool):
    """Broadcast a reduced gradient back to the input's shape."""
    if not keepdim and shape:
        grad = grad.reshape(_kept_shape(shape, axes))
    return expand_to(grad, shape)


def _sum_dtype(a: np.ndarray) -> np.dtype:
    return a.dtype if a.dtype.kind == "f" else np.dtype(np.int64)


class SumBackward0(Node):
    """sum(self) -- self: grad.expand(self.sizes())."""

    saved_numbers = ("self_sym_sizes",)  # torch's _saved_self_sym_sizes

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(np.add.reduce(a, axis=None, dtype=_sum_dtype(a)))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (_spread(grad, self.input_shapes[0]),)


class ProdBackward0(Node):
    """prod(self) -- self: grad * (the product of all the other elements), which is
    grad * result / self where no element is 0."""

    saves = (Save("self", input=0),)
    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(np.prod(a, dtype=_sum_dtype(a)))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        a, result = self.unpack("self"), self.unpack("result")
        if _has_zero(a):  # dividing by 0 would not do: multiply the others directly
            flat = a.reshape(-1)
            others = _product_of_others(flat.reshape((flat.shape[0], 1)), 0)
            return (grad * others.reshape(tuple(self.input_shapes[0])),)
        return (grad * (result / a),)  # (torch's grouping: its graph, its rounding)


class ProdBackward1(Node):
    """prod(self, dim, keepdim) -- self: grad * (the product of the other elements along
    dim), unsqueezed at dim unless keepdim."""

    saves = (Save("self", input=0),)
    saves_result = True
    saved_numbers = ("dim", "keepdim")

    def __init__(self, axis: int, keepdim: bool) -> None:
        self.axis, self.keepdim = axis, keepdim

    def saved_number(self, name: str) -> Any:
        """`_saved_dim`: the dim as given (`showing`), else the one this node reduces."""
        if name == "dim" and (self.shown is None or "dim" not in self.shown):
            return self.axis
        return super().saved_number(name)

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(np.prod(a, axis=self.axis, keepdims=self.keepdim, dtype=_sum_dtype(a)))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        a, result = self.unpack("self"), self.unpack("result")
        if not self.keepdim:
            shape = _kept_shape(self.input_shapes[0], (self.axis,))
            grad = unsqueeze_to(grad, (self.axis,), shape)
            result = unsqueeze_to(result, (self.axis,), shape)
        if _has_zero(a):
            return (grad * _product_of_others(a, self.axis),)
        return (grad * (result / a),)


def _has_zero(a: np.ndarray) -> bool:
    """True when some element is 0 (read from the values, also during create_graph)."""
    values = a if is_array(a) else a.detach().numpy()
    return bool((values == 0).any())


def _product_of_others(a: Any, axis: int) -> Any:
    """For each element, the product of the other elements along `axis`, with no division (an
    element may be 0). Made of recorded ops, so that under create_graph it can be
    differentiated again: a copy of the axis next to it, 1 on the diagonal, and the product
    over the copy."""
    length = a.shape[axis]
    copies = tuple(a.shape[: axis + 1]) + (length,) + tuple(a.shape[axis + 1 :])
    spread = expand_to(a.reshape(tuple(a.shape[:axis]) + (1,) + tuple(a.shape[axis:])), copies)
    eye = np.eye(length, dtype=bool).reshape((length, length) + (1,) * (len(a.shape) - axis - 1))
    masked = record(WhereBackward0(), lift(eye, a), 1.0, spread)
    return record(ProdBackward1(axis + 1, False), masked)


class SumBackward1(Node):
    """sum(self, dim, keepdim) -- self: grad, unsqueezed at dim unless keepdim, expanded."""

    saved_numbers = ("dim", "keepdim", "self_sym_sizes")  # dim: as given (`showing`)

    def __init__(self, axes: tuple[int, ...], keepdim: bool) -> None:
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

    saved_numbers = ("self_sym_numel", "self_sym_sizes")

    def __init__(self, kind: str = "Float") -> None:
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

    saved_numbers = ("dim", "keepdim", "self_sym_numel", "self_sym_sizes")  # dim: `showing`

    def __init__(self, axes: tuple[int, ...], keepdim: bool, kind: str = "Float") -> None:
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

    saves = (Save("self", input=0),)
    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        if a.size == 0:
            raise RuntimeError(
                "max(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return np.asarray(np.max(a))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shares = constant(_share_of_max, self.unpack("self"), self.unpack("result"))
        return (grad * shares,)


def _share_of_max(a: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Each element's share of the gradient of max(a) (`top`): equal shares for the elements
    equal to the maximum (the nan ones, if the maximum is nan), 0 for the rest."""
    winners = np.isnan(a) if np.isnan(top) else a == top
    return (winners / np.count_nonzero(winners)).astype(a.dtype)


class MaxBackward0(SavesIndices):
    """max(self, dim, keepdim) -- self: value_selecting_reduction_backward(grad, dim, indices):
    the gradient goes to the (first) index of each maximum."""

    saved_numbers = ("dim", "indices", "keepdim", "self_sym_sizes")

    def __init__(self, axis: int | None, keepdim: bool) -> None:
        self.axis, self.keepdim = axis, keepdim  # axis None: a 0-d input

    def saved_number(self, name: str) -> Any:
        """`_saved_indices`: where each maximum is, an int64 tensor, until backward frees it."""
        return self.kept_tensor(self.indices) if name == "indices" else super().saved_number(name)

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
        self.check_indices()
        if self.axis is None:
            return (grad,)
        shape = self.input_shapes[0]
        spread = _expand_back(grad, shape, (self.axis,), self.keepdim)
        return (spread * constant(self.winner_mask, spread),)

    def winner_mask(self, like: np.ndarray) -> np.ndarray:
        """1 at the index of each maximum along the dim, 0 elsewhere (in `like`'s dtype)."""
        indices = self.indices if self.keepdim else np.expand_dims(self.indices, self.axis)
        mask = np.zeros(like.shape, dtype=like.dtype)
        np.put_along_axis(mask, indices, 1, axis=self.axis)
        return mask


class MinBackward1(MaxBackward1):
    """min(self) -- self: evenly_distribute_backward(grad, self, result): shared between the
    elements equal to the minimum."""

    saves = (Save("self", input=0),)

    def forward(self, a: np.ndarray) -> np.ndarray:
        if a.size == 0:
            raise RuntimeError(
                "min(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return np.asarray(np.min(a))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shares = constant(_share_of_min, self.unpack("self"), self.unpack("result"))
        return (grad * shares,)


def _share_of_min(a: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """Each element's share of the gradient of min(a) (`bottom`; see _share_of_max)."""
    return _share_of_max(-a, -bottom)


class MinBackward0(MaxBackward0):
    """min(self, dim, keepdim) -- self: the gradient goes to the (first) index of each minimum."""

    def forward(self, a: np.ndarray) -> np.ndarray:
        if self.axis is not None and a.shape[self.axis] == 0:
            raise IndexError(f"min(): Expected reduction dim {self.axis} to have non-zero size.")
        values = super().forward(-a) if a.dtype.kind != "b" else super().forward(~a)
        return -values if a.dtype.kind != "b" else ~values


class AmaxBackward0(Node):
    """amax(self, dim, keepdim) -- self: grad shared evenly between the elements equal to the
    maximum along dim."""

    saves = (Save("self", input=0),)
    saves_result = True
    saved_numbers = ("dim", "keepdim")  # (dim as given: `showing`)

    reduce = staticmethod(np.max)

    def __init__(self, axes: tuple[int, ...], keepdim: bool) -> None:
        self.axes, self.keepdim = axes, keepdim

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(self.reduce(a, axis=self.axes, keepdims=self.keepdim))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        spread = _expand_back(grad, shape, self.axes, self.keepdim)
        extreme = _expand_back(self.unpack("result"), shape, self.axes, self.keepdim)
        return (spread * constant(self.shares, self.unpack("self"), extreme),)

    def shares(self, a: np.ndarray, extreme: np.ndarray) -> np.ndarray:
        """Each element's share: 1 / (ties along the dims) where it equals the extreme, else 0."""
        winners = a == extreme
        with np.errstate(invalid="ignore"):  # a nan extreme: no winner, 0 / 0, as torch quietly
            return (winners / winners.sum(axis=self.axes, keepdims=True)).astype(a.dtype)


class AminBackward0(AmaxBackward0):
    """amin(self, dim, keepdim) -- self: grad shared evenly between the minima along dim."""

    reduce = staticmethod(np.min)


class VarBackward0(Node):
    """var(self, dim, correction, keepdim) -- self: grad * 2 * (self - mean) / (N - correction)."""

    saves = (Save("self", input=0),)
    saved_numbers = ("correction", "dim", "keepdim")  # (the first two as given: `showing`)

    def __init__(
        self, axes: tuple[int, ...], correction: float, keepdim: bool, no_dim: bool = False
    ) -> None:
        self.axes, self.correction, self.keepdim = axes, correction, keepdim
        self.no_dim = no_dim  # called without a dim: torch's formula differs when N <= correction

    def forward(self, a: np.ndarray) -> np.ndarray:
        count = math.prod(a.shape[i] for i in self.axes)
        with np.errstate(invalid="ignore", divide="ignore"):  # the mean of nothing is nan
            mean = np.add.reduce(a, axis=self.axes, keepdims=True) / count
        centered = a - mean
        squares = np.add.reduce(centered * centered, axis=self.axes, keepdims=self.keepdim)
        with np.errstate(invalid="ignore", divide="ignore"):  # N - correction <= 0: inf or nan
            return np.asarray(squares / max(count - self.correction, 0), dtype=a.dtype)

    def divisor(self, shape: tuple[int, ...]) -> float:
        """N - correction, N the number of elements reduced."""
        return math.prod(shape[i] for i in self.axes) - self.correction

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        # torch's var_backward: (2 / (N - correction)) * grad * (self - mean), grad given back
        # the reduced dims (broadcasting spreads it), in that order (its graph, its rounding)
        a = self.unpack("self")
        shape = self.input_shapes[0]
        whole = self.no_dim or not shape
        centered = a - (a.mean() if whole else mean_keepdim(a, self.axes))
        if not whole and not self.keepdim:
            grad = unsqueeze_to(grad, sorted(self.axes), _kept_shape(shape, self.axes))
        divisor = self.divisor(shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            if divisor <= 0 and whole:  # torch: inf; nan where 0 * inf
                return (grad * constant(_infinite_slopes, centered),)
            return (scaled(grad, 2 / divisor if divisor else math.inf) * centered,)


def _infinite_slopes(centered: np.ndarray) -> np.ndarray:
    """var's slope when N - correction <= 0 over every dim, as torch gives it: inf, and nan
    where the value is the mean."""
    return np.where(centered == 0, np.nan, np.inf).astype(centered.dtype)


class StdBackward0(VarBackward0):
    """std(self, dim, correction, keepdim) -- self: var's gradient / (2 * result)."""

    saves_result = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.sqrt(super().forward(a))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        result = self.unpack("result")
        with np.errstate(invalid="ignore", divide="ignore"):
            # torch's std_backward: (grad / (result * 2)).masked_fill_(result == 0, 0) -- where
            # the deviation is 0 it gives 0, not 0 / 0 -- then var's gradient of that
            no_deviation = values_of(result) == 0
            halved = grad / scaled(result, 2)
            return super().backward(record(MaskedFillBackward0(no_deviation, 0), halved))


class LinalgVectorNormBackward0(Node):
    """linalg_vector_norm(self, ord, dim, keepdim) -- self, for ord p:
    grad * self * |self|^(p-2) / result^(p-1) (p = 2: grad * self / result; p = 1:
    grad * sgn(self); p = inf: shared between the largest |self|; p = 0: zero)."""

    saves = (Save("self", input=0),)

    saves_result = True
    saved_numbers = ("dim", "keepdim", "ord")  # (dim and ord as given: `showing`)

    def __init__(
        self, order: float, axes: tuple[int, ...], keepdim: bool, no_dim: bool = False
    ) -> None:
        self.order, self.axes, self.keepdim = order, axes, keepdim
        self.no_dim = no_dim  # (then the 0-d norm and grad broadcast: torch unsqueezes nothing)

    def forward(self, a: np.ndarray) -> np.ndarray:
        magnitude = np.abs(a)
        p, axes, keep = self.order, self.axes, self.keepdim
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if p == math.inf:
                values = np.max(magnitude, axis=axes, keepdims=keep, initial=0)
            elif p == -math.inf:
                values = np.min(magnitude, axis=axes, keepdims=keep)
            elif p == 0:
                values = np.sum(magnitude != 0, axis=axes, keepdims=keep)
            else:
                values = np.sum(magnitude**p, axis=axes, keepdims=keep) ** (1 / p)
        return np.asarray(values, dtype=a.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        # torch's norm_backward, case by case, in its order (its graph, its rounding)
        a, shape, p = self.unpack("self"), self.input_shapes[0], self.order
        norm = self.unpack("result")
        if p == 0:
            return (_expand_back(grad, shape, self.axes, self.keepdim) * 0,)
        if not self.keepdim and shape and not self.no_dim:
            kept, dims = _kept_shape(shape, self.axes), sorted(self.axes)
            grad, norm = unsqueeze_to(grad, dims, kept), unsqueeze_to(norm, dims, kept)
        if p == 1:
            return (sign_or_zero(a) * grad,)
        if abs(p) == math.inf:
            winners = constant(self.winners, a)
            ties = sum_keepdim(winners, self.axes)  # (a constant too: no history to record)
            return (sign_or_zero(a) * ((grad / ties) * winners),)
        with np.errstate(divide="ignore", invalid="ignore"):
            if p == 2:
                return (grad * _zero_where(values_of(norm) == 0, a / norm),)
            if p < 1:
                powers = _zero_where(values_of(a) == 0, abs_value(a) ** (p - 1))
                return (sign_or_zero(a) * powers * grad * norm ** (1 - p),)
            if p < 2:
                self_scaled = sign_or_zero(a) * abs_value(a) ** (p - 1)
            else:
                self_scaled = a * abs_value(a) ** (p - 2)
            # where the norm is 0 its gradient is 0 (torch's choice), not 0 / 0
            scale = _zero_where(values_of(norm) == 0, grad / norm ** (p - 1))
            return (self_scaled * scale,)

    def winners(self, a: np.ndarray) -> np.ndarray:
        """1 where |a| is the largest (smallest for -inf) along the dims, or nan; else 0."""
        magnitude = np.abs(a)
        pick = np.max if self.order == math.inf else np.min
        extreme = pick(magnitude, axis=self.axes, keepdims=True)
        return ((magnitude == extreme) | np.isnan(magnitude)).astype(a.dtype)


def _zero_where(mask: np.ndarray, value: np.ndarray) -> np.ndarray:
    """`value` with 0 where `mask` is true: torch's masked_fill_(mask, 0), recorded on tensors."""
    return record(MaskedFillBackward0(mask, 0), value)


def abs_value(value: np.ndarray) -> np.ndarray:
    """|value|, recorded on tensors."""
    return record(AbsBackward0(), value)
