"""gradcheck and gradgradcheck: the gradients backward computes, checked against finite
differences (and, for gradgradcheck, the gradients of those gradients)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import random
from .._tensor import Tensor
from ..dtypes import float64
from ..grad_mode import enable_grad
from .gradients import grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytic and numerical gradients disagree."""


def _outputs(result: Any) -> list[Tensor]:
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _check_inputs(inputs: list[Any]) -> list[Tensor]:
    """torch's checks of the inputs: one must require grad; float32 ones get a warning; an
    input with a stride-0 dimension (made by expand) cannot be perturbed one entry at a time."""
    differentiable = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    if not differentiable:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "them have requires_grad=True."
        )
    for index, tensor in enumerate(inputs):
        if not (isinstance(tensor, Tensor) and tensor.requires_grad):
            continue
        if tensor.dtype != float64:
            warnings.warn(
                f"Input #{index} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=3,
            )
        array = tensor._array
        if any(
            step == 0 and size > 1 for step, size in zip(array.strides, array.shape, strict=True)
        ):
            raise RuntimeError(
                f"The {index}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
    return differentiable


def _numerical(
    fn: Callable[..., Any], inputs: list[Any], tensor: Tensor, eps: float
) -> list[np.ndarray]:
    """d(each output)/d(tensor) by central differences: one row per entry of the input."""

    def evaluate() -> list[Tensor]:
        # (with grad mode as it is, as torch: fn may register hooks; a copy, since an output
        # may be the input itself, which the next perturbation changes)
        return [o.detach().clone() for o in _outputs(fn(*inputs))]

    flat = tensor.detach().numpy().reshape(-1)  # a view: perturbing it perturbs the input
    rows: list[list[np.ndarray]] = []
    for i in range(flat.size):
        original = flat[i]
        flat[i] = original - eps
        minus = evaluate()
        flat[i] = original + eps
        plus = evaluate()
        flat[i] = original
        where = f"inputs are perturbed on index {np.unravel_index(i, tensor.shape)} by {eps}"
        for a, b in zip(minus, plus, strict=True):
            if a.shape != b.shape:
                raise AssertionError(
                    f"Expected `func` to return outputs with the same shape when {where}, but "
                    f"got: shapes {a.shape} and {b.shape}."
                )
            if a.dtype != b.dtype:
                raise AssertionError(
                    f"Expected `func` to return outputs with the same dtype when {where}, but "
                    f"got: dtypes {a.dtype} and {b.dtype}."
                )
        rows.append(
            [
                (b.numpy().astype(np.float64) - a.numpy()).ravel() / (2 * eps)
                for a, b in zip(minus, plus, strict=True)
            ]
        )
    return [np.stack([row[k] for row in rows]) for k in range(len(rows[0]))] if rows else []


def _analytical(output: Tensor, tensor: Tensor, scale: float = 1.0) -> np.ndarray:
    """d(output)/d(tensor) from backward, one output entry at a time (grad_output = scale *
    a one-hot vector)."""
    jacobian = np.zeros((tensor.numel(), output.numel()))
    for j in range(output.numel()):
        seed = np.zeros(output.numel(), dtype=output.detach().numpy().dtype)
        seed[j] = scale
        (found,) = grad(
            output,
            tensor,
            Tensor(seed.reshape(tuple(output.shape))),
            retain_graph=True,
            allow_unused=True,
        )
        if found is not None:
            jacobian[:, j] = found.detach().numpy().ravel()
    return jacobian


def gradcheck(
    fn: Callable[..., Any],
    inputs: Tensor | Sequence[Tensor],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    *,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
    check_batched_grad: bool = False,
    check_undefined_grad: bool = True,
) -> bool:
    """Compare the Jacobian from backward with central finite differences, as torch does.

    Use float64 inputs: in float32 the finite differences are too noisy to compare. Besides
    the values it checks, as torch does, that outputs which do not require grad really do not
    change, that backward gives the same result twice (up to `nondet_tol`) and that it scales
    with grad_output. `fast_mode` (torch: compare one random projection of the Jacobians) runs
    the same full comparison here: the answers agree; `check_batched_grad` and
    `check_undefined_grad` are accepted for torch's signature (minigrad has neither feature).
    """
    del fast_mode, check_batched_grad, check_undefined_grad
    inputs_list = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    differentiable = _check_inputs(inputs_list)
    outputs = _outputs(fn(*inputs_list))

    def fail(message: str) -> bool:
        if raise_exception:
            raise GradcheckError(message)
        return False

    for input_index, tensor in enumerate(differentiable):
        numerical = _numerical(fn, inputs_list, tensor, eps)
        for output_index, (output, expected) in enumerate(zip(outputs, numerical, strict=True)):
            if not output.requires_grad:
                if not np.allclose(expected, 0.0, atol=atol):
                    return fail("Numerical gradient for function expected to be zero")
                continue
            analytical = _analytical(output, tensor)
            if not np.allclose(analytical, expected, atol=atol, rtol=rtol):
                return fail(
                    f"Jacobian mismatch for output {output_index} with respect to input "
                    f"{input_index},\nnumerical:{expected}\nanalytical:{analytical}\n"
                )
            if np.abs(_analytical(output, tensor) - analytical).max(initial=0.0) > nondet_tol:
                return fail(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    "gradient matches numerical gradient.The tolerance for nondeterminism was "
                    f"{nondet_tol}."
                )
            if np.abs(_analytical(output, tensor, scale=0.0)).max(initial=0.0) > 0:
                return fail("backward not multiplied by grad_output")
    return True


def gradgradcheck(
    fn: Callable[..., Any],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor] | None = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    *,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
    check_batched_grad: bool = False,
    check_undefined_grad: bool = True,
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
        first_gradients,
        [*inputs_list, *grad_outputs],
        eps,
        atol,
        rtol,
        raise_exception,
        nondet_tol=nondet_tol,
        fast_mode=fast_mode,
    )
