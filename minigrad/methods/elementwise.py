"""Elementwise methods of one tensor: exp, log, sigmoid, tanh, relu, sqrt, abs, sign, clamp,
round, clone, and the dtype conversions (`to`, `float`, `double`, ...)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes
from .._device import CUDA_MESSAGE, check_device, is_device_like
from .._shapes import broadcast_shapes
from ..functions import nn, unary
from .base import TensorBase

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["ElementwiseMethods"]


class ElementwiseMethods(TensorBase):
    """Functions applied to each element; each records one node (ExpBackward0, ...)."""

    def exp(self) -> Tensor:
        """e ** self."""
        return self._apply(unary.ExpBackward0(), self)

    def sin(self) -> Tensor:
        """Sine, elementwise (radians)."""
        return self._apply(unary.SinBackward0(), self)

    def cos(self) -> Tensor:
        """Cosine, elementwise (radians)."""
        return self._apply(unary.CosBackward0(), self)

    def square(self) -> Tensor:
        """self ** 2 (recorded as torch records it: PowBackward0)."""
        return self.pow(2)

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
        if self._array.dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu")
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

    def softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """exp(self) / its sum along `dim` (SoftmaxBackward0), as `nn.functional.softmax`."""
        source = self if dtype is None else self.to(dtype)
        nn.check_softmax_input(source, dim, "softmax")
        node = nn.SoftmaxBackward0(nn.softmax_dim(self.ndim, dim, "softmax"))
        return source._apply(nn.given_dim(node, dim), source)

    def log_softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """log(softmax(self)) along `dim` (LogSoftmaxBackward0)."""
        source = self if dtype is None else self.to(dtype)
        nn.check_softmax_input(source, dim, "log_softmax")
        node = nn.LogSoftmaxBackward0(nn.softmax_dim(self.ndim, dim, "log_softmax"))
        return source._apply(nn.given_dim(node, dim), source)

    def sign(self) -> Tensor:
        """-1, 0 or 1 by the sign of each element; its gradient is zero."""
        if self._array.dtype.kind == "b":
            return self.clone()
        return self._apply(unary.SignBackward0(), self)

    def round(self) -> Tensor:
        """Round to the nearest integer (half to even); its gradient is zero."""
        if self._array.dtype.kind == "b":
            raise NotImplementedError("\"round_vml_cpu\" not implemented for 'Bool'")
        return self._apply(unary.RoundBackward0(), self)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max] (numbers, or tensors that broadcast with self)."""
        _check_bounds("clamp", min, max)
        if isinstance(min, TensorBase) or isinstance(max, TensorBase):
            low = self._bound(min, -np.inf)
            high = self._bound(max, np.inf)
            shape = broadcast_shapes(self._array.shape, low._array.shape)
            broadcast_shapes(shape, high._array.shape)
            return self._apply(unary.ClampBackward0(), self, low, high)
        return self._apply(unary.ClampBackward1(min, max), self)

    def _bound(self, value: Any, missing: float) -> Tensor:
        """A clamp bound as a tensor (a missing one is +-inf, a number a 0-d tensor)."""
        if value is None:
            return self._sibling(np.array(missing, dtype=self._array.dtype))
        return self._operand(value, "clamp")

    clip = clamp

    def clone(self, *, memory_format: object = None) -> Tensor:
        """A copy in new memory, still connected to the graph (CloneBackward0). (minigrad's
        tensors have one memory format, so `memory_format` changes nothing.)"""
        return self._apply(unary.CloneBackward0(), self)

    # ---- dtype conversions --------------------------------------------------------------------

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """A converted copy (recorded as ToCopyBackward0); self when nothing changes.

        torch's three forms: `to(dtype)`, `to(device, dtype)` and `to(other)` (other's dtype),
        each with `copy=True` to always copy; minigrad's one device is the CPU. Converting to
        an integer dtype is not differentiable: the result does not require grad.
        """
        dtype, copy = _to_arguments(args, kwargs)
        target = self._array.dtype if dtype is None else dtypes.to_numpy_dtype(dtype)
        if target == self._array.dtype and not copy:
            return self  # type: ignore[return-value]
        return self._apply(unary.ToCopyBackward0(target), self)

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        """torch's copy to a GPU: minigrad has none (torch built without CUDA says the same)."""
        raise AssertionError(CUDA_MESSAGE)

    def type(self, dtype: Any = None) -> Any:
        """With no argument, the legacy type name ('minigrad.FloatTensor'); with a dtype (or
        such a name), the tensor converted to it (itself when the dtype is already that)."""
        if dtype is None:
            return f"minigrad.{self.dtype.tensor_type}"
        if isinstance(dtype, str):
            kind = dtype.rsplit(".", 1)[-1]
            matches = [d for d in dtypes.ALL if d.tensor_type == kind]
            if not matches:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = matches[0]
        return self if dtype == self.dtype else self.to(dtype)

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


_TO_KEYWORDS = {"device", "dtype", "non_blocking", "copy", "memory_format"}


def _to_arguments(args: tuple, kwargs: dict) -> tuple[Any, bool]:
    """(dtype or None, copy) from the arguments of `Tensor.to`, with torch's errors."""
    unknown = set(kwargs) - _TO_KEYWORDS
    if unknown:
        raise TypeError(f"to() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    args = list(args)
    dtype = kwargs.get("dtype")
    if args and isinstance(args[0], TensorBase):  # to(other): other's dtype
        dtype = args.pop(0).dtype
    elif args and (is_device_like(args[0]) or args[0] is None or isinstance(args[0], int)):
        check_device(args.pop(0), "to")
        if args and isinstance(args[0], dtypes.DType):
            dtype = args.pop(0)
    elif args and isinstance(args[0], dtypes.DType):
        dtype = args.pop(0)
    elif args and isinstance(args[0], str):
        raise RuntimeError(f"Invalid device string: '{args[0]}'")
    if args and isinstance(args[0], bool):  # non_blocking, then copy
        args.pop(0)
        if args and isinstance(args[0], bool):
            kwargs.setdefault("copy", args.pop(0))
    if args:
        kinds = ", ".join(type(arg).__name__ for arg in args)
        raise TypeError(
            f"to() received an invalid combination of arguments - got ({kinds}), but expected "
            "one of:\n (see help(minigrad.Tensor.to))"
        )
    check_device(kwargs.get("device"), "to")
    if dtype is not None and not isinstance(dtype, dtypes.DType):
        raise TypeError(
            f"to() received an invalid combination of arguments - got ({type(dtype).__name__}), "
            "but expected one of:\n (see help(minigrad.Tensor.to))"
        )
    return dtype, bool(kwargs.get("copy", False))


def _check_bounds(method: str, low: Any, high: Any) -> None:
    """torch's TypeError for a clamp bound that is neither a number nor a tensor."""
    for bound in (low, high):
        if bound is not None and not isinstance(bound, (TensorBase, numbers.Real, np.number)):
            kinds = ", ".join(type(b).__name__ for b in (low, high) if b is not None)
            raise TypeError(
                f"{method}() received an invalid combination of arguments - got ({kinds}), but "
                f"expected one of:\n (see help(minigrad.Tensor.{method}))"
            )
