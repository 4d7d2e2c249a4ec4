"""Views: tensors that look at part of another tensor's memory.

`b[1:]`, `b.view(3, 1)`, `b.t()` and friends make no copy: the result is a new tensor over the
same numbers, and it shares `b`'s version counter too (`Tensor._view`). So an in-place change
made through a view shows in `b`, is counted on the one counter, and backward notices it if `b`
was saved. That is the same sharing `b.detach()` has; `b.data` shares the memory but gets a
*fresh* counter (see tensor.py).

Each view op is a `ViewNode`: `view_of` maps the input's array to the output's array (a numpy
view), and its backward writes the gradient into the part of the input the view looked at.

Indexing with an array (`t[[0, 2]]`) and joining tensors (`cat`, `stack`) are here too, as in
torch's docs, but they copy: their results have memory and a version counter of their own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .autograd import Node
from .grad_mode import is_grad_enabled
from .ops import connect, normalize_dims, run_op
from .tensor import Tensor


def run_view_op(node: ViewNode, source: Tensor) -> Tensor:
    """Like run_op, for ops whose output is a view: it shares memory and version counter."""
    node.recording = is_grad_enabled() and source.requires_grad
    output = source._view(node.view_of(source._array), node.view_of)
    if node.recording:
        connect(node, output, (source,))
    return output


class ViewNode(Node):
    """Base of the view ops: `view_of` maps the input's array to the output's (a numpy view)."""

    def view_of(self, array: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        # write the gradient into the part of a zero array that the view looked at
        full = np.zeros(self.input_shapes[0], dtype=grad.dtype)
        self.view_of(full)[...] = grad
        return (full,)


class ViewBackward0(ViewNode):
    """`view` / `reshape` without copying."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__()
        self.shape = shape

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.reshape(array, self.shape, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class UnsafeViewBackward0(Node):
    """`reshape` of a tensor whose memory layout needs a copy (e.g. after a transpose).

    Like torch, `reshape` first clones (CloneBackward0), then reshapes the fresh copy.
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__()
        self.shape = shape

    def forward(self, a: Tensor) -> np.ndarray:
        return a._array.reshape(self.shape)  # `a` is the fresh clone: nobody else sees it

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class TransposeBackward0(ViewNode):
    """Swap two dimensions."""

    def __init__(self, dim0: int, dim1: int) -> None:
        super().__init__()
        self.dim0, self.dim1 = dim0, dim1

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.swapaxes(array, self.dim0, self.dim1)


class PermuteBackward0(ViewNode):
    """Reorder the dimensions (`.T` reverses them)."""

    def __init__(self, dims: tuple[int, ...]) -> None:
        super().__init__()
        self.dims = dims

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.transpose(array, self.dims)


class TBackward0(TransposeBackward0):
    """`t()`: transpose of a tensor of at most 2 dimensions."""


class SliceBackward0(ViewNode):
    """`t[start:stop:step]` along one dimension."""

    def __init__(self, dim: int, part: slice) -> None:
        super().__init__()
        self.dim, self.part = dim, part

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return array[(slice(None),) * self.dim + (self.part,)]


class SelectBackward0(ViewNode):
    """`t[i]` along one dimension (the dimension disappears)."""

    def __init__(self, dim: int, index: int) -> None:
        super().__init__()
        self.dim, self.index = dim, index

    def view_of(self, array: np.ndarray) -> np.ndarray:
        # the trailing Ellipsis keeps a 0-d result a view (a bare a[0] of a 1-d numpy array
        # is a copied scalar, which would not share memory)
        return array[(slice(None),) * self.dim + (self.index, Ellipsis)]


class UnsqueezeBackward0(ViewNode):
    """Insert a dimension of size 1."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.expand_dims(array, self.dim)


class SqueezeBackward0(ViewNode):
    """Remove every dimension of size 1."""

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.squeeze(array)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class SqueezeBackward1(ViewNode):
    """Remove dimension `dim` if it has size 1."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.squeeze(array, self.dim) if array.shape[self.dim] == 1 else array

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class SqueezeBackward4(SqueezeBackward1):
    """The squeeze torch records after a vector-matrix product."""


class ExpandBackward0(ViewNode):
    """Broadcast to a bigger shape without copying; backward sums the copies back."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__()
        self.shape = shape

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.broadcast_to(array, self.shape)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)  # the engine sums broadcast dimensions back (unbroadcast)


