"""The engine: walking the graph from the outputs to the leaves (what `backward()` runs).

`run_backward` is the whole walk. A node runs once all the edges into it have delivered their
gradient (Kahn's algorithm, no recursion, so a 100,000-node chain is fine); of the nodes
ready, the one recorded last runs first, as in torch. At each node:

1. the gradients waiting for its outputs are taken (`GradBuffers`), and the hooks of the tensors
   it made run on them (`Tensor.register_hook`, then `retain_grad`: `_Walk.before_node`);
2. its backward formula turns them into gradients for its inputs (`_Walk.run`; with hooks or
   in anomaly mode `backward_with_hooks`: pre-hooks, the formula, checks, hooks);
3. those are added to what waits at the next nodes (`_Walk.pass_on`, `GradBuffers.add`).

An `AccumulateGrad` node writes the gradient into its leaf's `.grad` instead. Saved values are
freed at the end, unless `retain_graph=True`.

One rule decides when a gradient array may be written to (`is_owned`): only an array the
engine owns is summed into in place or becomes a leaf's `.grad` without a copy.

With `targets` (autograd.grad, `backward(inputs=...)`), only the part of the graph that leads
to them runs, and the gradient arriving at each target edge is returned; `accumulate=False`
(autograd.grad) also leaves the targets' `.grad` alone.

Gradients are numpy arrays. With `create_graph=True` grad mode stays on during the walk and
they are tensors, so every formula records what it computes: the gradients have a graph of
their own and can be differentiated again. A user's hook always sees tensors: an array is
wrapped for it (`make_tensor` of the node's `tensor_class`).
"""

from __future__ import annotations

import itertools
import os
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from heapq import heapify, heappop, heappush
from typing import Any

import numpy as np

from ._new_tensor import make_tensor
from .dtypes import from_numpy_dtype
from .grad_mode import _state, is_anomaly_check_nan_enabled, is_anomaly_enabled
from .graph import AccumulateGrad, Node, add_to_grad

__all__ = ["GradBuffers", "current_walk", "is_owned", "run_backward", "unbroadcast"]

Edge = tuple[Node, int]  # a node and one of its outputs
_PACKAGE_DIR = os.path.dirname(__file__)
_running_walks: list[_Walk] = []  # the backward passes running now, innermost last
_walk_numbers = itertools.count()


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


def is_owned(grad: Any, borrowed: Any) -> bool:
    """The one ownership rule: may the engine write into the gradient array `grad`?

    Yes when only the engine holds it: a fresh, writeable array that a backward formula made or
    a sum made here (`grad.base is None`: not a view). No for `borrowed`, the array a formula
    was given (a formula may pass it on unchanged), for a read-only array, and for a view,
    which is also how the engine goes on with an array a user's hook saw or returned (the user
    may keep it: `_user_saw`). An owned array takes the next gradient in place and becomes a
    leaf's `.grad` without a copy (at 10^6 elements each copy avoided is a pass over 4 MB);
    any other array is never written to, and `.grad` gets its own copy of it.
    """
    return (
        type(grad) is np.ndarray
        and grad is not borrowed
        and grad.base is None
        and grad.flags.writeable
    )


