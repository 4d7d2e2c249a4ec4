"""Reductions: sum, mean, max, min, amax, amin, var, std, norm, argmax, argmin, all, any,
sum_to_size, and the comparisons of whole tensors (allclose, equal)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .. import dtypes
from .._shapes import broadcast_shapes, normalize_dims, wrap_dim
from ..functions import arith, reduce
from ..grad_mode import is_grad_enabled
from ..graph import unsigned
from ..watch import seen, watchers
from .base import TensorBase

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["MaxResult", "MinResult", "ReductionMethods"]


def _shown_dims(dim: Any) -> tuple[int, ...] | None:
    """A reduction's dims as torch's `_saved_dim` shows them: a tuple as given, unsigned."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, (int, np.integer)) else dim
    return tuple(unsigned(int(d)) for d in dims)


def _shown_spread(dim: Any, unbiased: bool | None, correction: float | None) -> dict[str, Any]:
    """var's and std's dim and correction as torch's node shows them: the correction as given;
    else, where a dim or `unbiased` was given (torch's older overload), 1 or 0 from `unbiased`;
    else None. (torch also shows 1 for a `dim=None` given by name, which reads as not given.)"""
    if correction is None and (dim is not None or unbiased is not None):
        correction = 0 if unbiased is False else 1
    return {"dim": _shown_dims(dim), "correction": correction}


class MaxResult(NamedTuple):
    """What `t.max(dim)` returns: the values and where they are (torch.return_types.max)."""

    values: Any
    indices: Any


class MinResult(NamedTuple):
    """What `t.min(dim)` returns: the values and where they are (torch.return_types.min)."""

    values: Any
    indices: Any


# torch's classes are named after the function, as a user sees with type(result).__name__
MaxResult.__name__, MinResult.__name__ = "max", "min"


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


def _dim_or_axis(method: str, dim: Any, axis: Any) -> Any:
    """The dim of sum/mean, given as `dim` or numpy's `axis`, checked for its type."""
    if axis is not _NO_DIM:
        if dim is not _NO_DIM:
            raise TypeError(f"{method}() got multiple values for argument 'dim'")
        dim = axis
    valid = dim is _NO_DIM or dim is None or isinstance(dim, (tuple, list))
    if not valid and not (hasattr(dim, "__index__") and not isinstance(dim, bool)):
        raise TypeError(
            f"{method}() received an invalid combination of arguments - got "
            f"({type(dim).__name__}), but expected one of:\n (see help(minigrad.Tensor.{method}))"
        )
    return dim


def _check_grad_dtype(tensor: TensorBase, dtype: Any) -> None:
    """torch refuses to reduce a tensor that requires grad into an integer dtype."""
    numpy_dtype = dtypes.to_numpy_dtype(dtype)
    if tensor._needs_grad() and is_grad_enabled() and numpy_dtype.kind != "f":
        raise RuntimeError(f"Autograd not support dtype: {dtypes.kind_word(numpy_dtype)}")


def _check_max_dim(method: str, dim: Any) -> None:
    """torch's TypeError for `max(t, 2.0)`: a number is neither a dim nor another tensor."""
    if dim is not None and (isinstance(dim, bool) or not hasattr(dim, "__index__")):
        raise TypeError(
            f"{method}() received an invalid combination of arguments - got (Tensor, "
            f"{type(dim).__name__}), but expected one of:\n (see help(minigrad.{method}))"
        )