class AliasBackward0(ViewNode):
    """`t[...]`: the same elements, as a new view."""

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return array[...]


def view(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    """A view with another shape; fails, like torch, when that needs a copy."""
    shape = _infer_shape(shape, a._array.size)
    try:
        np.reshape(a._array, shape, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    return run_view_op(ViewBackward0(shape), a)


def reshape(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Another shape: a view when the memory layout allows, a copy otherwise."""
    shape = _infer_shape(shape, a._array.size)
    try:
        np.reshape(a._array, shape, copy=False)
    except ValueError:
        return run_op(UnsafeViewBackward0(shape), a.clone())
    return run_view_op(ViewBackward0(shape), a)


def _infer_shape(shape: Sequence[int], size: int) -> tuple[int, ...]:
    shape = tuple(int(n) for n in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([n for n in shape if n != -1]))
    if -1 in shape:
        if known == 0 or size % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    if int(np.prod(shape)) != size:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return shape


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions `dim0` and `dim1` (a view)."""
    (first,) = normalize_dims(dim0, a.ndim)
    (second,) = normalize_dims(dim1, a.ndim)
    return run_view_op(TransposeBackward0(first, second), a)


def permute(a: Tensor, dims: Sequence[int]) -> Tensor:
    """Reorder dimensions (a view)."""
    return run_view_op(PermuteBackward0(tuple(d % max(a.ndim, 1) for d in dims)), a)


def t(a: Tensor) -> Tensor:
    """Transpose of a 0-, 1- or 2-D tensor (a view)."""
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return run_view_op(TBackward0(0, 1) if a.ndim == 2 else TBackward0(0, 0), a)


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at `dim` (a view)."""
    return run_view_op(UnsqueezeBackward0(dim % (a.ndim + 1)), a)


def squeeze(a: Tensor, dim: int | None = None, node_name: str = "") -> Tensor:
    """Remove dimensions of size 1 (all, or just `dim`) (a view)."""
    if dim is None:
        return run_view_op(SqueezeBackward0(), a)
    (axis,) = normalize_dims(dim, a.ndim)
    node = SqueezeBackward4(axis) if node_name == "SqueezeBackward4" else SqueezeBackward1(axis)
    return run_view_op(node, a)


def expand(a: Tensor, shape: Sequence[int]) -> Tensor:
    """Broadcast to `shape` without copying (-1 keeps a size) (a view)."""
    padded = (1,) * (len(shape) - a.ndim) + a._array.shape
    target = tuple(old if new == -1 else int(new) for old, new in zip(padded, shape, strict=True))
    try:
        np.broadcast_shapes(a._array.shape, target)
    except ValueError:
        raise RuntimeError(
            f"The expanded size of the tensor must match the existing size at non-singleton "
            f"dimension; cannot expand {list(a._array.shape)} to {list(target)}"
        ) from None
    return run_view_op(ExpandBackward0(target), a)


# --------------------------------------------------------------------------------------------
# Indexing
# --------------------------------------------------------------------------------------------


class IndexBackward0(Node):
    """`t[index]` with an integer/bool array index: a copy; backward scatters-adds the grad."""

    def __init__(self, key: object) -> None:
        super().__init__()
        self.key = key

    def forward(self, a: Tensor) -> np.ndarray:
        return np.array(a._array[self.key])

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        full = np.zeros(self.input_shapes[0], dtype=grad.dtype)
        np.add.at(full, self.key, grad)  # add.at: a repeated index gets every contribution
        return (full,)


def getitem(a: Tensor, key: object) -> Tensor:
    """`a[key]`: views for ints/slices/None/..., one node per indexed dimension, like torch."""
    key = _plain_key(key)
    if not is_basic_index(key):
        try:
            a._array[key]
        except IndexError as error:
            raise IndexError(str(error).replace("axis", "dimension")) from None
        return run_op(IndexBackward0(key), a)
    parts = expand_basic_index(key, a.ndim)
    if not isinstance(key, slice) and all(part == slice(None) for part in parts):
        return run_view_op(AliasBackward0(), a)  # t[...], t[:, :]; but t[:] is a slice
    steps = [p for p in parts if p != slice(None)] or [slice(None)]
    result, dim, step_index = a, 0, 0
    for part in parts:
        if part is None:
            result = run_view_op(UnsqueezeBackward0(dim), result)
            dim += 1
        elif isinstance(part, slice):
            if part != slice(None) or (steps == [slice(None)] and step_index == 0):
                result = run_view_op(SliceBackward0(dim, part), result)
                step_index += 1
            dim += 1
        elif part is not Ellipsis:
            size = result._array.shape[dim]
            if not -size <= part < size:
                raise IndexError(
                    f"index {part} is out of bounds for dimension {dim} with size {size}"
                )
            result = run_view_op(SelectBackward0(dim, int(part) % size), result)
    return result


def _plain_key(key: object) -> object:
    """Replace tensors inside an index by their arrays."""
    if isinstance(key, Tensor):
        return key._array
    if isinstance(key, tuple):
        return tuple(part._array if isinstance(part, Tensor) else part for part in key)
    if isinstance(key, list):
        return np.asarray(key)
    return key


def is_basic_index(key: object) -> bool:
    """True when numpy's indexing with `key` returns a view (ints, slices, None, Ellipsis)."""
    parts = key if isinstance(key, tuple) else (key,)
    for part in parts:
        if isinstance(part, bool):  # a bool is an int to Python but a mask to numpy
            return False
        if not (isinstance(part, (int, np.integer, slice)) or part is None or part is Ellipsis):
            return False
    return True


def expand_basic_index(key: object, ndim: int) -> list[object]:
    """Spell out a basic index one entry per dimension step (Ellipsis expanded, None kept).

    torch records `b[1:, 0]` as a SliceBackward0 followed by a SelectBackward0, one node per
    indexed dimension; this list is that sequence of steps.
    """
    parts = list(key) if isinstance(key, tuple) else [key]
    consumed = sum(1 for part in parts if part is not None and part is not Ellipsis)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for tensor of dimension {ndim} (got {consumed} indices)"
        )
    if Ellipsis in parts:
        where = parts.index(Ellipsis)
        parts[where : where + 1] = [slice(None)] * (ndim - consumed)
    return parts


# --------------------------------------------------------------------------------------------
# Joining tensors (torch's docs list cat and stack beside indexing and slicing): copies
# --------------------------------------------------------------------------------------------


class CatBackward0(Node):
    """Concatenate along `dim`; backward hands each input its slice of the gradient."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, *tensors: Tensor) -> np.ndarray:
        self.axis = normalize_dims(self.dim, tensors[0].ndim)[0]
        return np.concatenate([t._array for t in tensors], axis=self.axis)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        sizes = [shape[self.axis] for shape in self.input_shapes]
        return tuple(np.split(grad, np.cumsum(sizes)[:-1], axis=self.axis))


class StackBackward0(Node):
    """Stack along a new dimension `dim`."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, *tensors: Tensor) -> np.ndarray:
        return np.stack([t._array for t in tensors], axis=self.dim)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        return tuple(np.moveaxis(grad, self.dim, 0))


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Concatenate tensors along an existing dimension."""
    return run_op(CatBackward0(dim), *tensors)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Stack tensors along a new dimension."""
    return run_op(StackBackward0(dim), *tensors)
