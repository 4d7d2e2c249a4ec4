"""Module hooks: code that runs around a module's forward, and when gradients pass through it.

- forward pre-hooks `hook(module, args)`: before forward; a value returned replaces `args`;
- forward hooks `hook(module, args, output)`: after it; a value returned replaces `output`;
- full backward pre-hooks `hook(module, grad_output)`: when the gradients of the outputs are
  known; a tuple returned replaces them;
- full backward hooks `hook(module, grad_input, grad_output)`: when the gradients of the
  inputs are known; a tuple returned replaces them.

The backward ones work as torch's do: the module's tensor inputs and outputs pass through an
identity op, `BackwardHookFunction` (its node is `BackwardHookFunctionBackward`), whose node
hooks see the gradients of the outputs and of the inputs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd.function import Function, FunctionCtx

__all__ = ["BackwardHookFunction", "call_with_hooks"]


class BackwardHookFunction(Function):
    """The identity, on every tensor given: a node for the module's backward hooks to hang on."""

    @staticmethod
    def forward(ctx: FunctionCtx, *tensors: Tensor) -> tuple[Tensor, ...]:
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Tensor) -> tuple[Tensor, ...]:
        return grads


def _through_identity(values: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any]:
    """`values` with each tensor passed through BackwardHookFunction; and that node."""
    positions = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
    if not positions:
        return values, None
    passed = BackwardHookFunction.apply(*[values[i] for i in positions])
    result = list(values)
    for position, tensor in zip(positions, passed, strict=True):
        result[position] = tensor
    return tuple(result), passed[0].grad_fn


def call_with_hooks(module: Any, forward: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """Run `forward(*args, **kwargs)` with the module's forward and backward hooks."""
    for hook in list(module._forward_pre_hooks.values()):
        replaced = hook(module, args)
        if replaced is not None:
            args = replaced if isinstance(replaced, tuple) else (replaced,)
    backward_hooks = module._backward_hooks or module._backward_pre_hooks
    if backward_hooks:
        args, input_node = _through_identity(args)
    output = forward(*args, **kwargs)
    for hook in list(module._forward_hooks.values()):
        replaced = hook(module, args, output)
        if replaced is not None:
            output = replaced
    if backward_hooks:
        output = _hook_outputs(module, output, input_node)
    return output


def _hook_outputs(module: Any, output: Any, input_node: Any) -> Any:
    """Pass the outputs through the identity op and hang the backward hooks on both nodes."""
    outputs = output if isinstance(output, tuple) else (output,)
    outputs, output_node = _through_identity(outputs)
    if output_node is None:
        return output
    seen: dict[str, tuple[Any, ...]] = {}

    def on_grad_outputs(grad_outputs: tuple[Any, ...]) -> tuple[Any, ...] | None:
        for hook in list(module._backward_pre_hooks.values()):
            replaced = hook(module, grad_outputs)
            if replaced is not None:
                grad_outputs = tuple(replaced)
        seen["grad_output"] = grad_outputs
        if input_node is None and module._backward_hooks:  # no input needs a gradient
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to module "
                "outputs since no inputs require gradients. See the register_full_backward_hook "
                "documentation for more details.",
                UserWarning,
                stacklevel=2,
            )
            for hook in list(module._backward_hooks.values()):
                hook(module, (None,), grad_outputs)
        return grad_outputs

    def on_grad_inputs(grad_inputs: tuple[Any, ...]) -> tuple[Any, ...] | None:
        if "grad_output" not in seen:
            # the gradient reached the inputs without passing through the outputs (the double
            # backward of create_graph=True): as torch, the hooks do not fire
            return None
        grad_outputs = seen.pop("grad_output")  # (used once: a later pass must bring new ones)
        for hook in list(module._backward_hooks.values()):
            replaced = hook(module, grad_inputs, grad_outputs)
            if replaced is not None and len(replaced) != len(grad_inputs):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, got "
                    f"{len(replaced)}, but expected {len(grad_inputs)}"
                )
            if replaced is not None:
                grad_inputs = tuple(replaced)
        return grad_inputs

    output_node.register_prehook(on_grad_outputs)
    if input_node is not None:
        input_node.register_prehook(on_grad_inputs)
    return outputs if isinstance(output, tuple) else outputs[0]
