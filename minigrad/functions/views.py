"""Views: results that look at part of their input's memory, plus indexing and joining.

Each view op is a `ViewNode`: `view_of` maps the input's array to the output's array (a numpy
view, no copy), and its backward writes the gradient into the part of the input the view
looked at. `Tensor._apply_view` makes the output share memory and version counter with its
input. Indexing with an array (`t[[0, 2]]`) and joining (`cat`, `stack`) copy instead.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..dtypes import result_dtype
from ..graph import Node


class ViewNode(Node):
    """Base of the view ops -- self: the gradient written into a zero input at the view's place."""

    def view_of(self, array: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        full = np.zeros(self.input_shapes[0], dtype=grad.dtype)
        self.view_of(full)[...] = grad
        return (full,)


class ViewBackward0(ViewNode):
    """view(self, size) -- self: grad.reshape(self.sizes())."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__()
        self.shape = shape

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.reshape(array, self.shape, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class UnsafeViewBackward0(Node):
    """_unsafe_view(self, size) -- self: grad.reshape(self.sizes()).

    What `reshape` records after the clone it needs when the memory layout allows no view.
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__()
        self.shape = shape

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a.reshape(self.shape)  # `a` is the fresh clone: nobody else sees it

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class TransposeBackward0(ViewNode):
    """transpose(self, dim0, dim1) -- self: grad.transpose(dim0, dim1)."""

    def __init__(self, dim0: int, dim1: int) -> None:
        super().__init__()
        self.dim0, self.dim1 = dim0, dim1

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.swapaxes(array, self.dim0, self.dim1) if array.ndim else array[...]


class PermuteBackward0(ViewNode):
    """permute(self, dims) -- self: grad.permute(inverse of dims)."""

    def __init__(self, dims: tuple[int, ...]) -> None:
        super().__init__()
        self.dims = dims

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.transpose(array, self.dims)


class TBackward0(TransposeBackward0):
    """t(self) -- self: grad.t()."""


class SliceBackward0(ViewNode):
    """slice(self, dim, start, end, step) -- self: grad written into the slice of zeros."""

    def __init__(self, dim: int, part: slice) -> None:
        super().__init__()
        self.dim, self.part = dim, part

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return array[(slice(None),) * self.dim + (self.part,)]


class SelectBackward0(ViewNode):
    """select(self, dim, index) -- self: grad written into row `index` of zeros."""

    def __init__(self, dim: int, index: int) -> None:
        super().__init__()
        self.dim, self.index = dim, index

    def view_of(self, array: np.ndarray) -> np.ndarray:
        # the trailing Ellipsis keeps a 0-d result a view (a bare a[0] of a 1-d numpy array
        # is a copied scalar, which would not share memory)
        return array[(slice(None),) * self.dim + (self.index, Ellipsis)]


class UnsqueezeBackward0(ViewNode):
    """unsqueeze(self, dim) -- self: grad.squeeze(dim)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.expand_dims(array, self.dim)


class SqueezeBackward0(ViewNode):
    """squeeze(self) -- self: grad.reshape(self.sizes())."""

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.squeeze(array)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class SqueezeBackward1(ViewNode):
    """squeeze(self, dim) -- self: grad.reshape(self.sizes())."""

    def __init__(self, dim: int | None) -> None:
        super().__init__()
        self.dim = dim  # None for a 0-d input

    def view_of(self, array: np.ndarray) -> np.ndarray:
        if self.dim is None or array.shape[self.dim] != 1:
            return array[...]
        return np.squeeze(array, self.dim)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class SqueezeBackward4(SqueezeBackward1):
    """squeeze(self, dim) as torch records it after a vector @ matrix product."""


class ExpandBackward0(ViewNode):
    """expand(self, size) -- self: grad summed back to self.sizes() (the engine's unbroadcast)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__()
        self.shape = shape

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.broadcast_to(array, self.shape)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


class AliasBackward0(ViewNode):
    """alias(self) (`t[...]`) -- self: grad."""

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return array[...]


class AsStridedBackward0(ViewNode):
    """A view after its base was changed in place: a window onto the base's new history.

    Its backward is every view's (ViewNode): the gradient goes into the region of a zero base.
    """

    def __init__(self, view_of: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__()
        self.view_of = view_of  # base array -> the view's region of it


# ---- indexing and joining: copies -------------------------------------------------------------


class IndexBackward0(Node):
    """index(self, indices) -- self: zeros with grad added at the indices (repeats add up)."""

    def __init__(self, key: object) -> None:
        super().__init__()
        self.key = key

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.array(a[self.key])

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        full = np.zeros(self.input_shapes[0], dtype=grad.dtype)
        np.add.at(full, self.key, grad)  # add.at: a repeated index gets every contribution
        return (full,)


class CatBackward0(Node):
    """cat(tensors, dim) -- tensors: each its own slice of grad along dim."""

    def __init__(self, axis: int) -> None:
        super().__init__()
        self.axis = axis

    def forward(self, *arrays: np.ndarray) -> np.ndarray:
        return np.concatenate(arrays, axis=self.axis, dtype=result_dtype(*arrays))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        sizes = [shape[self.axis] for shape in self.input_shapes]
        return tuple(np.split(grad, np.cumsum(sizes)[:-1], axis=self.axis))


class StackBackward0(Node):
    """stack(tensors, dim) -- tensors: grad.unbind(dim)."""

    def __init__(self, axis: int) -> None:
        super().__init__()
        self.axis = axis

    def forward(self, *arrays: np.ndarray) -> np.ndarray:
        return np.stack(arrays, axis=self.axis, dtype=result_dtype(*arrays))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        return tuple(np.moveaxis(grad, self.axis, 0))
