"""`Tensor`: a numpy array plus the autograd bookkeeping torch keeps next to it.

The fields a learner should look at first:

- `_array`          the numbers (a numpy array; views and aliases share it)
- `_storage`        which block of memory this is (shared by views, `detach()` and `.data`)
- `_version_counter` how often that memory was changed in place (shared by views and
                    `detach()`, but **not** by `.data`)
- `grad_fn`         the node that made this tensor, or None for a leaf
- `_base`           for a view, the tensor whose memory it looks at

`detach()`, `detach_()` and the `data` property, the three ways of cutting the graph, are
together in the section "Cutting the graph" below.

This is also the one place where an operation joins the graph: `_apply` (results in new
memory), `_apply_view` (results that share memory) and `_apply_inplace` (changes of this
tensor's memory), all three built on `_recording` and `_connect`, in the section "Joining
the graph". The ops themselves (functions/) work on arrays and know nothing of Tensor.
"""

from __future__ import annotations

import itertools
import numbers
import os
import traceback
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import dtypes, random
from ._format import dtype_suffix, format_tensor
from ._shapes import broadcast_shapes, infer_shape, normalize_dims, shape_args, wrap_dim
from .functions import arith, linalg, reduce, unary, views
from .functions.inplace import (
    BernoulliBackward2,
    CopyBackwards,
    CopySlices,
    FillBackward2,
    IndexPutBackward0,
    NormalBackward0,
    UniformBackward0,
    ZeroBackward0,
)
from .grad_mode import _Anomaly, _state
from .graph import AccumulateGrad, Node, run_backward
from .versions import SavedTensor, Storage, VersionCounter

__all__ = ["MaxResult", "Size", "Tensor", "cat", "run_tensor_backward", "stack"]

_tensor_serials = itertools.count()
_NEEDS_PATTERNS: dict[tuple[bool, ...], tuple[bool, ...]] = {}
_PACKAGE_DIR = os.path.dirname(__file__)

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
LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."


class Size(tuple):
    """A tensor's shape: a tuple that prints like `minigrad.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"minigrad.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        return int(np.prod(self))


class MaxResult(NamedTuple):
    """What `t.max(dim)` returns: the maxima and where they are (torch.return_types.max)."""

    values: Tensor
    indices: Tensor


def _type_name(value: object) -> str:
    """torch.typename: 'float', 'numpy.ndarray'."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _comparison(compare: np.ufunc) -> Callable[[Tensor, object], Tensor]:
    """A comparison method (`==`, `<`, ...): elementwise, a bool tensor, never recorded."""

    def method(self: Tensor, other: object) -> Tensor:
        wrapped = self._wrap(other)
        if wrapped is None:
            return NotImplemented
        broadcast_shapes(self._array.shape, wrapped._array.shape)
        return Tensor._from_array(compare(self._array, wrapped._array))

    method.__doc__ = f"Elementwise {compare.__name__}, as a bool tensor (not recorded)."
    return method


class _NoDim:
    """The default `dim` of sum() and mean(): no dim given (torch's form without one)."""

    def __repr__(self) -> str:
        return "<no dim>"


_NO_DIM: Any = _NoDim()
DimArg = int | Sequence[int] | None  # a dim, several dims, or None for every dim


def _check_no_keepdim(method: str, keepdim: bool | None) -> None:
    """torch's TypeError for `t.sum(keepdim=...)` with no dim: only the dim form takes keepdim
    (so its default is None, "not given", and False is refused here as well)."""
    if keepdim is not None:
        raise TypeError(
            f"{method}() received an invalid combination of arguments - got (keepdim=bool, ), "
            "but expected one of:\n * (*, minigrad.dtype dtype = None)\n * (tuple of ints dim, "
            "bool keepdim = False, *, minigrad.dtype dtype = None)\n"
        )


