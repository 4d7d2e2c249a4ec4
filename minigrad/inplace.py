"""In-place operations: change the memory, bump the version, and record the change if needed.

`t.mul_(2)` has three effects, in this order:

1. checks: a leaf that requires grad (or a view of one) refuses in-place changes while grad
   mode is on, because its old value may be needed and nothing could record the change;
2. the new values are written into `t`'s memory, and the version counter that `t` shares with
   its views and `detach()`ed aliases goes up by one (also under `no_grad`);
3. when grad mode is on and something involved requires grad, the graph is rewritten so that
   `t.grad_fn` is the node of the change. For a view, its base gets a `CopySlices` node:
   "the base, with this region replaced by the new values".
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .autograd import Node, edge_to
from .grad_mode import is_grad_enabled
from .ops import check_broadcast
from .tensor import Tensor
from .views import ViewNode


class CopySlices(Node):
    """A base tensor whose region (seen through a view) was replaced in place.

    Inputs: the base before the change, and the new values of the region. The gradient of the
    region goes to the new values; the rest goes to the old base.

    Different from torch, on purpose: torch's CopySlices wraps the node of the change and its
    edges are (old base, *that node's other inputs*), so for `b[1:].mul_(2)` they read
    (MulBackward0, None). Here the node of the change stays a node of its own, so the edges are
    (old base, MulBackward0 of the new values) and a picture shows every step. Gradients are the
    same; the parity tests compare only this node's name.
    """

    def __init__(self, view_of: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__()
        self.view_of = view_of  # base array -> the region's view of it

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grad_base = np.array(grad)
        region = self.view_of(grad_base)
        grad_region = region.copy()
        region[...] = 0  # the old values of the region were overwritten: no gradient for them
        return grad_base, grad_region


class AsStridedBackward0(ViewNode):
    """The view after its base was changed in place: a window onto the base's new graph.

    Its backward is every view's (ViewNode): the gradient goes into the region of a zero base.
    """

    def __init__(self, view_of: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__()
        self.view_of = view_of  # base array -> the view's region of it


def check_inplace_allowed(target: Tensor) -> None:
    """Refuse in-place changes to leaves that require grad while recording (torch's rule)."""
    if not is_grad_enabled():
        return
    if target.grad_fn is None and target._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    base = target._base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def apply(target: Tensor, compute: Callable[[Tensor], Tensor], *others: Tensor) -> Tensor:
    """Replace `target`'s values by `compute(target_before)`, in place; returns `target`.

    `compute` is the out-of-place version of the operation (for `mul_`, `before * other`).
    """
    check_inplace_allowed(target)
    recording = is_grad_enabled() and (
        target.requires_grad or any(other.requires_grad for other in others)
    )
    if recording:
        # the op may save its input for backward: give it a copy of the old values, which
        # stay correct after we overwrite target's memory
        before = Tensor._from_array(target._array.copy())
        before.grad_fn = target.grad_fn
        before._requires_grad = target.requires_grad
        result = compute(before)
    else:
        result = compute(target)
    _write_values(target, result._array)
    target._version_counter.bump()
    if recording and result.grad_fn is not None:
        _rebase_history(target, result.grad_fn)
    return target


def _write_values(target: Tensor, values: np.ndarray) -> None:
    """Copy `values` into target's memory, with torch's shape and dtype rules for in-place ops."""
    if values.shape != target._array.shape:
        raise RuntimeError(
            f"output with shape {list(target._array.shape)} doesn't match the broadcast shape "
            f"{list(np.broadcast_shapes(values.shape, target._array.shape))}"
        )
    if values.dtype.kind == "f" and target._array.dtype.kind in "iub":
        names = {"f": "Float", "i": "Long", "u": "Byte", "b": "Bool"}
        raise RuntimeError(
            f"result type {names['f']} can't be cast to the desired output type "
            f"{names[target._array.dtype.kind]}"
        )
    if not target._array.flags.writeable:
        raise RuntimeError(
            "unsupported operation: this tensor is a broadcast (expand) view whose elements share "
            "memory; clone() it before changing it in place"
        )
    target._array[...] = values


def _rebase_history(target: Tensor, node: Node) -> None:
    """Make `node` (the recorded change) the history of `target` (and of its base, for a view)."""
    if target._base is None:
        old = target.grad_fn
        if old is not None and old._retained_output is not None:
            # retain_grad() follows the tensor: its .grad is the gradient of the newest values
            node._retained_output, old._retained_output = old._retained_output, None
        target.grad_fn = node
        return
    base = target._base
    copy_slices = CopySlices(target._view_of)
    new_values_edge, new_values_shape = (node, 0), target._array.shape
    if node.name() == "CopyBackwards":
        # `base[region] = source`: like torch, connect the source straight to CopySlices
        new_values_edge, new_values_shape = node.next_functions[1], node.input_shapes[1]
    copy_slices.next_functions = (edge_to(base), new_values_edge)
    copy_slices.input_shapes = (base._array.shape, new_values_shape)
    base.grad_fn = copy_slices
    target.grad_fn = view_window(target)


def view_window(view: Tensor) -> AsStridedBackward0:
    """A new grad_fn for `view` after its memory changed in place: its region of the base."""
    window = AsStridedBackward0(view._view_of)
    window.next_functions = (edge_to(view._base),)
    window.input_shapes = (view._base._array.shape,)
    return window


# ---- the nodes in-place methods record (the value before the change is their first input) --


class FillBackward2(Node):
    """`fill_(value)` recorded: the old values are gone, so they get no gradient."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, before: Tensor) -> np.ndarray:
        return np.full_like(before._array, self.value)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (np.zeros_like(grad),)


class ZeroBackward0(FillBackward2):
    """`zero_()` recorded."""

    def __init__(self) -> None:
        super().__init__(0)


class CopyBackwards(Node):
    """`dst.copy_(src)` recorded: dst's old values get nothing, src gets the gradient."""

    def forward(self, before: Tensor, source: Tensor) -> np.ndarray:
        check_broadcast(before, source)
        values = np.broadcast_to(source._array, before._array.shape)
        return values.astype(before._array.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros_like(grad), grad


class IndexPutBackward0(Node):
    """`t[index] = values` with an array index, recorded."""

    def __init__(self, key: object) -> None:
        super().__init__()
        self.key = key

    def forward(self, before: Tensor, values: Tensor) -> np.ndarray:
        result = before._array.copy()
        result[self.key] = values._array
        return result

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grad_before = grad.copy()
        grad_before[self.key] = 0
        grad_values = grad[self.key]
        return grad_before, grad_values
