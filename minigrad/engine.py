"""The engine: walking the graph from the outputs to the leaves (what `backward()` runs).

`run_backward` is the whole walk. A node runs once all the edges into it have delivered their
gradient (Kahn's algorithm, no recursion, so a 100,000-node chain is fine); of the nodes
ready, the one recorded last runs first, as in torch. At each node:

1. the gradients waiting for its outputs are taken (`GradBuffers`), and the hooks of the tensors
   it made run on them (`Tensor.register_hook`, then `retain_grad`);
2. its backward formula turns them into gradients for its inputs (`call_node`: pre-hooks,
   the formula, checks, hooks);
3. those are added to what waits at the next nodes (`GradBuffers.add`).

An `AccumulateGrad` node writes the gradient into its leaf's `.grad` instead. Saved values are
freed at the end, unless `retain_graph=True`.

With `targets` (autograd.grad, `backward(inputs=...)`), only the part of the graph that leads
to them runs, and the gradient arriving at each target edge is returned; `accumulate=False`
(autograd.grad) also leaves the targets' `.grad` alone.

Gradients are numpy arrays. With `create_graph=True` grad mode stays on during the walk and
they are tensors, so every formula records what it computes: the gradients have a graph of
their own and can be differentiated again. A user's hook always sees tensors: an array is
wrapped for it (`make_tensor` of the node's `tensor_class`).
"""

from __future__ import annotations

import heapq
import itertools
import os
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._new_tensor import make_tensor
from .dtypes import from_numpy_dtype
from .grad_mode import _state, is_anomaly_check_nan_enabled, is_anomaly_enabled
from .graph import AccumulateGrad, Node

__all__ = ["GradBuffers", "run_backward", "unbroadcast"]

Edge = tuple[Node, int]  # a node and one of its outputs
_PACKAGE_DIR = os.path.dirname(__file__)


def unbroadcast(grad: Any, shape: tuple[int, ...]) -> Any:
    """Sum `grad` down to `shape`: the backward of broadcasting (an array, or a tensor).

    When `a` of shape (3,) was added to `b` of shape (2, 3), `a` was used twice, so its gradient
    is the sum of the two rows of the output's gradient.
    """
    if type(grad) is not np.ndarray:
        return grad.sum_to_size(shape)
    if grad.shape == tuple(shape):
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


class GradBuffers:
    """The gradients waiting at each node, summed as they arrive from the node's outputs.

    `add` sums a broadcast gradient back to the input's shape first. A buffer is *owned* when
    only the engine holds its array: a fresh, writeable result of a backward formula, or a sum
    made here.
    An owned array can take the next gradient in place and can become a leaf's `.grad` without
    a copy: at 10^6 elements each copy avoided is a full pass over 4 MB. A *borrowed* array (a
    view, a gradient passed through unchanged, the `gradient` a user gave) is never written to.
    A node with several outputs waits with a list, one slot per output.
    """

    def __init__(self) -> None:
        self.waiting: dict[Node, Any] = {}
        self.owned: set[Node] = set()

    def add(self, node: Node, nr: int, grad: Any, shape: tuple[int, ...], borrowed: Any) -> None:
        """Add `grad` (for an input of `shape`) to what waits for output `nr` of `node`.

        `borrowed` is the array the producing formula was given: passing it on is no copy.
        """
        if grad.shape != shape:
            grad = unbroadcast(grad, shape)
        if node.num_outputs != 1:
            slots = self.waiting.setdefault(node, [None] * node.num_outputs)
            slots[nr] = grad if slots[nr] is None else slots[nr] + grad
            return
        previous = self.waiting.get(node)
        if type(grad) is not np.ndarray:  # tensors (create_graph): a recorded sum
            self.waiting[node] = grad if previous is None else previous + grad
            return
        owned = grad is not borrowed and grad.base is None and grad.flags.writeable
        if previous is None:  # the first gradient to arrive (for most nodes, the only one)
            self.waiting[node] = grad
            if owned:
                self.owned.add(node)
        elif node in self.owned and previous.dtype == grad.dtype:
            previous += grad
        elif owned and previous.dtype == grad.dtype:
            grad += previous  # the waiting array is borrowed, the new one is ours: add into it
            self.waiting[node] = grad
            self.owned.add(node)
        else:
            self.waiting[node] = previous + grad
            self.owned.add(node)


# ---- the walk ---------------------------------------------------------------------------------