class Tensor:
    """An n-dimensional array that can record the operations made with it."""

    # numpy must hand `array * tensor` back to Tensor.__rmul__ instead of converting us
    __array_ufunc__ = None

    def __init__(
        self, data: object = (), requires_grad: bool = False, dtype: dtypes.DType | None = None
    ) -> None:
        self._set_fields(_to_array(data, dtype))
        if requires_grad:
            self.requires_grad_(True)

    def _set_fields(self, array: np.ndarray) -> None:
        # numpy turns 0-d results into scalars (np.float32): keep an array
        self._array: np.ndarray = array if type(array) is np.ndarray else np.asarray(array)
        self._serial = next(_tensor_serials)  # creation order, for stable names in pictures
        if _state.inference:
            self._inference = True

    # The other fields start with these class-level defaults (a plain leaf that needs no
    # grad) and are set on the instance only when they differ: fewer objects per new tensor.
    _base: Tensor | None = None  # for a view: the root tensor whose memory it looks at
    _view_of: Callable[[np.ndarray], np.ndarray] | None = None  # for a view: base array -> ours
    _view_version = 0  # for a view: version of the memory when its grad_fn was made
    _grad_fn: Node | None = None  # see the grad_fn property
    _requires_grad = False  # the flag of a leaf (a non-leaf requires grad through its grad_fn)
    _grad: Tensor | None = None  # see the grad property
    _retains_grad = False  # retain_grad() was called
    _accumulator: weakref.ref[AccumulateGrad] | None = None  # this leaf's node, held weakly
    _inference = False  # made inside inference_mode()
    _wrapped_number = False  # made by _wrap for a Python number (`2.0` in `y * 2.0`)
    _counter: VersionCounter | None = None  # made on first use (see _version_counter)
    _memory: Storage | None = None  # made on first use (see _storage)

    @property
    def _version_counter(self) -> VersionCounter:
        """The counter of in-place changes, made the first time anything asks for it."""
        counter = self._counter
        if counter is None:
            counter = self._counter = VersionCounter()
        return counter

    @_version_counter.setter
    def _version_counter(self, counter: VersionCounter) -> None:
        self._counter = counter

    @property
    def _storage(self) -> Storage:
        """The identity of this tensor's memory, made the first time anything asks for it."""
        storage = self._memory
        if storage is None:
            storage = self._memory = Storage()
        return storage

    @_storage.setter
    def _storage(self, storage: Storage) -> None:
        self._memory = storage

    # ---- construction helpers used by the engine ------------------------------------------

    @classmethod
    def _from_array(cls, array: np.ndarray) -> Tensor:
        """Wrap an array that nobody else owns: new storage, new version counter (both made
        when first asked for)."""
        tensor = cls.__new__(cls)
        # (the body of _set_fields, written out: this runs for every result of every op)
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
        return alias

    def _view(self, array: np.ndarray, view_fn: Callable[[np.ndarray], np.ndarray]) -> Tensor:
        """A view of self: same memory, same version counter, `_base` = the root tensor."""
        view = Tensor._from_array(array)
        view._storage = self._storage
        view._inference = self._inference
        counter = view._version_counter = self._version_counter
        view._base = self._base if self._base is not None else self
        view._view_version = counter.value
        if self._view_of is None:
            view._view_of = view_fn
        else:
            outer = self._view_of
            view._view_of = lambda base_array: view_fn(outer(base_array))
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
        # one shared tuple per pattern ((True,), (True, False), ...): fewer objects per node
        pattern = tuple(needs)
        return _NEEDS_PATTERNS.setdefault(pattern, pattern)

    def _edge(self) -> Node | None:
        """Where a gradient for this tensor must go: its grad_fn, its AccumulateGrad, or nowhere
        (None: the empty `(None, 0)` slot a detached input leaves in `next_functions`)."""
        node = self._grad_fn if self._base is None else self.grad_fn
        if node is not None:
            return node
        if self._requires_grad:
            return self._grad_accumulator()
        return None

    def _saved(self, is_output: bool, output_of: Node | None = None) -> SavedTensor | np.ndarray:
        """This tensor as a value saved for backward (an output keeps only its array).

        A number (`2.0` in `y * 2.0`) is kept as its bare array: nobody else holds the tensor
        it was wrapped in, so nothing can change it in place and there is no version to check.
        """
        if self._inference:
            raise RuntimeError(INFERENCE_SAVE_MESSAGE)
        if self._wrapped_number:
            return self._array
        if not is_output:  # the counter and storage are read from the tensor when needed
            counter = self._counter
            return SavedTensor(self, 0 if counter is None else counter.value)
        counter = self._version_counter
        made_by = "AsStrided" if self._base is not None else output_of.name()
        fields = (self._array, counter, self._storage, self._serial)
        return SavedTensor(None, counter.value, fields, made_by)

    @staticmethod
    def _connect(node: Node, output: Tensor, inputs: Sequence[Tensor]) -> None:
        """Make `node` the grad_fn of `output`: one edge per input, the saved values kept."""
        edges, shapes = [], []
        for t in inputs:
            edge = t._grad_fn
            if edge is None or t._base is not None:  # a leaf, a number or a view: ask _edge
                edge = t._edge()
            edges.append(edge)
            shapes.append(t._array.shape)
        node.next_nodes, node.input_shapes = tuple(edges), tuple(shapes)
        to_save = node.to_save
        if to_save:  # forward named the inputs backward needs: keep their values
            for name, index in to_save.items():
                node.keep(name, inputs[index]._saved(is_output=False))
            del node.to_save  # the names were only needed until now
        if node.saves_result:
            node.keep("result", output._saved(is_output=True, output_of=node))
        if _Anomaly.enabled:
            node.creation_trace = _user_stack()
        output._grad_fn = node

    @staticmethod
    def _apply(node: Node, *inputs: Tensor) -> Tensor:
        """Run `node.forward` on the inputs' arrays; when recording, join the result to the graph.

        A result that is not floating point (an integer cast, an argmax) is never recorded:
        it cannot require grad, as in torch.
        """
        arrays = [t._array for t in inputs]
        needs = Tensor._recording(inputs)
        if needs is None:
            return Tensor._from_array(node.forward(*arrays))
        node.needs_input_grad = needs
        result = node.forward(*arrays)
        output = Tensor._from_array(result)
        if result.dtype.kind == "f":
            Tensor._connect(node, output, inputs)
        return output

    def _apply_view(self, node: views.ViewNode) -> Tensor:
        """Like `_apply`, for ops whose result is a view: same memory, same version counter."""
        output = self._view(node.view_of(self._array), node.view_of)
        if Tensor._recording((self,)) is not None:
            node.needs_input_grad = (True,)
            Tensor._connect(node, output, (self,))
            output._view_version = output._version_counter.value  # the version its grad_fn saw
        return output

    def _apply_inplace(self, node: Node, *others: Tensor) -> Tensor:
        """Replace this tensor's values by `node.forward(values, *others)`, in place.

        Three steps, as in torch: refuse what cannot be recorded (a leaf that requires grad);
        write the new values and bump the version counter shared with views and detach()ed
        aliases (also under no_grad); when recording, make the node this tensor's history (for
        a view, its base gets a CopySlices node: "the base, with this region replaced").
        """
        self._check_inplace_allowed()
        if Tensor._recording((self, *others)) is not None:
            # the op may save its input for backward: give it a copy of the old values, which
            # stay correct after this tensor's memory is overwritten
            before = Tensor._from_array(self._array.copy())
            before._grad_fn = self.grad_fn
            before._requires_grad = self.requires_grad
            result = Tensor._apply(node, before, *others)
            self._write_values(result._array)
            if result._grad_fn is not None:
                self._rebase_history(result._grad_fn)
        else:
            self._write_values(node.forward(self._array, *[o._array for o in others]))
        return self

    def _check_inplace_allowed(self) -> None:
        """torch's rules for in-place changes: inference tensors, leaves that require grad."""
        if self._inference and not _state.inference:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
                "make a clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details."
            )
        if not _state.enabled:
            return
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError(LEAF_INPLACE_MESSAGE)
        base = self._base
        if base is not None and base._grad_fn is None and base._requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )

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

    def _rebase_history(self, node: Node) -> None:
        """Make `node` (the recorded change) the history of self (and of its base, for a view)."""
        if self._base is None:
            old = self._grad_fn
            if old is not None and old._retained_output is not None:
                # retain_grad() follows the tensor: its .grad is the gradient of the newest values
                node._retained_output, old._retained_output = old._retained_output, None
            self.grad_fn = node
            return
        base = self._base
        copy_slices = CopySlices(self._view_of)
        new_values_edge, new_values_shape = node, self._array.shape
        if isinstance(node, CopyBackwards):
            # `base[region] = source`: like torch, connect the source straight to CopySlices
            new_values_edge, new_values_shape = node.next_nodes[1], node.input_shapes[1]
        copy_slices.next_nodes = (base._edge(), new_values_edge)
        copy_slices.input_shapes = (base._array.shape, new_values_shape)
        base.grad_fn = copy_slices
        self.grad_fn = self._view_window()

    def _view_window(self) -> views.AsStridedBackward0:
        """A new grad_fn for this view after its memory changed in place: its region of the base."""
        window = views.AsStridedBackward0(self._view_of)
        window.needs_input_grad = (True,)
        window.next_nodes = (self._base._edge(),)
        window.input_shapes = (self._base._array.shape,)
        return window

    # ---- what backward writes -----------------------------------------------------------------

    def _accumulate_grad(self, grad: np.ndarray, owned: bool) -> None:
        """`self.grad += grad` for a leaf, creating `.grad` on the first call.

        `owned` says that only the engine holds `grad`: then it becomes `.grad` as it is, with
        no copy (torch "steals" such a buffer too). Otherwise `.grad` gets its own copy.
        """
        if not self._requires_grad:
            return  # detach_() or requires_grad_(False) since the graph was built: torch skips it
        self._add_to_grad(grad, owned)

    def _accumulate_retained_grad(self, grad: np.ndarray) -> None:
        """Fill `.grad` of a non-leaf tensor that asked for it with `retain_grad()`."""
        self._add_to_grad(grad, owned=False)

    def _add_to_grad(self, grad: np.ndarray, owned: bool) -> None:
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
            self._view_version = self._version_counter.value
            if self._grad_fn is not None:
                self._grad_fn = self._view_window()
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Node | None) -> None:
        self._grad_fn = node
        if self._base is not None:
            self._view_version = self._version_counter.value

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded (always True for a non-leaf)."""
        return self._grad_fn is not None or self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if not isinstance(flag, bool):
            raise RuntimeError("requires_grad must be a bool")
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad on a leaf, in place; returns self."""
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
                    f"{_type_name(value)}"
                )
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

    def retain_grad(self) -> None:
        """Ask backward to fill `.grad` of this non-leaf tensor too."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return  # leaves get their .grad anyway
        self._retains_grad = True
        self.grad_fn._retained_output = weakref.ref(self)

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
        is computed from it afterwards is cut. Views cannot be detached in place.
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
    ) -> None:
        """Accumulate d(self)/d(leaf) into `.grad` of every leaf that requires grad."""
        if create_graph:
            raise NotImplementedError(
                "minigrad computes gradients with numpy, so create_graph=True (gradients of "
                "gradients) is not supported"
            )
        if gradient is not None and not isinstance(gradient, Tensor):
            if isinstance(gradient, (list, tuple)):
                raise TypeError(
                    "gradients can be either Tensors or None, but got "
                    f"{_type_name(gradient[0]) if gradient else 'list'}"
                )
            raise TypeError(f"'{_type_name(gradient)}' object is not iterable")
        run_tensor_backward([self], [gradient], retain_graph)

    # ---- conversion --------------------------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """The numbers as a numpy array sharing this tensor's memory (no copy).

        Refused for a tensor that requires grad while grad mode is on (as torch does).
        """
        if self.requires_grad and _state.enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._array

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        # what np.asarray(t) and matplotlib call; torch refuses for tensors that require grad
        array = self.numpy()
        return array.astype(dtype) if dtype is not None else array

    def item(self) -> float | int | bool:
        """The single value of a one-element tensor, as a Python number."""
        if self._array.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._array.size} elements cannot be converted to Scalar"
            )
        return self._array.reshape(()).item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists."""
        return self._array.tolist()

    def cpu(self) -> Tensor:
        """minigrad lives on the CPU: returns self, so `.detach().cpu().numpy()` works."""
        return self

    @property
    def device(self) -> str:
        """Always 'cpu'."""
        return "cpu"

    def to(self, dtype: dtypes.DType | str) -> Tensor:
        """A converted copy (recorded as ToCopyBackward0); self when the dtype already matches.

        Converting to an integer dtype is not differentiable: the result does not require grad.
        """
        if isinstance(dtype, str) and dtype == "cpu":
            return self
        target = dtypes.to_numpy_dtype(dtype)
        if target == self._array.dtype:
            return self
        return Tensor._apply(unary.ToCopyBackward0(target), self)

    def float(self) -> Tensor:
        """Convert to float32."""
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return self.to(dtypes.float64)

    def long(self) -> Tensor:
        """Convert to int64."""
        return self.to(dtypes.int64)

    def int(self) -> Tensor:
        """Convert to int32."""
        return self.to(dtypes.int32)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return self.to(dtypes.bool_)

    # ---- shape -------------------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        """The size of each dimension."""
        return Size(self._array.shape)

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or the size of dimension `dim`."""
        if dim is None:
            return self.shape
        if self.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._array.shape[wrap_dim(dim, self.ndim)]

    @property
    def dtype(self) -> dtypes.DType:
        """The element type (float32 unless asked otherwise)."""
        return dtypes.from_numpy_dtype(self._array.dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._array.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._array.ndim

    def numel(self) -> int:
        """The number of elements."""
        return int(self._array.size)

    def is_floating_point(self) -> bool:
        """True for float dtypes."""
        return self._array.dtype.kind == "f"

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._array.shape[0]))

    # ---- printing ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        suffixes = []
        dtype_note = dtype_suffix(self._array)
        if dtype_note:
            suffixes.append(dtype_note)
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        return format_tensor(self._array, suffixes)

    def __format__(self, spec: str) -> str:
        if self.ndim == 0 and spec:
            return format(self.item(), spec)  # lets f"{loss:.3f}" work, as in torch
        return format(repr(self), spec)

    def __bool__(self) -> bool:
        if self._array.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._array.reshape(()))

    def __float__(self) -> float:
        if self._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self.item())

    def __int__(self) -> int:
        if self._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __index__(self) -> int:
        if self._array.dtype.kind not in "iu" or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__  # == is elementwise, so hash by identity as torch does

    # ---- arithmetic (out of place) ------------------------------------------------------------

    def _wrap(self, value: object) -> Tensor | None:
        """Turn a number (or numpy array) used with this tensor into a tensor without grad.

        A Python number takes this tensor's dtype where it can (float32 stays float32; see
        dtypes.scalar_dtype). Anything else (a list, a string) gives None: the operator then
        returns NotImplemented and Python raises its TypeError, as with torch.
        """
        if isinstance(value, Tensor):
            return value
        if type(value) is float and self._array.dtype.kind == "f":  # the common case
            wrapped = Tensor._from_array(np.array(value, dtype=self._array.dtype))
            wrapped._wrapped_number = True
            return wrapped
        if isinstance(value, (bool, numbers.Number, np.number, np.bool_)):
            if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
                return None
            dtype = dtypes.scalar_dtype(value, self._array.dtype)
            if dtype.kind == "f":
                wrapped = Tensor._from_array(np.array(value, dtype=dtype))
            else:
                wrapped = Tensor._from_array(np.asarray(value).astype(dtype))  # ints wrap, as torch
            wrapped._wrapped_number = True
            return wrapped
        if isinstance(value, np.ndarray):
            return Tensor(value)
        return None

    def _operand(self, value: object, method: str) -> Tensor:
        """`value` as a tensor for a named method (`t.add(x)`), with torch's TypeError."""
        if type(value) is Tensor:
            return value
        wrapped = self._wrap(value)
        if wrapped is None:
            raise TypeError(
                f"{method}(): argument 'other' (position 1) must be Tensor, not "
                f"{type(value).__name__}"
            )
        return wrapped

    def _binary(self, node: Node, other: Tensor) -> Tensor:
        """An elementwise op of two tensors, after torch's broadcasting check."""
        shape, other_shape = self._array.shape, other._array.shape
        if shape != other_shape and shape and other_shape:  # a 0-d side (a number) always fits
            broadcast_shapes(shape, other_shape)
        return Tensor._apply(node, self, other)

    def add(self, other: object, alpha: float = 1) -> Tensor:
        """self + alpha * other."""
        return self._binary(arith.AddBackward0(alpha), self._operand(other, "add"))

    def sub(self, other: object, alpha: float = 1) -> Tensor:
        """self - alpha * other."""
        other = self._operand(other, "sub")
        if self._array.dtype.kind == "b" and other._array.dtype.kind == "b":
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                "`^` or `logical_xor()` operator instead."
            )
        return self._binary(arith.SubBackward0(alpha), other)

    def mul(self, other: object) -> Tensor:
        """self * other."""
        return self._binary(arith.MulBackward0(), self._operand(other, "mul"))

    def div(self, other: object) -> Tensor:
        """self / other (always floating point, as in torch)."""
        return self._binary(arith.DivBackward0(), self._operand(other, "div"))

    def pow(self, exponent: object) -> Tensor:
        """self ** exponent (a number or a tensor)."""
        if isinstance(exponent, (numbers.Real, np.number)) and not isinstance(exponent, Tensor):
            return Tensor._apply(arith.PowBackward0(exponent), self)
        return self._binary(arith.PowBackward1(), self._operand(exponent, "pow"))

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product (1-D and 2-D), recorded with the node torch would use."""
        other = self._operand(other, "matmul")
        a, b = self, other
        if a.ndim == 0 or b.ndim == 0:
            raise RuntimeError(
                "both arguments to matmul need to be at least 1D, but they are "
                f"{a.ndim}D and {b.ndim}D"
            )
        if a.ndim > 2 or b.ndim > 2:
            raise NotImplementedError(
                f"minigrad's matmul handles 1-D and 2-D tensors; got {a.ndim}-D and {b.ndim}-D. "
                "Reshape to 2-D first (for example x.reshape(-1, x.shape[-1]))."
            )
        if a.ndim == 2 and b.ndim == 2:
            return Tensor._apply(linalg.MmBackward0(), a, b)
        if a.ndim == 2:
            return Tensor._apply(linalg.MvBackward0(), a, b)
        if b.ndim == 2:  # torch: unsqueeze the vector, multiply matrices, squeeze again
            product = a.unsqueeze(0).matmul(b)
            result = product._apply_view(views.SqueezeBackward4(0))
            # torch squeezes the product in place: the result is no view, and its _version is 1
            result._base = None
            result._version_counter.bump()
            return result
        return Tensor._apply(linalg.DotBackward0(), a, b)

    # Operators: a list or a string on the other side gives NotImplemented (Python's TypeError)
    def __add__(self, other: object) -> Tensor:
        wrapped = other if type(other) is Tensor else self._wrap(other)
        if wrapped is None:
            return NotImplemented
        return self._binary(arith.AddBackward0(), wrapped)

    def __sub__(self, other: object) -> Tensor:
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else self.sub(wrapped)

    def __mul__(self, other: object) -> Tensor:
        wrapped = other if type(other) is Tensor else self._wrap(other)
        if wrapped is None:
            return NotImplemented
        return self._binary(arith.MulBackward0(), wrapped)

    def __truediv__(self, other: object) -> Tensor:
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else self.div(wrapped)

    def __pow__(self, exponent: object) -> Tensor:
        if isinstance(exponent, (numbers.Real, np.number)):
            return self.pow(exponent)
        wrapped = self._wrap(exponent)
        return NotImplemented if wrapped is None else self.pow(wrapped)

    def __matmul__(self, other: object) -> Tensor:
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else self.matmul(wrapped)

    # `2 + t` records the same graph as `t + 2` in torch, so these reflected forms are the same
    __radd__, __rmul__ = __add__, __mul__

    def __rsub__(self, other: object) -> Tensor:
        if isinstance(other, (numbers.Real, np.number)) and not isinstance(other, bool):
            return Tensor._apply(arith.RsubBackward1(other), self)
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else wrapped.sub(self)

    def __rtruediv__(self, other: object) -> Tensor:
        if isinstance(other, (numbers.Real, np.number)):  # torch: number / t is reciprocal * n
            return self.reciprocal().mul(other)
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else wrapped.div(self)

    def __rpow__(self, base: object) -> Tensor:
        if isinstance(base, (numbers.Real, np.number)):
            return Tensor._apply(arith.PowBackward2(base), self)
        wrapped = self._wrap(base)
        return NotImplemented if wrapped is None else wrapped.pow(self)

    def __rmatmul__(self, other: object) -> Tensor:
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else wrapped.matmul(self)

    def __neg__(self) -> Tensor:
        if self._array.dtype.kind == "b":
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                "to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return Tensor._apply(arith.NegBackward0(), self)

    def neg(self) -> Tensor:
        """-self."""
        return -self

    def reciprocal(self) -> Tensor:
        """1 / self."""
        return Tensor._apply(arith.ReciprocalBackward0(), self)

    # ---- comparisons (never recorded) -------------------------------------------------------

    __eq__ = eq = _comparison(np.equal)  # type: ignore[assignment]
    __ne__ = ne = _comparison(np.not_equal)  # type: ignore[assignment]
    __lt__ = lt = _comparison(np.less)
    __le__ = le = _comparison(np.less_equal)
    __gt__ = gt = _comparison(np.greater)
    __ge__ = ge = _comparison(np.greater_equal)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Index of the maximum (of all elements, or along `dim`); not differentiable."""
        if dim is None:
            if self._array.size == 0:
                raise IndexError(
                    "argmax(): Expected reduction dim to be specified for input.numel() == 0."
                )
            return Tensor._from_array(np.asarray(np.argmax(self._array), dtype=np.int64))
        axis = wrap_dim(dim, self.ndim)
        if self.ndim == 0:
            return Tensor._from_array(np.zeros((), dtype=np.int64))
        return Tensor._from_array(np.argmax(self._array, axis=axis, keepdims=keepdim))

    def all(self) -> Tensor:
        """True when every element is nonzero."""
        return Tensor._from_array(np.asarray(self._array.all()))

    def any(self) -> Tensor:
        """True when some element is nonzero."""
        return Tensor._from_array(np.asarray(self._array.any()))

    def allclose(self, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
        """True when all values are close to `other`'s."""
        other = self._operand(other, "allclose")
        return bool(np.allclose(self._array, other._array, rtol=rtol, atol=atol))

    # ---- elementwise functions --------------------------------------------------------------

    def exp(self) -> Tensor:
        """e ** self."""
        return Tensor._apply(unary.ExpBackward0(), self)

    def log(self) -> Tensor:
        """Natural logarithm."""
        return Tensor._apply(unary.LogBackward0(), self)

    def sigmoid(self) -> Tensor:
        """1 / (1 + exp(-self)); saves its output for backward."""
        return Tensor._apply(unary.SigmoidBackward0(), self)

    def tanh(self) -> Tensor:
        """Hyperbolic tangent; saves its output for backward."""
        return Tensor._apply(unary.TanhBackward0(), self)

    def relu(self) -> Tensor:
        """max(self, 0)."""
        return Tensor._apply(unary.ReluBackward0(), self)

    def sqrt(self) -> Tensor:
        """Square root."""
        return Tensor._apply(unary.SqrtBackward0(), self)

    def abs(self) -> Tensor:
        """Absolute value."""
        if self._array.dtype.kind == "b":
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        return Tensor._apply(unary.AbsBackward0(), self)

    def round(self) -> Tensor:
        """Round to the nearest integer (half to even); its gradient is zero."""
        return Tensor._apply(unary.RoundBackward0(), self)

    def clamp(self, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max]."""
        return Tensor._apply(unary.ClampBackward1(min, max), self)

    def clone(self) -> Tensor:
        """A copy in new memory, still connected to the graph (CloneBackward0)."""
        return Tensor._apply(unary.CloneBackward0(), self)

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

    # ---- reductions --------------------------------------------------------------------------

    # torch has two forms of sum and mean: `t.sum()` records SumBackward0; `t.sum(dim, keepdim)`
    # records SumBackward1, and there dim=None or an empty tuple means every dim. The default
    # `_NO_DIM` tells the two apart.

    def sum(self, dim: DimArg = _NO_DIM, keepdim: bool | None = None) -> Tensor:
        """Sum of all elements, or along `dim` (keepdim: keep reduced dims as size 1)."""
        if dim is _NO_DIM:
            _check_no_keepdim("sum", keepdim)
            return Tensor._apply(reduce.SumBackward0(), self)
        axes = normalize_dims(dim, self.ndim)
        return Tensor._apply(reduce.SumBackward1(axes, bool(keepdim)), self)

    def mean(self, dim: DimArg = _NO_DIM, keepdim: bool | None = None) -> Tensor:
        """Mean of all elements, or along `dim` (keepdim: keep reduced dims as size 1)."""
        kind = self.dtype.torch_kind
        if dim is _NO_DIM:
            _check_no_keepdim("mean", keepdim)
            return Tensor._apply(reduce.MeanBackward0(kind), self)
        axes = normalize_dims(dim, self.ndim)
        return Tensor._apply(reduce.MeanBackward1(axes, bool(keepdim), kind), self)

    def max(self, dim: int | None = None, keepdim: bool = False) -> Tensor | MaxResult:
        """Maximum of all elements, or (values, indices) along `dim`."""
        if dim is None:
            return Tensor._apply(reduce.MaxBackward1(), self)
        axis = wrap_dim(dim, self.ndim)
        node = reduce.MaxBackward0(axis if self.ndim else None, keepdim)
        values = Tensor._apply(node, self)
        return MaxResult(values, Tensor._from_array(node.indices.astype(np.int64)))

    # ---- views ---------------------------------------------------------------------------------

    def view(self, *shape: int | Sequence[int]) -> Tensor:
        """Same memory, another shape (an error when that is impossible without a copy)."""
        if not all(isinstance(n, (int, np.integer, tuple, list)) for n in shape):
            got = ", ".join(type(n).__name__ for n in shape)
            raise TypeError(
                f"view() received an invalid combination of arguments - got ({got}), but expected "
                "one of:\n * (minigrad.dtype dtype)\n * (tuple of ints size)"
            )
        size = infer_shape(shape_args(shape), self._array.size)
        try:
            np.reshape(self._array, size, copy=False)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        return self._apply_view(views.ViewBackward0(size))

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """Another shape: a view when the memory layout allows, a copy otherwise (as torch)."""
        size = infer_shape(shape_args(shape, "reshape"), self._array.size)
        try:
            np.reshape(self._array, size, copy=False)
        except ValueError:
            return Tensor._apply(views.UnsafeViewBackward0(size), self.clone())
        return self._apply_view(views.ViewBackward0(size))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view)."""
        first, second = wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim)
        return self._apply_view(views.TransposeBackward0(first, second))

    def permute(self, *dims: int | Sequence[int]) -> Tensor:
        """Reorder dimensions (a view)."""
        if not dims:
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        order = shape_args(dims, "permute")
        if len(order) != self.ndim:
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the "
                "length of the desired ordering of dimensions i.e. input.dim() = "
                f"{self.ndim} is not equal to len(dims) = {len(order)}"
            )
        axes = tuple(wrap_dim(d, self.ndim) for d in order)
        if len(set(axes)) != len(axes):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return self._apply_view(views.PermuteBackward0(axes))

    def t(self) -> Tensor:
        """Transpose of a 0-, 1- or 2-D tensor (a view)."""
        if self.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"
            )
        dims = (0, 1) if self.ndim == 2 else (0, 0)
        return self._apply_view(views.TBackward0(*dims))

    @property
    def T(self) -> Tensor:  # noqa: N802 - torch's name
        """All dimensions reversed (a view); torch deprecates it for anything but 2-D."""
        if self.ndim != 2:
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Use `x.t()` for a "
                "matrix, or `x.permute(...)` to reverse the dimensions explicitly.",
                UserWarning,
                stacklevel=2,
            )
        return self._apply_view(views.PermuteBackward0(tuple(reversed(range(self.ndim)))))

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dimension of size 1 (a view)."""
        return self._apply_view(views.UnsqueezeBackward0(wrap_dim(dim, self.ndim + 1)))

    def squeeze(self, dim: int | None = None) -> Tensor:
        """Remove dimensions of size 1 (all, or just `dim`) (a view)."""
        if dim is None:
            return self._apply_view(views.SqueezeBackward0())
        axis = wrap_dim(dim, self.ndim)
        return self._apply_view(views.SqueezeBackward1(axis if self.ndim else None))

    def expand(self, *shape: int | Sequence[int]) -> Tensor:
        """Broadcast to `shape` without copying (-1 keeps a size) (a view)."""
        sizes = shape_args(shape, "expand")
        own = self._array.shape
        if len(sizes) < len(own):
            raise RuntimeError(
                f"expand(minigrad.{self.dtype.tensor_type}{{{list(own)}}}, size={list(sizes)}): "
                f"the number of sizes provided ({len(sizes)}) must be greater or equal to the "
                f"number of dimensions in the tensor ({len(own)})"
            )
        lead = len(sizes) - len(own)
        target = []
        for index, size in enumerate(sizes):
            if index < lead:
                if size < 0:
                    raise RuntimeError(
                        f"The expanded size of the tensor ({size}) isn't allowed in a leading, "
                        f"non-existing dimension {index}"
                    )
                target.append(size)
                continue
            old = own[index - lead]
            if size == -1:
                size = old
            if old != size and old != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({size}) must match the existing size "
                    f"({old}) at non-singleton dimension {index}.  Target sizes: {list(sizes)}.  "
                    f"Tensor sizes: {list(own)}"
                )
            target.append(size)
        return self._apply_view(views.ExpandBackward0(tuple(target)))

    def flatten(self) -> Tensor:
        """All elements in one dimension."""
        return self.reshape(-1)

    def __getitem__(self, key: object) -> Tensor:
        """`t[key]`: views for ints/slices/None/..., one node per indexed dimension, like torch;
        a copy (IndexBackward0) for integer or bool array indices."""
        key = _plain_key(key)
        if not _is_basic_index(key):
            _check_mask_shapes(key, self._array.shape)
            try:
                self._array[key]
            except IndexError as error:
                raise IndexError(_index_message(str(error), self._array.shape)) from None
            return Tensor._apply(views.IndexBackward0(key), self)
        if self.ndim == 0 and isinstance(key, (int, np.integer)):
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        parts = _expand_basic_index(key, self.ndim)
        if not isinstance(key, slice) and all(part == slice(None) for part in parts):
            return self._apply_view(views.AliasBackward0())  # t[...], t[:, :]; but t[:] slices
        steps = [p for p in parts if p != slice(None)] or [slice(None)]
        result, dim, step_index, source_dim = self, 0, 0, 0
        for part in parts:
            if part is not None:
                source_dim += 1
            if part is None:
                result = result._apply_view(views.UnsqueezeBackward0(dim))
                dim += 1
            elif isinstance(part, slice):
                if part.step == 0:
                    raise ValueError("slice step cannot be zero")
                if part.step is not None and part.step < 0:
                    raise ValueError("step must be greater than zero")
                if part != slice(None) or (steps == [slice(None)] and step_index == 0):
                    result = result._apply_view(views.SliceBackward0(dim, part))
                    step_index += 1
                dim += 1
            elif part is not Ellipsis:
                size = result._array.shape[dim]
                if not -size <= part < size:
                    raise IndexError(
                        f"index {part} is out of bounds for dimension {source_dim - 1} with size "
                        f"{size}"
                    )
                result = result._apply_view(views.SelectBackward0(dim, int(part) % size))
        return result

    # ---- in-place operations -----------------------------------------------------------------
    # Each one changes this tensor's memory, bumps the shared version counter, and, when the
    # change must be differentiated, records it (see _apply_inplace).

    def _inplace_binary(self, node: Node, other: object, method: str) -> Tensor:
        other = self._operand(other, method)
        shape, other_shape = self._array.shape, other._array.shape
        if shape != other_shape and shape and other_shape:  # a 0-d side (a number) always fits
            broadcast_shapes(shape, other_shape)
        return self._apply_inplace(node, other)

    def add_(self, other: object, alpha: float = 1) -> Tensor:
        """self += alpha * other, in place."""
        return self._inplace_binary(arith.AddBackward0(alpha), other, "add_")

    def _sgd_step_(self, grad: Tensor, lr: float) -> None:
        """`self.add_(grad, alpha=-lr)` under no_grad, as the optimizers' hot loop needs it.

        The same rounding and the same version bump as add_, without add_'s generic path (a
        node, the result in new memory, then a copy into this one): numpy adds straight into
        this tensor's memory. Anything unusual (grad mode on, an inference tensor, dtypes or
        shapes that differ, read-only memory) goes through add_, with its checks and messages.
        """
        array, step = self._array, grad._array
        if (
            _state.enabled
            or self._inference
            or step.dtype != array.dtype
            or step.shape != array.shape
            or not array.flags.writeable
        ):
            self.add_(grad, alpha=-lr)
            return
        np.add(array, step * -lr, out=array)
        self._version_counter.bump()

    def sub_(self, other: object, alpha: float = 1) -> Tensor:
        """self -= alpha * other, in place."""
        return self._inplace_binary(arith.SubBackward0(alpha), other, "sub_")

    def mul_(self, other: object) -> Tensor:
        """self *= other, in place."""
        return self._inplace_binary(arith.MulBackward0(), other, "mul_")

    def div_(self, other: object) -> Tensor:
        """self /= other, in place."""
        return self._inplace_binary(arith.DivBackward0(), other, "div_")

    def clamp_(self, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max], in place."""
        return self._apply_inplace(unary.ClampBackward1(min, max))

    def zero_(self) -> Tensor:
        """Set every element to 0, in place."""
        return self._apply_inplace(ZeroBackward0())

    def fill_(self, value: float) -> Tensor:
        """Set every element to `value`, in place."""
        return self._apply_inplace(FillBackward2(value))

    def normal_(
        self, mean: float = 0.0, std: float = 1.0, *, generator: random.Generator | None = None
    ) -> Tensor:
        """Fill with samples from N(mean, std**2), in place: torch's numbers after its seed."""
        order = random.fill_order(self._array)
        return self._apply_inplace(NormalBackward0(mean, std, generator, order))

    def uniform_(
        self, from_: float = 0.0, to: float = 1.0, *, generator: random.Generator | None = None
    ) -> Tensor:
        """Fill with samples from U(from_, to), in place (torch calls the bounds from and to)."""
        order = random.fill_order(self._array)
        return self._apply_inplace(UniformBackward0(from_, to, generator, order))

    def bernoulli_(self, p: float = 0.5, *, generator: random.Generator | None = None) -> Tensor:
        """Fill with 1 (probability p) or 0, in place."""
        if isinstance(p, Tensor):
            raise TypeError("minigrad's bernoulli_ takes a float p, not a tensor of them")
        order = random.fill_order(self._array)
        return self._apply_inplace(BernoulliBackward2(p, generator, order))

    def copy_(self, source: object) -> Tensor:
        """Copy `source`'s values into this tensor's memory (broadcasting), in place."""
        if not isinstance(source, Tensor):
            raise TypeError(
                "copy_(): argument 'other' (position 1) must be Tensor, not "
                f"{type(source).__name__}"
            )
        broadcast_shapes(self._array.shape, source._array.shape)
        return self._apply_inplace(CopyBackwards(), source)

    def __iadd__(self, other: object) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: object) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: object) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: object) -> Tensor:
        return self.div_(other)

    def __setitem__(self, key: object, value: object) -> None:
        if isinstance(value, (list, tuple)):
            raise TypeError(
                f"can't assign a {type(value).__name__} to a minigrad.{self.dtype.tensor_type}"
            )
        value = self._operand(value, "__setitem__")
        plain_key = _plain_key(key)
        if _is_basic_index(plain_key):
            self[key].copy_(value)  # a view of the region, then an in-place copy into it
            return
        self._apply_inplace(IndexPutBackward0(plain_key), value)


