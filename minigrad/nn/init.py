"""Weight initialisation, like torch.nn.init, drawing from minigrad's seeded generator.

Every function fills its tensor in place under `no_grad` (so it works on parameters) and
returns it. `minigrad.manual_seed(s)` before building a model makes its weights reproducible.
"""

from __future__ import annotations

import math

import numpy as np

from ..creation import generator
from ..grad_mode import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain",
    "constant_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "uniform_",
    "xavier_uniform_",
    "zeros_",
]


def _fill(tensor: Tensor, values: np.ndarray) -> Tensor:
    """Write `values` into `tensor` in place, unrecorded (bumps its version, as torch does)."""
    with no_grad():
        tensor.copy_(Tensor._from_array(values.astype(tensor._array.dtype, copy=False)))
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    """Fill with samples from U(a, b)."""
    return _fill(tensor, generator().uniform(a, b, size=tensor._array.shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill with samples from N(mean, std**2)."""
    return _fill(tensor, generator().normal(mean, std, size=tensor._array.shape))


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with `val`."""
    return _fill(tensor, np.full(tensor._array.shape, val))


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return constant_(tensor, 1.0)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor torch recommends for scaling weights in front of `nonlinearity`."""
    if nonlinearity in ("linear", "sigmoid", "conv1d", "conv2d", "conv3d"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight shaped (out, in, ...)."""
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = int(np.prod(tensor._array.shape[2:])) if tensor.ndim > 2 else 1
    return tensor._array.shape[1] * receptive, tensor._array.shape[0] * receptive


def kaiming_uniform_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    """U(±gain * sqrt(3 / fan)). Linear uses a=sqrt(5), which gives U(±1/sqrt(fan_in))."""
    fan_in, fan_out = _fans(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    if fan == 0:
        return tensor  # torch warns and leaves an empty tensor alone
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """U(±gain * sqrt(6 / (fan_in + fan_out)))."""
    fan_in, fan_out = _fans(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound)
