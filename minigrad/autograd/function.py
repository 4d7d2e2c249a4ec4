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

Different from torch, on purpose: torch makes a new class for each Function
(`type(y.grad_fn).__name__ == "SquareBackward"`); here every custom node is a `FunctionNode`
whose `name()` (what pictures, repr and messages show) is `SquareBackward`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes
from ..functions.views import AliasBackward0
from ..grad_mode import _state, no_grad
from ..graph import Node, tensors
from ..tensor import Tensor
from ..versions import SavedTensor

__all__ = ["Function", "FunctionCtx", "FunctionNode", "once_differentiable"]


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
        return f"{self.function.__name__}Backward"

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The tensors given to `save_for_backward`, checked against in-place changes since."""
        return tuple(None if name is None else self._unpacked(name) for name in self.kept_layout)

    def _unpacked(self, name: str) -> Tensor:
        saved = self.raw_saved(name)
        saved.check()
        if saved.unpack_hook is not None:
            return saved.unpacked_tensor()
        return saved.owner if saved.owner is not None else tensors.rebuild(saved, self)

    def backward(self, grad: Any) -> tuple[Any, ...]:
        """Run the Function's backward on tensors; give the engine one gradient per tensor input."""
        grads = tuple(grad) if isinstance(grad, (list, tuple)) else (grad,)
        on_arrays = any(isinstance(g, np.ndarray) for g in grads)
        given = [self._materialized(index, g) for index, g in enumerate(grads)]
        results = self.function.backward(self, *given)
        results = results if isinstance(results, tuple) else (results,)
        return self._checked_results(results, on_arrays)

    def _materialized(self, index: int, grad: Any) -> Tensor | None:
        """The gradient of output `index` as a tensor (zeros where none arrived)."""
        if grad is None:
            if not self.materialize_grads:
                return None
            shape, dtype = self.output_info[index]
            return tensors.wrap(np.zeros(shape, dtype=dtype))
        return tensors.wrap(grad) if isinstance(grad, np.ndarray) else grad

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
            raise TypeError(
                f"function {self.name()} returned a gradient of type {type(grad).__name__} at "
                f"position {index}; expected a Tensor or None"
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

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward, and record one node for it when some tensor input requires grad."""
        node = FunctionNode(cls, args)
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        recording = _state.enabled and any(node.needs_input_grad)
        with no_grad():
            if cls.setup_context is not None:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        results = outputs if isinstance(outputs, tuple) else (outputs,)
        results = tuple(_output(node, args, result, recording) for result in results)
        if recording:
            _connect(node, args, results)
        return results if isinstance(outputs, tuple) else results[0]


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
        result._version_counter.bump()  # torch counts the marking as one more change
        return result
    if any(result is a for a in args):  # a view of the input, as torch makes it
        return result._view(result._array, AliasBackward0())
    return result


def _connect(node: FunctionNode, args: tuple[Any, ...], results: tuple[Any, ...]) -> None:
    """Join a Function's node to the graph: edges to its tensor inputs, its outputs, its saves."""
    inputs = [a for a in args if isinstance(a, Tensor)]
    node.next_nodes = tuple(t._edge() for t in inputs)
    node.input_shapes = tuple(t._array.shape for t in inputs)
    if any(t._output_nr for t in inputs):
        node.next_output_nrs = tuple(t._output_nr for t in inputs)
    node.num_outputs = len(results)
    node.output_info = [
        (r._array.shape, r._array.dtype) if isinstance(r, Tensor) else ((), np.float32)
        for r in results
    ]
    for number, result in enumerate(results):
        if not isinstance(result, Tensor) or result._array.dtype.kind != "f":
            continue
        if any(result is t for t in node.non_differentiable):
            continue
        if any(result is t for t in node.dirty):
            result._rebase_history(node, number)
        else:
            result._grad_fn, result._output_nr = node, number
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
    recording, and differentiating its result (create_graph) raises a clear error."""

    @functools.wraps(backward)
    def run_once(ctx: FunctionCtx, *grads: Any) -> Any:
        with no_grad():
            results = backward(ctx, *grads)
        if not _state.enabled or not any(isinstance(g, Tensor) and g.requires_grad for g in grads):
            return results
        as_tuple = results if isinstance(results, tuple) else (results,)
        marked = tuple(_delayed_error(r) for r in as_tuple)
        return marked if isinstance(results, tuple) else marked[0]

    return run_once


class DelayedError(Node):
    """Stands for a once_differentiable backward in a recorded graph: differentiating it raises
    (torch's node is named `Error`)."""

    def name(self) -> str:
        return "Error"

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a

    def backward(self, grad: Any) -> tuple[Any]:
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


def _delayed_error(result: Any) -> Any:
    if not isinstance(result, Tensor):
        return result
    return Tensor._apply(DelayedError(), result.detach().requires_grad_(True))