# ---- backward from tensors -------------------------------------------------------------------


def run_tensor_backward(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor | None],
    retain_graph: bool | None,
    capture: dict[Node, None] | None = None,
) -> dict[Node, np.ndarray]:
    """Check the outputs, make the gradient each starts with, and walk the graph from them."""
    roots = []
    for index, (output, given) in enumerate(zip(outputs, grad_outputs, strict=True)):
        if not output.requires_grad:
            raise RuntimeError(
                f"element {index} of tensors does not require grad and does not have a grad_fn"
            )
        if given is None:
            if output._array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            # np.ones without its Python-level steps (this runs at every backward())
            start = np.array(1, dtype=output._array.dtype).reshape(output._array.shape)
        else:
            start = np.asarray(given._array if isinstance(given, Tensor) else given)
            if start.shape != output._array.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of {Size(start.shape)} "
                    f"and output[{index}] has a shape of {Size(output._array.shape)}."
                )
        roots.append((output._edge(), start))
    return run_backward(roots, retain_graph=bool(retain_graph), capture=capture)


# ---- joining tensors (torch's docs list cat and stack beside indexing): copies ------------------


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Concatenate tensors along an existing dimension (CatBackward0)."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("minigrad.cat(): expected a non-empty list of Tensors")
    for position, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {position}) cannot be concatenated"
            )
    first = tensors[0]
    axis = wrap_dim(dim, first.ndim)
    for number, t in enumerate(tensors[1:], start=1):
        if t.ndim != first.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}"
            )
        for d in range(first.ndim):
            if d != axis and t.shape[d] != first.shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {axis}. Expected size "
                    f"{first.shape[d]} but got size {t.shape[d]} for tensor number {number} in "
                    "the list."
                )
    return Tensor._apply(views.CatBackward0(axis), *tensors)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Stack tensors along a new dimension (StackBackward0)."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for entry, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                f"entry 0 and {list(t.shape)} at entry {entry}"
            )
    axis = wrap_dim(dim, tensors[0].ndim + 1)
    return Tensor._apply(views.StackBackward0(axis), *tensors)


