"""`Tensor`: a numpy array plus the autograd bookkeeping torch keeps next to it.

The fields a learner should look at first:

- `_array`          the numbers (a numpy array; views and aliases share it)
- `_storage`        which block of memory this is (shared by views, `detach()` and `.data`)
- `_version_counter` how often that memory was changed in place (shared by views and
                    `detach()`, but **not** by `.data`)
- `grad_fn`         the node that made this tensor, or None for a leaf
- `_base`           for a view, the tensor whose memory it looks at

Read this file top to bottom: the fields; joining the graph (`_apply` for results in new
memory, `_apply_view` for results that share memory, `_apply_inplace` for changes of this
tensor's memory); the flags (`requires_grad`, `is_leaf`, `grad`, ...); hooks; the three ways to
cut the graph (`detach`, `detach_`, `data`, together in one section); `backward`; conversion.

The methods that compute something (`+`, `exp`, `sum`, `view`, `t[1:]`, `add_`, ...) are in
`methods/`, one module per kind; the ops themselves (`functions/`) work on arrays.
"""

from __future__ import annotations

import itertools
import os
import sysconfig
import traceback
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes, graph
from ._convert import data_to_array, type_name
from ._format import dtype_suffix, format_tensor
from ._shapes import Size
from .engine import run_backward
from .functions.inplace import CopySlices
from .functions.views import AsStridedBackward0, ViewChain, ViewNode
from .grad_mode import _Anomaly, _state
from .graph import AccumulateGrad, Node, RemovableHandle, add_hook, next_sequence_nr
from .methods.arithmetic import ArithmeticMethods
from .methods.base import NUMPY_OF_GRAD_MESSAGE, TensorBase
from .methods.elementwise import ElementwiseMethods
from .methods.indexing import IndexingMethods
from .methods.inplace import InplaceMethods
from .methods.reductions import MaxResult, ReductionMethods
from .methods.views import ViewMethods
from .versions import SavedTensor, Storage, VersionCounter
from .watch import seen, watchers

__all__ = ["MaxResult", "Size", "Tensor", "apply", "run_tensor_backward"]

_tensor_serials = itertools.count()
# One shared copy of each small tuple a node keeps (which inputs need a gradient, the inputs'
# shapes, the names of saved values): a graph of many nodes then holds fewer objects, and the
# garbage collector, which walks every object a graph keeps alive, has less to do.
_SHARED_TUPLES: dict[tuple, tuple] = {}
# where the frames of minigrad itself and of Python's standard library come from
_NOT_USER_CODE = (os.path.dirname(__file__), sysconfig.get_paths()["stdlib"])

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead."
)
INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `minigrad.no_grad()` instead of "
    "`minigrad.inference_mode()`."
)
DETACH_VIEW_MESSAGE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
# torch's errors for the grad_fn of a view made under no_grad / inference_mode (of a tensor
# that requires grad) after its memory was changed in place: which history it has is ambiguous
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
NO_HOOK_MESSAGE = "cannot register a hook on a tensor that doesn't require gradient"


