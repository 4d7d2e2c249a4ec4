"""Indexing: `t[key]` (views for ints, slices, None and `...`; copies for index arrays and bool
masks), `t[key] = value`, gather and masked_fill."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .._convert import (
    check_mask_shapes,
    dims_indexed,
    expand_basic_index,
    index_message,
    is_basic_index,
    number_in,
    type_name,
)
from .._shapes import wrap_dim
from ..dtypes import kind_word
from ..functions import views
from ..functions.inplace import IndexPutBackward0
from ..graph import unsigned
from .base import TensorBase

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["IndexingMethods"]


class IndexingMethods(TensorBase):
    """`t[key]`, `t[key] = value`, gather, masked_fill."""

    def __getitem__(self, key: object) -> Tensor:
        """`t[key]`: views for ints/slices/None/..., one node per indexed dimension, like torch;
        a copy (IndexBackward0) for integer or bool array indices."""
        key = self._plain_key(key)
        if not is_basic_index(key):
            split = _views_first(key, self._array.shape)
            if split is not None:  # ints, slices or None beside arrays: torch's order
                view_key, array_key = split
                return self[view_key][array_key]
            check_mask_shapes(key, self._array.shape)
            try:
                self._array[key]
            except IndexError as error:
                raise IndexError(index_message(str(error), self._array.shape)) from None
            return self._apply(views.IndexBackward0(key), self)
        if self.ndim == 0 and isinstance(key, (int, np.integer)):
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        return self._basic_index(expand_basic_index(key, self.ndim), isinstance(key, slice))

    def _basic_index(self, parts: list[object], one_slice: bool = False) -> Tensor:
        """One view per indexed dimension, as torch records them: SliceBackward0 for a slice,
        SelectBackward0 for an int, UnsqueezeBackward0 for None. Like torch, a slice that keeps
        the whole dim (`:`, `0:n`) records nothing, unless it is the whole key (`t[:]`,
        `one_slice`); a key that leaves everything as it is gives an AliasBackward0."""
        result, dim, source_dim = self, 0, 0
        for part in parts:
            if part is not None:
                source_dim += 1
            if part is None:
                result = result._apply_view(views.UnsqueezeBackward0(dim))
                dim += 1
            elif isinstance(part, slice):
                if part.step == 0:
                    raise ValueError("slice step cannot be zero")
                if part.step is not None and part.step < 0:
                    raise ValueError("step must be greater than zero")
                size = result._array.shape[dim]
                if one_slice or not _keeps_whole_dim(part, size):
                    result = result._apply_view(views.SliceBackward0(dim, part))
                dim += 1
            elif part is not Ellipsis:
                size = result._array.shape[dim]
                if not -size <= part < size:
                    raise IndexError(
                        f"index {part} is out of bounds for dimension {source_dim - 1} with size "
                        f"{size}"
                    )
                node = views.SelectBackward0(dim, int(part) % size)
                result = result._apply_view(node.showing(index=unsigned(int(part))))
        if result is self:  # t[...], t[:, :], t[:, 0:n]
            return self._apply_view(views.AliasBackward0())
        return result

    def __setitem__(self, key: object, value: object) -> None:
        if isinstance(value, (list, tuple, np.ndarray)):
            raise TypeError(
                f"can't assign a {type_name(value)} to a minigrad.{self.dtype.tensor_type}"
            )
        dtype = self._array.dtype
        if dtype.kind in "iu" or dtype == np.float32:  # (torch writes inf into float16 here)
            number_in(value, dtype)  # (for torch's overflow error)
        given, value = value, self._operand(value, "__setitem__")
        plain_key = self._plain_key(key)
        if is_basic_index(plain_key) and self._covers_all(plain_key):
            # `t[:] = v`, `t[...] = v`: torch writes into t itself, a 0-d value by fill_
            if value.ndim == 0 and self.ndim != 0:
                self.fill_(value)
            else:
                self.copy_(value)
            return
        if is_basic_index(plain_key):
            self[key].copy_(value)  # a view of the region, then an in-place copy into it
            return
        split = _views_first(plain_key, self._array.shape)
        if split is not None:  # as in t[key]: the views first, then the arrays write into them
            view_key, array_key = split
            self[view_key][array_key] = given
            return
        fills_mask = value.ndim == 0 and _is_one_mask(plain_key)  # torch: a masked_fill_
        if isinstance(given, TensorBase) and value.dtype != self.dtype and not fills_mask:
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{kind_word(self._array.dtype)} for the destination and "
                f"{kind_word(value._array.dtype)} for the source."
            )
        self._apply_inplace(IndexPutBackward0(plain_key), value)

    def _covers_all(self, key: object) -> bool:
        """Whether a basic index selects the whole tensor (only full slices and `...`)."""
        parts = key if isinstance(key, tuple) else (key,)
        if any(part is None or isinstance(part, (int, np.integer)) for part in parts):
            return False
        dims = [part for part in parts if part is not Ellipsis]
        if len(dims) > self.ndim:
            return False
        for part, size in zip(dims, self._array.shape, strict=False):
            if not _keeps_whole_dim(part, size):
                return False
        return True

    def _plain_key(self, key: object) -> object:
        """An index with its tensors replaced by their arrays (torch's rule on their dtypes)."""
        if isinstance(key, tuple):
            return tuple(_plain_key_part(part) for part in key)
        if isinstance(key, list) and len(key) < 32 and any(map(_is_index_part, key)):
            warnings.warn(NON_TUPLE_INDEX_MESSAGE, UserWarning, stacklevel=3)
            return self._plain_key(tuple(key))  # torch still reads [[0], [1]] as ([0], [1])
        if isinstance(key, list):  # a list of positions (an empty one too) or of bools
            positions = np.asarray(key) if key else np.zeros(0, dtype=np.int64)
            if positions.dtype.kind == "f":  # torch reads Python floats in a list as positions
                positions = positions.astype(np.int64)
            return _plain_key_part(positions)
        return _plain_key_part(key)

    def gather(self, dim: int, index: Tensor) -> Tensor:
        """Values picked along `dim` at `index` (an int64 tensor with as many dims as self)."""
        axis = wrap_dim(dim, self.ndim)
        if not isinstance(index, TensorBase) or index._array.dtype.kind not in "iu":
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        if index.ndim != self.ndim and self.ndim:
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as input tensor"
            )
        size = self._array.shape[axis] if self.ndim else 1
        positions = index._array
        if positions.size and (positions.min() < 0 or positions.max() >= size):
            raise RuntimeError(  # (gather takes no negative positions, unlike indexing)
                f"index {int(positions.max() if positions.max() >= size else positions.min())} is "
                f"out of bounds for dimension {axis} with size {size}"
            )
        positions = positions.astype(np.int64) % max(size, 1)
        return self._apply(views.GatherBackward0(axis, positions).showing(dim=unsigned(dim)), self)

    def masked_fill(self, mask: Tensor, value: float | Tensor) -> Tensor:
        """`value` where `mask` is true, self elsewhere (mask: bool, broadcastable to self)."""
        number = self._masked_fill_value(mask, value)
        if isinstance(value, TensorBase):
            return self._apply(views.MaskedFillBackward1(mask._array), self, value)
        return self._apply(views.MaskedFillBackward0(mask._array, number), self)

    def _masked_fill_value(self, mask: Tensor, value: float | Tensor) -> float:
        """The fill value as a number, after torch's checks of masked_fill's arguments."""
        if not isinstance(mask, TensorBase) or mask._array.dtype != np.bool_:
            raise RuntimeError(
                "masked_fill_ only supports boolean masks, but got mask with dtype "
                f"{getattr(getattr(mask, 'dtype', None), 'name_in_errors', type(mask).__name__)}"
            )
        if isinstance(value, TensorBase):
            if value.ndim:
                raise RuntimeError(
                    "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                    f"with {value.ndim} dimension(s)."
                )
            value = value.item()
        np.broadcast_shapes(mask._array.shape, self._array.shape)
        return number_in(value, self._array.dtype)


