"""Views: results that look at part of their input's memory, plus indexing and joining.

Each view op is a `ViewNode`: `view_of` maps the input's array to the output's array (a numpy
view, no copy), and its backward writes the gradient into the part of the input the view
looked at. `TensorCore._apply_view` (recording.py) makes the output share memory and version
counter with its input. Indexing with an array (`t[[0, 2]]`) and joining (`cat`, `stack`) copy
instead.

A view of a view keeps the whole way from the root tensor's memory: a `ViewChain`, which the
in-place machinery uses to find the region of the root that a view looks at.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._convert import torch_index_entries
from .._new_tensor import make_tensor
from ..dtypes import result_dtype
from ..graph import Node, Save, unsigned
from ..versions import SECOND_BACKWARD_MESSAGE
from .formulas import is_array, permute, record, transposed, zeros


class ViewNode(Node):
    """Base of the view ops -- self: the gradient written into a zero input at the view's place."""

    def view_of(self, array: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (record(GradIntoView(self, self.input_shapes[0]), grad),)


class ViewChain:
    """The views from a root tensor's memory to a view of it, applied in order."""

    __slots__ = ("steps",)

    def __init__(self, steps: Sequence[ViewNode]) -> None:
        self.steps = tuple(steps)

    def then(self, step: ViewNode) -> ViewChain:
        """This chain followed by one more view."""
        return ViewChain((*self.steps, step))

    def view_of(self, array: np.ndarray) -> np.ndarray:
        """The region of the root's `array` that the last view looks at."""
        for step in self.steps:
            array = step.view_of(array)
        return array

    def name(self) -> str:
        """The name of the last view's node, for the nodes made from this chain."""
        return self.steps[-1].name()


class GradIntoView(Node):
    """The backward of a view as an op of its own (for create_graph): zeros of the input's shape
    with `grad` written into the view's region -- grad: the view's region of grad (TakeView)."""

    def __init__(self, view: ViewNode | ViewChain, shape: tuple[int, ...]) -> None:
        self.view, self.shape = view, shape

    def name(self) -> str:
        return f"{self.view.name().removesuffix('0')}Backward0"  # e.g. SliceBackwardBackward0

    def forward(self, grad: np.ndarray) -> np.ndarray:
        full = np.zeros(self.shape, dtype=grad.dtype)
        region = self.view.view_of(full)
        if region.flags.writeable:
            region[...] = grad
        else:  # an expanded region: one element seen at several places gets the sum of them
            places = self.view.view_of(np.arange(full.size).reshape(self.shape))
            np.add.at(full.reshape(-1), places, grad)
        return full

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (record(TakeView(self.view), grad),)


class TakeView(Node):
    """A copy of the view's region of the input -- self: grad written into that region."""

    def __init__(self, view: ViewNode | ViewChain) -> None:
        self.view = view

    def name(self) -> str:
        return self.view.name()

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.shape = a.shape
        return np.array(self.view.view_of(a))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (record(GradIntoView(self.view, self.shape), grad),)


class ViewBackward0(ViewNode):
    """view(self, size) -- self: grad.reshape(self.sizes())."""

    saved_numbers = ("self_sym_sizes",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.reshape(array, self.shape, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class ReshapeAliasBackward0(ViewBackward0):
    """_reshape_alias(self, size, stride): what torch's `reshape` records for a view of a tensor
    that is not contiguous (`t[:, :4].reshape(2, 2, 4)`) -- self: grad.reshape(self.sizes())."""


class UnsafeViewBackward0(Node):
    """_unsafe_view(self, size) -- self: grad.reshape(self.sizes()).

    What `reshape` records after the clone it needs when the memory layout allows no view.
    """

    saved_numbers = ("self_sym_sizes",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a.reshape(self.shape)  # `a` is the fresh clone: nobody else sees it

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.reshape(self.input_shapes[0]),)


class TransposeBackward0(ViewNode):
    """transpose(self, dim0, dim1) -- self: grad.transpose(dim0, dim1)."""

    saved_numbers = ("dim0", "dim1")

    def __init__(self, dim0: int, dim1: int) -> None:
        self.dim0, self.dim1 = dim0, dim1

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return array.swapaxes(self.dim0, self.dim1) if array.ndim else array[...]

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        if grad.ndim == 0:
            return (grad,)
        return (grad.swapaxes(self.dim0, self.dim1),)


class PermuteBackward0(ViewNode):
    """permute(self, dims) -- self: grad.permute(inverse of dims)."""

    saved_numbers = ("dims",)

    def __init__(self, dims: tuple[int, ...]) -> None:
        self.dims = dims

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.transpose(array, self.dims)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (permute(grad, tuple(np.argsort(self.dims).tolist())),)


class TBackward0(TransposeBackward0):
    """t(self) -- self: grad.t()."""

    saved_numbers = ()  # (torch's TBackward0 shows no dims)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (transposed(grad),)  # (under create_graph a TBackward0, as torch's formula)


class SliceBackward0(ViewNode):
    """slice(self, dim, start, end, step) -- self: grad written into the slice of zeros."""

    saved_numbers = ("dim", "end", "self_sym_sizes", "start", "step")

    def __init__(self, dim: int, part: slice) -> None:
        self.dim, self.part = dim, part

    def saved_number(self, name: str) -> Any:
        """start, end and step as torch shows them: as given (unsigned), with 0, the largest
        int64 and 1 for the ones left out (`t[1:]` has no end)."""
        left_out = {"start": 0, "end": 2**63 - 1, "step": 1}
        if name not in left_out:
            return super().saved_number(name)
        given = {"start": self.part.start, "end": self.part.stop, "step": self.part.step}[name]
        return left_out[name] if given is None else unsigned(given)

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return array[(slice(None),) * self.dim + (self.part,)]


class SelectBackward0(ViewNode):
    """select(self, dim, index) -- self: grad written into row `index` of zeros."""

    saved_numbers = ("dim", "index", "self_sym_sizes")

    def __init__(self, dim: int, index: int) -> None:
        self.dim, self.index = dim, index

    def view_of(self, array: np.ndarray) -> np.ndarray:
        # the trailing Ellipsis keeps a 0-d result a view (a bare a[0] of a 1-d numpy array
        # is a copied scalar, which would not share memory)
        return array[(slice(None),) * self.dim + (self.index, Ellipsis)]


class DiagonalBackward0(ViewNode):
    """diagonal(self, offset, dim1, dim2) -- self: grad written onto that diagonal of zeros.

    The view steps along dim1 and dim2 together: one stride that is the sum of the two."""

    saved_numbers = ("dim1", "dim2", "offset", "self_sym_sizes")

    def __init__(self, offset: int, dim1: int, dim2: int) -> None:
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2

    def saved_number(self, name: str) -> Any:
        """`_saved_offset` is shown unsigned (see graph.unsigned)."""
        return unsigned(self.offset) if name == "offset" else super().saved_number(name)

    def view_of(self, array: np.ndarray) -> np.ndarray:
        d1, d2 = self.dim1, self.dim2
        start = [slice(None)] * array.ndim
        if self.offset >= 0:
            start[d2] = slice(self.offset, None)
        else:
            start[d1] = slice(-self.offset, None)
        shifted = array[tuple(start)]
        rest = [k for k in range(array.ndim) if k not in (d1, d2)]
        length = max(min(shifted.shape[d1], shifted.shape[d2]), 0)
        shape = [shifted.shape[k] for k in rest] + [length]
        strides = [shifted.strides[k] for k in rest] + [shifted.strides[d1] + shifted.strides[d2]]
        return np.lib.stride_tricks.as_strided(shifted, shape, strides)


class AsStridedBackward1(ViewNode):
    """as_strided(self, size, stride, storage_offset): any window onto the memory, element
    strides counted from the start of the tensor -- self: grad written into that window."""

    def __init__(self, size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> None:
        self.size, self.stride, self.offset = size, stride, offset

    def view_of(self, array: np.ndarray) -> np.ndarray:
        item = array.itemsize
        start = array.reshape(-1)[self.offset :] if self.offset else array
        strides = tuple(step * item for step in self.stride)
        return np.lib.stride_tricks.as_strided(start, self.size, strides)


class AsStridedView(AsStridedBackward1):
    """as_strided(...) as a new tensor (torch names this node AsStridedBackward0)."""

    def name(self) -> str:
        return "AsStridedBackward0"


class UnsqueezeBackward0(ViewNode):
    """unsqueeze(self, dim) -- self: grad.squeeze(dim)."""

    saved_numbers = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.expand_dims(array, self.dim)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad.squeeze(self.dim),)


def unsqueeze_to(grad: Any, dims: Sequence[int], sizes: tuple[int, ...]) -> Any:
    """`grad` of a squeeze, given back the dims among `dims` that had size 1 in `sizes` (torch's
    unsqueeze_to): a reshape on arrays; on tensors (create_graph) one `unsqueeze` per dim,
    lowest first, so the graph has torch's UnsqueezeBackward0 nodes."""
    if is_array(grad):
        return grad.reshape(sizes)
    for dim in dims:
        if sizes[dim] == 1:
            grad = grad.unsqueeze(dim)
    return grad


class SqueezeBackward0(ViewNode):
    """squeeze(self) -- self: unsqueeze_to(grad, self.sizes())."""

    saved_numbers = ("self_sym_sizes",)

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.squeeze(array)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        sizes = self.input_shapes[0]
        return (unsqueeze_to(grad, range(len(sizes)), sizes),)


class SqueezeBackward1(ViewNode):
    """squeeze(self, dim) -- self: unsqueeze_to(grad, dim, self.sizes())."""

    saved_numbers = ("dim", "self_sym_sizes")

    def __init__(self, dim: int | None) -> None:
        self.dim = dim  # None for a 0-d input

    def view_of(self, array: np.ndarray) -> np.ndarray:
        if self.dim is None or array.shape[self.dim] != 1:
            return array[...]
        return np.squeeze(array, self.dim)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        dims = () if self.dim is None else (self.dim,)
        return (unsqueeze_to(grad, dims, self.input_shapes[0]),)


class SqueezeBackward4(SqueezeBackward1):
    """squeeze(self, dim) as torch records it after a vector @ matrix product."""


class ExpandBackward0(ViewNode):
    """expand(self, size) -- self: grad summed back to self.sizes() (the engine's unbroadcast)."""

    saved_numbers = ("self_sym_sizes",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return np.broadcast_to(array, self.shape)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


class AliasBackward0(ViewNode):
    """alias(self) (`t[...]`) -- self: grad."""

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return array[...]

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (grad,)


class AsStridedBackward0(ViewNode):
    """A view after its base was changed in place: a window onto the base's new history.

    Its backward is every view's (ViewNode): the gradient goes into the region of a zero base.
    """

    def __init__(self, chain: ViewChain) -> None:
        self.chain = chain  # from the base's memory to the view's region of it

    def view_of(self, array: np.ndarray) -> np.ndarray:
        return self.chain.view_of(array)


# ---- indexing and joining: copies -------------------------------------------------------------


class SavesIndices(Node):
    """A node that keeps integer or boolean arrays from its arguments (the indices of `t[i]`,
    gather's index, masked_fill's mask, max's indices, a loss's target): torch saves them as
    tensors, so they are freed by backward like saved values, and a second backward fails as
    for any other. Its backward starts with `check_indices()`."""

    indices_freed = False
    frees_state = True

    def release_saved(self) -> None:
        super().release_saved()
        self.indices_freed = True

    def check_indices(self) -> None:
        """torch's error for a second backward through freed indices."""
        if self.indices_freed:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)

    def kept_tensor(self, array: np.ndarray) -> Any:
        """A kept array as torch's `_saved_<name>` shows it, a tensor (torch's error once freed)."""
        self.check_indices()
        return make_tensor(self.tensor_class, np.array(array))


class IndexBackward0(SavesIndices):
    """index(self, indices) -- self: zeros with grad added at the indices (repeats add up)."""

    saved_numbers = ("indices", "self_sym_sizes")

    def __init__(self, key: object) -> None:
        self.key = key

    def saved_number(self, name: str) -> Any:
        """`_saved_indices` as torch shows it: a tuple, a tensor or None per indexed dim."""
        if name != "indices":
            return super().saved_number(name)
        entries = torch_index_entries(self.key, len(self.input_shapes[0]))
        return tuple(None if entry is None else self.kept_tensor(entry) for entry in entries)

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.array(a[self.key])

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        self.check_indices()
        return (record(GradIntoIndex(self.key), zeros(self.input_shapes[0], grad), grad),)


class GradIntoIndex(Node):
    """The backward of indexing as an op of its own (for create_graph): `grad` added into zeros
    at the indices (repeats add up), torch's index_put_(accumulate=True) on new zeros --
    zeros: nothing (a constant, an empty slot of the graph); grad: grad at the indices."""

    saved_numbers = ("accumulate",)
    accumulate = True

    def __init__(self, key: object) -> None:
        self.key = key

    def name(self) -> str:
        return "IndexPutImplBackward0"

    def forward(self, zeros: np.ndarray, grad: np.ndarray) -> np.ndarray:
        # (the zeros were made for this op alone: written in place, as torch's index_put_)
        np.add.at(zeros, self.key, grad)  # add.at: a repeated index gets every contribution
        return zeros

    def backward(self, grad: np.ndarray) -> tuple[None, np.ndarray]:
        return None, record(IndexBackward0(self.key), grad)


class RepeatBackward0(Node):
    """repeat(self, repeats) -- self: the leading new dims of repeats summed away one by one,
    then grad cut into the repeated blocks (one reshape) and the blocks summed (torch's
    repeat_backward; zeros when a repeat is 0)."""

    saved_numbers = ("repeats", "self_sym_sizes")

    def __init__(self, repeats: tuple[int, ...]) -> None:
        self.repeats = repeats

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.tile(a, self.repeats)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        if 0 in self.repeats:
            return (zeros(shape, grad),)
        lead = len(self.repeats) - len(shape)
        for _ in range(lead):
            grad = grad.sum(0)
        sizes: list[int] = []  # each repeated dim split in two: (repeat, size)
        repeat_dims: list[int] = []
        for repeat, size in zip(self.repeats[lead:], shape, strict=True):
            if repeat != 1:
                repeat_dims.append(len(sizes))
                sizes.append(repeat)
            sizes.append(size)
        if repeat_dims:
            grad = grad.reshape(tuple(sizes)).sum(tuple(repeat_dims))
        return (grad,)


class _JoinAlongDim(Node):
    """What cat and stack share: the dim they join along, kept two ways."""

    saved_numbers = ("dim",)

    def __init__(self, dim: int, given_dim: int | None = None) -> None:
        self.dim = dim  # counted from the front (-1 made positive)
        self.given_dim = dim if given_dim is None else given_dim

    def saved_number(self, name: str) -> Any:
        """`_saved_dim` is the dim as it was given, shown unsigned (see graph.unsigned)."""
        return unsigned(self.given_dim) if name == "dim" else super().saved_number(name)


class CatBackward0(_JoinAlongDim):
    """cat(tensors, dim) -- tensors: each its own slice of grad along dim."""

    def forward(self, *arrays: np.ndarray) -> np.ndarray:
        return np.concatenate(arrays, axis=self.dim, dtype=result_dtype(*arrays))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        pieces, start = [], 0
        for shape in self.input_shapes:
            stop = start + shape[self.dim]
            pieces.append(grad[(slice(None),) * self.dim + (slice(start, stop),)])
            start = stop
        return tuple(pieces)


class StackBackward0(_JoinAlongDim):
    """stack(tensors, dim) -- tensors: grad.unbind(dim)."""

    def forward(self, *arrays: np.ndarray) -> np.ndarray:
        return np.stack(arrays, axis=self.dim, dtype=result_dtype(*arrays))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        before = (slice(None),) * self.dim
        return tuple(grad[(*before, i, Ellipsis)] for i in range(len(self.input_shapes)))


# ---- ops with several outputs, each a view of the input ------------------------------------


class UnbindBackward0(Node):
    """unbind(self, dim): the slices along dim, each a view -- self: stack(grads, dim), zeros
    for a slice whose gradient did not arrive."""

    saved_numbers = ("dim",)

    def __init__(self, axis: int, count: int) -> None:
        self.axis, self.num_outputs = axis, count
        self.steps = tuple(SelectBackward0(axis, i) for i in range(count))

    def backward(self, grads: tuple[np.ndarray | None, ...]) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        piece = shape[: self.axis] + shape[self.axis + 1 :]
        like = next(grad for grad in grads if grad is not None)
        filled = [grad if grad is not None else zeros(piece, like) for grad in grads]
        return (record(StackBackward0(self.axis), *filled),)


class SplitBackward0(Node):
    """split(self, size, dim) and chunk: consecutive pieces along dim, each a view --
    self: cat(grads, dim), zeros for a piece whose gradient did not arrive."""

    saved_numbers = ("dim", "self_sym_sizes", "split_size")

    def __init__(self, axis: int, bounds: list[tuple[int, int]]) -> None:
        self.axis, self.num_outputs = axis, len(bounds)
        self.steps = tuple(SliceBackward0(axis, slice(start, stop)) for start, stop in bounds)
        self.bounds = bounds

    def backward(self, grads: tuple[np.ndarray | None, ...]) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        like = next(grad for grad in grads if grad is not None)
        filled = []
        for grad, (start, stop) in zip(grads, self.bounds, strict=True):
            piece = shape[: self.axis] + (stop - start,) + shape[self.axis + 1 :]
            filled.append(grad if grad is not None else zeros(piece, like))
        return (record(CatBackward0(self.axis), *filled),)


# ---- gather and masked_fill: copies that pick or replace elements ----------------------------


class SplitWithSizesBackward0(SplitBackward0):
    """split(self, [sizes], dim): pieces of the listed sizes, each a view -- self: as split's."""

    saved_numbers = ("dim", "self_sym_sizes", "split_sizes")


class GatherBackward0(SavesIndices):
    """gather(self, dim, index) -- self: zeros with grad added at index along dim.

    torch keeps the input too (`_saved_self`), so changing it in place makes backward fail."""

    saves = (Save("self", input=0),)
    saved_numbers = ("dim", "index", "sparse_grad")  # (dim as given: `showing`)
    sparse_grad = False

    def __init__(self, axis: int, index: np.ndarray) -> None:
        self.axis, self.index = axis, index

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.take_along_axis(a, self.index, axis=self.axis)

    def saved_number(self, name: str) -> Any:
        return self.kept_tensor(self.index) if name == "index" else super().saved_number(name)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        self.check_indices()
        shape = self.unpack("self").shape  # (as torch reads it: fails if changed in place)
        return (record(GradIntoGather(self.axis, self.index), zeros(shape, grad), grad),)


class GradIntoGather(Node):
    """The backward of gather as an op of its own: `grad` added into zeros at the gathered places,
    torch's scatter_add on new zeros -- zeros: nothing (an empty slot of the graph); grad: gather
    of grad."""

    def __init__(self, axis: int, index: np.ndarray) -> None:
        self.axis, self.index = axis, index

    def name(self) -> str:
        return "ScatterAddBackward0"

    def forward(self, zeros: np.ndarray, grad: np.ndarray) -> np.ndarray:
        places = np.indices(self.index.shape, sparse=True)
        key = tuple(self.index if d == self.axis else places[d] for d in range(self.index.ndim))
        np.add.at(zeros, key, grad)  # (the zeros were made for this op alone, as torch's)
        return zeros

    def backward(self, grad: np.ndarray) -> tuple[None, np.ndarray]:
        gathered = GatherBackward0(self.axis, self.index).showing(dim=self.axis)
        return None, record(gathered, grad)


class KeepsMask(SavesIndices):
    """What masked_fill's two nodes share: the mask, which torch shows as `_saved_mask`."""

    saved_numbers = ("mask",)

    def saved_number(self, name: str) -> Any:
        return self.kept_tensor(self.mask) if name == "mask" else super().saved_number(name)


class MaskedFillBackward1(KeepsMask):
    """masked_fill(self, mask, value: Tensor) -- self: grad where mask is false;
    value: the sum of grad where mask is true."""

    def __init__(self, mask: np.ndarray) -> None:
        self.mask = mask

    def forward(self, a: np.ndarray, value: np.ndarray) -> np.ndarray:
        return np.where(self.mask, value.astype(a.dtype), a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.check_indices()
        mask = np.broadcast_to(self.mask, self.input_shapes[0])
        kept = record(MaskedFillBackward0(mask, 0), grad)
        return kept, (grad - kept).sum()


class MaskedFillBackward0(KeepsMask):
    """masked_fill(self, mask, value) -- self: grad where mask is false, 0 where it is true."""

    def __init__(self, mask: np.ndarray, value: object) -> None:
        self.mask, self.value = mask, value

    def forward(self, a: np.ndarray) -> np.ndarray:
        return np.where(self.mask, np.asarray(self.value, dtype=a.dtype), a)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        self.check_indices()
        mask = np.broadcast_to(self.mask, self.input_shapes[0])
        return (record(MaskedFillBackward0(mask, 0), grad),)


# ---- in-place view ops: the tensor itself takes the new shape ---------------------------------


class UnsqueezeBackward1(UnsqueezeBackward0):
    """unsqueeze_(self, dim) -- self: grad.squeeze(dim)."""


class SqueezeBackward3(SqueezeBackward0):
    """squeeze_(self) -- self: grad.reshape(self.sizes())."""


class TBackward1(TBackward0):
    """t_(self) -- self: grad.t()."""


class TransposeBackward1(TransposeBackward0):
    """transpose_(self, dim0, dim1) -- self: grad.transpose(dim0, dim1)."""