class Tensor(
    ArithmeticMethods,
    ElementwiseMethods,
    ReductionMethods,
    ViewMethods,
    IndexingMethods,
    InplaceMethods,
):
    """An n-dimensional array that can record the operations made with it."""

    def __init__(
        self, data: object = (), requires_grad: bool = False, dtype: dtypes.DType | None = None
    ) -> None:
        if isinstance(data, TensorBase):
            data = data._array
        self._array = data_to_array(data, dtype)
        self._serial = next(_tensor_serials)  # creation order, for stable names in pictures
        if _state.inference:
            self._inference = True
        if requires_grad:
            self.requires_grad_(True)

    # The other fields start with these class-level defaults (a plain leaf that needs no
    # grad) and are set on the instance only when they differ: fewer objects per new tensor.
    _base: Tensor | None = None  # for a view: the root tensor whose memory it looks at
    _view_chain: ViewChain | None = None  # for a view: the views from the base's memory to ours
    _view_version = 0  # for a view: version of the memory when its grad_fn was made
    _creation_meta: str | None = None  # a view made in no_grad / inference mode, or by unbind
    _meta_inherited = False  # ... or a view of such a view
    _grad_fn: Node | None = None  # see the grad_fn property
    _output_nr = 0  # which output of its grad_fn this tensor is (unbind makes several)
    _requires_grad = False  # the flag of a leaf (a non-leaf requires grad through its grad_fn)
    _grad: Tensor | None = None  # see the grad property
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

    @staticmethod
    def _from_array(array: np.ndarray) -> Tensor:
        """Wrap an array that nobody else owns: new storage, new version counter (both made
        when first asked for)."""
        tensor = Tensor.__new__(Tensor)
        # numpy turns 0-d results into scalars (np.float32): keep an array
        tensor._array = array if type(array) is np.ndarray else np.asarray(array)
        tensor._serial = next(_tensor_serials)
        if _state.inference:
            tensor._inference = True
        return tensor

    def _alias(self, share_counter: bool) -> Tensor:
        """A new tensor on the same memory (detach() shares the counter, .data does not)."""
        alias = Tensor._from_array(self._array)
        alias._storage = self._storage
        alias._inference = self._inference
        if share_counter:
            alias._version_counter = self._version_counter
        if watchers:
            seen("detach" if share_counter else "data", (self,), alias)
        return alias

    def _view(self, array: np.ndarray, step: ViewNode) -> Tensor:
        """A view of self: same memory, same version counter, `_base` = the root tensor."""
        view = Tensor._from_array(array)
        view._storage = self._storage
        view._inference = self._inference
        counter = view._version_counter = self._version_counter
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
            self._accumulator = weakref.ref(node)
        return node

    # ---- joining the graph: the one place an op is recorded ---------------------------------

    @staticmethod
    def _recording(inputs: Sequence[Tensor]) -> tuple[bool, ...] | None:
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
        pattern = tuple(needs)  # ((True,), (True, False), ...: shared, see _SHARED_TUPLES)
        return _SHARED_TUPLES.setdefault(pattern, pattern)

    def _edge(self) -> Node | None:
        """Where a gradient for this tensor must go: its grad_fn, its AccumulateGrad, or nowhere
        (None: the empty `(None, 0)` slot a detached input leaves in `next_functions`)."""
        node = self._grad_fn if self._base is None else self.grad_fn
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
    def _connect(node: Node, output: Tensor, inputs: Sequence[Tensor]) -> None:
        """Make `node` the grad_fn of `output`: one edge per input, the saved values kept."""
        edges, shapes, numbers = [], [], None
        for t in inputs:
            edge = t._grad_fn
            if edge is None or t._base is not None:  # a leaf, a number or a view: ask _edge
                edge = t._edge()
            edges.append(edge)
            shapes.append(t._array.shape)
            if t._output_nr:
                numbers = [u._output_nr for u in inputs]
        shapes = tuple(shapes)
        node.next_nodes, node.input_shapes = tuple(edges), _SHARED_TUPLES.setdefault(shapes, shapes)
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
            node.keep(_SHARED_TUPLES.setdefault(names, names), values, kept)
        if _Anomaly.enabled:
            node.creation_trace = _user_stack()
        node.sequence_nr = next_sequence_nr()
        output._grad_fn = node

    @staticmethod
    def _keep_result(node: Node, output: Tensor) -> None:
        """For ops whose backward is written with their output (sigmoid, exp): keep it."""
        node.keep(("result",), [output._saved(is_output=True, node=node)], [output])

    @staticmethod
    def _apply(node: Node, *inputs: Tensor) -> Tensor:
        """Run `node.forward` on the inputs' arrays; when recording, join the result to the graph.

        A result that is not floating point (an integer cast, an argmax) is never recorded:
        it cannot require grad, as in torch.
        """
        arrays = [t._array for t in inputs]
        needs = Tensor._recording(inputs)
        if needs is None:
            output = Tensor._from_array(node.forward(*arrays))
        else:
            node.needs_input_grad = needs
            result = node.forward(*arrays)
            output = Tensor._from_array(result)
            if result.dtype.kind == "f":
                Tensor._connect(node, output, inputs)
                if node.saves_result:
                    Tensor._keep_result(node, output)
        if watchers:  # viz.trace() is watching (see watch.py)
            seen(node.name(), inputs, output)
        return output

    def _apply_view(self, node: ViewNode) -> Tensor:
        """Like `_apply`, for ops whose result is a view: same memory, same version counter.

        A view made where nothing is recorded remembers how (torch's creation meta): under
        no_grad it still requires grad when its base does, and may not be changed in place once
        grad mode is back on (see `_check_view_rules`).
        """
        output = self._view(node.view_of(self._array), node)
        if not self._inference and Tensor._recording((self,)) is not None:
            node.needs_input_grad = (True,)
            Tensor._connect(node, output, (self,))
            output._view_version = output._version_counter.value  # the version its grad_fn saw
        self._pass_creation_meta(output)
        if watchers:
            seen(node.name(), (self,), output)
        return output

    def _apply_views(self, node: Node) -> tuple[Tensor, ...]:
        """Run an op with several outputs, each a view of self (unbind, split)."""
        outputs = tuple(self._view(step.view_of(self._array), step) for step in node.steps)
        if Tensor._recording((self,)) is not None:
            node.needs_input_grad = (True,)
            Tensor._connect(node, outputs[0], (self,))
            for number, output in enumerate(outputs):
                output._grad_fn, output._output_nr = node, number
        for output in outputs:
            if _state.enabled:  # (torch marks them in grad mode, whether or not they need grad)
                output._creation_meta = "multi_output"
            self._pass_creation_meta(output)
        return outputs

    def _pass_creation_meta(self, view: Tensor) -> None:
        """Mark a new view of self made in no_grad or inference mode (or of such a view)."""
        if not _state.enabled and not self._inference:  # under no_grad or inference_mode
            view._creation_meta = "inference" if _state.inference else "no_grad"
            view._requires_grad = self.requires_grad
        elif self._creation_meta is not None and view._creation_meta is None:
            view._creation_meta, view._meta_inherited = self._creation_meta, True

    def _apply_inplace(self, node: Node, *others: Tensor) -> Tensor:
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
        if Tensor._recording((self, *others)) is None:
            if node.forward_into is not None and self._writes_into(others):
                node.forward_into(self._array, *[o._array for o in others])
                self._version_counter.bump()  # (an inference tensor cannot get here: _writes_into)
                return self
            self._write_values(node.forward(self._array, *[o._array for o in others]))
            return self
        self._check_view_rules()
        before = Tensor._from_array(self._array.copy())  # the old values, with their history
        before._grad_fn, before._output_nr = self.grad_fn, self._output_nr
        before._requires_grad = self._requires_grad
        node.needs_input_grad = Tensor._recording((before, *others))
        values = node.forward(before._array, *[o._array for o in others])
        old_node = self._grad_fn
        Tensor._connect(node, self, (before, *others))  # (saves inputs at their old versions)
        self._grad_fn = old_node  # (until _rebase_history makes the change this tensor's history)
        self._write_values(values)
        if node.saves_result:
            Tensor._keep_result(node, self)  # at its new version
        self._rebase_history(node)
        return self

    def _apply_inplace_view(self, node: ViewNode) -> Tensor:
        """Give this tensor a new shape on the same memory (unsqueeze_, t_, ...), in place."""
        self._check_not_inference()  # (for these torch checks it before the leaf rule)
        self._check_inplace_allowed()
        recording = Tensor._recording((self,)) is not None
        if recording:
            self._check_view_rules()
            node.needs_input_grad = (True,)
            Tensor._connect(node, self, (self,))  # (reads the old edge before setting the new)
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
            node = self.grad_fn  # (None for a view made under no_grad)
            name = "" if node is None else node.name().removesuffix("0").removesuffix("Backward")
            made_by = "" if node is None else f"Output {self._output_nr} of {name}"
            message = _view_rule_message(self._creation_meta, self._meta_inherited, made_by)
            raise RuntimeError(message)

    def _writes_into(self, others: Sequence[Tensor]) -> bool:
        """Whether an op's result can go straight into this memory: the same dtype and shape as
        the result would have (otherwise `_write_values` gives torch's errors)."""
        array = self._array
        if self._inference or not array.flags.writeable:
            return False
        for other in others:
            values = other._array
            if values.dtype != array.dtype or (values.shape != array.shape and values.ndim):
                return False
        return True

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
        copy_slices.needs_input_grad = (base.requires_grad, *node.needs_input_grad[1:])
        copy_slices.next_nodes = (base._edge(), *node.next_nodes[1:])
        if node.next_output_nrs is not None or base._output_nr:
            numbers = node.next_output_nrs or (0,) * len(node.next_nodes)
            copy_slices.next_output_nrs = (base._output_nr, *numbers[1:])
        copy_slices.input_shapes = (base._array.shape, *node.input_shapes[1:])
        base._move_retained(copy_slices, 0)
        base.grad_fn = copy_slices
        window = self._view_window()
        self._move_retained(window, 0)
        self.grad_fn = window

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
        window.needs_input_grad = (True,)
        window.next_nodes = (self._base._edge(),)
        window.input_shapes = (self._base._array.shape,)
        return window

    # ---- what backward writes -----------------------------------------------------------------

    def _accumulate_grad(self, grad: Any, owned: bool) -> None:
        """`self.grad += grad` for a leaf, creating `.grad` on the first call.

        `owned` says that only the engine holds `grad`: then it becomes `.grad` as it is, with
        no copy (torch "steals" such a buffer too). Otherwise `.grad` gets its own copy.
        """
        if not self._requires_grad:
            return  # detach_() or requires_grad_(False) since the graph was built: torch skips it
        self._add_to_grad(grad, owned)

    def _accumulate_retained_grad(self, grad: Any) -> None:
        """Fill `.grad` of a non-leaf tensor that asked for it with `retain_grad()`."""
        self._add_to_grad(grad, owned=False)

    def _add_to_grad(self, grad: Any, owned: bool) -> None:
        """`.grad += grad`: in place on arrays; while backward records (create_graph), as a
        recorded copy, then a recorded sum, as torch does."""
        if isinstance(grad, Tensor):
            if self._grad is None:
                self._grad = Tensor._from_array(np.zeros_like(self._array)).copy_(grad)
            else:
                self._grad = self._grad + grad
            return
        array = self._array
        if grad.shape != array.shape:
            grad = grad.reshape(array.shape)
        if self._grad is None:
            if not (owned and grad.dtype == array.dtype):
                grad = np.array(grad, dtype=array.dtype)
            self._grad = Tensor._from_array(grad)
        else:
            self._grad._array += grad
            self._grad._version_counter.bump()

    # ---- flags -------------------------------------------------------------------------------

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor (None for a leaf).

        A view whose memory was changed in place since its grad_fn was made (through its base
        or another view) gets a new one, as in torch: an `AsStridedBackward0` that reads its
        region out of the base's *current* history.
        """
        if self._base is not None and self._view_version != self._version_counter.value:
            if self._creation_meta in VIEW_CHANGED_MESSAGES and self.requires_grad:
                raise RuntimeError(VIEW_CHANGED_MESSAGES[self._creation_meta])
            self._view_version = self._version_counter.value
            # (also a view made before its base joined the graph through an in-place change)
            if self._grad_fn is not None or self._base._grad_fn is not None:
                window = self._view_window()
                self._move_retained(window, 0)
                self._grad_fn, self._output_nr = window, 0
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Node | None) -> None:
        self._grad_fn = node
        if self._base is not None:
            self._view_version = self._version_counter.value

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded (always True for a non-leaf, and for a
        view of a tensor that requires grad)."""
        if self._grad_fn is not None or self._requires_grad:
            return True
        return self._base is not None and self._base.requires_grad

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")  # (torch's message for deleting it)

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if not isinstance(flag, bool):
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:  # the attribute refuses even True on a non-leaf
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        if (
            flag and self._array.dtype.kind != "f"
        ):  # (the attribute's words differ from the method's)
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad on a leaf, in place; returns self."""
        if type(requires_grad) is not bool:
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{type(requires_grad).__name__}"
            )
        if watchers:
            seen("requires_grad_", (self,), requires_grad)
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self._array.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not _state.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not made by a recorded operation (grad_fn is None)."""
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is (0 but for unbind, split, Functions)."""
        return self._output_nr

    def _is_view(self) -> bool:
        """True for a view that autograd tracks as one (it has a `_base`)."""
        return self._base is not None

    def is_inference(self) -> bool:
        """True for a tensor made inside `inference_mode()` (it can never join a graph)."""
        return self._inference

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's memory has seen (shared with its views)."""
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.value

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward (leaves, and non-leaves after retain_grad())."""
        if self.grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type_name(value)}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value._array.dtype != self._array.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.name_in_errors}' "
                    f"to a tensor with grad_dtype '{self.dtype.torch_kind}'. The gradient must "
                    "match the tensor's grad_dtype (defaults to the tensor's dtype)."
                )
            if value._array.shape != self._array.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor "
                    f"of size '{list(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    def retain_grad(self) -> None:
        """Ask backward to fill `.grad` of this non-leaf tensor too."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        node = self.grad_fn
        if node is None or self._retains_grad:
            return  # leaves get their .grad anyway
        self._retains_grad = True
        if node.retained is None:
            node.retained = {}
        node.retained[self._output_nr] = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor after `retain_grad()`."""
        return self._retains_grad

    # ---- hooks -------------------------------------------------------------------------------

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call `hook(grad)` when the gradient for this tensor has been computed, before it goes
        on (a non-leaf) or into `.grad` (a leaf). A tensor it returns replaces the gradient."""
        if not self.requires_grad:
            raise RuntimeError(NO_HOOK_MESSAGE)
        node = self.grad_fn
        if node is not None:  # kept by the node: a later in-place change leaves it behind
            return node.register_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = {}
        return add_hook(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call `hook(tensor)` after backward has added to this leaf's `.grad`."""
        if not self.requires_grad:
            raise RuntimeError(NO_HOOK_MESSAGE)
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = {}
        return add_hook(self._post_accumulate_hooks, hook)

    # ---- cutting the graph -----------------------------------------------------------------

    def detach(self) -> Tensor:
        """A new tensor on the same memory and version counter, outside the graph.

        No copy is made: an in-place change to either one shows in both, and is counted on
        the shared version counter, so backward still notices it.
        """
        return self._alias(share_counter=True)

    def detach_(self) -> Tensor:
        """Cut *this* tensor out of the graph, in place: it becomes a leaf without grad.

        Operations that already used this tensor keep their edge to its old grad_fn; only what
        is computed from it afterwards is cut. A node that saved this tensor refuses it from
        now on. Views cannot be detached in place.
        """
        if self._base is not None:
            raise RuntimeError(DETACH_VIEW_MESSAGE)
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """An alias of the same memory, outside the graph, with a *fresh* version counter.

        Because the counter is new, in-place changes made through `.data` are invisible to the
        check backward makes: gradients can come out silently wrong. Prefer `detach()`.
        """
        return self._alias(share_counter=False)

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @data.setter
    def data(self, new: Tensor) -> None:
        if not isinstance(new, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        if self.requires_grad and new._array.dtype.kind != "f":
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                "dtype"
            )
        # same Python object, new contents: every reference to `self` sees the new values, and
        # so does backward, which kept `self` (not its old array) where it saved it
        self._array = new._array
        self._storage = new._storage

    # ---- gradients ---------------------------------------------------------------------------

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
    ) -> None:
        """Accumulate d(self)/d(leaf) into `.grad` of every leaf that requires grad (or only of
        `inputs`). `create_graph=True` records the backward pass, so the gradients can be
        differentiated again."""
        if gradient is not None and not isinstance(gradient, Tensor):
            if isinstance(gradient, (list, tuple)):
                raise TypeError(
                    "gradients can be either Tensors or None, but got "
                    f"{type_name(gradient[0]) if gradient else 'list'}"
                )
            raise TypeError(f"'{type_name(gradient)}' object is not iterable")
        run_tensor_backward([self], [gradient], retain_graph, create_graph, inputs)

    # ---- conversion --------------------------------------------------------------------------

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The numbers as a numpy array sharing this tensor's memory (no copy).

        Refused for a tensor that requires grad while grad mode is on (as torch does), unless
        `force=True` (torch's shortcut for `detach().numpy()`).
        """
        if type(force) is not bool:
            raise TypeError(f"numpy(): argument 'force' must be bool, not {type(force).__name__}")
        if self.requires_grad and _state.enabled and not force:
            raise RuntimeError(NUMPY_OF_GRAD_MESSAGE)
        if watchers:
            seen("numpy", (self,), None)
        return self._array

    def __array_wrap__(
        self, array: np.ndarray, context: Any = None, return_scalar: bool = False
    ) -> Tensor:
        # what a numpy function's result becomes when it was given a tensor (np.exp(t)): a
        # tensor, as in torch, which turns numpy's bool results into uint8
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return Tensor(np.asarray(array))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        # what np.asarray(t) and matplotlib call; torch refuses for tensors that require grad.
        # np.array(t) asks for a copy (torch's np.array copies), np.asarray(t) does not.
        array = self.numpy()
        if dtype is not None:
            return array.astype(dtype)
        return array.copy() if copy else array

    def item(self) -> float | int | bool:
        """The single value of a one-element tensor, as a Python number."""
        if self._array.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._array.size} elements cannot be converted to Scalar"
            )
        if watchers:
            seen("item", (self,), None)
        return self._array.reshape(()).item()

    # ---- printing ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        suffixes = []
        dtype_note = dtype_suffix(self._array)
        if dtype_note:
            suffixes.append(dtype_note)
        try:
            node = self.grad_fn
        except RuntimeError:  # a view made under no_grad whose memory changed since
            node = None
            suffixes.append("grad_fn=<Invalid>")  # (torch prints this rather than raising)
        if node is not None:
            suffixes.append(f"grad_fn=<{node.name()}>")
        elif self.requires_grad and not suffixes[-1:] == ["grad_fn=<Invalid>"]:
            suffixes.append("requires_grad=True")
        return format_tensor(self._array, suffixes)

    __hash__ = object.__hash__  # == is elementwise, so hash by identity as torch does

    def __deepcopy__(self, memo: dict) -> Tensor:
        # Python's default deepcopy would copy the weak link to this leaf's AccumulateGrad, so
        # gradients of the copy would land in the original's .grad. Copy only what a user made.
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment."
            )
        copy = Tensor._from_array(self._array.copy())
        copy._requires_grad = self._requires_grad
        if self._grad is not None:
            copy._grad = Tensor._from_array(self._grad._array.copy())
        memo[id(self)] = copy
        return copy


apply = Tensor._apply  # the public op API: run a node's op on tensors, join the graph
apply_view = Tensor._apply_view


# ---- backward from tensors ---------------------------------------------------------------------


def run_tensor_backward(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor | None],
    retain_graph: bool | None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
    accumulate: bool = True,
) -> dict[tuple[Node, int], Any]:
    """Check the outputs, make the gradient each starts with, and walk the graph from them.

    `inputs`: only their gradients are computed (accumulated into their `.grad`, or, with
    `accumulate=False`, returned by edge, as autograd.grad wants them).
    """
    roots = []
    for index, (output, given) in enumerate(zip(outputs, grad_outputs, strict=True)):
        roots.append(
            (_root_edge(output, index), _start_gradient(output, given, index, create_graph))
        )
    if create_graph and accumulate and not _Warned.create_graph:
        _Warned.create_graph = True  # once per process, as torch's TORCH_WARN_ONCE
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    targets = None if inputs is None else _target_edges(inputs, accumulate)
    retain = create_graph if retain_graph is None else retain_graph
    return run_backward(roots, retain, create_graph, targets, accumulate)


class _Warned:
    """Warnings torch gives once per process."""

    create_graph = False


CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)


def _root_edge(output: Tensor, index: int) -> tuple[Node, int]:
    if not output.requires_grad or output._edge() is None:
        raise RuntimeError(
            f"element {index} of tensors does not require grad and does not have a grad_fn"
        )
    return output._edge(), output._output_nr


def _start_gradient(output: Tensor, given: Tensor | None, index: int, create_graph: bool) -> Any:
    """The gradient backward starts with: ones for a scalar, or the `gradient` given."""
    if given is None:
        if output._array.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        # np.ones without its Python-level steps (this runs at every backward())
        start = np.array(1, dtype=output._array.dtype).reshape(output._array.shape)
        return Tensor._from_array(start) if create_graph else start
    start = given._array if isinstance(given, Tensor) else np.asarray(given)
    if start.shape != output._array.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{index}] has a shape of {Size(start.shape)} "
            f"and output[{index}] has a shape of {Size(output._array.shape)}."
        )
    return given if create_graph and isinstance(given, Tensor) else start


def _target_edges(inputs: Tensor | Sequence[Tensor], accumulate: bool) -> dict:
    """The edges whose gradients are wanted: a leaf's AccumulateGrad, a non-leaf's grad_fn."""
    tensors = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not tensors:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    edges: dict[tuple[Node, int], None] = {}
    for tensor in tensors:
        if accumulate:
            tensor.retain_grad()  # a non-leaf in backward(inputs=...) gets its .grad, as in torch
        elif not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node = tensor.grad_fn if tensor.grad_fn is not None else tensor._edge()
        edges[(node, tensor._output_nr)] = None
    return edges


def _view_rule_message(meta: str, inherited: bool, made_by: str) -> str:
    """torch's message for an in-place change of a view it cannot record: one made in no_grad or
    inference mode (or a view of one: `inherited`), one of several views, or one a custom
    Function returned (`made_by`: 'Output 1 of Unbind', empty for a view without grad_fn)."""
    if meta in ("multi_output", "custom_function"):
        start = (
            f"{made_by} is a view and is being modified inplace."
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


# ---- what the graph needs to make tensors (see graph.tensors) ----------------------------------


def _apply_to_values(node: Node, *inputs: Any) -> Tensor | np.ndarray:
    """`apply`, where some inputs may be Python numbers (a formula's `where(mask, 0.0, grad)`);
    on arrays alone, just the op's forward."""
    like = next((value for value in inputs if isinstance(value, Tensor)), None)
    if like is None:
        return node.forward(*inputs)
    return Tensor._apply(
        node, *[value if isinstance(value, Tensor) else like._wrap(value) for value in inputs]
    )


def _rebuild_output(saved: SavedTensor, node: Node) -> Tensor:
    """A saved output as a tensor: its memory and counter, and the node as its grad_fn.

    With saved-tensor hooks, the values come from the unpack hook and the history from the
    tensor that was packed (as torch's SavedVariable.unpack): an output's node, an input's
    grad_fn, or, for a leaf, its AccumulateGrad (so gradients of gradients reach the leaf).
    """
    if saved.unpack_hook is None:
        tensor = Tensor._from_array(saved.array)
        tensor._version_counter, tensor._storage = saved.version_counter, saved.storage
        tensor._grad_fn = node
        return tensor
    tensor = Tensor._from_array(saved.unpacked_tensor()._array)
    if saved.is_output:
        tensor._grad_fn = node
    elif saved.packed_edge is not None:
        edge, output_nr = saved.packed_edge
        if isinstance(edge, AccumulateGrad):
            tensor._requires_grad, tensor._accumulator = True, weakref.ref(edge)
        else:
            tensor._grad_fn, tensor._output_nr = edge, output_nr
    return tensor


graph.tensors.wrap = Tensor._from_array
graph.tensors.apply = _apply_to_values
graph.tensors.rebuild = _rebuild_output
