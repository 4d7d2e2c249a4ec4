"""Recording: the one place an operation joins the graph, below every method that computes.

`TensorCore` holds the fields every tensor has (the Tensor in `_tensor.py` documents them for
a learner) and the ways a result is made and recorded:

- `_apply(node, *inputs)`       a result in new memory (`a * b`, `exp`, `sum`)
- `_apply_view(node)`           a result that shares this tensor's memory (`view`, `t[1:]`)
- `_apply_views(node)`          several such results (`unbind`, `split`)
- `_apply_inplace(node, ...)`   a change of this tensor's memory (`add_`, `t[0] = 1`)
- `_apply_inplace_view(node)`   a new shape on the same memory (`unsqueeze_`, `t_`)

Each one runs the node's forward on arrays and, when grad mode is on and some input requires
grad (`_recording`), makes the node the result's `grad_fn` with one edge per input
(`_connect`). The method groups in `methods/` call down into these; nothing here knows them.

A result is a tensor of its input's class (`_sibling`), so this module never needs the Tensor
class defined above it.
"""

from __future__ import annotations

import os
import sysconfig
import traceback
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes
from ._fast import shared, write_in_place
from ._new_tensor import tensor_serials
from .functions.inplace import CopySlices
from .functions.views import AsStridedBackward0, ViewChain, ViewNode
from .grad_mode import _Anomaly, _state
from .graph import AccumulateGrad, Node, next_sequence_nr
from .versions import SavedTensor, Storage, VersionCounter, op_words
from .watch import seen, watchers

__all__ = ["TensorCore"]

# where the frames of minigrad itself and of Python's standard library come from
_NOT_USER_CODE = (os.path.dirname(__file__), sysconfig.get_paths()["stdlib"])

INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `minigrad.no_grad()` instead of "
    "`minigrad.inference_mode()`."
)
VIEW_CHANGED_MESSAGES = {
    mode: f"A view was created in {mode} mode and its base or another view of its base has been "
    f"modified inplace {where}. Given that this use case is ambiguous and error-prone, it is "
    "forbidden. You can clarify your code by moving both the view and the inplace either both "
    f"inside the {block} block (if you don't want the inplace to be tracked) or both outside (if "
    "you want the inplace to be tracked)."
    for mode, where, block in (
        ("no_grad", "with grad mode enabled", "no_grad"),
        ("inference", "in normal mode", "inference_mode"),
    )
}
LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."


