"""Functions behind the layers and losses: `minigrad.nn.functional`, used as `F` like torch's.

The ops the engine does not have are defined here the same way `ops.py` defines its own: one
`Node` subclass per op, named like torch's `grad_fn` (`AddmmBackward0`, `LogSoftmaxBackward0`,
`NllLossBackward0`, ...), with `forward` and `backward` side by side. A loss therefore shows up in
a graph picture as one node, exactly where torch puts it.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import random
from .._shapes import wrap_dim
from ..functions.nn import (
    AddmmBackward0,
    BinaryCrossEntropyBackward0,
    BinaryCrossEntropyWithLogitsBackward0,
    EmbeddingBackward0,
    LeakyReluBackward0,
    LogSoftmaxBackward0,
    MseLossBackward0,
    NllLossBackward0,
    SoftmaxBackward0,
)
from ..tensor import Tensor, apply

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "dropout",
    "embedding",
    "leaky_relu",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]

REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


# --------------------------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------------------------


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """input @ weight.T + bias, recorded with torch's nodes (AddmmBackward0, or MmBackward0).

    Inputs with other than 2 dimensions are flattened to 2-D and reshaped back, as torch does.
    """
    if input.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are 0D and {weight.ndim}D"
        )
    if input.ndim == 2:
        if bias is None:
            return input @ weight.t()
        return apply(AddmmBackward0(), bias, input, weight.t())
    leading = tuple(input.shape[:-1])
    flat = linear(input.reshape(-1, input.shape[-1]), weight, bias)
    return flat.view(*leading, weight.shape[0])


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None) -> Tensor:  # noqa: A002
    """Look up rows of `weight` for the integer tensor `input` (any shape)."""
    if input._array.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got minigrad.{input.dtype.tensor_type} instead (while checking "
            "arguments for embedding)"
        )
    return apply(EmbeddingBackward0(input._array.astype(np.int64), padding_idx), weight)


# --------------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------------


def relu(input: Tensor) -> Tensor:  # noqa: A002
    """max(input, 0) (ReluBackward0)."""
    return input.relu()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """1 / (1 + exp(-input)) (SigmoidBackward0)."""
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    """Hyperbolic tangent (TanhBackward0)."""
    return input.tanh()


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    """max(x, 0) + negative_slope * min(x, 0) (LeakyReluBackward0)."""
    return apply(LeakyReluBackward0(negative_slope), input)


def dropout(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:  # noqa: A002
    """In training, zero each element with probability p and scale the rest by 1 / (1 - p).

    Recorded as a multiplication by a random mask (MulBackward0), as in torch, and drawn as
    torch draws it: `empty_like(input).bernoulli_(1 - p)`, divided by 1 - p in the input's
    dtype. Outside training the input is returned as it is: `model.eval()` switches dropout
    off, but it does not stop the graph from being recorded (that is what `no_grad` is for).
    """
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    dtype = input._array.dtype if input.is_floating_point() else np.dtype(np.float32)
    if p == 1:
        return input * Tensor._from_array(np.zeros((), dtype=dtype))  # torch draws nothing
    keep = random.bernoulli(input.numel(), 1 - p)
    order = random.fill_order(input._array)  # torch's mask has the input's memory layout
    if order is not None:
        keep[order] = keep.copy()
    mask = keep.reshape(input._array.shape).astype(dtype) / dtype.type(1 - p)
    return input * Tensor._from_array(mask)


def _softmax_dim(ndim: int, dim: int | None, name: str) -> int:
    """torch's rule when no dim is given (with its deprecation warning)."""
    if dim is None:
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            "include dim=X as an argument.",
            UserWarning,
            stacklevel=3,
        )
        dim = 0 if ndim in (0, 1, 3) else 1
    return wrap_dim(dim, ndim)


def _float(input: Tensor) -> np.ndarray:  # noqa: A002
    array = input._array
    return array if array.dtype.kind == "f" else array.astype(np.float32)


def _check_float(input: Tensor, dim: int | None, name: str) -> None:  # noqa: A002
    """torch has no integer softmax kernel (its message names the kernel it looked for)."""
    if not input.is_floating_point():
        last = dim is None or input.ndim == 0 or wrap_dim(dim, input.ndim) == input.ndim - 1
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.torch_kind}'")


def softmax(input: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """Softmax along `dim` (SoftmaxBackward0)."""
    _check_float(input, dim, "softmax")
    return apply(SoftmaxBackward0(_softmax_dim(input.ndim, dim, "softmax")), input)


def log_softmax(input: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """log(softmax(input)) along `dim`, computed without overflow (LogSoftmaxBackward0)."""
    _check_float(input, dim, "log_softmax")
    return apply(LogSoftmaxBackward0(_softmax_dim(input.ndim, dim, "log_softmax")), input)


# --------------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------------


def _check_target_size(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if input.shape != target.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Squared error (input - target) ** 2, averaged, summed or kept elementwise."""
    _check_reduction(reduction)
    _check_target_size(input, target)
    if not input.is_floating_point() and not target.is_floating_point():
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{input.dtype.torch_kind}'")
    if target.dtype != input.dtype and not target.is_floating_point():
        target = target.to(input.dtype)  # torch computes in the promoted (input's float) dtype
    return apply(MseLossBackward0(reduction), input, target)


def nll_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    """-input[i, target[i]] for log-probabilities `input` of shape (N, C) or (C,)."""
    _check_reduction(reduction)
    if input.ndim not in (1, 2):
        raise NotImplementedError("minigrad's nll_loss takes inputs of shape (N, C) or (C,)")
    if target._array.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype.torch_kind}"
        )
    weights = None if weight is None else weight._array.astype(input._array.dtype)
    node = NllLossBackward0(target._array, weights, ignore_index, reduction)
    return apply(node, input)


def cross_entropy(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    """Softmax cross-entropy for raw scores `input` (N, C) and int64 classes `target` (N,).

    Computed as torch does, nll_loss(log_softmax(input, 1)): the graph shows NllLossBackward0
    on top of LogSoftmaxBackward0.
    """
    class_dim = 0 if input.ndim == 1 else 1
    return nll_loss(log_softmax(input, class_dim), target, weight, ignore_index, reduction)


def binary_cross_entropy(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross-entropy on probabilities (after a sigmoid); prefer the *_with_logits form."""
    _check_reduction(reduction)
    if input.shape != target.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    node = BinaryCrossEntropyBackward0(None if weight is None else weight._array, reduction)
    return apply(node, input, target)


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Sigmoid + binary cross-entropy in one numerically stable op; `target` holds 0..1 floats."""
    _check_reduction(reduction)
    if input.shape != target.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    node = BinaryCrossEntropyWithLogitsBackward0(
        None if weight is None else weight._array,
        None if pos_weight is None else pos_weight._array,
        reduction,
    )
    return apply(node, input, target)
