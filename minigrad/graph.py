"""The graph: nodes (a tensor's `grad_fn`), AccumulateGrad, saved values and hooks.

A tensor made by an operation points at a `Node` (its `grad_fn`). Each node knows the nodes of
its inputs (`next_functions`, kept flat as `next_nodes`) and keeps the values it needs for its
backward formula (`saved_values`, named by `saved_names`). A leaf tensor that requires grad is
reached through an `AccumulateGrad` node, which adds the incoming gradient to `leaf.grad`.
`engine.run_backward()` walks this graph from the output to the leaves.

A backward formula normally works on numpy arrays. During `backward(create_graph=True)` the
same formula runs on tensors, so the backward pass is itself recorded: `unpack` then returns the
saved value as a tensor connected to the graph, and `functions/formulas.py` holds the few
functions a formula needs beyond + - * / (where, exp, sum_to, ...), for both kinds of values.

Hooks live here too: a node's pre-hooks and hooks (`register_prehook`, `register_hook`), and
the hooks of the tensors it made (`Tensor.register_hook` on a non-leaf, `retain_grad`).
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ._new_tensor import make_tensor
from .grad_mode import _state
from .versions import SavedTensor, _hook_stack, current_saved_hooks

__all__ = [
    "AccumulateGrad",
    "Node",
    "RawSavedTensor",
    "RemovableHandle",
    "Save",
    "add_to_grad",
    "next_sequence_nr",
    "rebuild_saved",
    "unsigned",
]

_node_serials = itertools.count()
# next_sequence_nr(): the next node's place in recording order (torch's sequence_nr): backward
# runs the ready node recorded last first, so gradients are summed in torch's order. (The
# counter's own __next__, called directly: this runs at every recorded op.)
next_sequence_nr = itertools.count(1).__next__


class RemovableHandle:
    """What `register_hook` returns: `handle.remove()` takes the hook away again."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Callable[..., Any]]) -> None:
        self.hooks_dict = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        """Unregister the hook (nothing happens if it is already gone)."""
        self.hooks_dict.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