class TensorCore:
    """The fields of a tensor and the one place an op joins the graph (see the module's text).

    `Tensor` (`_tensor.py`) is made of this class, the method groups above it, and the
    learner's story: flags, hooks, detach / detach_ / .data, backward, conversion.
    """

    _array: np.ndarray  # the numbers (set by every constructor)
    _serial: int  # creation order, for stable names in pictures
    # The class of the tensors made from this one (None: its own class; see _sibling).
    _result_class: type | None = None

    # The other fields start with these class-level defaults (a plain leaf that needs no
    # grad) and are set on the instance only when they differ: fewer objects per new tensor.
    _base: TensorCore | None = None  # for a view: the root tensor whose memory it looks at
    _view_chain: ViewChain | None = None  # for a view: the views from the base's memory to ours
    _view_version = 0  # for a view: version of the memory when its grad_fn was made
    _creation_meta: str | None = None  # a view made in no_grad / inference mode, or by unbind
    _meta_inherited = False  # ... or a view of such a view
    _grad_fn: Node | None = None  # see _current_grad_fn (Tensor.grad_fn)
    _output_nr = 0  # which output of its grad_fn this tensor is (unbind makes several)
    _requires_grad = False  # the flag of a leaf (a non-leaf requires grad through its grad_fn)
    _grad: TensorCore | None = None  # see Tensor.grad (_tensor.py)
    _retains_grad = False  # retain_grad() was called
    _accumulator: weakref.ref[AccumulateGrad] | None = None  # this leaf's node, held weakly
    _hooks: dict[int, Callable[..., Any]] | None = None  # a leaf's register_hook hooks
    _post_accumulate_hooks: dict[int, Callable[..., Any]] | None = None
    _inference = False  # made inside inference_mode()
    _wrapped_number = False  # made by _wrap for a Python number (`2.0` in `y * 2.0`)
    _counter: VersionCounter | None = None  # made on first use (see _version_counter)
    _memory: Storage | None = None  # made on first use (see _storage)

    @property
    def _version_counter(self) -> VersionCounter:
        """The counter of in-place changes, made the first time anything asks for it."""
        if self._counter is None:
            self._counter = VersionCounter()
        return self._counter

    @_version_counter.setter
    def _version_counter(self, counter: VersionCounter) -> None:
        self._counter = counter

    @property
    def _storage(self) -> Storage:
        """The identity of this tensor's memory, made the first time anything asks for it."""
        if self._memory is None:
            self._memory = Storage()
        return self._memory

    @_storage.setter
    def _storage(self, storage: Storage) -> None:
        self._memory = storage

    def _sibling(self, array: np.ndarray) -> TensorCore:
        """A new tensor of this one's class on `array` (see _new_tensor.make_tensor). A subclass
        may name the class its results have (`_result_class`: nn.Parameter's results are plain
        tensors, as in torch)."""
        # (make_tensor's lines, inline: this runs for every result of every op)
        tensor = object.__new__(self._result_class or type(self))
        tensor._array = array if type(array) is np.ndarray else np.asarray(array)
        tensor._serial = next(tensor_serials)
        if _state.inference:
            tensor._inference = True
        return tensor

    def _alias(self, share_counter: bool) -> TensorCore:
        """A new tensor on the same memory (detach() shares the counter, .data does not)."""
        alias = self._sibling(self._array)
        alias._storage = self._storage
        alias._inference = self._inference
        if share_counter:
            alias._version_counter = self._version_counter
        if watchers:
            seen("detach" if share_counter else "data", (self,), alias)
        return alias

    def _view(self, array: np.ndarray, step: ViewNode) -> TensorCore:
        """A view of self: same memory, same version counter, `_base` = the root tensor."""
        view = self._sibling(array)
        view._memory = self._storage  # (the fields behind _storage and _version_counter)
        view._inference = self._inference
        counter = view._counter = self._version_counter
        view._view_version = counter.value
        if self._inference:
            return view  # torch does not track views of inference tensors: no _base, no graph
        if self._base is None:
            view._base, view._view_chain = self, ViewChain((step,))
        else:
            view._base, view._view_chain = self._base, self._view_chain.then(step)
        return view

    def _grad_accumulator(self) -> AccumulateGrad:
        """The AccumulateGrad node of this leaf (one per leaf, held weakly, as in torch)."""
        node = self._accumulator() if self._accumulator is not None else None
        if node is None:
            node = AccumulateGrad(self)
            node.tensor_class = self._result_class or type(self)
            self._accumulator = weakref.ref(node)
        return node

    # ---- joining the graph: the one place an op is recorded ---------------------------------

    @staticmethod
    def _recording(inputs: Sequence[TensorCore]) -> tuple[bool, ...] | None:
        """Whether to record an op: grad mode is on and some input requires grad (torch's rule).

        The answer is the op's `needs_input_grad` (which inputs require grad), or None.
        """
        if not _state.enabled:
            return None
        needs = []  # (a plain loop: this runs at every op, and is faster than a comprehension)
        for t in inputs:
            needs.append(t._requires_grad or t._grad_fn is not None)
        if True not in needs:
            return None
        pattern = tuple(needs)  # ((True,), (True, False), ...: see _fast.shared)
        return shared(pattern)

    def _edge(self) -> Node | None:
        """Where a gradient for this tensor must go: its grad_fn, its AccumulateGrad, or nowhere
        (None: the empty `(None, 0)` slot a detached input leaves in `next_functions`)."""
        node = self._grad_fn if self._base is None else self._current_grad_fn()
        if node is not None:
            return node
        if self._requires_grad and self._creation_meta is None:
            return self._grad_accumulator()
        return None  # (a view made under no_grad requires grad, but leads nowhere, as in torch)

    def _saved(self, is_output: bool, node: Node | None = None) -> SavedTensor | np.ndarray:
        """This tensor as a value saved for backward (an output keeps only its array).

        A number (`2.0` in `y * 2.0`) is kept as its bare array: nobody else holds the tensor
        it was wrapped in, so nothing can change it in place and there is no version to check.
        """
        if self._wrapped_number:
            return self._array
        if self._inference:
            raise RuntimeError(INFERENCE_SAVE_MESSAGE)
        if not is_output:  # the counter and storage are read from the tensor when needed
            counter = self._counter
            return SavedTensor(self, 0 if counter is None else counter.value)
        made_by = "AsStrided" if self._base is not None else node.name()
        counter, storage = self._version_counter, self._storage
        return SavedTensor.of_output(self._array, counter, storage, self._serial, made_by)

    @staticmethod
    def _connect(node: Node, output: TensorCore, inputs: Sequence[TensorCore]) -> None:
        """Make `node` the grad_fn of `output`: one edge per input (per input of `edge_inputs`,
        where the node names them), the saved values kept."""
        edges, shapes, numbers = [], [], None
        linked = inputs if node.edge_inputs is None else [inputs[i] for i in node.edge_inputs]
        for t in linked:
            edge = t._grad_fn
            if edge is None or t._base is not None:  # a leaf, a number or a view: ask _edge
                edge = t._edge()
            edges.append(edge)
            shapes.append(t._array.shape)
            if t._output_nr:
                numbers = [u._output_nr for u in linked]
        shapes = tuple(shapes)
        node.next_nodes, node.input_shapes = tuple(edges), shared(shapes)
        if numbers is not None:
            node.next_output_nrs = tuple(numbers)
        if node.saves:  # keep the inputs backward needs (only those it will use)
            names, kept, values = [], [], []  # (plain loops: this runs at every op)
            needs = node.needs_input_grad
            for name, index, for_input in node.saves:
                if for_input is None or needs[for_input]:
                    names.append(name)
                    kept.append(inputs[index])
                    values.append(inputs[index]._saved(is_output=False))
            names = tuple(names)
            node.keep(shared(names), values, kept)
        if _Anomaly.enabled:
            node.creation_trace = _user_stack()
        node.sequence_nr = next_sequence_nr()
        node.tensor_class = type(output)  # (what the graph makes when it must hand out a tensor)
        output._grad_fn = node

    @staticmethod
    def _keep_result(node: Node, output: TensorCore) -> None:
        """For ops whose backward is written with their output (sigmoid, exp): keep it."""
        node.keep(("result",), [output._saved(is_output=True, node=node)], [output])

    @staticmethod
    def _apply(node: Node, *inputs: TensorCore) -> TensorCore:
        """Run `node.forward` on the inputs' arrays; when recording, join the result to the graph.

        A result that is not floating point (an integer cast, an argmax) is never recorded:
        it cannot require grad, as in torch.
        """
        arrays, needs = [], []  # (_recording's rule, checked in the loop that gathers the arrays:
        for t in inputs:  # two Python calls fewer at every op)
            arrays.append(t._array)
            needs.append(t._requires_grad or t._grad_fn is not None)
        if not _state.enabled or True not in needs:
            output = inputs[0]._sibling(node.forward(*arrays))
        else:
            node.needs_input_grad = shared(tuple(needs))  # (see _fast.shared)
            result = node.forward(*arrays)
            output = inputs[0]._sibling(result)
            if result.dtype.kind == "f":
                TensorCore._connect(node, output, inputs)
                if node.saves_result:
                    TensorCore._keep_result(node, output)
        if watchers:  # viz.trace() is watching (see watch.py)
            seen(node.name(), inputs, output)
        return output

    def _apply_view(self, node: ViewNode) -> TensorCore:
        """Like `_apply`, for ops whose result is a view: same memory, same version counter.

        A view made where nothing is recorded remembers how (torch's creation meta): under
        no_grad it still requires grad when its base does, and may not be changed in place once
        grad mode is back on (see `_check_view_rules`).
        """
        output = self._view(node.view_of(self._array), node)
        if not self._inference and TensorCore._recording((self,)) is not None:
            node.needs_input_grad = (True,)
            TensorCore._connect(node, output, (self,))
            output._view_version = output._version_counter.value  # the version its grad_fn saw
        self._pass_creation_meta(output)
        if watchers:
            seen(node.name(), (self,), output)
        return output

    def _apply_views(self, node: Node) -> tuple[TensorCore, ...]:
        """Run an op with several outputs, each a view of self (unbind, split)."""
        outputs = tuple(self._view(step.view_of(self._array), step) for step in node.steps)
        if TensorCore._recording((self,)) is not None:
            node.needs_input_grad = (True,)
            TensorCore._connect(node, outputs[0], (self,))
            for number, output in enumerate(outputs):
                output._grad_fn, output._output_nr = node, number
        for output in outputs:
            if _state.enabled:  # (torch marks them in grad mode, whether or not they need grad)
                output._creation_meta = "multi_output"
            self._pass_creation_meta(output)
        return outputs

    def _pass_creation_meta(self, view: TensorCore) -> None:
        """Mark a new view of self made in no_grad or inference mode (or of such a view)."""
        if not _state.enabled and not self._inference:  # under no_grad or inference_mode
            view._creation_meta = "inference" if _state.inference else "no_grad"
            view._requires_grad = self._needs_grad()
        elif self._creation_meta is not None and view._creation_meta is None:
            view._creation_meta, view._meta_inherited = self._creation_meta, True

    def _apply_inplace(self, node: Node, *others: TensorCore) -> TensorCore:
        """Replace this tensor's values by `node.forward(values, *others)`, in place.

        Three steps, as in torch: refuse what cannot be recorded (a leaf that requires grad, a
        view made under no_grad); write the new values and bump the version counter shared with
        views and detach()ed aliases (also under no_grad); when recording, make the node this
        tensor's history (for a view, its base gets a CopySlices node: "the base, with this
        region replaced"). The node saves a copy of the old values, and, if it saves its result,
        this tensor at its new version.
        """
        self._check_inplace_allowed()
        if watchers:
            seen("inplace", (self, *others), self)
        if TensorCore._recording((self, *others)) is None:
            if not write_in_place(node, self, others):
                self._write_values(node.forward(self._array, *[o._array for o in others]))
            return self
        self._check_view_rules()
        before = self._sibling(self._array.copy())  # the old values, with their history
        before._grad_fn, before._output_nr = self._current_grad_fn(), self._output_nr
        before._requires_grad = self._requires_grad
        node.needs_input_grad = TensorCore._recording((before, *others))
        values = node.forward(before._array, *[o._array for o in others])
        old_node = self._grad_fn
        TensorCore._connect(node, self, (before, *others))  # (saves inputs at their old versions)
        self._grad_fn = old_node  # (until _rebase_history makes the change this tensor's history)
        self._write_values(values)
        if node.saves_result:
            TensorCore._keep_result(node, self)  # at its new version
        self._rebase_history(node)
        return self

    def _apply_inplace_view(self, node: ViewNode) -> TensorCore:
        """Give this tensor a new shape on the same memory (unsqueeze_, t_, ...), in place."""
        self._check_not_inference()  # (for these torch checks it before the leaf rule)
        self._check_inplace_allowed()
        recording = TensorCore._recording((self,)) is not None
        if recording:
            self._check_view_rules()
            node.needs_input_grad = (True,)
            TensorCore._connect(node, self, (self,))  # (reads the old edge before setting the new)
        self._array = node.view_of(self._array)
        if self._base is not None:
            self._view_chain = self._view_chain.then(node)
            self._view_version = self._version_counter.value + 1
        if not self._inference:
            self._version_counter.bump()
        return self

    def _check_inplace_allowed(self) -> None:
        """torch's rules for in-place changes: inference tensors, leaves that require grad."""
        recorded = _state.enabled and self._creation_meta is None
        if recorded and self._grad_fn is None and self._requires_grad:
            raise RuntimeError(LEAF_INPLACE_MESSAGE)  # (torch checks this before inference)
        if self._inference:
            self._check_not_inference()
        if not recorded:
            return  # (a view made under no_grad has its own message: _check_view_rules)
        base = self._base
        if base is not None and base._grad_fn is None and base._requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )

    def _check_not_inference(self) -> None:
        """An inference tensor may be changed in place only inside inference_mode."""
        if self._inference and not _state.inference:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
                "make a clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details."
            )

    def _check_view_rules(self) -> None:
        """torch's errors for a recorded in-place change of a view it cannot record correctly:
        one made in no_grad or inference mode, or one of several outputs (unbind, split)."""
        if self._creation_meta is not None:
            node = self._current_grad_fn()  # (None for a view made under no_grad)
            made_by = "" if node is None else self._made_by(node)
            message = _view_rule_message(self._creation_meta, self._meta_inherited, made_by)
            raise RuntimeError(message)

    def _made_by(self, node: Node) -> str:
        """'Output 1 of Unbind': this view as torch's messages name it."""
        return f"Output {self._output_nr} of {op_words(node.name())}"

    def _write_values(self, values: np.ndarray) -> None:
        """Copy `values` into this tensor's memory (torch's shape and dtype rules), bump version."""
        array = self._array
        if values.shape != array.shape:
            raise RuntimeError(
                f"output with shape {list(array.shape)} doesn't match the broadcast shape "
                f"{list(np.broadcast_shapes(values.shape, array.shape))}"
            )
        if dtypes.category(values.dtype) > dtypes.category(array.dtype):
            raise RuntimeError(
                f"result type {dtypes.kind_word(values.dtype)} can't be cast to the desired "
                f"output type {dtypes.kind_word(array.dtype)}"
            )
        if not array.flags.writeable:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to "
                "a single memory location. Please clone() the tensor before performing the "
                "operation."
            )
        array[...] = values
        if not self._inference:
            self._version_counter.bump()

    def _rebase_history(self, node: Node, output_nr: int = 0) -> None:
        """Make `node` (the recorded change) the history of self (and of its base, for a view)."""
        if self._base is None:
            self._move_retained(node, output_nr)
            self._grad_fn, self._output_nr = node, output_nr
            return
        base = self._base
        copy_slices = CopySlices(self._view_chain, node)  # torch's edges: (old base, fn's others)
        copy_slices.sequence_nr = next_sequence_nr()
        copy_slices.tensor_class = base._result_class or type(base)
        copy_slices.needs_input_grad = (base._needs_grad(), *node.needs_input_grad[1:])
        copy_slices.next_nodes = (base._edge(), *node.next_nodes[1:])
        if node.next_output_nrs is not None or base._output_nr:
            numbers = node.next_output_nrs or (0,) * len(node.next_nodes)
            copy_slices.next_output_nrs = (base._output_nr, *numbers[1:])
        copy_slices.input_shapes = (base._array.shape, *node.input_shapes[1:])
        base._move_retained(copy_slices, 0)
        base._set_grad_fn(copy_slices)
        window = self._view_window()
        self._move_retained(window, 0)
        self._set_grad_fn(window)

    def _move_retained(self, node: Node, output_nr: int) -> None:
        """retain_grad() follows the tensor to its new grad_fn (after an in-place change): its
        .grad is the gradient of its newest values. (Hooks registered with register_hook stay
        with the old node, as in torch.)"""
        old = self._grad_fn
        if old is not None and old.retained is not None and self._output_nr in old.retained:
            if node.retained is None:
                node.retained = {}
            node.retained[output_nr] = old.retained.pop(self._output_nr)

    def _view_window(self) -> AsStridedBackward0:
        """A new grad_fn for this view after its memory changed in place: its region of the base."""
        window = AsStridedBackward0(self._view_chain)
        window.sequence_nr = next_sequence_nr()
        window.tensor_class = self._result_class or type(self)
        window.needs_input_grad = (True,)
        window.next_nodes = (self._base._edge(),)
        window.input_shapes = (self._base._array.shape,)
        return window

    def _retain_grad(self) -> None:
        """retain_grad(): the node that made this tensor keeps a weak link to it, so backward
        can fill its `.grad` (a leaf gets its .grad anyway)."""
        if not self._needs_grad():
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        node = self._current_grad_fn()
        if node is None or self._retains_grad:
            return
        self._retains_grad = True
        if node.retained is None:
            node.retained = {}
        node.retained[self._output_nr] = weakref.ref(self)

    # ---- the flags behind `grad_fn` and `requires_grad` (see _tensor.py) --------------------

    def _current_grad_fn(self) -> Node | None:
        """The node that made this tensor (None for a leaf).

        A view whose memory was changed in place since its grad_fn was made (through its base
        or another view) gets a new one, as in torch: an `AsStridedBackward0` that reads its
        region out of the base's *current* history.
        """
        if self._base is not None and self._view_version != self._version_counter.value:
            meta = self._creation_meta
            if meta in VIEW_CHANGED_MESSAGES and self._needs_grad():
                raise RuntimeError(VIEW_CHANGED_MESSAGES[meta])
            if meta in ("multi_output", "custom_function") and self._grad_fn is not None:
                # one of several views (unbind), or a custom Function's: no window is made
                made_by = self._made_by(self._grad_fn)
                raise RuntimeError(_view_rule_message(meta, False, made_by, base_changed=True))
            self._view_version = self._version_counter.value
            # (also a view made before its base joined the graph through an in-place change)
            if self._grad_fn is not None or self._base._grad_fn is not None:
                window = self._view_window()
                self._move_retained(window, 0)
                self._grad_fn, self._output_nr = window, 0
        return self._grad_fn

    def _set_grad_fn(self, node: Node | None) -> None:
        """Make `node` this tensor's grad_fn (a view remembers the version it saw)."""
        self._grad_fn = node
        if self._base is not None:
            self._view_version = self._version_counter.value

    def _needs_grad(self) -> bool:
        """Whether operations on this tensor are recorded (always True for a non-leaf, and for a
        view of a tensor that requires grad)."""
        if self._grad_fn is not None or self._requires_grad:
            return True
        return self._base is not None and self._base._needs_grad()


