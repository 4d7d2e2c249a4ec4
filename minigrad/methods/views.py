"""Views and shapes: results that share memory (and the version counter) with the tensor they
come from: view, reshape, transpose, permute, t, squeeze, unsqueeze, expand, unbind, split,
chunk; and contiguous, which copies only when it must."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._shapes import infer_shape, shape_args, wrap_dim
from ..functions import views
from .base import TensorBase

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["ViewMethods"]


class ViewMethods(TensorBase):
    """Views of this tensor's memory (and the few shape ops that copy)."""

    def view(self, *shape: int | Sequence[int]) -> Tensor:
        """Same memory, another shape (an error when that is impossible without a copy)."""
        if not all(isinstance(n, (int, np.integer, tuple, list)) for n in shape):
            got = ", ".join(type(n).__name__ for n in shape)
            raise TypeError(
                f"view() received an invalid combination of arguments - got ({got}), but expected "
                "one of:\n * (minigrad.dtype dtype)\n * (tuple of ints size)"
            )
        size = infer_shape(shape_args(shape), self._array.size)
        try:
            np.reshape(self._array, size, copy=False)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        return self._apply_view(views.ViewBackward0(size))

    def view_as(self, other: Tensor) -> Tensor:
        """A view with `other`'s shape."""
        return self.view(tuple(other.shape))

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """Another shape: a view when the memory layout allows, a copy otherwise (as torch)."""
        size = infer_shape(shape_args(shape, "reshape"), self._array.size)
        try:
            np.reshape(self._array, size, copy=False)
        except ValueError:
            return self._apply(views.UnsafeViewBackward0(size), self.clone())
        return self._apply_view(views.ViewBackward0(size))

    def reshape_as(self, other: Tensor) -> Tensor:
        """`reshape` to `other`'s shape."""
        return self.reshape(tuple(other.shape))

    def flatten(self) -> Tensor:
        """All elements in one dimension."""
        return self.reshape(-1)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view)."""
        first, second = wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim)
        return self._apply_view(views.TransposeBackward0(first, second))

    swapaxes = swapdims = transpose

    def permute(self, *dims: int | Sequence[int]) -> Tensor:
        """Reorder dimensions (a view)."""
        if not dims:
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        order = shape_args(dims, "permute")
        if len(order) != self.ndim:
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the "
                "length of the desired ordering of dimensions i.e. input.dim() = "
                f"{self.ndim} is not equal to len(dims) = {len(order)}"
            )
        axes = tuple(wrap_dim(d, self.ndim) for d in order)
        if len(set(axes)) != len(axes):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return self._apply_view(views.PermuteBackward0(axes))

    def t(self) -> Tensor:
        """Transpose of a 0-, 1- or 2-D tensor (a view)."""
        return self._apply_view(views.TBackward0(*self._t_dims("t")))

    def _t_dims(self, method: str) -> tuple[int, int]:
        if self.ndim > 2:
            raise RuntimeError(
                f"{method}() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"
            )
        return (0, 1) if self.ndim == 2 else (0, 0)

    @property
    def T(self) -> Tensor:  # noqa: N802 - torch's name
        """All dimensions reversed (a view); torch deprecates it for anything but 2-D."""
        if self.ndim != 2:
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Use `x.t()` for a "
                "matrix, or `x.permute(...)` to reverse the dimensions explicitly.",
                UserWarning,
                stacklevel=2,
            )
        return self._apply_view(views.PermuteBackward0(tuple(reversed(range(self.ndim)))))

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dimension of size 1 (a view)."""
        return self._apply_view(views.UnsqueezeBackward0(wrap_dim(dim, self.ndim + 1)))

    def squeeze(self, dim: int | None = None) -> Tensor:
        """Remove dimensions of size 1 (all, or just `dim`) (a view)."""
        if dim is None:
            return self._apply_view(views.SqueezeBackward0())
        axis = wrap_dim(dim, self.ndim)
        return self._apply_view(views.SqueezeBackward1(axis if self.ndim else None))

    def expand(self, *shape: int | Sequence[int]) -> Tensor:
        """Broadcast to `shape` without copying (-1 keeps a size) (a view)."""
        sizes = shape_args(shape, "expand")
        own = self._array.shape
        if len(sizes) < len(own):
            raise RuntimeError(
                f"expand(minigrad.{self.dtype.tensor_type}{{{list(own)}}}, size={list(sizes)}): "
                f"the number of sizes provided ({len(sizes)}) must be greater or equal to the "
                f"number of dimensions in the tensor ({len(own)})"
            )
        lead = len(sizes) - len(own)
        target = []
        for index, size in enumerate(sizes):
            if index < lead:
                if size < 0:
                    raise RuntimeError(
                        f"The expanded size of the tensor ({size}) isn't allowed in a leading, "
                        f"non-existing dimension {index}"
                    )
                target.append(size)
                continue
            old = own[index - lead]
            if size == -1:
                size = old
            if old != size and old != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({size}) must match the existing size "
                    f"({old}) at non-singleton dimension {index}.  Target sizes: {list(sizes)}.  "
                    f"Tensor sizes: {list(own)}"
                )
            target.append(size)
        return self._apply_view(views.ExpandBackward0(tuple(target)))

    def expand_as(self, other: Tensor) -> Tensor:
        """`expand` to `other`'s shape."""
        return self.expand(tuple(other.shape))

    # ---- several views at once ------------------------------------------------------------

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """The slices along `dim`, each a view (one UnbindBackward0 node for all of them)."""
        if self.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        axis = wrap_dim(dim, self.ndim)
        return self._apply_views(views.UnbindBackward0(axis, self._array.shape[axis]))

    def split(self, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Consecutive pieces along `dim` of `split_size` each (or of the listed sizes)."""
        axis = wrap_dim(dim, self.ndim)
        length = self._array.shape[axis]
        if isinstance(split_size, int):
            if split_size <= 0 and length:
                raise RuntimeError(
                    f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                    f"{length}"
                )
            sizes = [split_size] * (length // split_size) if split_size else []
            if split_size and length % split_size:
                sizes.append(length % split_size)
            sizes = sizes or [0]
        else:
            sizes = list(split_size)
            if sum(sizes) != length:
                raise RuntimeError(
                    f"split_with_sizes expects split_sizes to sum exactly to {length} (input "
                    f"tensor's size at dimension {axis}), but got split_sizes={sizes}"
                )
        bounds, start = [], 0
        for size in sizes:
            bounds.append((start, start + size))
            start += size
        return self._apply_views(views.SplitBackward0(axis, bounds))

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """`chunks` pieces along `dim`, as equal as possible (the last may be smaller)."""
        if chunks <= 0:
            raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
        length = self._array.shape[wrap_dim(dim, self.ndim)]
        return self.split(max(math.ceil(length / chunks), 1) if length else 1, dim)

    # ---- memory layout -------------------------------------------------------------------------

    def is_contiguous(self) -> bool:
        """True when the elements lie in memory in row-major order with no gaps."""
        return bool(self._array.flags.c_contiguous)

    def contiguous(self) -> Tensor:
        """Self when contiguous, else a contiguous copy (CloneBackward0)."""
        if self.is_contiguous():
            return self  # type: ignore[return-value]
        return self.clone()
