"""The graph and the engine that walks it: nodes, AccumulateGrad, gradient buffers, backward.

A tensor made by an operation points at a `Node` (its `grad_fn`). Each node knows the nodes of
its inputs (`next_functions`, kept flat as `next_nodes`) and keeps the values it needs for its
backward formula (`saved`). A leaf tensor that requires grad is reached through an
`AccumulateGrad` node, which adds the incoming gradient to `leaf.grad`. `run_backward()` walks
this graph from the output to the leaves, in an order where every node runs after all the nodes
that feed it a gradient.

Everything here works on numpy arrays: the walk never makes a Tensor. The two places where a
gradient must land on a tensor (`.grad` of a leaf, of a tensor that called `retain_grad()`) are
the tensor's own methods, `_accumulate_grad`, called once every gradient has been computed.
"""

from __future__ import annotations

import itertools
import types
import warnings
import weakref
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from .grad_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .versions import SavedTensor

__all__ = ["AccumulateGrad", "GradBuffers", "Node", "run_backward", "unbroadcast"]

_node_serials = itertools.count()
_NOTHING_SAVED: types.MappingProxyType = types.MappingProxyType({})  # shared, read-only
_NAME_PATTERNS: dict[tuple[str, ...], tuple[str, ...]] = {}  # ("other",), ("self", "other"), ...


_SAVED_ATTRIBUTES: dict[str, str] = {}  # "other" -> "_raw_saved_other"


def _saved_attribute(name: str) -> str:
    """The attribute a saved value is kept in: torch's `_raw_saved_<name>`.

    One string per name, made once. A name built anew at every getattr would be a new string
    each time, and CPython's attribute cache keeps the strings it was asked with: thousands of
    them, which look like memory growing at every training step.
    """
    attribute = _SAVED_ATTRIBUTES.get(name)
    if attribute is None:
        attribute = _SAVED_ATTRIBUTES[name] = f"_raw_saved_{name}"
    return attribute


