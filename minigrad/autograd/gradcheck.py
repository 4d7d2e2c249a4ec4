"""gradcheck: the gradients backward computes, checked against finite differences."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..grad_mode import no_grad
from ..tensor import Tensor, run_tensor_backward

__all__ = ["GradcheckError", "gradcheck"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytic and numerical gradients disagree."""


def gradcheck(
    fn: Callable[..., Tensor],
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
    differentiable = [t for t in inputs_list if t.requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor with requires_grad=True")

    def evaluate() -> np.ndarray:
        with no_grad():
            return np.array(fn(*inputs_list)._array, dtype=np.float64).ravel()

    output = fn(*inputs_list)
    n_out = output.numel()
    for input_index, tensor in enumerate(differentiable):
        flat = tensor._array.reshape(-1)  # a view: perturbing it perturbs the input
        numerical = np.zeros((flat.size, n_out))
        for i in range(flat.size):
            original = flat[i]
            flat[i] = original + eps
            plus = evaluate()
            flat[i] = original - eps
            minus = evaluate()
            flat[i] = original
            numerical[i] = (plus - minus) / (2 * eps)
        analytical = np.zeros((flat.size, n_out))
        for j in range(n_out):
            seed = np.zeros(n_out, dtype=output._array.dtype)
            seed[j] = 1.0
            target = tensor._edge()
            seed_tensor = Tensor._from_array(seed.reshape(output._array.shape))
            captured = run_tensor_backward(
                [fn(*inputs_list)], [seed_tensor], False, capture={target: None}
            )
            if target in captured:
                analytical[:, j] = np.asarray(captured[target]).ravel()
        if not np.allclose(analytical, numerical, atol=atol, rtol=rtol):
            if raise_exception:
                raise GradcheckError(
                    f"Jacobian mismatch for output 0 with respect to input {input_index},\n"
                    f"numerical:{numerical}\nanalytical:{analytical}\n"
                )
            return False
    return True
