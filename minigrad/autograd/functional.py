"""`minigrad.autograd.functional`: whole derivatives of a function at a point, as torch's
`jacobian` and `hessian` give them, built row by row from `autograd.grad`.

The Jacobian of `func` at `inputs` has, for each output and each input, a block of shape
`output.shape + input.shape`: entry [i..., j...] is d output[i...] / d input[j...]. The Hessian
of a scalar function is the Jacobian of its gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..grad_mode import enable_grad
from .gradients import grad

__all__ = ["hessian", "jacobian"]


def _prepare(tensor: Tensor, create_graph: bool) -> Tensor:
    """The input as func will see it: a fresh leaf that requires grad, or (to differentiate
    the result again) an alias still connected to the caller's graph."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"The inputs given to jacobian must be Tensors, got {type(tensor).__name__}"
        )
    if create_graph and tensor.requires_grad:
        return tensor.view_as(tensor)
    return tensor.detach().requires_grad_(True)


def _block(output: Tensor, inputs: tuple[Tensor, ...], create_graph: bool) -> list:
    """d output / d each input, one block per input, from one backward per output entry."""
    flat = output.reshape(-1)
    rows: list[list[Tensor | None]] = [[] for _ in inputs]
    for k in range(flat.numel()):
        if output.requires_grad:
            found = grad(
                flat[k], inputs, retain_graph=True, create_graph=create_graph, allow_unused=True
            )
        else:  # an output that does not depend on the inputs: zeros
            found = (None,) * len(inputs)
        for j, value in enumerate(found):
            rows[j].append(value)
    blocks = []
    for tensor, row in zip(inputs, rows, strict=True):
        shape = tuple(output.shape) + tuple(tensor.shape)
        if not create_graph:
            values = [
                np.zeros(tuple(tensor.shape)) if g is None else g.detach().numpy() for g in row
            ]
            stacked = np.stack(values) if values else np.zeros((0, *tensor.shape))
            blocks.append(Tensor(stacked.reshape(shape).astype(tensor.numpy(force=True).dtype)))
            continue
        # connected to the graph: the sum of (one-hot at output entry k) x (row k), made of
        # recorded multiplications, so the result can be differentiated again
        total = tensor.new_zeros(shape)
        for k, g in enumerate(row):
            if g is None:
                continue
            one_hot = np.zeros(flat.numel(), dtype=np.float64)
            one_hot[k] = 1.0
            pick = Tensor(one_hot.reshape(tuple(output.shape) + (1,) * tensor.ndim)).to(g.dtype)
            total = total + pick * g.reshape((1,) * output.ndim + tuple(tensor.shape))
        blocks.append(total)
    return blocks


def jacobian(
    func: Callable[..., Any],
    inputs: Tensor | tuple[Tensor, ...],
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of `func` at `inputs` (a tensor, or a tuple of them): one block per output
    and input, of shape output.shape + input.shape, nested as the outputs and inputs are.
    `create_graph=True` keeps the result connected, to differentiate it again; `strict`,
    `vectorize` and `strategy` are accepted for torch's signature (one backward per row)."""
    del strict, vectorize, strategy
    inputs_tuple = isinstance(inputs, tuple)
    given = tuple(inputs) if inputs_tuple else (inputs,)
    with enable_grad():
        prepared = tuple(_prepare(t, create_graph) for t in given)
        result = func(*prepared)
        outputs_tuple = isinstance(result, tuple)
        outputs = result if outputs_tuple else (result,)
        blocks = [_block(out, prepared, create_graph) for out in outputs]
    if outputs_tuple and inputs_tuple:
        return tuple(tuple(row) for row in blocks)
    if outputs_tuple:
        return tuple(row[0] for row in blocks)
    return tuple(blocks[0]) if inputs_tuple else blocks[0][0]


def hessian(
    func: Callable[..., Any],
    inputs: Tensor | tuple[Tensor, ...],
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function at `inputs`: the Jacobian of its gradient, one block
    of shape input_i.shape + input_j.shape for each pair of inputs."""
    del strict, vectorize, outer_jacobian_strategy

    def scalar(*values: Tensor) -> Tensor:
        out = func(*values)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The function given to hessian should return a single Tensor with one element"
            )
        return out.reshape(())

    def gradient(*values: Tensor) -> Any:
        return jacobian(scalar, values if isinstance(inputs, tuple) else values[0], True)

    return jacobian(gradient, inputs, create_graph=create_graph)
