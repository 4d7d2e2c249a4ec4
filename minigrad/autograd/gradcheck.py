"""gradcheck and gradgradcheck: the gradients backward computes, checked against finite
differences (and, for gradgradcheck, the gradients of those gradients)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import random
from ..grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from .gradients import grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytic and numerical gradients disagree."""


def _outputs(result: Any) -> list[Tensor]:
    return list(result) if isinstance(result, (tuple, list)) else [result]


def gradcheck(
    fn: Callable[..., Any],
    inputs: Tensor | Sequence[Tensor],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Compare the Jacobian from backward with central finite differences, as torch does.

    Use float64 inputs: in float32 the finite differences are too noisy to compare.
    """
    inputs_list = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    differentiable = [t for t in inputs_list if isinstance(t, Tensor) and t.requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor with requires_grad=True")

    def evaluate() -> np.ndarray:
        with no_grad():
            values = [o.detach().numpy().ravel() for o in _outputs(fn(*inputs_list))]
        return np.concatenate(values).astype(np.float64)

    outputs = [o for o in _outputs(fn(*inputs_list)) if o.requires_grad]
    sizes = [o.numel() for o in _outputs(fn(*inputs_list))]
    for input_index, tensor in enumerate(differentiable):
        flat = tensor.detach().numpy().reshape(-1)  # a view: perturbing it perturbs the input
        numerical = np.zeros((flat.size, sum(sizes)))
        for i in range(flat.size):
            original = flat[i]
            flat[i] = original + eps
            plus = evaluate()
            flat[i] = original - eps
            minus = evaluate()
            flat[i] = original
            numerical[i] = (plus - minus) / (2 * eps)
        analytical = np.zeros_like(numerical)
        column = 0
        for output in outputs:
            for j in range(output.numel()):
                seed = np.zeros(output.numel(), dtype=output.detach().numpy().dtype)
                seed[j] = 1.0
                (found,) = grad(
                    output,
                    tensor,
                    Tensor(seed.reshape(tuple(output.shape))),
                    retain_graph=True,
                    allow_unused=True,
                )
                if found is not None:
                    analytical[:, column + j] = found.detach().numpy().ravel()
            column += output.numel()
        if not np.allclose(analytical, numerical, atol=atol, rtol=rtol):
            if raise_exception:
                raise GradcheckError(
                    f"Jacobian mismatch for output 0 with respect to input {input_index},\n"
                    f"numerical:{numerical}\nanalytical:{analytical}\n"
                )
            return False
    return True


def gradgradcheck(
    fn: Callable[..., Any],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor] | None = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """gradcheck of the gradients themselves: backward recorded with create_graph=True must
    give the same second derivatives as finite differences of the first."""
    inputs_list = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    differentiable = [t for t in inputs_list if isinstance(t, Tensor) and t.requires_grad]
    outputs = [o for o in _outputs(fn(*inputs_list)) if o.requires_grad]
    if grad_outputs is None:
        generator = random.Generator().manual_seed(0)
        grad_outputs = [
            Tensor(random.normal(o.numel(), 0.0, 1.0, np.float64, generator, True))
            .reshape(tuple(o.shape))
            .to(o.dtype)
            .requires_grad_(True)
            for o in outputs
        ]
    grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)

    def first_gradients(*values: Tensor) -> tuple[Tensor, ...]:
        given, seeds = list(values[: len(inputs_list)]), list(values[len(inputs_list) :])
        with enable_grad():  # (gradcheck evaluates under no_grad; these need a graph)
            results = [o for o in _outputs(fn(*given)) if o.requires_grad]
            grads = grad(results, differentiable, seeds, create_graph=True, allow_unused=True)
        return tuple(
            g if g is not None else w * 0 for g, w in zip(grads, differentiable, strict=True)
        )

    return gradcheck(
        first_gradients, [*inputs_list, *grad_outputs], eps, atol, rtol, raise_exception
    )
