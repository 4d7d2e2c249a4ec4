"""`autograd.Function`: a custom op with a forward and a backward you write yourself.

It is the public face of the engine's own op idiom (functions/): the `ctx` that forward and
backward share is the node itself, named `<YourClass>Backward` (what `grad_fn` shows);
`ctx.save_for_backward` keeps tensors as the built-in ops keep theirs, with the same version
check; `ctx.needs_input_grad`, `mark_dirty` and `mark_non_differentiable` follow torch's rules.

    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    y = Square.apply(x)   # y.grad_fn is <SquareBackward>

As in torch, each Function gets a node class of its own, `Square._backward_cls`, a subclass of
`FunctionNode` named `SquareBackward` (`type(y.grad_fn).__name__`), made when the Function
class is defined.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes
from .._tensor import Tensor
from ..functions.views import AliasBackward0
from ..grad_mode import _state, no_grad
from ..graph import Node, next_sequence_nr, rebuild_saved
from ..versions import SavedTensor

__all__ = ["Error", "Function", "FunctionCtx", "FunctionNode", "once_differentiable"]


DIRTY_NOT_INPUT_MESSAGE = (
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
    "been mutated should be passed to ctx.mark_dirty()."
)
DIRTY_NOT_RETURNED_MESSAGE = (
    "Some elements marked as dirty during the forward method were not returned as output. The "
    "inputs that are modified inplace must all be outputs of the Function."
)
DIRTY_VIEW_MESSAGE = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one doing "
    "the inplace that returns a single Tensor and a second one that does the other operations)."
)


class FunctionCtx:
    """What a custom Function's forward and backward share: saved tensors and flags."""

    needs_input_grad: tuple[bool, ...] = ()
    materialize_grads = True

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for backward (inputs, outputs or others); read them as `saved_tensors`."""
        for position, tensor in enumerate(tensors):
            if tensor is not None and not isinstance(tensor, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{position} is of type {type(tensor).__name__}"
                )
        self.to_save_tensors = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Say which inputs forward changed in place (they are returned as outputs)."""
        self.dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Say which outputs have no gradient (an index, a mask): they will not require grad."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward gets None (not zeros) for outputs whose gradient did not arrive."""
        self.materialize_grads = value


class FunctionNode(FunctionCtx, Node):
    """The node (and `ctx`) of one call of a custom Function."""

    dirty: tuple[Tensor, ...] = ()
    non_differentiable: tuple[Tensor, ...] = ()
    to_save_tensors: tuple[Tensor | None, ...] = ()

    def __init__(self, function: type[Function], arguments: tuple[Any, ...]) -> None:
        self.function = function
        # each forward argument's (shape, dtype) if it is a tensor, else None
        self.argument_info = tuple(
            (a._array.shape, a._array.dtype) if isinstance(a, Tensor) else None for a in arguments
        )
        # save_for_backward's tensors are kept as any node keeps its saved values, under the
        # names "saved_tensors[0]", ...; a None given there has no name (see saved_tensors)
        self.kept_layout: tuple[str | None, ...] = ()

    def name(self) -> str:
        return type(self).__name__  # <YourFunction>Backward (Function.__init_subclass__)

    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        """The old name of `saved_tensors`."""
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2
        )
        return self.saved_tensors

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The tensors given to `save_for_backward`, checked against in-place changes since."""
        return tuple(None if name is None else self._unpacked(name) for name in self.kept_layout)

    def _unpacked(self, name: str) -> Tensor:
        saved = self.raw_saved(name)
        saved.check()
        if saved.unpack_hook is not None or saved.owner is None:
            return rebuild_saved(saved, self)  # (the hook's values, the packed history)
        return saved.owner

    def backward(self, grad: Any) -> tuple[Any, ...]:
        """Run the Function's backward on tensors; give the engine one gradient per tensor input."""
        grads = tuple(grad) if isinstance(grad, (list, tuple)) else (grad,)
        on_arrays = any(isinstance(g, np.ndarray) for g in grads)
        given = [self._materialized(index, g) for index, g in enumerate(grads)]
        results = self.function.backward(self, *given)
        results = results if isinstance(results, tuple) else (results,)
        return self._checked_results(results, on_arrays)

    def _materialized(self, index: int, grad: Any) -> Tensor | None:
        """The gradient of output `index` as a tensor: zeros where none arrived for a tensor
        output, None for an output that is not a tensor (a number, a string, None)."""
        if grad is None:
            if not self.materialize_grads or self.output_info[index] is None:
                return None
            shape, dtype = self.output_info[index]
            return Tensor._from_array(np.zeros(shape, dtype=dtype))
        return Tensor._from_array(grad) if isinstance(grad, np.ndarray) else grad

    def _checked_results(self, results: tuple[Any, ...], on_arrays: bool) -> tuple[Any, ...]:
        """torch's checks of what a Function's backward returned; the tensor inputs' gradients."""
        expected = len(self.argument_info)
        if len(results) != expected and not (
            len(results) > expected and all(r is None for r in results[expected:])
        ):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(results)})"
            )
        input_grads = []
        for index, (argument, result) in enumerate(zip(self.argument_info, results, strict=False)):
            if argument is None:
                if result is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {index + 1}, but the corresponding forward input was not a "
                        "Variable"
                    )
                continue
            input_grads.append(
                None if result is None else self._checked_grad(index, argument, result, on_arrays)
            )
        return tuple(input_grads)

    def _checked_grad(
        self, index: int, argument: tuple[tuple[int, ...], np.dtype], grad: Any, on_arrays: bool
    ) -> Any:
        if not isinstance(grad, Tensor):
            raise RuntimeError(
                f"expected Variable or None (got {type(grad).__name__}). Function "
                f"{self.name()} returned it as the gradient at position {index}."
            )
        shape, dtype = argument
        if grad._array.shape != shape and not _sums_to(grad._array.shape, shape):
            raise RuntimeError(
                f"Function {self.name()} returned an invalid gradient at index {index} - got "
                f"{list(grad._array.shape)} but expected shape compatible with {list(shape)}"
            )
        if grad._array.dtype != dtype:
            grad = grad.to(dtypes.from_numpy_dtype(dtype))
        return grad._array if on_arrays else grad


