"""Helpers that work on the gradients of many parameters at once (torch.nn.utils)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .._tensor import Tensor
from ..grad_mode import no_grad

__all__ = ["clip_grad_norm_"]


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale all gradients together so that their joint norm is at most `max_norm`.

    The norm is taken over every gradient as if they were one vector; the gradients are changed
    in place (under no_grad) and the norm before clipping is returned, as in torch (a nan or
    inf norm raises with `error_if_nonfinite=True`; `foreach` changes nothing here). Used with
    truncated backprop through time, where gradients through many steps can blow up.
    """
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p._grad for p in params if p._grad is not None]
    if not grads:
        return Tensor._from_array(np.asarray(0.0, dtype=np.float32))
    dtype = grads[0]._array.dtype
    if math.isinf(norm_type):
        total = max(float(np.abs(g._array).max()) for g in grads)
    else:
        total = sum(float((np.abs(g._array) ** norm_type).sum()) for g in grads) ** (1 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {float(norm_type)} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    scale = min(max_norm / (total + 1e-6), 1.0)
    with no_grad():
        for grad in grads:
            grad.mul_(scale)  # torch multiplies by the clamped factor even when it is 1
    return Tensor._from_array(np.asarray(total, dtype=dtype))