class GradBuffers:
    """The gradients waiting at each node, summed as they arrive from the node's outputs.

    `owned` holds the nodes whose waiting array the engine owns (`is_owned`), asked only where
    it can matter: where a sum may be written into it or it may become a leaf's `.grad` (the
    one gradient a node gets is stored by `_Walk.pass_on` as it is, owned only if it is a
    leaf's). Ownership is judged when a gradient arrives; hooks that see it take it away. A
    node with several outputs waits with a list, one slot per output.
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
        if previous is None:  # the first gradient to arrive (for most nodes, the only one)
            self.waiting[node] = grad
            if is_owned(grad, borrowed):
                self.owned.add(node)
        else:
            self.waiting[node] = self._sum(node, previous, grad, borrowed)

    def _sum(self, node: Node, previous: Any, grad: Any, borrowed: Any) -> Any:
        """`previous + grad`, written into whichever of the two arrays is owned (same dtype)."""
        if type(grad) is not np.ndarray:
            return previous + grad  # tensors (create_graph): a recorded sum
        if previous.dtype == grad.dtype:
            if node in self.owned:
                previous += grad
                return previous
            if is_owned(grad, borrowed):
                grad += previous
                self.owned.add(node)
                return grad
        self.owned.add(node)  # a new array, made here
        return previous + grad


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
    walk = _Walk(roots, targets, accumulate, create_graph)
    ready, waiting = walk.ready, walk.buffers.waiting
    with walk:  # grad mode is `create_graph` while it runs; current_walk() answers with it
        while ready:
            node = heappop(ready)[1]
            grad = waiting.pop(node, None)  # (a list, one per output, for a node with several)
            if targets is not None or node.tensor_hooks is not None or node.retained is not None:
                grad = walk.before_node(node, grad)
            if grad is not None:
                walk.run(node, grad)  # its formula, and the gradients it makes passed on
            else:  # nothing reached it: the nodes after it hear nothing from it
                walk.pass_on(node, [None] * len(node.next_nodes), None)
    if not retain_graph:
        walk.free_saved()
    return walk.captured


def current_walk() -> _Walk | None:
    """The backward pass running now (the innermost one), or None outside backward."""
    return _running_walks[-1] if _running_walks else None


class _Walk:
    """The state of one backward pass: the order, the waiting gradients, what was captured.

    `number` tells passes apart (torch's graph task id), for hooks that gather what one backward
    delivers (autograd.graph.register_multi_grad_hook). `with walk:` is the time it runs: grad
    mode is then `create_graph` (torch's rule for backward), and `current_walk()` answers with
    it (a hook may start a backward of its own inside)."""

    def __init__(
        self,
        roots: Sequence[tuple[Edge, Any]],
        targets: dict[Edge, None] | None,
        accumulate: bool,
        create_graph: bool,
    ) -> None:
        self.number = next(_walk_numbers)
        self.create_graph = create_graph  # grad mode while the pass runs (torch's rule)
        self.accumulating = accumulate  # False for autograd.grad: no .grad is written
        self.buffers = GradBuffers()
        self.targets = targets
        root_nodes: dict[Node, None] = {}  # each root once, in order
        for (node, nr), root_grad in roots:
            self.buffers.add(node, nr, root_grad, root_grad.shape, root_grad)  # caller holds it
            root_nodes[node] = None
        self.root_nodes = root_nodes
        self.dependencies = _count_dependencies(root_nodes)
        # the nodes that heard from every edge into them, the one recorded last first (torch's
        # order, which decides in which order gradients are summed): (-sequence_nr, node).
        # Leaves' nodes share one number and are equal here (AccumulateGrad.__lt__), so the
        # heap's own shape decides between them, as in torch's ready queue (also a binary heap).
        self.ready = []  # (a plain loop: a comprehension is one more call at every backward)
        for node in root_nodes:
            if node not in self.dependencies:
                self.ready.append((-node.sequence_nr, node))
        heapify(self.ready)
        self.needed = None if targets is None else _needed(root_nodes, targets, accumulate)
        self.target_nodes = None if targets is None else {node: None for node, _ in targets}
        self.plain = not is_anomaly_enabled()  # a node without hooks is then just called
        self.captured: dict[Edge, Any] = {}
        self.ran: list[Node] = []  # the nodes that ran and keep saved values, to free them

    def __enter__(self) -> _Walk:
        self.previous_mode = (_state.grad_mode, _state.enabled)
        _state.grad_mode = _state.enabled = self.create_graph
        _running_walks.append(self)
        return self

    def __exit__(self, *exception: object) -> None:
        _running_walks.pop()
        _state.grad_mode, _state.enabled = self.previous_mode

    def before_node(self, node: Node, grad: Any) -> Any:
        """The gradient for `node`'s output after the hooks of the tensor it made (a leaf's for
        an AccumulateGrad), given to a tensor that retains its grad; captured if it is a target.
        None when the node is not to run (no gradient, or not on a path to a target).

        torch's order: tensor hooks, then retain_grad, then (if the node runs) its pre-hooks.
        autograd.grad captures a target's gradient before these hooks when the node runs
        anyway (it leads to another target), after them when it does not.
        """
        if grad is None or self.off_path(node):
            return None  # torch does not reach it
        runs = self.needed is None or node in self.needed
        grads = [grad] if node.num_outputs == 1 else grad
        if runs:
            self.capture(node, grads)
        if node.tensor_hooks is not None:
            grads = _tensor_hooks(node, grads)
            self.buffers.owned.discard(node)  # the hooks saw it, and may keep it
        if node.retained is not None:
            _fill_retained_grads(node, grads)
        if not runs:
            self.capture(node, grads)
            return None
        return grads[0] if node.num_outputs == 1 else grads

    def will_run(self, node: Node) -> bool:
        """Whether `node` runs in this pass (or, for autograd.grad, hands over a captured
        gradient): it is reached from the roots and, with targets, leads to one (torch's
        _will_engine_execute_node)."""
        if self.needed is None:
            return node in self.dependencies or node in self.root_nodes
        if node not in self.needed and node not in self.target_nodes:
            return False
        if not self.accumulating and type(node) is AccumulateGrad:  # a leaf autograd.grad asks for
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently running "
                "autograd.grad(). This is currently not supported."
            )
        return True

    def off_path(self, node: Node) -> bool:
        """With targets: `node` neither leads to one nor is one's own node."""
        return self.needed is not None and node not in self.needed and node not in self.target_nodes

    def capture(self, node: Node, grads: list[Any]) -> None:
        """Keep the gradients of `node`'s outputs that autograd.grad asked for."""
        if self.targets is None:
            return
        for nr, value in enumerate(grads):
            if (node, nr) in self.targets and value is not None:
                self.captured[(node, nr)] = value

    def run(self, node: Node, grad: Any) -> None:
        """Run `node` on the gradient of its output: its backward formula (with its hooks, if it
        has any), and the gradients that makes for its inputs passed on. An AccumulateGrad
        writes its leaf's `.grad` instead."""
        if node.saved_names or node.frees_state:
            self.ran.append(node)  # its saved values are freed at the end
        if type(node) is AccumulateGrad:
            self.accumulate(node, grad)
            return
        if self.plain and node.pre_hooks is None and node.post_hooks is None:
            input_grads = node.backward(grad)
        else:
            input_grads = backward_with_hooks(node, grad)
        if len(input_grads) != len(node.next_nodes):
            _check_count(node, input_grads)
        self.pass_on(node, input_grads, grad)

    def accumulate(self, node: AccumulateGrad, grad: Any) -> None:
        """Write a leaf's gradient into its `.grad`: the node's pre-hooks, the sum, the leaf's
        post-accumulate hooks, the node's post-hooks (the leaf's own hooks ran before)."""
        owned = node in self.buffers.owned  # (judged when it arrived: is_owned)
        if node.pre_hooks is not None:
            (grad,) = _node_hooks(node, node.pre_hooks, ([grad],), [grad], 1)
            owned = False  # the hooks saw it, and may keep it
        leaf = node.variable
        had_grad = leaf._grad is not None
        node.accumulate(grad, owned=owned)
        if leaf._post_accumulate_hooks is not None:
            _post_accumulate_hooks(leaf)
        if node.post_hooks is not None:
            # torch's first .grad is the incoming buffer itself: its hooks see that tensor
            seen = grad if had_grad or leaf._grad is None else leaf._grad
            _node_hooks(node, node.post_hooks, ((), (_as_tensor(node, seen),)), (), 0)

    def pass_on(self, node: Node, input_grads: Sequence[Any], grad: Any) -> None:
        """Add each input's gradient to what waits at the node it goes to (`grad`, what `node`
        was given, is borrowed); a next node that has now heard from every edge into it is
        ready to run (`ready`)."""
        numbers, dependencies, ready = node.next_output_nrs, self.dependencies, self.ready
        waiting, shapes = self.buffers.waiting, node.input_shapes
        for index, next_node in enumerate(node.next_nodes):
            if next_node is None:
                continue
            remaining = dependencies[next_node] - 1
            dependencies[next_node] = remaining
            value = input_grads[index]
            if value is None:
                pass
            elif (  # most often: the one gradient a node gets, as it is
                remaining == 0
                and next_node.num_outputs == 1
                and value.shape == shapes[index]
                and next_node not in waiting
            ):
                waiting[next_node] = value
                # nothing will be added into it; a leaf's may become its .grad as it is
                if type(next_node) is AccumulateGrad and is_owned(value, grad):
                    self.buffers.owned.add(next_node)
            else:
                nr = 0 if numbers is None else numbers[index]
                self.buffers.add(next_node, nr, value, shapes[index], grad)
            if remaining == 0:
                heappush(ready, (-next_node.sequence_nr, next_node))

    def free_saved(self) -> None:
        """Free the saved values of the nodes that ran (backward without retain_graph)."""
        for node in self.ran:
            node.release_saved()


def _tensor_hooks(node: Node, grads: list[Any]) -> list[Any]:
    """The gradients of `node`'s outputs after the hooks registered on the tensors it made.

    A hook sees a tensor (an array is wrapped for it) and may return a new one."""
    for nr, hooks in node.tensor_hooks.items():
        for hook in list(hooks.values()):
            if grads[nr] is not None:
                value = _as_tensor(node, grads[nr])
                result = checked_hook_result(hook, value, hook(value))
                grads[nr] = result if value is grads[nr] else _user_saw(result._array)
    return grads


def _fill_retained_grads(node: Node, grads: list[Any]) -> None:
    """Add to `.grad` of each tensor `node` made that asked for it with `retain_grad()`."""
    for nr, reference in node.retained.items():
        tensor = reference()
        if tensor is not None and grads[nr] is not None:
            add_to_grad(tensor, grads[nr], owned=False)


def _post_accumulate_hooks(leaf: Any) -> None:
    """Run the leaf's `register_post_accumulate_grad_hook` hooks, which must return None."""
    for hook in list(leaf._post_accumulate_hooks.values()):
        if hook(leaf) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


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
    parents = _parents(roots)
    needed = set(target_nodes) if accumulate else set()
    stack = list(target_nodes)  # walk back from the targets, along the edges into them
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed


def _parents(roots: dict[Node, None]) -> dict[Node, list[Node]]:
    """For every node reachable from `roots`: the nodes with an edge into it."""
    parents: dict[Node, list[Node]] = {}
    stack, seen = list(roots), set(roots)
    while stack:
        node = stack.pop()
        for next_node in node.next_nodes:
            if next_node is not None:
                parents.setdefault(next_node, []).append(node)
                if next_node not in seen:
                    seen.add(next_node)
                    stack.append(next_node)
    return parents


# ---- running one node -------------------------------------------------------------------------


def backward_with_hooks(node: Node, grad: Any) -> Sequence[Any]:
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
    """Run a node's hooks on tuples of tensors; a tuple a hook returns replaces `values`
    (arrays stay arrays: the engine works on what the hooks' tensors hold)."""
    as_arrays = any(type(v) is np.ndarray for v in values)
    wrapped = [tuple(_as_tensor(node, v) for v in arg) for arg in args]
    result = list(values)
    for hook in list(hooks.values()):
        replaced = hook(*wrapped)
        if replaced is not None:
            _check_replaced(hook, result, replaced, count)
            wrapped[0] = tuple(replaced)
            result = list(replaced)
    return [_user_saw(_as_array(v)) for v in result] if as_arrays else result


def _check_replaced(
    hook: Callable[..., Any], old: list[Any], new: Sequence[Any], count: int
) -> None:
    """What a node hook returned must have one value per gradient, and no value for a None."""
    if len(new) != count:
        name = getattr(hook, "__name__", type(hook).__name__)
        raise RuntimeError(
            f"hook '{name}' has returned an incorrect number of values (got {len(new)}, but "
            f"expected {count})"
        )
    if any(before is None and after is not None for before, after in zip(old, new, strict=True)):
        raise RuntimeError("can't replace a None gradient with a non-None value")


def _as_tensor(node: Node, value: Any) -> Any:
    """A gradient as a hook sees it: an array wrapped as a tensor of the class `node` made
    (None and tensors as they are)."""
    return make_tensor(node.tensor_class, value) if type(value) is np.ndarray else value


def _user_saw(array: np.ndarray | None) -> np.ndarray | None:
    """An array a user's hook saw (or returned): the user may keep it, so the engine goes on
    with a view of it, which it never writes into (`is_owned`), as torch does not write into a
    gradient someone else holds."""
    return None if array is None else array.view()


def _as_array(value: Any) -> Any:
    """A gradient as the engine keeps it while it works on arrays (None stays None)."""
    return value if value is None or type(value) is np.ndarray else value._array


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
                array = _as_array(value)
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
