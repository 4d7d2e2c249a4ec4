"""`minigrad.autograd`: backward() and grad() on tensors, gradcheck, the grad and anomaly modes,
and, for readers, the graph's classes (the engine itself is in minigrad/graph.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..grad_mode import (
    detect_anomaly,
    enable_grad,
    inference_mode,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_detect_anomaly,
    set_grad_enabled,
)
from ..graph import AccumulateGrad, GradBuffers, Node, run_backward, unbroadcast
from ..tensor import Tensor, run_tensor_backward
from ..versions import SavedTensor
from .gradcheck import GradcheckError, gradcheck

__all__ = [
    "AccumulateGrad",
    "GradBuffers",
    "GradcheckError",
    "Node",
    "SavedTensor",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "inference_mode",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "run_backward",
    "set_detect_anomaly",
    "set_grad_enabled",
    "unbroadcast",
]


def _listed(value: Any) -> list[Any]:
    """One tensor, or a list or tuple of them, as a list."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _grads_for(outputs: list[Tensor], grad_outputs: Any) -> list[Tensor | None]:
    grads = [None] * len(outputs) if grad_outputs is None else _listed(grad_outputs)
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
) -> None:
    """Accumulate into `.grad` of the leaves the gradient of `tensors` (see Tensor.backward)."""
    outputs = _listed(tensors)
    run_tensor_backward(outputs, _grads_for(outputs, grad_tensors), retain_graph)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    allow_unused: bool = False,
) -> tuple[Tensor | None, ...]:
    """Return d(outputs)/d(inputs) without touching any `.grad` (like torch.autograd.grad)."""
    inputs_list = _listed(inputs)
    for tensor in inputs_list:
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    targets = [tensor._edge() for tensor in inputs_list]
    outputs_list = _listed(outputs)
    captured = run_tensor_backward(
        outputs_list,
        _grads_for(outputs_list, grad_outputs),
        retain_graph,
        capture=dict.fromkeys(targets),
    )
    results: list[Tensor | None] = []
    for index, (tensor, target) in enumerate(zip(inputs_list, targets, strict=True)):
        if target not in captured:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
            results.append(None)
            continue
        values = np.asarray(captured[target], dtype=tensor._array.dtype)
        results.append(Tensor._from_array(np.array(values).reshape(tensor._array.shape)))
    return tuple(results)
