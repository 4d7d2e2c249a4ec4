"""The graph and the engine that walks it.

A tensor made by an operation points at a `Node` (its `grad_fn`). Each node knows the nodes of
its inputs (`next_functions`) and keeps the values it needs for its backward formula
(`saved`). A leaf tensor that requires grad is reached through an `AccumulateGrad` node, which
adds the incoming gradient to `leaf.grad`. `backward()` walks this graph from the output to the
leaves, in an order where every node runs after all the nodes that feed it a gradient.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .versions import SavedTensor

__all__ = [
    "AccumulateGrad",
    "GradcheckError",
    "Node",
    "SavedTensor",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]

_node_serials = itertools.count()

# --------------------------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------------------------


class Node:
    """A recorded operation (a tensor's `grad_fn`): its inputs' nodes and its saved values.

    Subclasses (in `ops.py` and its neighbours) define `forward`, which computes the output
    array and saves what backward needs, and `backward`, which turns the gradient of the output
    into one gradient per input, in the order of `next_functions`. Each of those is a new
    array, or `grad` itself passed through unchanged: the engine may add into a new array in
    place (GradBuffers), so one new array must never be handed to two inputs.
    """

    saves_result = False  # ops whose derivative is written with their own output (sigmoid, exp)
    # Defaults, replaced on the instance when the node is connected to the graph (run_op):
    next_functions: tuple[tuple[Node | None, int], ...] = ()  # one edge per input
    input_shapes: tuple[tuple[int, ...], ...] = ()  # to sum broadcast gradients back
    recording = False  # True while forward runs as part of the graph (then `save` keeps values)
    _retained_output: weakref.ref[Tensor] | None = None  # set by retain_grad()

    def __init__(self) -> None:
        self.serial = next(_node_serials)  # creation order, for stable names in pictures
        self.saved: dict[str, SavedTensor] = {}

    def name(self) -> str:
        """torch's name for this node, e.g. 'MulBackward0'."""
        return type(self).__name__

    def save(self, slot: str, tensor: Tensor, is_output: bool = False) -> None:
        """Keep `tensor`'s values for backward (only when the operation is being recorded)."""
        if self.recording:
            self.saved[slot] = SavedTensor(tensor, is_output)

    def unpack(self, slot: str) -> np.ndarray:
        """The values saved under `slot`, checked against later in-place changes."""
        return self.saved[slot].unpack()

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, ...]:
        """Gradients for the inputs, given the gradient of the output."""
        raise NotImplementedError(f"{self.name()} has no backward formula")

    def release_saved(self) -> None:
        """Free the saved values: the graph can then be walked only once more if nothing saved."""
        for saved in self.saved.values():
            saved.free()

    def __repr__(self) -> str:
        # torch adds a memory address here; a stable repr keeps notebook outputs reproducible
        return f"<{self.name()}>"


class AccumulateGrad(Node):
    """The node through which gradients reach a leaf tensor: it adds them to `leaf.grad`."""

    def __init__(self, variable: Tensor) -> None:
        super().__init__()
        self.variable = variable  # the leaf; the leaf itself holds this node only weakly

    def accumulate(self, grad: np.ndarray, owned: bool = False) -> None:
        """`variable.grad += grad`, creating `.grad` on the first call.

        `owned` says that only the engine holds `grad`: then it becomes `.grad` as it is, with
        no copy (torch "steals" such a buffer too). Otherwise `.grad` gets its own copy.
        """
        leaf = self.variable
        if not leaf._requires_grad:
            return  # detach_() or requires_grad_(False) since the graph was built: torch skips it
        array = leaf._array
        if grad.shape != array.shape:
            grad = grad.reshape(array.shape)
        if leaf._grad is None:
            if not (owned and grad.dtype == array.dtype):
                grad = np.array(grad, dtype=array.dtype)
            leaf._grad = Tensor._from_array(grad)
        else:
            leaf._grad._array += grad
            leaf._grad._version_counter.bump()