def run_backward(
    roots: Sequence[tuple[Edge, Any]],
    retain_graph: bool,
    create_graph: bool,
    targets: dict[Edge, None] | None = None,
    accumulate: bool = True,
) -> dict[Edge, Any]:
    """Propagate gradients from `roots` (edge, gradient) to the leaves (see the module's text;
    `targets`: only the part leading to them runs, their gradients are returned)."""
    walk = _Walk(roots, targets, accumulate)
    ready, waiting, needed = walk.ready, walk.buffers.waiting, walk.needed
    plain = not is_anomaly_enabled()  # no anomaly mode: a node without hooks is just called
    previous_mode = (_state.grad_mode, _state.enabled)
    _state.grad_mode = _state.enabled = create_graph  # torch's rule for backward
    try:
        while ready:
            node = heapq.heappop(ready)[2]
            grad = waiting.pop(node, None)  # (a list, one per output, for a node with several)
            runs = grad is not None and (needed is None or node in needed)
            if node.tensor_hooks is not None or node.retained is not None or targets is not None:
                grad = walk.before_node(node, grad, runs)
            input_grads = ()
            if runs:
                if node.saved_names or node.frees_state:
                    walk.ran.append(node)
                if type(node) is AccumulateGrad:
                    walk.accumulate(node, grad)
                elif plain and node.pre_hooks is None and node.post_hooks is None:
                    input_grads = node.backward(grad)
                else:
                    input_grads = call_with_hooks(node, grad)
                if len(input_grads) != len(node.next_nodes):
                    _check_count(node, input_grads)
            walk.pass_on(node, input_grads, grad)
    finally:
        _state.grad_mode, _state.enabled = previous_mode
    if not retain_graph:
        for node in walk.ran:
            node.release_saved()
    return walk.captured


class _Walk:
    """The state of one backward pass: the order, the waiting gradients, what was captured."""

    def __init__(
        self,
        roots: Sequence[tuple[Edge, Any]],
        targets: dict[Edge, None] | None,
        accumulate: bool,
    ) -> None:
        self.buffers = GradBuffers()
        self.targets = targets
        root_nodes: dict[Node, None] = {}  # each root once, in order
        for (node, nr), root_grad in roots:
            self.buffers.add(node, nr, root_grad, root_grad.shape, root_grad)  # caller holds it
            root_nodes[node] = None
        self.dependencies = _count_dependencies(root_nodes)
        # the nodes that heard from every edge into them, the one recorded last first (torch's
        # order, which decides in which order gradients are summed): (-sequence_nr, -push, node)
        self.pushes = itertools.count()
        self.ready: list[tuple[int, int, Node]] = []
        for node in root_nodes:
            if node not in self.dependencies:
                self.push(node)
        self.needed = None if targets is None else _needed(root_nodes, targets, accumulate)
        self.target_nodes = {} if targets is None else {node: None for node, _ in targets}
        self.captured: dict[Edge, Any] = {}
        self.ran: list[Node] = []  # the nodes that ran and keep saved values, to free them

    def before_node(self, node: Node, grad: Any, runs: bool) -> Any:
        """The gradient for `node`'s output after the hooks of the tensor it made (a leaf's for
        an AccumulateGrad), given to a tensor that retains its grad; captured if it is a target.

        torch's order: tensor hooks, then retain_grad, then (if the node runs) its pre-hooks.
        autograd.grad captures a target's gradient before these hooks when the node runs
        anyway (it leads to another target), after them when it does not.
        """
        if self.targets is not None and self.needed is not None:
            if not runs and node not in self.needed and node not in self.target_nodes:
                return None  # off the paths to the targets: torch does not reach it
        grads = grad if node.num_outputs != 1 else [grad]
        if grads is None:
            return None
        if self.targets is not None and runs:
            self.capture(node, grads)
        if node.tensor_hooks is not None:
            grads = _tensor_hooks(node, grads)
        if node.retained is not None:
            for nr, reference in node.retained.items():
                tensor = reference()
                if tensor is not None and grads[nr] is not None:
                    tensor._accumulate_retained_grad(grads[nr])
        if self.targets is not None and not runs:
            self.capture(node, grads)
        return grads if node.num_outputs != 1 else grads[0]

    def capture(self, node: Node, grads: list[Any]) -> None:
        """Keep the gradients of `node`'s outputs that autograd.grad asked for."""
        for nr, value in enumerate(grads):
            if (node, nr) in self.targets and value is not None:
                self.captured[(node, nr)] = value

    def accumulate(self, node: AccumulateGrad, grad: Any) -> None:
        """Write a leaf's gradient into its `.grad`: the node's pre-hooks, the sum, the leaf's
        post-accumulate hooks, the node's post-hooks (the leaf's own hooks ran before)."""
        if node.pre_hooks is not None:
            (grad,) = _node_hooks(node, node.pre_hooks, ([grad],), [grad], 1)
        leaf = node.variable
        had_grad = leaf._grad is not None
        node.accumulate(grad, owned=node in self.buffers.owned)
        if leaf._post_accumulate_hooks is not None:
            for hook in list(leaf._post_accumulate_hooks.values()):
                if hook(leaf) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        if node.post_hooks is not None:
            # torch's first .grad is the incoming buffer itself: its hooks see that tensor
            seen = grad if had_grad or leaf._grad is None else leaf._grad
            _node_hooks(node, node.post_hooks, ((), (_as_tensor(node, seen),)), (), 0)

    def pass_on(self, node: Node, input_grads: Sequence[Any], grad: Any) -> None:
        """Add each input's gradient to what waits at the node it goes to; a next node that has
        now heard from every edge into it is ready to run."""
        dependencies, given, numbers = self.dependencies, len(input_grads), node.next_output_nrs
        buffers = self.buffers
        waiting = buffers.waiting
        for index, next_node in enumerate(node.next_nodes):
            if next_node is None:
                continue
            value = input_grads[index] if index < given else None
            if value is None:
                pass
            elif (  # most often: the first gradient for a node with one output, as it is
                type(value) is np.ndarray
                and next_node not in waiting
                and numbers is None
                and next_node.num_outputs == 1
                and value.shape == node.input_shapes[index]
            ):
                waiting[next_node] = value
                if value is not grad and value.base is None and value.flags.writeable:
                    buffers.owned.add(next_node)
            else:
                nr = 0 if numbers is None else numbers[index]
                buffers.add(next_node, nr, value, node.input_shapes[index], grad)
            remaining = dependencies[next_node] - 1
            dependencies[next_node] = remaining
            if remaining == 0:
                self.push(next_node)

    def push(self, node: Node) -> None:
        """`node` is ready to run (see `ready`)."""
        heapq.heappush(self.ready, (-node.sequence_nr, -next(self.pushes), node))