NON_TUPLE_INDEX_MESSAGE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[minigrad.tensor(seq)], which will result either in an error "
    "or a different result"
)


def _is_index_part(part: object) -> bool:
    """A part that makes a short list (under 32 items) a multi-dim index, by torch's old rule
    taken from numpy: a tensor, a list or tuple, a slice, None or `...`."""
    kinds = (TensorBase, list, tuple, slice)
    return isinstance(part, kinds) or part is None or part is Ellipsis


# what an index may be made of (besides None and ...)
_INDEX_PARTS = (int, np.integer, slice, list, np.ndarray, TensorBase)


def _keeps_whole_dim(part: slice, size: int) -> bool:
    """Whether a slice keeps all of a dim of `size` (`:`, `0:n`, `::1`): torch records nothing
    for it."""
    return part.indices(size) == (0, size, 1)


def _is_one_mask(key: object) -> bool:
    """Whether an index is one bool mask (`t[mask]`), alone or in a tuple of one."""
    parts = key if isinstance(key, tuple) else (key,)
    return len(parts) == 1 and isinstance(parts[0], np.ndarray) and parts[0].dtype == np.bool_


def _views_first(
    key: object, shape: tuple[int, ...]
) -> tuple[tuple[object, ...], tuple[object, ...]] | None:
    """A key that mixes array indices with ints, slices other than `:`, or None, split as torch
    applies it: first the ints, slices and None, as views (SelectBackward0, SliceBackward0,
    UnsqueezeBackward0), then the arrays on what is left (IndexBackward0), with `:` where a
    view was. The shape can differ from numpy's: `t[0, :, [0, 1]]` of a 2 x 3 x 4 tensor is
    3 x 2 in torch (numpy: 2 x 3). None for a key with nothing to apply first (slices that
    keep their whole dim record nothing in torch), or with a Python bool (numpy's rules)."""
    parts = key if isinstance(key, tuple) else (key,)
    if any(isinstance(part, bool) for part in parts):
        return None
    view_key: list[object] = []
    array_key: list[object] = []
    changes = False  # does any view change the tensor?
    dim = 0  # the dim of `shape` the next part indexes (past the ellipsis: counted from the end)
    for index, part in enumerate(parts):
        if part is Ellipsis:
            view_key.append(part)
            array_key.append(part)
            dim = len(shape) - dims_indexed(parts[index + 1 :])
        elif part is None:
            view_key.append(part)
            array_key.append(slice(None))
            changes = True
        elif isinstance(part, (int, np.integer)):
            view_key.append(part)  # its dim is gone before the arrays index
            changes, dim = True, dim + 1
        elif isinstance(part, slice):
            view_key.append(part)
            array_key.append(slice(None))
            whole = dim < len(shape) and _keeps_whole_dim(part, shape[dim])
            changes, dim = changes or not whole, dim + 1
        else:  # positions or a mask (a list or an array)
            covered = dims_indexed((part,))
            view_key += [slice(None)] * covered
            array_key.append(part)
            dim += covered
    return (tuple(view_key), tuple(array_key)) if changes else None


def _plain_key_part(part: object) -> object:
    if isinstance(part, float):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
            "valid indices (got float)"
        )
    if isinstance(part, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(part, _INDEX_PARTS) and part is not None and part is not Ellipsis:
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
            f"valid indices (got {type(part).__name__})"
        )
    array = part._array if isinstance(part, TensorBase) else part
    small = isinstance(part, TensorBase) and array.dtype in (np.int8, np.int16)
    if small or (isinstance(array, np.ndarray) and array.dtype.kind not in "iub"):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if isinstance(array, np.ndarray) and array.dtype == np.uint8:  # torch's old mask dtype
        warnings.warn(
            "indexing with dtype minigrad.uint8 is now deprecated, please use a dtype "
            "minigrad.bool instead.",
            UserWarning,
            stacklevel=4,
        )
        array = array.astype(bool)
    if isinstance(part, TensorBase) and array.ndim == 0 and array.dtype.kind in "iu":
        return int(array)
    return array