def _sums_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether a gradient of `shape` can be summed down to `target` (target expands to it)."""
    if len(target) > len(shape):
        return False
    tail = shape[len(shape) - len(target) :]
    return all(t in (1, s) for t, s in zip(target, tail, strict=True))


class Function:
    """Subclass with `forward(ctx, *args)` and `backward(ctx, *grads)` as staticmethods, then
    call `YourFunction.apply(*args)`. (Or write `forward(*args)` and a separate
    `setup_context(ctx, inputs, output)`, torch's newer style.)"""

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        """The op itself, on tensors; it runs with grad mode off."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Tensor) -> Any:
        """The gradients for forward's inputs (None for an input that needs none)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    setup_context: Callable[..., None] | None = None
    _backward_cls: type[FunctionNode] = FunctionNode

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give each Function its node class, named after it (torch's `_backward_cls`)."""
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(f"{cls.__name__}Backward", (FunctionNode,), {})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method: `YourFunction.apply(x)`."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward, and record one node for it when some tensor input requires grad."""
        node = cls._backward_cls(cls, args)
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        recording = _state.enabled and any(node.needs_input_grad)
        with no_grad():
            if cls.setup_context is not None:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, _with_defaults(cls.forward, args, kwargs), outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        results = outputs if isinstance(outputs, tuple) else (outputs,)
        _check_dirty(node, args, results)
        results = tuple(_output(node, args, result, recording) for result in results)
        if recording:
            _connect(node, args, results)
        return results if isinstance(outputs, tuple) else results[0]


def _with_defaults(forward: Callable[..., Any], args: tuple, kwargs: dict) -> tuple[Any, ...]:
    """The inputs setup_context sees: the arguments given, then forward's defaults for the rest
    (`forward(x, y=3)` called as `apply(x)` gives `(x, 3)`), as torch binds them."""
    bound = inspect.signature(forward).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments.values())


def _check_dirty(node: FunctionNode, args: tuple[Any, ...], results: tuple[Any, ...]) -> None:
    """torch's rules for ctx.mark_dirty: the changed tensors are inputs and are returned."""
    tensor_outputs = sum(isinstance(r, Tensor) for r in results)
    for tensor in node.dirty:
        if not any(tensor is a for a in args):
            if tensor._base is not None:  # a view of something else: torch refuses it
                raise RuntimeError(DIRTY_NOT_INPUT_MESSAGE)
            warnings.warn(DIRTY_NOT_INPUT_MESSAGE, UserWarning, stacklevel=3)
        if not any(tensor is r for r in results):
            raise RuntimeError(DIRTY_NOT_RETURNED_MESSAGE)
        if tensor._base is not None and tensor_outputs > 1:
            raise RuntimeError(DIRTY_VIEW_MESSAGE)


def _output(node: FunctionNode, args: tuple[Any, ...], result: Any, recording: bool) -> Any:
    """A forward result as torch hands it back: an input returned unchanged becomes a new tensor
    on the same memory; a changed input (mark_dirty) stays itself."""
    if not isinstance(result, Tensor):
        return result
    if any(result is t for t in node.dirty):
        if recording and result._grad_fn is None and result._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation."
            )
        base = result._base
        if recording and base is not None and base._grad_fn is None and base._requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
        result._version_counter.bump()  # torch counts the marking as one more change
        return result
    if any(result is a for a in args):  # an input returned as it is: a view of it, for torch
        result = result._view(result._array, AliasBackward0())
    if result._base is not None and _state.enabled:
        # a view made inside the Function: an in-place change of it could not be recorded
        # without bypassing the Function's backward, so torch forbids it ("clone the output")
        result._creation_meta, result._meta_inherited = "custom_function", False
    return result