def edge_to(tensor: Tensor) -> tuple[Node | None, int]:
    """Where a gradient for `tensor` must go: its grad_fn, its AccumulateGrad, or nowhere."""
    node = tensor.grad_fn
    if node is not None:
        return (node, 0)
    if tensor._requires_grad:
        return (tensor._grad_accumulator(), 0)
    return (None, 0)  # the empty slot a detached input leaves behind


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum `grad` down to `shape`: the backward of numpy broadcasting.

    When `a` of shape (3,) was added to `b` of shape (2, 3), `a` was used twice, so its gradient
    is the sum of the two rows of the output's gradient.
    """
    grad = np.asarray(grad)
    if grad.shape == tuple(shape):
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------


def _count_dependencies(roots: Sequence[Node]) -> dict[Node, int]:
    """For every node reachable from `roots`: how many edges point at it (iteratively)."""
    dependencies: dict[Node, int] = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


class GradBuffers:
    """The gradients waiting at each node, summed as they arrive from the node's outputs.

    A buffer is *owned* when only the engine holds its array: a fresh result of a backward
    formula, or a sum made here. An owned array can take the next gradient in place and can
    become a leaf's `.grad` without a copy: at 10^6 elements each copy avoided is a full pass
    over 4 MB. A *borrowed* array (a view, a gradient passed through unchanged, the `gradient`
    a user gave) is never written to.
    """

    def __init__(self) -> None:
        self.arrays: dict[Node, np.ndarray] = {}
        self.owned: set[Node] = set()

    def add(self, node: Node, grad: np.ndarray, owned: bool) -> None:
        """Add `grad` to what is waiting at `node`."""
        previous = self.arrays.get(node)
        if previous is None:
            self.arrays[node] = grad
            if owned:
                self.owned.add(node)
        elif node in self.owned and previous.dtype == grad.dtype:
            previous += grad
        elif owned and previous.dtype == grad.dtype:
            grad += previous  # the waiting array is borrowed, the new one is ours: add into it
            self.arrays[node] = grad
            self.owned.add(node)
        else:
            self.arrays[node] = previous + grad
            self.owned.add(node)

    def pop(self, node: Node) -> tuple[np.ndarray | None, bool]:
        """Take the summed gradient of `node` (None if none arrived) and whether it is owned."""
        owned = node in self.owned
        self.owned.discard(node)
        return self.arrays.pop(node, None), owned


def run_backward(
    roots: Sequence[tuple[Node, np.ndarray]],
    retain_graph: bool,
    capture: dict[Node, None] | None = None,
) -> dict[Node, np.ndarray]:
    """Propagate gradients from `roots` to the leaves.

    A node runs once all the edges into it have delivered their gradient (Kahn's algorithm, no
    recursion, so a 100,000-node chain is fine). With `capture` (used by `grad()`), the gradients
    arriving at those nodes are returned instead of being accumulated into `.grad`.
    """
    dependencies = _count_dependencies([node for node, _ in roots])
    buffers = GradBuffers()
    for node, root_grad in roots:
        buffers.add(node, root_grad, owned=False)  # the caller may still hold it
    ready = [node for node in dict.fromkeys(node for node, _ in roots) if node not in dependencies]
    captured: dict[Node, np.ndarray] = {}
    with no_grad():
        while ready:
            node = ready.pop()
            grad_out, owned = buffers.pop(node)
            input_grads: Sequence[np.ndarray | None] = ()
            if grad_out is not None:
                if node._retained_output is not None:
                    _deliver_retained_grad(node, grad_out)
                if capture is not None and node in capture:
                    captured[node] = grad_out
                if type(node) is AccumulateGrad:
                    if capture is None:
                        node.accumulate(grad_out, owned)
                else:
                    input_grads = node.backward(grad_out)
            for index, (next_node, _) in enumerate(node.next_functions):
                if next_node is None:
                    continue
                grad_in = input_grads[index] if index < len(input_grads) else None
                if grad_in is not None:
                    shape = node.input_shapes[index]
                    if grad_in.shape != shape:
                        grad_in = unbroadcast(grad_in, shape)
                    # A backward formula returns a new array per input, or passes `grad_out`
                    # itself through (maybe to several inputs): only a new array is owned.
                    fresh = type(grad_in) is np.ndarray and grad_in.base is None
                    buffers.add(next_node, grad_in, fresh and grad_in is not grad_out)
                remaining = dependencies[next_node] - 1
                dependencies[next_node] = remaining
                if remaining == 0:
                    ready.append(next_node)
            if not retain_graph and node.saved:
                node.release_saved()
    return captured


def _deliver_retained_grad(node: Node, grad_out: np.ndarray) -> None:
    """Fill `.grad` of a non-leaf tensor that asked for it with `retain_grad()`."""
    tensor = node._retained_output()
    if tensor is None:
        return
    grad_out = np.asarray(grad_out, dtype=tensor._array.dtype)
    if tensor._grad is None:
        tensor._grad = Tensor._from_array(np.array(grad_out))
    else:
        tensor._grad._array += grad_out


def _listed(value: Any) -> list[Any]:
    """One tensor, or a list or tuple of them, as a list."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _initial_grads(
    outputs: Tensor | Sequence[Tensor], grad_outputs: Tensor | Sequence[Tensor | None] | None
) -> list[tuple[Node, np.ndarray]]:
    """Check the outputs and make the gradient each one starts with."""
    outputs = _listed(outputs)
    grad_outputs = [None] * len(outputs) if grad_outputs is None else _listed(grad_outputs)
    roots = []
    for index, (output, given) in enumerate(zip(outputs, grad_outputs, strict=True)):
        if not output.requires_grad:
            raise RuntimeError(
                f"element {index} of tensors does not require grad and does not have a grad_fn"
            )
        if given is None:
            if output._array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            start = np.ones(output._array.shape, dtype=output._array.dtype)
        else:
            start = np.asarray(given._array if hasattr(given, "_array") else given)
            if start.shape != output._array.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of {Size(start.shape)} "
                    f"and output[{index}] has a shape of {Size(output._array.shape)}."
                )
        roots.append((edge_to(output)[0], start))
    return roots


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
) -> None:
    """Accumulate into `.grad` of the leaves the gradient of `tensors` (see Tensor.backward)."""
    run_backward(_initial_grads(tensors, grad_tensors), retain_graph=bool(retain_graph))


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    allow_unused: bool = False,
) -> tuple[Tensor | None, ...]:
    """Return d(outputs)/d(inputs) without touching any `.grad` (like torch.autograd.grad)."""
    inputs_list = _listed(inputs)
    for tensor in inputs_list:
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    targets = [edge_to(tensor)[0] for tensor in inputs_list]
    captured = run_backward(
        _initial_grads(outputs, grad_outputs),
        retain_graph=bool(retain_graph),
        capture=dict.fromkeys(targets),
    )
    results: list[Tensor | None] = []
    for index, (tensor, target) in enumerate(zip(inputs_list, targets, strict=True)):
        if target not in captured:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
            results.append(None)
            continue
        values = np.asarray(captured[target], dtype=tensor._array.dtype)
        results.append(Tensor._from_array(np.array(values).reshape(tensor._array.shape)))
    return tuple(results)


# tensor.py imports this module for Node and backward, so Tensor can only be imported once both
# are defined (minigrad/__init__.py imports autograd first); gradcheck uses grad() from above.
from .gradcheck import GradcheckError, gradcheck  # noqa: E402
from .tensor import Size, Tensor  # noqa: E402