class Node:
    """A recorded operation (a tensor's `grad_fn`): its inputs' nodes and its saved values.

    Subclasses (in `functions/`) define `forward`, which takes the input arrays, returns the
    output array and says which inputs backward will need (`save`), and `backward`, which turns
    the gradient of the output into one gradient per input, in the order of `next_functions`
    (None for an input that needs none). Each of those is a new array, or `grad` itself passed
    through unchanged: the engine may add into a new array in place (GradBuffers), so one new
    array must never be handed to two inputs.

    `Tensor._apply` (tensor.py) is the one place that runs a forward and joins the graph; it
    fills in `needs_input_grad`, `next_nodes` and `input_shapes` when the op is recorded.
    """

    saves_result = False  # ops whose derivative is written with their own output (sigmoid, exp)
    # Defaults, replaced on the instance when the node is connected to the graph:
    needs_input_grad: tuple[bool, ...] = ()  # empty while the op is not being recorded
    next_nodes: tuple[Node | None, ...] = ()  # one per input: where its gradient goes, or None
    input_shapes: tuple[tuple[int, ...], ...] = ()  # to sum broadcast gradients back
    saved_names: tuple[str, ...] = ()  # the names kept for backward, e.g. ("other",)
    to_save: Any = _NOTHING_SAVED  # name -> input index, while forward runs (see save)
    creation_trace: str | None = None  # where the node was made, in anomaly mode
    _retained_output: weakref.ref | None = None  # set by retain_grad()
    _serial: int | None = None  # see serial

    @property
    def serial(self) -> int:
        """A number naming this node in pictures and in compare(): unlike `id()`, never given
        to a later node. Given when first asked for (most nodes are never drawn)."""
        serial = self._serial
        if serial is None:
            serial = self._serial = next(_node_serials)
        return serial

    def name(self) -> str:
        """torch's name for this node, e.g. 'MulBackward0'."""
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """torch's edges: one `(node, 0)` pair per input, `(None, 0)` for an input without grad.

        They are kept flat, as `next_nodes` (the 0 is the same for every minigrad node): one
        tuple per node instead of one per edge, so fewer objects for Python's cyclic garbage
        collector to walk in a long graph.
        """
        return tuple([(node, 0) for node in self.next_nodes])

    @next_functions.setter
    def next_functions(self, edges: Sequence[tuple[Node | None, int]]) -> None:
        self.next_nodes = tuple([node for node, _ in edges])

    def save(self, name: str, index: int, for_input: int | None = None) -> None:
        """Keep input number `index` under `name` for backward (as torch's `_saved_<name>`).

        Only when the op is recorded, and with `for_input`, only when that input needs a
        gradient (mul keeps `other` only for the gradient of `self`). Forward only names the
        input; `Tensor._connect` then keeps its value (`keep`).
        """
        needs = self.needs_input_grad
        if needs and (for_input is None or needs[for_input]):
            if self.to_save is _NOTHING_SAVED:
                self.to_save = {}
            self.to_save[name] = index

    def keep(self, name: str, saved: SavedTensor | np.ndarray) -> None:
        """Store a saved value on the node as `_raw_saved_<name>`, torch's attribute name.

        An attribute rather than an entry of a dict per node, and a number (the `2.0` of
        `y * 2.0`) as its bare array: fewer objects per recorded op for Python's cyclic garbage
        collector to walk, again and again while a long graph is alive (see `Tensor._saved`).
        """
        setattr(self, _saved_attribute(name), saved)
        names = (*self.saved_names, name)
        self.saved_names = _NAME_PATTERNS.setdefault(names, names)  # one tuple per pattern

    @property
    def saved(self) -> dict[str, SavedTensor]:
        """The saved values by name (a new dict at each read: look, don't write)."""
        return {name: self._saved_tensor(name) for name in self.saved_names}

    def _saved_tensor(self, name: str) -> SavedTensor:
        """The SavedTensor under `name`; a number kept bare becomes one when first asked for."""
        value = getattr(self, _saved_attribute(name))
        if type(value) is np.ndarray:
            value = SavedTensor.of_number(value)
            setattr(self, _saved_attribute(name), value)
        return value

    def unpack(self, name: str) -> np.ndarray:
        """The values saved under `name`, checked against later in-place changes."""
        value = getattr(self, _saved_attribute(name))
        if type(value) is np.ndarray:  # a number: nothing can change it, nothing to check
            return value
        return value.unpack()

    def forward(self, *arrays: np.ndarray) -> np.ndarray:
        """The output array, given the input arrays."""
        raise NotImplementedError(f"{self.name()} has no forward")

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, ...]:
        """Gradients for the inputs, given the gradient of the output."""
        raise NotImplementedError(f"{self.name()} has no backward formula")

    def release_saved(self) -> None:
        """Free the saved values: the graph can then be walked only once more if nothing saved."""
        for name in self.saved_names:
            self._saved_tensor(name).free()

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"  # torch's repr, address included


class AccumulateGrad(Node):
    """The node through which gradients reach a leaf tensor: it adds them to `leaf.grad`."""

    def __init__(self, variable: Any) -> None:
        super().__init__()
        self.variable = variable  # the leaf; the leaf itself holds this node only weakly

    def accumulate(self, grad: np.ndarray, owned: bool = False) -> None:
        """`variable.grad += grad` (see Tensor._accumulate_grad)."""
        self.variable._accumulate_grad(grad, owned)


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


class GradBuffers:
    """The gradients waiting at each node, summed as they arrive from the node's outputs.

    `add` sums a broadcast gradient back to the input's shape first. A buffer is *owned* when
    only the engine holds its array: a fresh result of a backward formula, or a sum made here.
    An owned array can take the next gradient in place and can become a leaf's `.grad` without
    a copy: at 10^6 elements each copy avoided is a full pass over 4 MB. A *borrowed* array (a
    view, a gradient passed through unchanged, the `gradient` a user gave) is never written to.
    """

    def __init__(self) -> None:
        self.arrays: dict[Node, np.ndarray] = {}
        self.owned: set[Node] = set()

    def add(self, node: Node, grad: np.ndarray, shape: tuple[int, ...], borrowed: Any) -> None:
        """Add `grad` (for an input of `shape`) to what waits at `node`.

        `borrowed` is the array the producing formula was given: passing it on is no copy.
        """
        if grad.shape != shape:
            grad = unbroadcast(grad, shape)
        owned = grad is not borrowed and grad.base is None and type(grad) is np.ndarray
        previous = self.arrays.get(node)
        if previous is None:  # the first gradient to arrive (for most nodes, the only one)
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
        # (`owned` may keep the node: nothing is added to a node after it was taken)
        return self.arrays.pop(node, None), node in self.owned


