"""What numpy sees of a tensor: `np.asarray(t)`, `np.array(t)`, and a numpy function's result.

torch lets numpy read a tensor's memory only when no gradient can be lost: a tensor that
requires grad (while grad mode is on) is refused with the message this course is about.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._convert import data_to_array
from ..grad_mode import _state
from ..watch import seen, watchers
from .base import NUMPY_OF_GRAD_MESSAGE, TensorBase

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["NumpyInterop"]


class NumpyInterop(TensorBase):
    """`__array__` and `__array_wrap__`, and the check `Tensor.numpy()` makes."""

    def _array_for_numpy(self, force: bool) -> np.ndarray:
        """This tensor's array, refused for a tensor that requires grad while grad mode is on
        (unless `force`)."""
        if self._needs_grad() and _state.enabled and not force:
            raise RuntimeError(NUMPY_OF_GRAD_MESSAGE)
        if watchers:
            seen("numpy", (self,), None)
        return self._array

    def __array_wrap__(
        self, array: np.ndarray, context: Any = None, return_scalar: bool = False
    ) -> Tensor:
        # what a numpy function's result becomes when it was given a tensor (np.exp(t)): a
        # tensor, as in torch, which turns numpy's bool results into uint8
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return self._sibling(data_to_array(np.asarray(array), None))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        # what np.asarray(t) and matplotlib call; torch refuses for tensors that require grad.
        # np.array(t) asks for a copy (torch's np.array copies), np.asarray(t) does not.
        array = self._array_for_numpy(force=False)
        if dtype is not None:
            return array.astype(dtype)
        return array.copy() if copy else array