# ---- helpers -----------------------------------------------------------------------------------


def _user_stack() -> str:
    """The traceback of the current line, without minigrad's own frames (for anomaly mode)."""
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE_DIR)]
    return "".join(traceback.format_list(frames))


def _plain_key(key: object) -> object:
    """Replace tensors inside an index by their arrays (torch's rule on their dtypes)."""
    if isinstance(key, tuple):
        return tuple(_plain_key_part(part) for part in key)
    if isinstance(key, list):
        return _plain_key_part(np.asarray(key))
    return _plain_key_part(key)


def _plain_key_part(part: object) -> object:
    if isinstance(part, float):
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
            "valid indices (got float)"
        )
    if isinstance(part, str):
        raise TypeError("new(): invalid data type 'str'")
    array = part._array if isinstance(part, Tensor) else part
    if isinstance(array, np.ndarray) and array.dtype.kind not in "iub":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if isinstance(part, Tensor) and array.ndim == 0 and array.dtype.kind in "iu":
        return int(array)
    return array


def _is_basic_index(key: object) -> bool:
    """True when numpy's indexing with `key` returns a view (ints, slices, None, Ellipsis)."""
    parts = key if isinstance(key, tuple) else (key,)
    for part in parts:
        if isinstance(part, bool):  # a bool is an int to Python but a mask to numpy
            return False
        if not (isinstance(part, (int, np.integer, slice)) or part is None or part is Ellipsis):
            return False
    return True