def _view_rule_message(meta: str, inherited: bool, made_by: str, base_changed: bool = False) -> str:
    """torch's message for an in-place change of a view it cannot record: one made in no_grad or
    inference mode (or a view of one: `inherited`), one of several views, or one a custom
    Function returned (`made_by`: 'Output 1 of Unbind', empty for a view without grad_fn).
    `base_changed`: the change was to its base or another view of it, and the view is used."""
    if meta in ("multi_output", "custom_function"):
        what = "its base or another view of its base has been" if base_changed else "is being"
        start = (
            f"{made_by} is a view and {what} modified inplace."
            if made_by
            else "A view was created in no_grad mode and is being modified inplace with grad mode "
            "enabled."
        )
        if meta == "custom_function":
            return (
                f"{start} This view was created inside a custom Function (or because an input "
                "was returned as-is) and the autograd logic to handle view+inplace would override "
                "the custom backward associated with the custom Function, leading to incorrect "
                "gradients. This behavior is forbidden. You can fix this by cloning the output "
                "of the custom Function."
            )
        return (
            f"{start} This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. You should replace "
            "the inplace operation by an out-of-place one."
        )
    mode, where, block = (
        ("no_grad", "with grad mode enabled", "no_grad")
        if meta == "no_grad"
        else ("inference", "in normal mode", "inference_mode")
    )
    start = f"{made_by} is a view of a view which was" if inherited else "A view was"
    return (
        f"{start} created in {mode} mode and is being modified inplace {where}. Given that this "
        "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
        f"moving both the view and the inplace either both inside the {block} block (if you "
        "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
        "tracked)."
    )


def _user_stack() -> str:
    """Where the current op was called from, for anomaly mode: the user's own frames only (not
    minigrad's, Python's or an installed package's, such as Jupyter's), each file by its name
    alone, so the report says which line made the node and shows no folder of the machine."""
    lines = []
    for frame in traceback.extract_stack():
        where = frame.filename
        if where.startswith(_NOT_USER_CODE) or "site-packages" in where or where.startswith("<"):
            continue
        lines.append(f'  File "{os.path.basename(where)}", line {frame.lineno}, in {frame.name}\n')
        if frame.line:
            lines.append(f"    {frame.line}\n")
    return "".join(lines)