def _check_reduction_dim(method: str, shape: tuple[int, ...], dim: Any) -> None:
    """amax/amin of an empty tensor need the dims to reduce, and none of them may be empty
    (there is no maximum of nothing)."""
    if math.prod(shape) == 0 and (dim is None or dim == () or dim == []):
        raise RuntimeError(
            f"{method}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    if not shape:
        return
    for d in (dim,) if isinstance(dim, (int, np.integer)) else dim or ():
        if shape[wrap_dim(d, len(shape))] == 0:
            raise IndexError(f"{method}(): Expected reduction dim {d} to have non-zero size.")


class ReductionMethods(TensorBase):
    """Reductions over all elements or along dims."""

    # torch has two forms of sum and mean: `t.sum()` records SumBackward0; `t.sum(dim, keepdim)`
    # records SumBackward1, and there dim=None or an empty tuple means every dim. The default
    # `_NO_DIM` tells the two apart.

    def sum(
        self,
        dim: DimArg = _NO_DIM,
        keepdim: bool | None = None,
        *,
        dtype: Any = None,
        axis: DimArg = _NO_DIM,
    ) -> Tensor:
        """Sum of all elements, or along `dim` (keepdim: keep reduced dims as size 1; dtype:
        convert first; `axis` is numpy's name for dim, which torch accepts too)."""
        dim = _dim_or_axis("sum", dim, axis)
        if dtype is not None:
            _check_grad_dtype(self, dtype)
            return self.to(dtype).sum(dim, keepdim)
        if dim is _NO_DIM:
            _check_no_keepdim("sum", keepdim)
            return self._apply(reduce.SumBackward0(), self)
        axes = normalize_dims(dim, self.ndim)
        node = reduce.SumBackward1(axes, bool(keepdim))
        return self._apply(node.showing(dim=_shown_dims(dim)), self)

    def mean(
        self,
        dim: DimArg = _NO_DIM,
        keepdim: bool | None = None,
        *,
        dtype: Any = None,
        axis: DimArg = _NO_DIM,
    ) -> Tensor:
        """Mean of all elements, or along `dim` (keepdim: keep reduced dims as size 1; dtype:
        convert first, so `mean(dtype=float64)` of integers works)."""
        dim = _dim_or_axis("mean", dim, axis)
        if dtype is not None:
            _check_grad_dtype(self, dtype)
            return self.to(dtype).mean(dim, keepdim)
        kind = self.dtype.torch_kind
        if dim is _NO_DIM:
            _check_no_keepdim("mean", keepdim)
            return self._apply(reduce.MeanBackward0(kind), self)
        axes = normalize_dims(dim, self.ndim)
        node = reduce.MeanBackward1(axes, bool(keepdim), kind)
        return self._apply(node.showing(dim=_shown_dims(dim)), self)

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
        if not target:
            return self.sum()  # (SumBackward0, as torch's sum_to for a 0-d shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(target) if n == 1 and own[lead + i] != 1
        )
        summed = self.sum(axes, keepdim=True)
        return summed.view(tuple(target)) if lead else summed

    def prod(self, dim: Any = _NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """Product of all elements, or along `dim` (keepdim: keep it as size 1)."""
        if dtype is not None:
            return self.to(dtype).prod(dim, keepdim)
        if dim is _NO_DIM:
            return self._apply(reduce.ProdBackward0(), self)
        node = reduce.ProdBackward1(wrap_dim(dim, self.ndim), bool(keepdim))
        return self._apply(node.showing(dim=unsigned(dim)), self)

    def maximum(self, other: Tensor) -> Tensor:
        """The larger of the two, elementwise (MaximumBackward0: ties share the gradient)."""
        return self._binary(arith.MaximumBackward0(), other)

    def minimum(self, other: Tensor) -> Tensor:
        """The smaller of the two, elementwise (MinimumBackward0)."""
        return self._binary(arith.MinimumBackward0(), other)

    def max(self, dim: Any = None, keepdim: bool = False) -> Tensor | MaxResult:
        """Maximum of all elements, (values, indices) along `dim`, or the elementwise maximum
        with another tensor (`t.max(other)`, MaximumBackward0)."""
        if isinstance(dim, TensorBase):
            return self._binary(arith.MaximumBackward0(), dim)
        _check_max_dim("max", dim)
        if dim is None:
            return self._apply(reduce.MaxBackward1(), self)
        return self._along(reduce.MaxBackward0, dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Tensor | MinResult:
        """Minimum of all elements, (values, indices) along `dim`, or the elementwise minimum
        with another tensor (`t.min(other)`, MinimumBackward0)."""
        if isinstance(dim, TensorBase):
            return self._binary(arith.MinimumBackward0(), dim)
        _check_max_dim("min", dim)
        if dim is None:
            return self._apply(reduce.MinBackward1(), self)
        return self._along(reduce.MinBackward0, dim, keepdim, MinResult)

    def _along(
        self, kind: type, dim: int, keepdim: bool, result: type = MaxResult
    ) -> MaxResult | MinResult:
        axis = wrap_dim(dim, self.ndim)
        node = kind(axis if self.ndim else None, keepdim).showing(dim=unsigned(dim))
        values = self._apply(node, self)
        return result(values, self._sibling(node.indices.astype(np.int64)))

    def amax(self, dim: DimArg = (), keepdim: bool = False) -> Tensor:
        """Maximum along `dim` (all dims by default); ties share the gradient."""
        _check_reduction_dim("amax", self._array.shape, dim)
        node = reduce.AmaxBackward0(normalize_dims(dim, self.ndim), keepdim)
        return self._apply(node.showing(dim=_shown_dims(dim)), self)

    def amin(self, dim: DimArg = (), keepdim: bool = False) -> Tensor:
        """Minimum along `dim` (all dims by default); ties share the gradient."""
        _check_reduction_dim("amin", self._array.shape, dim)
        node = reduce.AminBackward0(normalize_dims(dim, self.ndim), keepdim)
        return self._apply(node.showing(dim=_shown_dims(dim)), self)

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
        axes, used = self._spread_args("var", dim, unbiased, correction)
        node = reduce.VarBackward0(axes, used, keepdim, no_dim=dim is None)
        return self._apply(node.showing(**_shown_spread(dim, unbiased, correction)), self)

    def std(
        self,
        dim: DimArg = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
    ) -> Tensor:
        """Standard deviation: the square root of `var` (same arguments)."""
        axes, used = self._spread_args("std", dim, unbiased, correction)
        node = reduce.StdBackward0(axes, used, keepdim, no_dim=dim is None)
        return self._apply(node.showing(**_shown_spread(dim, unbiased, correction)), self)

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
        if self._array.dtype.kind != "f":
            raise RuntimeError(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                f"{self.dtype.torch_kind}"
            )
        order = 2.0 if p == "fro" else float(p)
        axes = normalize_dims(dim, self.ndim)
        node = reduce.LinalgVectorNormBackward0(order, axes, keepdim, no_dim=dim is None)
        shown_ord = 2 if p == "fro" else p  # torch's node shows p as given
        return self._apply(node.showing(dim=_shown_dims(dim), ord=shown_ord), self)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Index of the maximum (of all elements, or along `dim`); not differentiable."""
        return self._arg(np.argmax, "argmax", dim, keepdim)

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Index of the minimum (of all elements, or along `dim`); not differentiable."""
        return self._arg(np.argmin, "argmin", dim, keepdim)

    def _arg(self, find: Any, method: str, dim: int | None, keepdim: bool) -> Tensor:
        if watchers:
            seen(method, (self,), None)  # an index: no gradient flows through it
        if self._array.dtype == np.bool_:
            raise RuntimeError(f"{method}(): does not support bool input")
        if dim is None:
            if self._array.size == 0:
                raise IndexError(
                    f"{method}(): Expected reduction dim to be specified for input.numel() == 0."
                )
            index = np.asarray(find(self._array), dtype=np.int64)
            if keepdim:  # every dim kept, each of size 1
                index = index.reshape((1,) * self.ndim)
            return self._sibling(index)
        axis = wrap_dim(dim, self.ndim)
        if self.ndim == 0:
            return self._sibling(np.zeros((), dtype=np.int64))
        return self._sibling(find(self._array, axis=axis, keepdims=keepdim))

    def all(self, dim: DimArg = None, keepdim: bool = False) -> Tensor:
        """True when every element is nonzero (along `dim`, or of all elements)."""
        axes = normalize_dims(dim, self.ndim)
        return self._sibling(np.asarray(self._array.all(axis=axes, keepdims=keepdim)))

    def any(self, dim: DimArg = None, keepdim: bool = False) -> Tensor:
        """True when some element is nonzero (along `dim`, or of all elements)."""
        axes = normalize_dims(dim, self.ndim)
        return self._sibling(np.asarray(self._array.any(axis=axes, keepdims=keepdim)))

    def allclose(
        self, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
    ) -> bool:
        """True when all values are close to `other`'s: |self - other| <= atol + rtol * |other|."""
        if not isinstance(other, TensorBase):
            raise TypeError(
                "allclose(): argument 'other' (position 2) must be Tensor, not "
                f"{type(other).__name__}"
            )
        if other._array.dtype != self._array.dtype:
            raise RuntimeError(f"{self.dtype.torch_kind} did not match {other.dtype.torch_kind}")
        broadcast_shapes(self._array.shape, other._array.shape)
        return bool(
            np.allclose(self._array, other._array, rtol=rtol, atol=atol, equal_nan=equal_nan)
        )

    def equal(self, other: Tensor) -> bool:
        """True when `other` has the same shape and the same values."""
        if not isinstance(other, TensorBase):
            raise TypeError(
                f"equal(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
            )
        return self._array.shape == other._array.shape and bool(
            np.array_equal(self._array, other._array)
        )