def _expand_basic_index(key: object, ndim: int) -> list[object]:
    """Spell out a basic index one entry per dimension step (Ellipsis expanded, None kept).

    torch records `b[1:, 0]` as a SliceBackward0 followed by a SelectBackward0, one node per
    indexed dimension; this list is that sequence of steps.
    """
    parts = list(key) if isinstance(key, tuple) else [key]
    consumed = sum(1 for part in parts if part is not None and part is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if Ellipsis in parts:
        where = parts.index(Ellipsis)
        parts[where : where + 1] = [slice(None)] * (ndim - consumed)
    return parts


def _check_mask_shapes(key: object, shape: tuple[int, ...]) -> None:
    """torch's IndexError for a bool mask whose shape differs from the dims it covers.

    torch applies the integer parts of the index first, so it names the shape that is left,
    and the first dim where mask and tensor differ. Keys with `...`, None or a Python bool are
    left to numpy.
    """
    parts = key if isinstance(key, tuple) else (key,)
    if any(part is Ellipsis or part is None or isinstance(part, bool) for part in parts):
        return
    # (zip stops at the shorter: too many parts is numpy's "too many indices", below)
    left = [
        n for part, n in zip(parts, shape, strict=False) if not isinstance(part, (int, np.integer))
    ]
    left += shape[len(parts) :]
    position = 0  # the dim of `left` that the next part indexes
    for part in parts:
        if isinstance(part, (int, np.integer)):
            continue
        if isinstance(part, np.ndarray) and part.dtype == np.bool_:
            covered = left[position : position + part.ndim]
            for index, (mask_size, size) in enumerate(zip(part.shape, covered, strict=False)):
                if mask_size != size:
                    raise IndexError(
                        f"The shape of the mask {list(part.shape)} at index {index} does not "
                        f"match the shape of the indexed tensor {left} at index "
                        f"{position + index}"
                    )
            position += part.ndim
        else:
            position += 1


def _index_message(numpy_message: str, shape: tuple[int, ...]) -> str:
    """numpy's IndexError in torch's words ('index 5 is out of bounds for dimension 0 ...')."""
    message = numpy_message.replace("axis", "dimension")
    if message.startswith("too many indices"):
        return f"too many indices for tensor of dimension {len(shape)}"
    return message


def _to_array(data: object, dtype: dtypes.DType | None) -> np.ndarray:
    """Make the array behind a new tensor, with torch's default dtypes and checks."""
    if isinstance(data, Tensor):
        data = data._array
    if isinstance(data, (np.ndarray, np.generic)):
        dtypes.from_numpy_dtype(data.dtype)  # refuses dtypes we do not support
        array = np.array(data)  # numpy arrays and scalars keep their dtype, as in torch
        return array if dtype is None else array.astype(dtypes.to_numpy_dtype(dtype))
    _check_python_data(data)
    array = np.array(data)
    if array.dtype.kind == "f":
        array = array.astype(np.float32)  # Python floats become float32, torch's default
    elif array.dtype.kind in "iu":
        if array.dtype == np.uint64 or array.dtype.kind == "O":
            raise ValueError("Overflow when unpacking long long")
        array = array.astype(np.int64)
    elif array.dtype.kind == "b":
        pass
    elif array.dtype.kind == "O":
        raise ValueError("Overflow when unpacking long long")
    else:
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    return array if dtype is None else array.astype(dtypes.to_numpy_dtype(dtype))


def _check_python_data(data: object, depth: int = 0) -> None:
    """torch's errors for data numpy would accept or misread (None, strings, ragged lists)."""
    if data is None or isinstance(data, (dict, set)):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, int) and not isinstance(data, bool) and not -(2**63) <= data < 2**63:
        raise ValueError("Overflow when unpacking long long")
    if isinstance(data, (list, tuple)):
        if any(isinstance(item, str) for item in data):
            raise ValueError("too many dimensions 'str'")
        lengths = {len(item) if isinstance(item, (list, tuple)) else None for item in data}
        if len(lengths) > 1:
            first = data[0]
            expected = len(first) if isinstance(first, (list, tuple)) else 0
            bad = next(
                len(item) if isinstance(item, (list, tuple)) else 0
                for item in data
                if (len(item) if isinstance(item, (list, tuple)) else 0) != expected
            )
            raise ValueError(
                f"expected sequence of length {expected} at dim {depth + 1} (got {bad})"
            )
        for item in data:
            _check_python_data(item, depth + 1)