def add_hook(hooks: dict[int, Callable[..., Any]], hook: Callable[..., Any]) -> RemovableHandle:
    """Put `hook` in `hooks` under a new id; its handle removes it."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


class Save(NamedTuple):
    """One value an op keeps for backward, as torch's derivatives.yaml names it.

    `Save("other", input=1, needed_for=0)`: mul keeps its input 1 under the name `other`
    (`grad_fn._saved_other`) only when input 0 needs a gradient, since only that gradient's
    formula (`grad * other`) reads it; `needed_for=None` keeps it always.
    """

    name: str  # the name backward reads it by (`node.unpack(name)`), torch's `_saved_<name>`
    input: int  # which input of the op is kept
    needed_for: int | None = None  # kept only if this input needs a gradient (None: always)


def unsigned(number: int) -> int:
    """An int argument as a node's `_saved_<name>` shows it where torch reads its int64 as
    unsigned (cat's dim, diagonal's offset): -1 reads 18446744073709551615 (2**64 - 1)."""
    return number % 2**64


class SavedAttribute:
    """torch's `grad_fn._saved_<name>` (the value saved under <name>, as a tensor) and
    `grad_fn._raw_saved_<name>` (the SavedTensor itself); None where this node did not save it
    (mul keeps `self` only when `other` needs a gradient)."""

    def __init__(self, name: str, raw: bool = False) -> None:
        self.name, self.raw = name, raw

    def __set_name__(self, owner: type, attribute: str) -> None:
        self.attribute = attribute

    def __get__(self, node: Node | None, owner: type) -> Any:
        if node is None:
            return self
        if self.name not in node.saved_names:
            if self.name not in node.saved_fields():  # torch: only the names this op saves
                raise AttributeError(
                    f"'{type(node).__name__}' object has no attribute '{self.attribute}'"
                )
            # a number the node keeps as a plain attribute (pow's exponent), else nothing
            return None if self.raw else node.saved_number(self.name)
        if self.raw:
            return RawSavedTensor(node, self.name)
        return node.saved_as_tensor(self.name)


class RawSavedTensor:
    """What `grad_fn._raw_saved_<name>` gives (torch's SavedTensor handle): the saved value's
    hooks (`register_hooks`, `unpack_hook`), what is kept (`data`) and `unpack()`."""

    def __init__(self, node: Node, name: str) -> None:
        self.node, self.name = node, name
        self.saved = node.raw_saved(name)

    def register_hooks(
        self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]
    ) -> None:
        """Keep this value as `pack_hook(tensor)` from now on; backward unpacks it."""
        if not (callable(pack_hook) and callable(unpack_hook)):  # (torch checks this first)
            got = ", ".join(type(hook).__name__ for hook in (pack_hook, unpack_hook))
            raise TypeError(
                "register_hooks(): incompatible function arguments. It takes two functions, "
                f"pack_hook(tensor) and unpack_hook(packed); got {got}."
            )
        saved = self.saved
        if saved.freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward."
            )
        if saved.unpack_hook is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        saved.pack_with((pack_hook, unpack_hook), self.data)

    @property
    def unpack_hook(self) -> Callable[[Any], Any] | None:
        """The unpack hook registered for this value, or None."""
        return self.saved.unpack_hook

    @property
    def data(self) -> Any:
        """What is kept: what the pack hook returned; else the input tensor itself, or an
        output's values (a tensor outside the graph)."""
        saved = self.saved
        if saved.unpack_hook is not None:
            return saved.packed
        if saved.owner is not None:
            return saved.owner
        return make_tensor(self.node.tensor_class, saved.array)

    def unpack(self) -> Any:
        """The saved value as backward would get it (`grad_fn._saved_<name>`)."""
        return self.node.saved_as_tensor(self.name)


class Node:
    """A recorded operation (a tensor's `grad_fn`): its inputs' nodes and its saved values.

    Subclasses (in `functions/`) define `forward`, which takes the input arrays and returns the
    output array, `saves`, the inputs backward will need, and `backward`, which turns
    the gradient of the output into one gradient per input, in the order of `next_functions`
    (None for an input that needs none). Each of those is a new array, or `grad` itself passed
    through unchanged: the engine may add into a new array in place (`engine.is_owned`), so
    one new array must never be handed to two inputs.

    `TensorCore._apply` (recording.py) is the one place that runs a forward and joins the
    graph; it fills in `needs_input_grad`, `next_nodes`, `input_shapes` and `tensor_class`
    when the op is recorded.
    """

    saves_result = False  # ops whose derivative is written with their own output (sigmoid, exp)
    num_outputs = 1  # ops with several outputs (unbind, a custom Function) say how many
    # which inputs get an edge (`next_functions`) and a gradient from backward; None: all. An
    # input that is never differentiable is no edge in torch (where's bool condition).
    edge_inputs: tuple[int, ...] | None = None
    frees_state = False  # True: release_saved also frees state kept outside saved_values
    # Defaults, replaced on the instance when the node is connected to the graph:
    needs_input_grad: tuple[bool, ...] = ()  # empty while the op is not being recorded
    next_nodes: tuple[Node | None, ...] = ()  # one per input: where its gradient goes, or None
    next_output_nrs: tuple[int, ...] | None = None  # which output of that node (None: all 0)
    input_shapes: tuple[tuple[int, ...], ...] = ()  # to sum broadcast gradients back
    # the class of the tensors it made: what the graph makes when it must hand one out (to a
    # hook, a create_graph formula, `_saved_result`), as it never names the Tensor class
    tensor_class: type | None = None
    saved_names: tuple[str, ...] = ()  # the names kept for backward, e.g. ("other",)
    saved_values: tuple[SavedTensor | np.ndarray, ...] = ()  # the values, in the same order
    # What backward needs (see Save): mul keeps `other` only when `self` needs a gradient,
    # saves = (Save("other", input=1, needed_for=0), Save("self", input=0, needed_for=1)).
    saves: tuple[Save, ...] = ()
    # Numbers the op keeps as plain attributes, which torch shows as `_saved_<name>` too:
    # pow's `exponent`, cat's and stack's `dim`.
    saved_numbers: tuple[str, ...] = ()
    shown: dict[str, Any] | None = None  # arguments as torch shows them (see `showing`)
    creation_trace: str | None = None  # where the node was made, in anomaly mode
    sequence_nr = 0  # when it was recorded (next_sequence_nr); backward runs later ones first
    # hooks, made when the first one is registered:
    pre_hooks: dict[int, Callable[..., Any]] | None = None  # fn(grad_outputs)
    post_hooks: dict[int, Callable[..., Any]] | None = None  # fn(grad_inputs, grad_outputs)
    tensor_hooks: dict[int, dict[int, Callable[..., Any]]] | None = None  # output nr -> fn(grad)
    retained: dict[int, weakref.ref] | None = None  # output nr -> tensor that retains its grad
    _serial: int | None = None  # see serial
    # torch's names for what a node saved (only the names this node saved are there):
    _saved_self = SavedAttribute("self")
    _saved_other = SavedAttribute("other")
    _saved_result = SavedAttribute("result")
    _saved_exponent = SavedAttribute("exponent")
    _saved_dim = SavedAttribute("dim")
    _saved_mat1 = SavedAttribute("mat1")
    _saved_mat2 = SavedAttribute("mat2")
    _saved_vec = SavedAttribute("vec")
    _saved_tensor = SavedAttribute("tensor")
    _saved_target = SavedAttribute("target")
    _saved_condition = SavedAttribute("condition")
    _saved_grad_output = SavedAttribute("grad_output")
    _saved_accumulate = SavedAttribute("accumulate")
    _saved_output = SavedAttribute("output")
    # ... and for the numbers a node keeps (its `saved_numbers`, read by `saved_number`):
    _saved_alpha = SavedAttribute("alpha")
    _saved_keepdim = SavedAttribute("keepdim")
    _saved_self_sym_sizes = SavedAttribute("self_sym_sizes")
    _saved_self_sym_numel = SavedAttribute("self_sym_numel")
    _saved_repeats = SavedAttribute("repeats")
    _saved_offset = SavedAttribute("offset")
    _saved_dims = SavedAttribute("dims")
    _saved_dim0 = SavedAttribute("dim0")
    _saved_dim1 = SavedAttribute("dim1")
    _saved_dim2 = SavedAttribute("dim2")
    _saved_index = SavedAttribute("index")
    _saved_start = SavedAttribute("start")
    _saved_end = SavedAttribute("end")
    _saved_step = SavedAttribute("step")
    _saved_split_size = SavedAttribute("split_size")
    _saved_split_sizes = SavedAttribute("split_sizes")
    _saved_min = SavedAttribute("min")
    _saved_max = SavedAttribute("max")
    _saved_min_val = SavedAttribute("min_val")
    _saved_max_val = SavedAttribute("max_val")
    _saved_negative_slope = SavedAttribute("negative_slope")
    _saved_reduction = SavedAttribute("reduction")
    _saved_correction = SavedAttribute("correction")
    _saved_ord = SavedAttribute("ord")
    _saved_indices = SavedAttribute("indices")
    _saved_weight = SavedAttribute("weight")
    _saved_pos_weight = SavedAttribute("pos_weight")
    _saved_beta = SavedAttribute("beta")
    _saved_mat1_sym_sizes = SavedAttribute("mat1_sym_sizes")
    _saved_mat2_sym_sizes = SavedAttribute("mat2_sym_sizes")
    _saved_self_sym_strides = SavedAttribute("self_sym_strides")
    _saved_mat1_sym_strides = SavedAttribute("mat1_sym_strides")
    _saved_mat2_sym_strides = SavedAttribute("mat2_sym_strides")
    _saved_sparse_grad = SavedAttribute("sparse_grad")
    _saved_mask = SavedAttribute("mask")
    _saved_ignore_index = SavedAttribute("ignore_index")
    _saved_total_weight = SavedAttribute("total_weight")
    _saved_padding_idx = SavedAttribute("padding_idx")
    _saved_scale_grad_by_freq = SavedAttribute("scale_grad_by_freq")
    _saved_sparse = SavedAttribute("sparse")
    _saved_weight_sym_argsize_0 = SavedAttribute("weight_sym_argsize_0")
    _raw_saved_self = SavedAttribute("self", raw=True)
    _raw_saved_other = SavedAttribute("other", raw=True)
    _raw_saved_result = SavedAttribute("result", raw=True)

    def saved_fields(self) -> set[str]:
        """The names this kind of op saves for backward, which torch shows as `_saved_<name>`
        (None in a node that did not need to keep one this time: mul's `self` when `other`
        needs no gradient)."""
        fields = {name for name, *_ in self.saves}
        fields.update(self.saved_names)
        if self.saves_result:
            fields.add("result")
        fields.update(self.saved_numbers)
        return fields

    def showing(self, **arguments: Any) -> Node:
        """This node, noting the op's arguments as torch's node shows them (`_saved_<name>`),
        where the node keeps them in another form: `transpose(0, -1)` swaps dims 0 and 1 of a
        2-D tensor, but torch shows `_saved_dim1` as the -1 it was given (see `unsigned`)."""
        self.shown = arguments
        return self

    def saved_number(self, name: str) -> Any:
        """A number of `saved_numbers` as `_saved_<name>` shows it: an argument noted by
        `showing`, an attribute of that name (pow's exponent, add's alpha), or the input's
        sizes and element count, which every node knows from `input_shapes` (torch's
        `_saved_self_sym_sizes` and `_saved_self_sym_numel`)."""
        if self.shown is not None and name in self.shown:
            return self.shown[name]
        if name == "self_sym_sizes":
            return tuple(self.input_shapes[0])
        if name == "self_sym_numel":
            return math.prod(self.input_shapes[0])
        return getattr(self, name, None)

    def __dir__(self) -> list[str]:
        """Like torch's nodes, list only the `_saved_<name>` attributes this op has."""
        fields = self.saved_fields()
        return [
            name
            for name in super().__dir__()
            if not name.startswith(("_saved_", "_raw_saved_"))
            or name.removeprefix("_raw").removeprefix("_saved_") in fields
        ]

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
        """torch's edges: one `(node, output number)` pair per input, `(None, 0)` for an input
        without grad. Kept flat, as `next_nodes` and `next_output_nrs`: fewer objects per node
        for Python's cyclic garbage collector to walk in a long graph."""
        numbers = self.next_output_nrs or (0,) * len(self.next_nodes)
        return tuple(zip(self.next_nodes, numbers, strict=True))

    @property
    def metadata(self) -> dict[str, Any]:
        """A dict for the user's own notes about this node (torch's `grad_fn.metadata`)."""
        notes = self.__dict__.get("_metadata")
        if notes is None:
            notes = self._metadata = {}
        return notes

    # ---- saved values --------------------------------------------------------------------

    def keep(
        self, names: tuple[str, ...], values: list[SavedTensor | np.ndarray], tensors: list[Any]
    ) -> None:
        """Store values for backward under `names`; a number (the `2.0` of `y * 2.0`) as its bare
        array. With `saved_tensors_hooks` in force, the hooks' pack keeps the tensor instead."""
        if _hook_stack.pairs:
            hooks = current_saved_hooks()
            for saved, tensor in zip(values, tensors, strict=True):
                if type(saved) is not np.ndarray:
                    saved.pack_with(hooks, tensor)
        self.saved_names = (*self.saved_names, *names) if self.saved_names else names
        self.saved_values = (*self.saved_values, *values) if self.saved_values else tuple(values)

    @property
    def saved(self) -> dict[str, SavedTensor]:
        """The saved values by name, as SavedTensors (a new dict at each read: look only)."""
        return {name: self.raw_saved(name) for name in self.saved_names}

    def raw_saved(self, name: str) -> SavedTensor:
        """The SavedTensor under `name`; a number kept bare becomes one when first asked for."""
        index = self.saved_names.index(name)
        value = self.saved_values[index]
        if type(value) is np.ndarray:
            value = SavedTensor.of_number(value)
            values = list(self.saved_values)
            values[index] = value
            self.saved_values = tuple(values)
        return value

    def unpack(self, name: str) -> Any:
        """The values saved under `name`, checked against later in-place changes.

        An array while backward works on arrays; a tensor connected to the graph while it is
        being recorded (create_graph=True: grad mode is on during that backward pass).
        """
        value = self.saved_values[self.saved_names.index(name)]
        if type(value) is np.ndarray:  # a number: nothing can change it, nothing to check
            return value if not _state.enabled else value[()]
        if not _state.enabled:
            return value.unpack()
        return self.saved_as_tensor(name)

    def saved_as_tensor(self, name: str) -> Any:
        """The value saved under `name` as a tensor, checked: the input tensor itself, or for
        an op's own output a tensor on its memory whose grad_fn is this node (`_saved_result`)."""
        saved = self.raw_saved(name)
        saved.check(reading=True)
        if saved.unpack_hook is not None:  # the hook's values, with the packed tensor's history
            return rebuild_saved(saved, self)
        if saved.owner is not None:
            return saved.owner
        if saved.is_output:
            return rebuild_saved(saved, self)
        array = saved.array.copy()  # a number written next to a tensor (torch: in 64 bits)
        if array.dtype.kind in "fiu":
            array = array.astype(np.float64 if array.dtype.kind == "f" else np.int64)
        return make_tensor(self.tensor_class, array)

    def release_saved(self) -> None:
        """Free the saved values: the graph can then be walked only once more if nothing saved."""
        values = self.saved_values
        for value in values:
            if type(value) is np.ndarray:  # a number kept bare becomes a SavedTensor that can
                values = tuple(  # show it was freed (in a picture, in the second backward's error)
                    SavedTensor.of_number(v) if type(v) is np.ndarray else v for v in values
                )
                self.saved_values = values
                break
        for value in values:
            value.free()

    # ---- the op itself ----------------------------------------------------------------------

    def forward(self, *arrays: np.ndarray) -> np.ndarray:
        """The output array, given the input arrays."""
        raise NotImplementedError(f"{self.name()} has no forward")

    def backward(self, grad: Any) -> tuple[Any, ...]:
        """Gradients for the inputs, given the gradient of the output."""
        raise NotImplementedError(f"{self.name()} has no backward formula")

    def __call__(self, *grads: Any) -> Any:
        """`node(grad)`: this node's backward formula on tensors, as torch's nodes are called."""
        if len(grads) != self.num_outputs:
            raise TypeError(f"expected {self.num_outputs} arguments, got {len(grads)} instead")
        arrays = [grad._array for grad in grads]
        previous = _state.grad_mode, _state.enabled
        _state.enabled = False  # the formula on arrays, as during a backward pass
        try:
            result = self.backward(arrays[0] if len(arrays) == 1 else tuple(arrays))
        finally:
            _state.grad_mode, _state.enabled = previous
        kind = type(grads[0])  # (the class of the tensors given)
        wrapped = tuple(None if value is None else make_tensor(kind, value) for value in result)
        return wrapped[0] if len(wrapped) == 1 else wrapped  # (torch: a tensor for one input)

    # An op that can write its result straight into its first input's memory (add, sub, mul)
    # defines `forward_into(a, *others)`: what `add_` and friends run when nothing is recorded.
    forward_into: Any = None

    # ---- hooks ------------------------------------------------------------------------------

    def register_prehook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """`hook(grad_outputs)` runs before this node's backward; a tuple it returns replaces
        the gradients of the outputs."""
        if self.pre_hooks is None:
            self.pre_hooks = {}
        return add_hook(self.pre_hooks, hook)

    def register_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """`hook(grad_inputs, grad_outputs)` runs after this node's backward; a tuple it returns
        replaces the gradients for the inputs."""
        if self.post_hooks is None:
            self.post_hooks = {}
        return add_hook(self.post_hooks, hook)

    def register_tensor_hook(self, output_nr: int, hook: Callable[..., Any]) -> RemovableHandle:
        """A hook of the tensor that is output `output_nr` of this node (Tensor.register_hook)."""
        if self.tensor_hooks is None:
            self.tensor_hooks = {}
        return add_hook(self.tensor_hooks.setdefault(output_nr, {}), hook)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"  # torch's repr, address included


class AccumulateGrad(Node):
    """The node through which gradients reach a leaf tensor: it adds them to `leaf.grad`.

    The leaf's own hooks (Tensor.register_hook) run first; its post-accumulate hooks after.
    """

    sequence_nr = 2**64 - 1  # torch's (UINT64_MAX): a leaf's gradient is written when ready

    def __init__(self, variable: Any) -> None:
        self.variable = variable  # the leaf; the leaf itself holds this node only weakly

    def __lt__(self, other: object) -> bool:
        """Never: all leaves' nodes share one sequence number, so in the engine's ready queue
        two of them are equal and the heap's shape decides which runs first, as in torch."""
        return False

    @property
    def tensor_hooks(self) -> dict[int, dict[int, Callable[..., Any]]] | None:  # type: ignore
        """The leaf's own hooks (`leaf.register_hook`): the engine runs them on the gradient
        before this node's pre-hooks, as it runs a non-leaf's hooks before its grad_fn's."""
        hooks = self.variable._hooks
        return None if hooks is None else {0: hooks}

    def accumulate(self, grad: Any, owned: bool = False) -> None:
        """`variable.grad += grad` (see add_to_grad); `owned`: see engine.is_owned."""
        if self.variable._requires_grad:  # else detach_() or requires_grad_(False) came since the
            add_to_grad(self.variable, grad, owned)  # graph was built: torch skips the leaf too


def add_to_grad(tensor: Any, grad: Any, owned: bool) -> None:
    """`tensor.grad += grad` (a leaf's, or a tensor's that called retain_grad()), creating
    `.grad` on the first call.

    An array the engine owns becomes `.grad` as it is, with no copy (torch "steals" such a
    buffer too); any other gets a copy. While backward records (create_graph), the gradient is a
    tensor: `.grad` is a recorded copy of it, then a recorded sum, as in torch.
    """
    if type(grad) is not np.ndarray and hasattr(grad, "_array"):  # a tensor (create_graph)
        if tensor._grad is None:
            tensor._grad = type(tensor)._from_array(np.zeros_like(tensor._array)).copy_(grad)
        else:
            tensor._grad = tensor._grad + grad
        return
    array = tensor._array
    if grad.shape != array.shape:
        grad = grad.reshape(array.shape)
    if tensor._grad is None:
        if not (owned and grad.dtype == array.dtype):
            grad = np.array(grad, dtype=array.dtype)
        tensor._grad = type(tensor)._from_array(grad)  # (a plain Tensor, for a Parameter too)
    else:
        tensor._grad._array += grad
        tensor._grad._version_counter.bump()


def rebuild_saved(saved: SavedTensor, node: Node) -> Any:
    """A saved output of `node` as a tensor: its memory and counter, and `node` as its grad_fn.

    With saved-tensor hooks, the values come from the unpack hook and the history from the
    tensor that was packed (as torch's SavedVariable.unpack): an output's node, an input's
    grad_fn, or, for a leaf, its AccumulateGrad (so gradients of gradients reach the leaf).
    """
    if saved.unpack_hook is None:
        tensor = make_tensor(node.tensor_class, saved.array)
        tensor._version_counter, tensor._storage = saved.version_counter, saved.storage
        tensor._grad_fn = node
        return tensor
    tensor = make_tensor(node.tensor_class, saved.unpacked_tensor()._array)
    if saved.is_output:
        tensor._grad_fn = node
    elif saved.packed_edge is not None:
        edge, output_nr = saved.packed_edge
        if isinstance(edge, AccumulateGrad):
            tensor._requires_grad, tensor._accumulator = True, weakref.ref(edge)
        else:
            tensor._grad_fn, tensor._output_nr = edge, output_nr
    return tensor