def _tensor_hooks(node: Node, grads: list[Any]) -> list[Any]:
    """The gradients of `node`'s outputs after the hooks registered on the tensors it made."""
    for nr, hooks in node.tensor_hooks.items():
        for hook in list(hooks.values()):
            if grads[nr] is not None:
                seen = grads[nr] if type(grads[nr]) is not np.ndarray else None
                value = seen if seen is not None else make_tensor(node.tensor_class, grads[nr])
                result = checked_hook_result(hook, value, hook(value))
                grads[nr] = result if seen is not None else result._array
    return grads


def _count_dependencies(roots: dict[Node, None]) -> dict[Node, int]:
    """For every node reachable from `roots` (each given once): how many edges point at it."""
    dependencies: dict[Node, int] = {}
    stack = list(roots)
    while stack:
        node = stack.pop()
        for next_node in node.next_nodes:
            if next_node is None:
                continue
            count = dependencies.get(next_node)
            if count is None:
                dependencies[next_node] = 1
                if next_node not in roots:
                    stack.append(next_node)
            else:
                dependencies[next_node] = count + 1
    return dependencies


def _needed(roots: dict[Node, None], targets: dict[Edge, None], accumulate: bool) -> set[Node]:
    """The nodes that must run to bring a gradient to a target: those with a path to one.

    backward(inputs=...) (`accumulate`) also runs the targets' own nodes, as torch does: a
    leaf's AccumulateGrad writes its `.grad`, a non-leaf's node runs its hooks. autograd.grad
    only captures a target's gradient as it arrives.
    """
    target_nodes = {node for node, _ in targets}
    needed: set[Node] = set()
    done: set[Node] = set()
    stack = [(node, False) for node in roots]
    while stack:
        node, children_done = stack.pop()
        if node in done:
            continue
        if not children_done:
            stack.append((node, True))
            stack.extend((n, False) for n in node.next_nodes if n is not None and n not in done)
            continue
        done.add(node)
        is_run_target = accumulate and node in target_nodes
        if is_run_target or any(n in needed or n in target_nodes for n in node.next_nodes):
            needed.add(node)
    return needed


