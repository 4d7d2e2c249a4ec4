"""backward() and grad() on tensors, as torch.autograd has them (Tensor.backward is the first)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..backward_call import run_tensor_backward

__all__ = ["backward", "grad"]


def _listed(value: Any) -> list[Any]:
    """One tensor, or any iterable of them, as a list (None: Python's TypeError, as torch)."""
    return [value] if isinstance(value, Tensor) else list(value)


def _grads_for(outputs: list[Tensor], grad_outputs: Any) -> list[Tensor | None]:
    grads = [None] * len(outputs) if grad_outputs is None else _listed(grad_outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    for given in grads:
        if given is not None and not isinstance(given, Tensor):
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type(given).__name__}"
            )
    return grads


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate into `.grad` of the leaves the gradient of `tensors` (see Tensor.backward)."""
    outputs = _listed(tensors)
    grads = _grads_for(outputs, grad_tensors)
    run_tensor_backward(outputs, grads, retain_graph, create_graph, inputs)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """d(outputs)/d(inputs), returned without touching any `.grad` (torch.autograd.grad).

    With `create_graph=True` the gradients are recorded too, so they can be differentiated
    again (a gradient penalty, a second derivative).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
            "allow_unused=False."
        )
    inputs_list = _listed(inputs)
    if not inputs_list:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    outputs_list = _listed(outputs)
    grads = _grads_for(outputs_list, grad_outputs)
    captured = run_tensor_backward(
        outputs_list, grads, retain_graph, create_graph, inputs_list, accumulate=False
    )
    results: list[Tensor | None] = []
    for index, tensor in enumerate(inputs_list):
        edge = (tensor.grad_fn or tensor._edge(), tensor._output_nr)
        value = captured.get(edge)
        if value is None:
            if not (allow_unused or materialize_grads):
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
            # (under create_graph the zeros require grad, as torch's, to be differentiated again)
            zeros = Tensor(np.zeros_like(tensor._array), requires_grad=create_graph)
            results.append(zeros if materialize_grads else None)
        elif isinstance(value, Tensor):
            results.append(value)
        else:
            values = np.asarray(value, dtype=tensor._array.dtype)
            results.append(Tensor._from_array(np.array(values).reshape(tensor._array.shape)))
    return tuple(results)
