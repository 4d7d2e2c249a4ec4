"""Where a backward pass starts: what `Tensor.backward()`, `autograd.backward()` and
`autograd.grad()` do before the walk (engine.py).

Each output gives a root: its edge, and the gradient it starts with (ones for a scalar, or the
gradient given, checked against its shape). `inputs` names the edges whose gradients are wanted.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._fast import ones_like_array
from ._shapes import Size
from .engine import run_backward
from .graph import Node
from .recording import TensorCore

__all__ = ["CREATE_GRAPH_WARNING", "run_tensor_backward"]


def run_tensor_backward(
    outputs: Sequence[TensorCore],
    grad_outputs: Sequence[TensorCore | None],
    retain_graph: bool | None,
    create_graph: bool = False,
    inputs: TensorCore | Sequence[TensorCore] | None = None,
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


def _root_edge(output: TensorCore, index: int) -> tuple[Node, int]:
    edge = output._edge() if output._needs_grad() else None
    if edge is None:
        raise RuntimeError(
            f"element {index} of tensors does not require grad and does not have a grad_fn"
        )
    return edge, output._output_nr


def _start_gradient(
    output: TensorCore, given: TensorCore | None, index: int, create_graph: bool
) -> Any:
    """The gradient backward starts with: ones for a scalar, or the `gradient` given."""
    if given is None:
        if output._array.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        start = ones_like_array(output._array)
        return output._sibling(start) if create_graph else start
    start = given._array if isinstance(given, TensorCore) else np.asarray(given)
    if start.shape != output._array.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{index}] has a shape of {Size(start.shape)} "
            f"and output[{index}] has a shape of {Size(output._array.shape)}."
        )
    return given if create_graph and isinstance(given, TensorCore) else start


def _target_edges(inputs: TensorCore | Sequence[TensorCore], accumulate: bool) -> dict:
    """The edges whose gradients are wanted: a leaf's AccumulateGrad, a non-leaf's grad_fn."""
    tensors = [inputs] if isinstance(inputs, TensorCore) else list(inputs)
    if not tensors:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    edges: dict[tuple[Node, int], None] = {}
    for tensor in tensors:
        if accumulate:
            tensor._retain_grad()  # a non-leaf in backward(inputs=...) gets its .grad, as in torch
        elif not tensor._needs_grad():
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node = tensor._current_grad_fn()
        if node is None:
            node = tensor._edge()
        edges[(node, tensor._output_nr)] = None
    return edges