# ---- running one node -------------------------------------------------------------------------


def call_with_hooks(node: Node, grad: Any) -> Sequence[Any]:
    """The gradients for `node`'s inputs: its pre-hooks, its backward formula (checked, in
    anomaly mode), its hooks."""
    grads = grad if node.num_outputs != 1 else [grad]
    if node.pre_hooks is not None:
        grads = _node_hooks(node, node.pre_hooks, (grads,), grads, len(grads))
    grad = grads[0] if node.num_outputs == 1 else tuple(grads)
    input_grads = node.backward(grad) if not is_anomaly_enabled() else _checked(node, grad)
    if node.post_hooks is not None:
        count = len(node.next_nodes)
        input_grads = _node_hooks(node, node.post_hooks, (input_grads, grads), input_grads, count)
    return input_grads


def _node_hooks(
    node: Node, hooks: dict, args: tuple, values: Sequence[Any], count: int
) -> list[Any]:
    """Run a node's hooks on tuples of tensors; a tuple a hook returns replaces `values`."""
    as_arrays = any(type(v) is np.ndarray for v in values)
    wrapped = [tuple(None if v is None else _as_tensor(node, v) for v in arg) for arg in args]
    result = list(values)
    for hook in list(hooks.values()):
        replaced = hook(*wrapped)
        if replaced is not None:
            if len(replaced) != count:
                name = getattr(hook, "__name__", type(hook).__name__)
                raise RuntimeError(
                    f"hook '{name}' has returned an incorrect number of values (got "
                    f"{len(replaced)}, but expected {count})"
                )
            if any(
                old is None and new is not None for old, new in zip(result, replaced, strict=True)
            ):
                raise RuntimeError("can't replace a None gradient with a non-None value")
            wrapped[0] = tuple(replaced)
            result = list(replaced)
    if as_arrays:
        result = [None if v is None else v if type(v) is np.ndarray else v._array for v in result]
    return result


def _as_tensor(node: Node, value: Any) -> Any:
    return make_tensor(node.tensor_class, value) if type(value) is np.ndarray else value


def _check_count(node: Node, input_grads: Sequence[Any]) -> None:
    """A formula must give one gradient per input (extra Nones are allowed, as in torch)."""
    expected = len(node.next_nodes)
    if len(input_grads) < expected or any(g is not None for g in input_grads[expected:]):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients (expected "
            f"{expected}, got {len(input_grads)})"
        )


def _checked(node: Node, grad: Any) -> Sequence[Any]:
    """`node.backward(grad)` in anomaly mode: checked for nan, and explained when it fails."""
    try:
        input_grads = node.backward(grad)
        if is_anomaly_check_nan_enabled():
            for index, value in enumerate(input_grads):
                array = value if value is None or type(value) is np.ndarray else value._array
                if array is not None and np.isnan(array).any():
                    raise RuntimeError(
                        f"Function '{node.name()}' returned nan values in its {index}th output."
                    )
    except Exception:
        # the warning names the user's line by its file's name alone (no folder of the machine)
        frame = _first_user_frame()
        warnings.warn_explicit(
            f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
            f"{node.creation_trace or '  (made before anomaly detection was enabled)'}",
            UserWarning,
            os.path.basename(frame.f_code.co_filename),
            frame.f_lineno,
        )
        raise
    return input_grads


def _first_user_frame() -> types.FrameType:
    """The innermost frame outside minigrad: the user's line that called backward()."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return frame


def checked_hook_result(hook: Callable[..., Any], before: Any, after: Any) -> Any:
    """A tensor hook's return value: None keeps the gradient; a new one must look the same."""
    if after is None:
        return before
    if not hasattr(after, "_array"):
        raise TypeError(f"expected Variable, but hook returned '{type(after).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    old, new = before._array, after._array
    if old.shape != new.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if old.dtype != new.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {_tensor_type(old)} got "
            f"{_tensor_type(new)})"
        )
    return after


def _tensor_type(array: np.ndarray) -> str:
    """'minigrad.FloatTensor' for a float32 array (torch's words in hook messages)."""
    return f"minigrad.{from_numpy_dtype(array.dtype).tensor_type}"
