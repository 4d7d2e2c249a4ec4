"""Elementwise methods of one tensor: exp, log, sigmoid, tanh, relu, sqrt, abs, sign, clamp,
round, clone, and the dtype conversions (`to`, `float`, `double`, ...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes
from ..functions import unary
from .base import TensorBase

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["ElementwiseMethods"]


class ElementwiseMethods(TensorBase):
    """Functions applied to each element; each records one node (ExpBackward0, ...)."""

    def exp(self) -> Tensor:
        """e ** self."""
        return self._apply(unary.ExpBackward0(), self)

    def log(self) -> Tensor:
        """Natural logarithm."""
        return self._apply(unary.LogBackward0(), self)

    def log1p(self) -> Tensor:
        """log(1 + self), accurate for small values."""
        return self._apply(unary.Log1PBackward0(), self)

    def sigmoid(self) -> Tensor:
        """1 / (1 + exp(-self)); saves its output for backward."""
        return self._apply(unary.SigmoidBackward0(), self)

    def tanh(self) -> Tensor:
        """Hyperbolic tangent; saves its output for backward."""
        return self._apply(unary.TanhBackward0(), self)

    def relu(self) -> Tensor:
        """max(self, 0)."""
        return self._apply(unary.ReluBackward0(), self)

    def sqrt(self) -> Tensor:
        """Square root."""
        return self._apply(unary.SqrtBackward0(), self)

    def abs(self) -> Tensor:
        """Absolute value."""
        if self._array.dtype.kind == "b":
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        return self._apply(unary.AbsBackward0(), self)

    absolute = abs

    def sign(self) -> Tensor:
        """-1, 0 or 1 by the sign of each element; its gradient is zero."""
        if self._array.dtype.kind == "b":
            return self.clone()
        return self._apply(unary.SignBackward0(), self)

    def round(self) -> Tensor:
        """Round to the nearest integer (half to even); its gradient is zero."""
        return self._apply(unary.RoundBackward0(), self)

    def clamp(self, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max]."""
        return self._apply(unary.ClampBackward1(min, max), self)

    clip = clamp

    def clone(self) -> Tensor:
        """A copy in new memory, still connected to the graph (CloneBackward0)."""
        return self._apply(unary.CloneBackward0(), self)

    # ---- dtype conversions --------------------------------------------------------------------

    def to(self, dtype: dtypes.DType | str) -> Tensor:
        """A converted copy (recorded as ToCopyBackward0); self when the dtype already matches.

        Converting to an integer dtype is not differentiable: the result does not require grad.
        """
        if isinstance(dtype, str) and dtype == "cpu":
            return self  # type: ignore[return-value]
        target = dtypes.to_numpy_dtype(dtype)
        if target == self._array.dtype:
            return self  # type: ignore[return-value]
        return self._apply(unary.ToCopyBackward0(target), self)

    def type_as(self, other: Tensor) -> Tensor:
        """Converted to `other`'s dtype."""
        return self.to(other.dtype)

    def float(self) -> Tensor:
        """Convert to float32."""
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return self.to(dtypes.float64)

    def half(self) -> Tensor:
        """Convert to float16."""
        return self.to(dtypes.float16)

    def long(self) -> Tensor:
        """Convert to int64."""
        return self.to(dtypes.int64)

    def int(self) -> Tensor:
        """Convert to int32."""
        return self.to(dtypes.int32)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return self.to(dtypes.bool_)
