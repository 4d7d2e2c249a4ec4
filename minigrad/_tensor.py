"""`Tensor`: a numpy array plus the autograd bookkeeping torch keeps next to it.

The fields a learner should look at first (kept by `TensorCore`, recording.py):

- `_array`          the numbers (a numpy array; views and aliases share it)
- `_storage`        which block of memory this is (shared by views, `detach()` and `.data`)
- `_version_counter` how often that memory was changed in place (shared by views and
                    `detach()`, but **not** by `.data`)
- `grad_fn`         the node that made this tensor, or None for a leaf
- `_base`           for a view, the tensor whose memory it looks at

Read this file top to bottom: making a tensor; the flags (`requires_grad`, `is_leaf`, `grad`,
...); hooks; the three ways to cut the graph (`detach`, `detach_`, `data`, together in one
section); `backward` (what it writes into `.grad` is `graph.add_to_grad`); conversion.

How an op joins the graph (`_apply`, `_apply_view`, `_apply_inplace`) is recording.py; the
methods that compute something (`+`, `exp`, `sum`, `view`, `t[1:]`, `add_`, ...) are in
`methods/`, one module per kind; the ops themselves (`functions/`) work on arrays. This module
is `minigrad._tensor` (as torch's `torch/_tensor.py`): `minigrad.tensor` is the function that
makes a tensor from data.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np

from . import dtypes
from ._convert import data_to_array, type_name
from ._new_tensor import make_tensor, tensor_serials
from ._shapes import Size
from .backward_call import run_tensor_backward
from .grad_mode import _state
from .graph import Node, RemovableHandle, add_hook
from .methods.arithmetic import ArithmeticMethods
from .methods.elementwise import ElementwiseMethods
from .methods.indexing import IndexingMethods
from .methods.inplace import InplaceMethods
from .methods.numpy_interop import NumpyInterop
from .methods.printing import PrintingMethods
from .methods.reductions import ReductionMethods
from .methods.views import ViewMethods
from .recording import TensorCore
from .watch import seen, watchers

__all__ = ["Size", "Tensor", "apply"]

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead."
)
DETACH_VIEW_MESSAGE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
NO_HOOK_MESSAGE = "cannot register a hook on a tensor that doesn't require gradient"


class Tensor(
    ArithmeticMethods,
    ElementwiseMethods,
    ReductionMethods,
    ViewMethods,
    IndexingMethods,
    InplaceMethods,
    NumpyInterop,
    PrintingMethods,
):
    """An n-dimensional array that can record the operations made with it."""

    def __init__(
        self, data: object = (), requires_grad: bool = False, dtype: dtypes.DType | None = None
    ) -> None:
        if isinstance(data, TensorCore):
            data = data._array
        self._array = data_to_array(data, dtype)
        self._serial = next(tensor_serials)  # creation order, for stable names in pictures
        if _state.inference:
            self._inference = True
        if requires_grad:
            self.requires_grad_(True)

    @staticmethod
    def _from_array(array: np.ndarray) -> Tensor:
        """Wrap an array that nobody else owns as a tensor (no copy; see TensorCore._sibling)."""
        return make_tensor(Tensor, array)

    # ---- flags -------------------------------------------------------------------------------

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor (None for a leaf).

        A view whose memory was changed in place since its grad_fn was made (through its base
        or another view) gets a new one, as in torch: an `AsStridedBackward0` that reads its
        region out of the base's *current* history.
        """
        return self._current_grad_fn()

    @grad_fn.setter
    def grad_fn(self, node: Node | None) -> None:
        self._set_grad_fn(node)

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded (always True for a non-leaf, and for a
        view of a tensor that requires grad)."""
        return self._needs_grad()

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
        if self._grad_fn is None and self._base is None:  # a leaf (read at every step): no
            return self._grad  # need to ask for the current grad_fn, which only a view may gain
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
        self._retain_grad()

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
        return self._array_for_numpy(force)

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


apply = Tensor._apply  # the public op API: run a node's op on tensors, join the graph