def _count_dependencies(roots: Collection[Node]) -> dict[Node, int]:
    """For every node reachable from `roots` (each given once): how many edges point at it."""
    dependencies: dict[Node, int] = {}
    stack = list(roots)
    seen = set(roots)  # the roots; every other node is seen once it has a count
    while stack:
        node = stack.pop()
        for next_node in node.next_nodes:
            if next_node is None:
                continue
            count = dependencies.get(next_node)
            if count is None:
                dependencies[next_node] = 1
                if next_node not in seen:
                    stack.append(next_node)
            else:
                dependencies[next_node] = count + 1
    return dependencies


def run_backward(
    roots: Sequence[tuple[Node, np.ndarray]],
    retain_graph: bool,
    capture: dict[Node, None] | None = None,
) -> dict[Node, np.ndarray]:
    """Propagate gradients from `roots` to the leaves; returns the gradients `capture` asked for.

    A node runs once all the edges into it have delivered their gradient (Kahn's algorithm, no
    recursion, so a 100,000-node chain is fine). Nothing is written while gradients are being
    computed: `.grad`s are filled and saved values freed only at the end, so an error (or a
    KeyboardInterrupt) half-way leaves every `.grad` and the graph as they were. With `capture`
    (used by `grad()`), gradients are returned instead of being accumulated into `.grad`.
    """
    buffers = GradBuffers()
    root_nodes: dict[Node, None] = {}  # each root once, in order
    for node, root_grad in roots:
        buffers.add(node, root_grad, root_grad.shape, root_grad)  # the caller may still hold it
        root_nodes[node] = None
    dependencies = _count_dependencies(root_nodes)
    ready = [node for node in root_nodes if node not in dependencies]
    captured: dict[Node, np.ndarray] = {}
    arrived: list[tuple[Node, np.ndarray, bool]] = []  # gradients for leaves and retain_grad()
    to_free: list[Node] = []  # the nodes that ran and keep saved values
    anomaly = is_anomaly_enabled()
    while ready:
        node = ready.pop()
        if node.saved_names:
            to_free.append(node)
        grad, owned = buffers.pop(node)
        input_grads: Sequence[np.ndarray | None] = ()
        if grad is not None:
            is_leaf = type(node) is AccumulateGrad
            if is_leaf or node._retained_output is not None:
                arrived.append((node, grad, owned))
            if capture is not None and node in capture:
                captured[node] = grad
            elif not is_leaf:
                input_grads = node.backward(grad) if not anomaly else _checked(node, grad)
        given = len(input_grads)
        for index, next_node in enumerate(node.next_nodes):
            if next_node is None:
                continue
            grad_in = input_grads[index] if index < given else None
            if grad_in is not None:
                buffers.add(next_node, grad_in, node.input_shapes[index], grad)
            remaining = dependencies[next_node] - 1
            dependencies[next_node] = remaining
            if remaining == 0:
                ready.append(next_node)
    # every gradient is computed: now write them, then free what backward used
    for node, grad, owned in arrived:
        if type(node) is AccumulateGrad:
            if capture is None:
                node.accumulate(grad, owned)
        else:
            tensor = node._retained_output()
            if tensor is not None:
                tensor._accumulate_retained_grad(grad)
    if not retain_graph:
        for node in to_free:
            node.release_saved()
    return captured


def _checked(node: Node, grad: np.ndarray) -> Sequence[np.ndarray | None]:
    """`node.backward(grad)` in anomaly mode: checked for nan, and explained when it fails."""
    try:
        input_grads = node.backward(grad)
        if is_anomaly_check_nan_enabled():
            for index, value in enumerate(input_grads):
                if value is not None and np.isnan(value).any():
                    raise RuntimeError(
                        f"Function '{node.name()}' returned nan values in its {index}th output."
                    )
    except Exception:
        warnings.warn(
            f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
            f"{node.creation_trace or '  (made before anomaly detection was enabled)'}",
            UserWarning,
            stacklevel=4,
        )
        raise
    return input_grads
