"""TensorBase: what every group of tensor methods shares.

A tensor's methods take numbers, numpy arrays and other tensors as their arguments; here those
are turned into tensors the ops can run on, with torch's rules for their dtypes and errors.
Lower modules test `isinstance(x, TensorBase)` where they need to know a tensor when they see
one (tensor.py, which defines `Tensor`, sits above them).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes
from .._shapes import broadcast_shapes, check_sizes, shape_args
from ..graph import Node

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["NUMPY_OF_GRAD_MESSAGE", "TensorBase"]

NUMPY_OF_GRAD_MESSAGE = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)


class TensorBase:
    """The root of Tensor's method groups (methods/*.py); see tensor.py for the Tensor itself."""

    # numpy must hand `array * tensor` back to us instead of converting the tensor
    __array_ufunc__ = None
    _array: np.ndarray

    # provided by Tensor (tensor.py): the one place an op joins the graph
    _apply: Any
    _apply_view: Any
    _apply_inplace: Any
    _from_array: Any

    def _wrap(self, value: object) -> Tensor | None:
        """Turn a number (or numpy array) used with this tensor into a tensor without grad.

        A Python number takes this tensor's dtype where it can (float32 stays float32; see
        dtypes.scalar_dtype). A numpy array is converted as torch converts it: refused beside a
        tensor that requires grad (torch calls numpy() on the tensor, which refuses). Anything
        else (a list, a string) gives None: the operator then returns NotImplemented and Python
        raises its TypeError, as with torch.
        """
        if isinstance(value, TensorBase):
            return value
        if type(value) is float and self._array.dtype.kind == "f":  # the common case
            wrapped = self._from_array(np.array(value, dtype=self._array.dtype))
            wrapped._wrapped_number = True
            return wrapped
        if isinstance(value, (bool, numbers.Number, np.number, np.bool_)):
            if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
                return None
            dtype = dtypes.scalar_dtype(value, self._array.dtype)
            if dtype.kind == "f":
                return self._number(np.array(value, dtype=dtype))
            return self._number(np.asarray(value).astype(dtype))  # ints wrap, as torch
        if isinstance(value, np.ndarray):
            if self.requires_grad:
                raise RuntimeError(NUMPY_OF_GRAD_MESSAGE)
            return self._from_array(np.array(value))
        return None

    def _number(self, array: np.ndarray) -> Tensor:
        """A Python number as a 0-d tensor, marked so a node keeps it as a bare array."""
        wrapped = self._from_array(array)
        wrapped._wrapped_number = True
        return wrapped

    def _operand(
        self, value: object, method: str, position: int = 1, name: str = "other"
    ) -> Tensor:
        """`value` as a tensor for a named method (`t.add(x)`), with torch's TypeError."""
        if isinstance(value, TensorBase):
            return value
        wrapped = self._wrap(value)
        if wrapped is None:
            raise TypeError(
                f"{method}(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(value).__name__}"
            )
        return wrapped

    def _binary(self, node: Node, other: Tensor) -> Tensor:
        """An elementwise op of two tensors, after torch's broadcasting check."""
        shape, other_shape = self._array.shape, other._array.shape
        if shape != other_shape and shape and other_shape:  # a 0-d side (a number) always fits
            broadcast_shapes(shape, other_shape)
        return self._apply(node, self, other)

    @property
    def requires_grad(self) -> bool:  # defined by Tensor; here for the type checker
        raise NotImplementedError

    # ---- new tensors like this one (its dtype unless told otherwise) -------------------------

    def _new(self, fill: Any, size: tuple, dtype: Any, requires_grad: bool, method: str) -> Tensor:
        sizes = check_sizes(shape_args(size, method), method)
        numpy_dtype = self._array.dtype if dtype is None else dtypes.to_numpy_dtype(dtype, method)
        tensor = self._from_array(np.full(sizes, fill, dtype=numpy_dtype))
        return tensor.requires_grad_(True) if requires_grad else tensor

    def new_zeros(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        """Zeros of `size`, with this tensor's dtype."""
        return self._new(0, size, dtype, requires_grad, "new_zeros")

    def new_ones(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        """Ones of `size`, with this tensor's dtype."""
        return self._new(1, size, dtype, requires_grad, "new_ones")

    def new_empty(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        """A tensor of `size` with this tensor's dtype, values not set (zeros here)."""
        return self._new(0, size, dtype, requires_grad, "new_empty")

    def new_full(
        self, size: Any, fill_value: float, dtype: Any = None, requires_grad: bool = False
    ) -> Tensor:
        """`fill_value` everywhere, of `size`, with this tensor's dtype."""
        return self._new(fill_value, (size,), dtype, requires_grad, "new_full")

    def new_tensor(self, data: object, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        """A new tensor holding a copy of `data`, with this tensor's dtype."""
        if isinstance(data, TensorBase):
            data = data._array
        numpy_dtype = self._array.dtype if dtype is None else dtypes.to_numpy_dtype(dtype)
        tensor = self._from_array(np.array(data, dtype=numpy_dtype))
        return tensor.requires_grad_(True) if requires_grad else tensor
