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
from ..graph import unsigned
from .base import TensorBase

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["ViewMethods"]


_NO_DIM = object()  # unsqueeze() without a dim: torch's TypeError, not Python's


def _check_int_dim(method: str, dim: object) -> None:
    """torch's TypeError for a missing dim, or one that is not an int."""
    if dim is _NO_DIM:
        raise TypeError(f'{method}() missing 1 required positional arguments: "dim"')
    if isinstance(dim, bool) or not hasattr(dim, "__index__"):
        raise TypeError(
            f"{method}(): argument 'dim' (position 1) must be int, not {type(dim).__name__}"
        )


def _other_tensor(other: object, method: str) -> TensorBase:
    """The tensor argument of view_as / reshape_as, with torch's TypeError for anything else."""
    if not isinstance(other, TensorBase):
        raise TypeError(
            f"{method}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}"
        )
    return other


class ViewMethods(TensorBase):
    """Views of this tensor's memory (and the few shape ops that copy)."""

    def view(self, *shape: int | Sequence[int]) -> Tensor:
        """Same memory, another shape (an error when that is impossible without a copy)."""
        if not shape or not all(isinstance(n, (int, np.integer, tuple, list)) for n in shape):
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
        return self.view(tuple(_other_tensor(other, "view_as").shape))

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """Another shape: a view when the memory layout allows, a copy otherwise (as torch)."""
        if not shape:
            raise TypeError('reshape() missing 1 required positional arguments: "shape"')
        size = infer_shape(shape_args(shape, "reshape"), self._array.size)
        try:
            np.reshape(self._array, size, copy=False)
        except ValueError:
            return self._apply(views.UnsafeViewBackward0(size), self.clone())
        if self.is_contiguous():
            return self._apply_view(views.ViewBackward0(size))
        return self._apply_view(views.ReshapeAliasBackward0(size))  # (torch's name for it)

    def reshape_as(self, other: Tensor) -> Tensor:
        """`reshape` to `other`'s shape."""
        return self.reshape(tuple(_other_tensor(other, "reshape_as").shape))

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Dims start_dim..end_dim (all by default) merged into one; a 1-D tensor, or a range
        of one dim, comes back as itself (as in torch)."""
        ndim = max(self.ndim, 1)
        start, end = wrap_dim(start_dim, self.ndim), wrap_dim(end_dim, self.ndim)
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if self.ndim == 0:
            return self.reshape(1)
        if start == end:
            return self  # type: ignore[return-value]
        shape = self._array.shape
        merged = math.prod(shape[start : end + 1])
        return self.reshape(*shape[:start], merged, *shape[end + 1 : ndim])

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view)."""
        first, second = wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim)
        node = views.TransposeBackward0(first, second)
        return self._apply_view(node.showing(dim0=unsigned(dim0), dim1=unsigned(dim1)))

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
        shown = tuple(unsigned(d) for d in order)
        return self._apply_view(views.PermuteBackward0(axes).showing(dims=shown))

    def t(self) -> Tensor:
        """Transpose of a 0-, 1- or 2-D tensor (a view)."""
        return self._apply_view(views.TBackward0(*self._t_dims("t")))

    def _t_dims(self, method: str) -> tuple[int, int]:
        dims = self._array.ndim
        if dims > 2:
            raise RuntimeError(
                f"{method}() expects a tensor with <= 2 dimensions, but self is {dims}D"
            )
        return (0, 1) if dims == 2 else (0, 0)

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

    def unsqueeze(self, dim: int = _NO_DIM) -> Tensor:  # type: ignore[assignment]
        """Insert a dimension of size 1 (a view)."""
        _check_int_dim("unsqueeze", dim)
        node = views.UnsqueezeBackward0(wrap_dim(dim, self.ndim + 1))
        return self._apply_view(node.showing(dim=unsigned(dim)))

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        """Remove dimensions of size 1 (all, just `dim`, or the listed dims) (a view)."""
        if isinstance(dim, (tuple, list)):
            axes = [wrap_dim(d, self.ndim) for d in dim]
            result = self
            for axis in sorted(axes, reverse=True):  # from the last, so the others keep place
                if self.ndim and self._array.shape[axis] == 1:
                    result = result._apply_view(views.SqueezeBackward1(axis))
            return result  # type: ignore[return-value]
        if dim is None:
            return self._apply_view(views.SqueezeBackward0())
        axis = wrap_dim(dim, self.ndim)
        node = views.SqueezeBackward1(axis if self.ndim else None)
        return self._apply_view(node.showing(dim=unsigned(dim)))

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

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        """`length` entries along `dim` from `start` (a view, recorded as SliceBackward0)."""
        axis = wrap_dim(dim, self.ndim)
        size = self._array.shape[axis]
        begin = start + size if start < 0 else start
        if not 0 <= begin <= size or length < 0 or begin + length > size:
            raise RuntimeError(
                f"start ({start}) + length ({length}) exceeds dimension size ({size})."
            )
        node = views.SliceBackward0(axis, slice(begin, begin + length))
        return self._apply_view(node.showing(dim=unsigned(dim)))

    def select(self, dim: int, index: int) -> Tensor:
        """The entry `index` along `dim`, that dimension removed (a view): `t.select(0, i)` is
        `t[i]`."""
        axis = wrap_dim(dim, self.ndim)
        size = self._array.shape[axis]
        if not -size <= index < size:
            raise IndexError(
                f"select(): index {index} out of range for tensor of size "
                f"{list(self._array.shape)} at dimension {dim}"
            )
        node = views.SelectBackward0(axis, index % size)
        return self._apply_view(node.showing(dim=unsigned(dim), index=unsigned(index)))

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        """The diagonal of the (dim1, dim2) planes, `offset` above (or below) the main one, as
        a last dimension (a view)."""
        first, second = wrap_dim(dim1, self.ndim), wrap_dim(dim2, self.ndim)
        if first == second:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        node = views.DiagonalBackward0(offset, first, second)
        return self._apply_view(node.showing(dim1=unsigned(dim1), dim2=unsigned(dim2)))

    def as_strided(
        self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
    ) -> Tensor:
        """A view of any window of the memory, by sizes and element strides (an expert's
        tool: windows may overlap)."""
        node = views.AsStridedView(tuple(size), tuple(stride), storage_offset or 0)
        return self._apply_view(node)

    def split_with_sizes(self, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Pieces of the listed sizes along `dim` (each a view)."""
        return self.split(list(split_sizes), dim)

    def repeat(self, *repeats: int | Sequence[int]) -> Tensor:
        """The tensor tiled `repeats` times along each dimension (a copy)."""
        counts = shape_args(repeats, "repeat")
        if len(counts) < self.ndim:
            raise RuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of "
                "dimensions of tensor"
            )
        return self._apply(views.RepeatBackward0(tuple(counts)), self)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """The slices along `dim`, each a view (one UnbindBackward0 node for all of them)."""
        if self.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        axis = wrap_dim(dim, self.ndim)
        node = views.UnbindBackward0(axis, self._array.shape[axis])
        return self._apply_views(node.showing(dim=unsigned(dim)))

    def split(self, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Consecutive pieces along `dim` of `split_size` each (or of the listed sizes)."""
        axis = wrap_dim(dim, self.ndim)
        length = self._array.shape[axis]
        if not isinstance(split_size, int):
            if any(size < 0 for size in split_size):
                raise RuntimeError(
                    "split_with_sizes expects split_sizes have only non-negative entries, but got "
                    f"split_sizes={list(split_size)}"
                )
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
        if isinstance(split_size, int):
            node = views.SplitBackward0(axis, bounds)
            return self._apply_views(node.showing(dim=unsigned(dim), split_size=split_size))
        node = views.SplitWithSizesBackward0(axis, bounds)
        return self._apply_views(node.showing(dim=unsigned(dim), split_sizes=tuple(sizes)))

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """`chunks` pieces along `dim`, as equal as possible (the last may be smaller)."""
        if isinstance(chunks, bool) or not hasattr(chunks, "__index__"):
            raise TypeError(
                f"chunk(): argument 'chunks' (position 1) must be int, not {type(chunks).__name__}"
            )
        if self.ndim == 0:
            raise RuntimeError("chunk expects at least a 1-dimensional tensor")
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
