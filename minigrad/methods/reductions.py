"""Reductions: sum, mean, max, min, amax, amin, var, std, norm, argmax, argmin, all, any,
sum_to_size, and the comparisons of whole tensors (allclose, equal)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._shapes import normalize_dims, wrap_dim
from ..functions import reduce
from .base import TensorBase

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["MaxResult", "ReductionMethods"]


class MaxResult(NamedTuple):
    """What `t.max(dim)` and `t.min(dim)` return: the values and where they are."""

    values: Any
    indices: Any


class _NoDim:
    """The default `dim` of sum() and mean(): no dim given (torch's form without one)."""

    def __repr__(self) -> str:
        return "<no dim>"


_NO_DIM: Any = _NoDim()
DimArg = int | Sequence[int] | None  # a dim, several dims, or None for every dim


def _check_no_keepdim(method: str, keepdim: bool | None) -> None:
    """torch's TypeError for `t.sum(keepdim=...)` with no dim: only the dim form takes keepdim
    (so its default is None, "not given", and False is refused here as well)."""
    if keepdim is not None:
        raise TypeError(
            f"{method}() received an invalid combination of arguments - got (keepdim=bool, ), "
            "but expected one of:\n * (*, minigrad.dtype dtype = None)\n * (tuple of ints dim, "
            "bool keepdim = False, *, minigrad.dtype dtype = None)\n"
        )


class ReductionMethods(TensorBase):
    """Reductions over all elements or along dims."""

    # torch has two forms of sum and mean: `t.sum()` records SumBackward0; `t.sum(dim, keepdim)`
    # records SumBackward1, and there dim=None or an empty tuple means every dim. The default
    # `_NO_DIM` tells the two apart.

    def sum(self, dim: DimArg = _NO_DIM, keepdim: bool | None = None) -> Tensor:
        """Sum of all elements, or along `dim` (keepdim: keep reduced dims as size 1)."""
        if dim is _NO_DIM:
            _check_no_keepdim("sum", keepdim)
            return self._apply(reduce.SumBackward0(), self)
        axes = normalize_dims(dim, self.ndim)
        return self._apply(reduce.SumBackward1(axes, bool(keepdim)), self)

    def mean(self, dim: DimArg = _NO_DIM, keepdim: bool | None = None) -> Tensor:
        """Mean of all elements, or along `dim` (keepdim: keep reduced dims as size 1)."""
        kind = self.dtype.torch_kind
        if dim is _NO_DIM:
            _check_no_keepdim("mean", keepdim)
            return self._apply(reduce.MeanBackward0(kind), self)
        axes = normalize_dims(dim, self.ndim)
        return self._apply(reduce.MeanBackward1(axes, bool(keepdim), kind), self)

    def sum_to_size(self, *size: int | Sequence[int]) -> Tensor:
        """Summed down to `size`, the shape it was broadcast from (SumBackward1)."""
        target = tuple(size[0]) if len(size) == 1 and isinstance(size[0], Sequence) else size
        own = self._array.shape
        lead = len(own) - len(target)
        if lead < 0 or any(n not in (1, m) for n, m in zip(target, own[lead:], strict=True)):
            raise RuntimeError(
                f"size {{{list(target)}}} is not expandable to size {{{list(own)}}}."
            )
        if tuple(target) == own:
            return self  # type: ignore[return-value]
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(target) if n == 1 and own[lead + i] != 1
        )
        summed = self.sum(axes, keepdim=True)
        return summed.view(*target) if lead else summed

    def max(self, dim: int | None = None, keepdim: bool = False) -> Tensor | MaxResult:
        """Maximum of all elements, or (values, indices) along `dim`."""
        if dim is None:
            return self._apply(reduce.MaxBackward1(), self)
        return self._along(reduce.MaxBackward0, dim, keepdim)

    def min(self, dim: int | None = None, keepdim: bool = False) -> Tensor | MaxResult:
        """Minimum of all elements, or (values, indices) along `dim`."""
        if dim is None:
            return self._apply(reduce.MinBackward1(), self)
        return self._along(reduce.MinBackward0, dim, keepdim)

    def _along(self, kind: type, dim: int, keepdim: bool) -> MaxResult:
        axis = wrap_dim(dim, self.ndim)
        node = kind(axis if self.ndim else None, keepdim)
        values = self._apply(node, self)
        return MaxResult(values, self._from_array(node.indices.astype(np.int64)))

    def amax(self, dim: DimArg = (), keepdim: bool = False) -> Tensor:
        """Maximum along `dim` (all dims by default); ties share the gradient."""
        return self._apply(reduce.AmaxBackward0(normalize_dims(dim, self.ndim), keepdim), self)

    def amin(self, dim: DimArg = (), keepdim: bool = False) -> Tensor:
        """Minimum along `dim` (all dims by default); ties share the gradient."""
        return self._apply(reduce.AminBackward0(normalize_dims(dim, self.ndim), keepdim), self)

    def var(
        self,
        dim: DimArg = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
    ) -> Tensor:
        """Variance along `dim` (all by default), dividing by N - correction (1 unless
        `unbiased=False` or `correction=` says otherwise)."""
        return self._apply(
            reduce.VarBackward0(*self._spread_args("var", dim, unbiased, correction), keepdim), self
        )

    def std(
        self,
        dim: DimArg = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
    ) -> Tensor:
        """Standard deviation: the square root of `var` (same arguments)."""
        return self._apply(
            reduce.StdBackward0(*self._spread_args("std", dim, unbiased, correction), keepdim), self
        )

    def _spread_args(
        self, method: str, dim: DimArg, unbiased: bool | None, correction: float | None
    ) -> tuple[tuple[int, ...], float]:
        """The axes and correction of var/std, with torch's warning when N - correction <= 0."""
        if self._array.dtype.kind != "f":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        if correction is None:
            correction = 0 if unbiased is False else 1
        axes = normalize_dims(dim, self.ndim)
        count = math.prod(self._array.shape[i] for i in axes)
        if count - correction <= 0:
            warnings.warn(
                f"{method}(): degrees of freedom is <= 0. Correction should be strictly less than "
                "the reduction factor (input numel divided by output numel).",
                UserWarning,
                stacklevel=3,
            )
        return axes, correction

    def norm(self, p: float | str = 2, dim: DimArg = None, keepdim: bool = False) -> Tensor:
        """The p-norm of all elements, or along `dim` (p = 2 by default; 'fro' is 2)."""
        order = 2.0 if p == "fro" else float(p)
        axes = normalize_dims(dim, self.ndim)
        node = reduce.LinalgVectorNormBackward0(order, axes, keepdim)
        return self._apply(node, self)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Index of the maximum (of all elements, or along `dim`); not differentiable."""
        return self._arg(np.argmax, "argmax", dim, keepdim)

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Index of the minimum (of all elements, or along `dim`); not differentiable."""
        return self._arg(np.argmin, "argmin", dim, keepdim)

    def _arg(self, find: Any, method: str, dim: int | None, keepdim: bool) -> Tensor:
        if dim is None:
            if self._array.size == 0:
                raise IndexError(
                    f"{method}(): Expected reduction dim to be specified for input.numel() == 0."
                )
            return self._from_array(np.asarray(find(self._array), dtype=np.int64))
        axis = wrap_dim(dim, self.ndim)
        if self.ndim == 0:
            return self._from_array(np.zeros((), dtype=np.int64))
        return self._from_array(find(self._array, axis=axis, keepdims=keepdim))

    def all(self) -> Tensor:
        """True when every element is nonzero."""
        return self._from_array(np.asarray(self._array.all()))

    def any(self) -> Tensor:
        """True when some element is nonzero."""
        return self._from_array(np.asarray(self._array.any()))

    def allclose(
        self, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
    ) -> bool:
        """True when all values are close to `other`'s: |self - other| <= atol + rtol * |other|."""
        other = self._operand(other, "allclose")
        return bool(
            np.allclose(self._array, other._array, rtol=rtol, atol=atol, equal_nan=equal_nan)
        )

    def equal(self, other: Tensor) -> bool:
        """True when `other` has the same shape and the same values."""
        other = self._operand(other, "equal")
        return self._array.shape == other._array.shape and bool(
            np.array_equal(self._array, other._array)
        )