def _connect(node: FunctionNode, args: tuple[Any, ...], results: tuple[Any, ...]) -> None:
    """Join a Function's node to the graph: edges to its tensor inputs, its outputs, its saves."""
    inputs = [a for a in args if isinstance(a, Tensor)]
    node.sequence_nr = next_sequence_nr()
    node.tensor_class = Tensor
    node.next_nodes = tuple(t._edge() for t in inputs)
    node.input_shapes = tuple(t._array.shape for t in inputs)
    if any(t._output_nr for t in inputs):
        node.next_output_nrs = tuple(t._output_nr for t in inputs)
    node.num_outputs = len(results)
    node.output_info = [
        (r._array.shape, r._array.dtype) if isinstance(r, Tensor) else None for r in results
    ]
    for number, result in enumerate(results):
        if not isinstance(result, Tensor) or result._array.dtype.kind != "f":
            continue
        if any(result is t for t in node.non_differentiable):
            continue
        if any(result is t for t in node.dirty):
            result._rebase_history(node, number)
        else:
            result.grad_fn, result._output_nr = node, number  # (a view: at its current version)
    layout, names, values, kept = [], [], [], []
    for position, tensor in enumerate(node.to_save_tensors):
        if tensor is None:
            layout.append(None)
            continue
        layout.append(f"saved_tensors[{position}]")
        names.append(layout[-1])
        values.append(_saved(node, tensor, results))
        kept.append(tensor)
    node.kept_layout = tuple(layout)
    if names:
        node.keep(tuple(names), values, kept)


def _saved(node: FunctionNode, tensor: Tensor | None, results: tuple[Any, ...]) -> Any:
    """A tensor given to save_for_backward, kept with its version (an output without a cycle)."""
    if tensor is None:
        return None
    is_output = any(tensor is r for r in results) and tensor._grad_fn is node
    saved = tensor._saved(is_output=is_output, node=node)
    if isinstance(saved, np.ndarray):  # a number wrapped in a tensor: keep it as an input
        saved = SavedTensor(tensor, 0)
    return saved


def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a Function's backward that cannot itself be differentiated: it runs without
    recording, and its results (under create_graph) come out of one `Error` node, whose
    backward raises a clear error if anything tries to differentiate through it."""

    @functools.wraps(backward)
    def run_once(ctx: FunctionCtx, *grads: Any) -> Any:
        with no_grad():
            results = backward(ctx, *grads)
        if not _state.enabled or not any(isinstance(g, Tensor) and g.requires_grad for g in grads):
            return results
        as_tuple = results if isinstance(results, tuple) else (results,)
        marked = _delayed_error(as_tuple)
        return marked if isinstance(results, tuple) else marked[0]

    return run_once


class Error(Node):
    """Stands for a once_differentiable backward in a recorded graph (torch's `Error` node):
    one node for all its results, each input a detached copy that requires grad; going back
    through it raises."""

    def backward(self, grad: Any) -> tuple[Any]:
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


def _delayed_error(results: tuple[Any, ...]) -> tuple[Any, ...]:
    """`results` as the outputs of one Error node (torch's DelayedError): a tensor comes out on
    the same memory, with the Error node as its grad_fn; None and numbers stay as they are."""
    leaves = [r.detach().requires_grad_(True) if isinstance(r, Tensor) else None for r in results]
    node = Error()
    node.sequence_nr = next_sequence_nr()
    node.tensor_class = Tensor
    node.num_outputs = len(results)
    node.needs_input_grad = tuple(leaf is not None for leaf in leaves)
    node.next_nodes = tuple(None if leaf is None else leaf._edge() for leaf in leaves)
    node.input_shapes = tuple(() if leaf is None else leaf._array.shape for leaf in leaves)
    outputs = []
    for number, (result, leaf) in enumerate(zip(results, leaves, strict=True)):
        if leaf is None:
            outputs.append(result)
            continue
        output = Tensor._from_array(leaf._array)
        output._grad_fn, output._output_nr = node, number
        outputs.append(output)
    return tuple(outputs)
