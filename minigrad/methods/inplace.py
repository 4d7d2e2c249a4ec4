"""In-place methods (the trailing `_`): they change this tensor's memory, bump the version
counter it shares with its views and detach()ed aliases, and, when the change must be
differentiated, record it (see `TensorCore._apply_inplace` in recording.py).

The in-place view ops (`unsqueeze_`, `squeeze_`, `t_`, `transpose_`) change the tensor's shape
instead of its values; they bump the version too, as torch's do.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import random
from .._convert import number_in, type_name
from .._shapes import broadcast_shapes, wrap_dim
from ..functions import arith, unary, views
from ..functions.inplace import (
    BernoulliBackward2,
    CopyBackwards,
    FillBackward2,
    FillBackward3,
    NormalBackward0,
    UniformBackward0,
    ZeroBackward0,
)
from ..graph import Node
from .base import TensorBase

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["InplaceMethods"]


class InplaceMethods(TensorBase):
    """Changes of this tensor, in place; each returns self."""

    def _inplace_binary(self, node: Node, other: object, method: str) -> Tensor:
        other = self._operand(other, method)
        shape, other_shape = self._array.shape, other._array.shape
        if shape != other_shape and shape and other_shape:  # a 0-d side (a number) always fits
            broadcast_shapes(shape, other_shape)
        return self._apply_inplace(node, other)

    def add_(self, other: object, alpha: float = 1) -> Tensor:
        """self += alpha * other, in place."""
        return self._inplace_binary(arith.AddBackward0(alpha), other, "add_")

    def sub_(self, other: object, alpha: float = 1) -> Tensor:
        """self -= alpha * other, in place."""
        return self._inplace_binary(arith.SubBackward0(alpha), other, "sub_")

    def mul_(self, other: object) -> Tensor:
        """self *= other, in place."""
        return self._inplace_binary(arith.MulBackward0(), other, "mul_")

    def div_(self, other: object, *, rounding_mode: str | None = None) -> Tensor:
        """self /= other, in place (rounding_mode 'trunc' or 'floor' rounds the quotient)."""
        if rounding_mode is None:
            return self._inplace_binary(arith.DivBackward0(), other, "div_")
        self.div(other, rounding_mode=rounding_mode)  # (its checks of the mode)
        return self._inplace_binary(arith.DivBackward2(rounding_mode), other, "div_")

    def pow_(self, exponent: object) -> Tensor:
        """self **= exponent, in place."""
        if isinstance(exponent, (numbers.Real, np.number)) and not isinstance(exponent, TensorBase):
            return self._apply_inplace(arith.PowBackward0(exponent))
        return self._inplace_binary(arith.PowBackward1(), exponent, "pow_")

    def clamp_(self, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max], in place."""
        floats = any(isinstance(bound, float) for bound in (min, max))
        if floats and self._array.dtype.kind != "f":
            raise RuntimeError(
                "result type Float can't be cast to the desired output type "
                f"{self.dtype.name_in_errors}"
            )
        return self._apply_inplace(unary.ClampBackward1(min, max))

    clip_ = clamp_

    def masked_fill_(self, mask: Tensor, value: float | Tensor) -> Tensor:
        """Write `value` where `mask` is true, in place."""
        value = self._masked_fill_value(mask, value)
        return self._apply_inplace(views.MaskedFillBackward0(mask._array, value))

    # ---- activations in place: the same nodes (and saved values) as the functions ---------

    def relu_(self) -> Tensor:
        """max(self, 0), in place (ReluBackward0, which saves the changed tensor)."""
        return self._apply_inplace(unary.ReluBackward0())

    def sigmoid_(self) -> Tensor:
        """sigmoid, in place (SigmoidBackward0, which saves the changed tensor)."""
        return self._apply_inplace(unary.SigmoidBackward0())

    def tanh_(self) -> Tensor:
        """tanh, in place (TanhBackward0, which saves the changed tensor)."""
        return self._apply_inplace(unary.TanhBackward0())

    def exp_(self) -> Tensor:
        """e ** self, in place (ExpBackward0, which saves the changed tensor)."""
        return self._apply_inplace(unary.ExpBackward0())

    def log_(self) -> Tensor:
        """Natural logarithm, in place (LogBackward0 saves the old values)."""
        return self._apply_inplace(unary.LogBackward0())

    def sqrt_(self) -> Tensor:
        """Square root, in place (SqrtBackward0, which saves the changed tensor)."""
        return self._apply_inplace(unary.SqrtBackward0())

    def neg_(self) -> Tensor:
        """-self, in place."""
        if self._array.dtype.kind == "b":
            self.neg()  # (its error)
        return self._apply_inplace(arith.NegBackward0())

    negative_ = neg_

    def abs_(self) -> Tensor:
        """|self|, in place."""
        if self._array.dtype.kind == "b":
            self.abs()  # (its error)
        return self._apply_inplace(unary.AbsBackward0())

    # ---- fills ------------------------------------------------------------------------------

    def zero_(self) -> Tensor:
        """Set every element to 0, in place."""
        return self._apply_inplace(ZeroBackward0())

    def fill_(self, value: float | Tensor) -> Tensor:
        """Set every element to `value` (a number or a 0-d tensor), in place."""
        if isinstance(value, TensorBase):
            if value.ndim:
                raise RuntimeError(
                    "fill_ only supports 0-dimension value tensor but got tensor with "
                    f"{value.ndim} dimensions."
                )
            return self._apply_inplace(FillBackward3(), value)  # value gets grad.sum()
        return self._apply_inplace(FillBackward2(number_in(value, self._array.dtype)))

    def normal_(
        self, mean: float = 0.0, std: float = 1.0, *, generator: random.Generator | None = None
    ) -> Tensor:
        """Fill with samples from N(mean, std**2), in place: torch's numbers after its seed."""
        order = random.fill_order(self._array)
        return self._apply_inplace(NormalBackward0(mean, std, generator, order))

    def uniform_(
        self, from_: float = 0.0, to: float = 1.0, *, generator: random.Generator | None = None
    ) -> Tensor:
        """Fill with samples from U(from_, to), in place (torch calls the bounds from and to)."""
        order = random.fill_order(self._array)
        return self._apply_inplace(UniformBackward0(from_, to, generator, order))

    def bernoulli_(self, p: float = 0.5, *, generator: random.Generator | None = None) -> Tensor:
        """Fill with 1 (probability p) or 0, in place."""
        if isinstance(p, TensorBase):
            raise TypeError("minigrad's bernoulli_ takes a float p, not a tensor of them")
        order = random.fill_order(self._array)
        return self._apply_inplace(BernoulliBackward2(p, generator, order))

    def copy_(self, source: object) -> Tensor:
        """Copy `source`'s values into this tensor's memory (broadcasting), in place."""
        if not isinstance(source, TensorBase):
            raise TypeError(
                f"copy_(): argument 'other' (position 1) must be Tensor, not {type_name(source)}"
            )
        broadcast_shapes(self._array.shape, source._array.shape)
        return self._apply_inplace(CopyBackwards(), source)

    # ---- operators ----------------------------------------------------------------------------

    def __iadd__(self, other: object) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: object) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: object) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: object) -> Tensor:
        return self.div_(other)

    def __ipow__(self, exponent: object) -> Tensor:
        return self.pow_(exponent)

    # ---- in-place view ops: a new shape on the same memory ------------------------------------

    def unsqueeze_(self, dim: int) -> Tensor:
        """Insert a dimension of size 1, in place."""
        return self._apply_inplace_view(views.UnsqueezeBackward1(wrap_dim(dim, self.ndim + 1)))

    def squeeze_(self, dim: int | None = None) -> Tensor:
        """Remove dimensions of size 1 (all, or just `dim`), in place."""
        if dim is None:
            return self._apply_inplace_view(views.SqueezeBackward3())
        axis = wrap_dim(dim, self.ndim)
        return self._apply_inplace_view(views.SqueezeBackward4(axis if self.ndim else None))

    def t_(self) -> Tensor:
        """Transpose a 0-, 1- or 2-D tensor, in place."""
        return self._apply_inplace_view(views.TBackward1(*self._t_dims("t_")))

    def as_strided_(
        self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
    ) -> Tensor:
        """Make this tensor a window of its memory by sizes and element strides, in place."""
        node = views.AsStridedBackward1(tuple(size), tuple(stride), storage_offset or 0)
        return self._apply_inplace_view(node)

    def transpose_(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions, in place."""
        first, second = wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim)
        return self._apply_inplace_view(views.TransposeBackward1(first, second))
