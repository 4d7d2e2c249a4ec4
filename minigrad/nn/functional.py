"""Functions behind the layers and losses: `minigrad.nn.functional`, used as `F` like torch's.

The nodes these functions record live in `functions/nn.py`, like every other op's: one `Node`
subclass per op, named like torch's `grad_fn` (`AddmmBackward0`, `LogSoftmaxBackward0`,
`NllLossBackward0`, ...), with `forward` and `backward` side by side. A loss therefore shows up in
a graph picture as one node, exactly where torch puts it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import random
from .._convert import type_name
from .._shapes import broadcast_shapes
from .._tensor import Tensor, apply
from ..functions.arith import DivBackward1
from ..functions.nn import (
    AddmmBackward0,
    BinaryCrossEntropyBackward0,
    BinaryCrossEntropyWithLogitsBackward0,
    EmbeddingBackward0,
    HardtanhBackward0,
    LeakyReluBackward0,
    LogSoftmaxBackward0,
    MseLossBackward0,
    NllLossBackward0,
    SoftmaxBackward0,
    check_softmax_input,
    given_dim,
    softmax_dim,
)

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

    As torch: an input with other than 2 dimensions is flattened to 2-D and viewed back when it
    is contiguous and the bias is 1-D; otherwise it is `input @ weight.t()` (matmul's nodes),
    and the bias is added in place (AddBackward0).
    """
    for position, (name, value) in enumerate((("input", input), ("weight", weight)), start=1):
        if not isinstance(value, Tensor):  # (a list or numpy array is not turned into one)
            raise TypeError(
                f"linear(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type_name(value)}"
            )
    dims = input._array.ndim  # (the arrays' sizes: Tensor.shape makes a Size at each read)
    if dims == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are 0D and {weight.ndim}D"
        )
    if dims == 2:
        if bias is None:
            return input @ weight.t()
        bias_shape = bias._array.shape
        if bias_shape and bias_shape[-1] not in (1, weight._array.shape[0]):
            raise RuntimeError(
                f"The expanded size of the tensor ({weight.shape[0]}) must match the existing "
                f"size ({bias.shape[-1]}) at non-singleton dimension 1.  Target sizes: "
                f"[{input.shape[0]}, {weight.shape[0]}].  Tensor sizes: [{bias.shape[-1]}]"
            )
        return apply(AddmmBackward0(), bias, input, weight.t())
    if bias is not None and bias._array.ndim == 1 and input.is_contiguous():
        leading = tuple(input.shape[:-1])
        flat = linear(input.reshape(-1, input.shape[-1]), weight, bias)
        return flat.view(*leading, weight.shape[0])
    output = input @ weight.t()
    return output if bias is None else output.add_(bias)


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


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """max(input, 0) (ReluBackward0); `inplace=True` changes input itself (relu_)."""
    return input.relu_() if inplace else input.relu()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """1 / (1 + exp(-input)) (SigmoidBackward0)."""
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    """Hyperbolic tangent (TanhBackward0)."""
    return input.tanh()


def leaky_relu(
    input: Tensor,  # noqa: A002
    negative_slope: float = 0.01,
    inplace: bool = False,
) -> Tensor:
    """max(x, 0) + negative_slope * min(x, 0) (LeakyReluBackward0); `inplace=True` writes the
    result into input."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"leaky_relu_cpu\" not implemented for '{input.dtype.torch_kind}'"
        )
    if inplace:
        return input._apply_inplace(LeakyReluBackward0(negative_slope))
    return apply(LeakyReluBackward0(negative_slope), input)


def hardtanh(
    input: Tensor,  # noqa: A002
    min_val: float = -1.0,
    max_val: float = 1.0,
    inplace: bool = False,
) -> Tensor:
    """input clipped to [min_val, max_val] (HardtanhBackward0); `inplace=True` writes the
    result into input."""
    if inplace:
        return input._apply_inplace(HardtanhBackward0(min_val, max_val))
    return apply(HardtanhBackward0(min_val, max_val), input)


def dropout(
    input: Tensor,  # noqa: A002
    p: float = 0.5,
    training: bool = True,
    inplace: bool = False,
) -> Tensor:
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
    if not input.is_floating_point():  # torch scales in place: an integer tensor cannot hold it
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {input.dtype.torch_kind}"
        )
    dtype = input._array.dtype if input.is_floating_point() else np.dtype(np.float32)
    if p == 1:
        return input * Tensor._from_array(np.zeros((), dtype=dtype))  # torch draws nothing
    keep = random.bernoulli(input.numel(), 1 - p)
    order = random.fill_order(input._array)  # torch's mask has the input's memory layout
    if order is not None:
        keep[order] = keep.copy()
    mask = keep.reshape(input._array.shape).astype(dtype) / dtype.type(1 - p)
    if inplace:  # `inplace=True`: the input itself is scaled (a recorded mul_)
        return input.mul_(Tensor._from_array(mask))
    return input * Tensor._from_array(mask)


def softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:  # noqa: A002
    """Softmax along `dim` (SoftmaxBackward0); `dtype` converts the input first."""
    if dtype is not None:
        input = input.to(dtype)  # noqa: A001
    check_softmax_input(input, dim, "softmax")
    node = SoftmaxBackward0(softmax_dim(input.ndim, dim, "softmax"))
    return apply(given_dim(node, dim), input)


def log_softmax(input: Tensor, dim: int | None = None, dtype: Any = None) -> Tensor:  # noqa: A002
    """log(softmax(input)) along `dim`, computed without overflow (LogSoftmaxBackward0)."""
    if dtype is not None:
        input = input.to(dtype)  # noqa: A001
    check_softmax_input(input, dim, "log_softmax")
    node = LogSoftmaxBackward0(softmax_dim(input.ndim, dim, "log_softmax"))
    return apply(given_dim(node, dim), input)


# --------------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------------


def _check_target_size(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if input._array.shape != target._array.shape:
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
    broadcast_shapes(input._array.shape, target._array.shape)
    if not input.is_floating_point() and not target.is_floating_point():
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{input.dtype.torch_kind}'")
    if target._array.dtype != input._array.dtype:  # torch computes in the promoted float dtype
        if not target.is_floating_point():
            target = target.to(input.dtype)
        elif not input.is_floating_point():
            input = input.to(target.dtype)  # noqa: A001 - an integer input meets a float target
    return apply(MseLossBackward0(reduction), input, target)


def nll_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    """-input[i, target[i]] for log-probabilities `input` of shape (N, C) or (C,), or
    (N, C, d1, ...) with targets (N, d1, ...) (the classes along dim 1, as in torch)."""
    _check_reduction(reduction)
    if input.ndim > 2:  # (N, C, d1, ...): every position is one more sample
        classes = input.shape[1]
        flat = input.permute(0, *range(2, input.ndim), 1).reshape(-1, classes)
        loss = nll_loss(flat, target.reshape(-1), weight, ignore_index, reduction)
        return loss.view(*target.shape) if reduction == "none" else loss
    if target._array.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype.torch_kind}"
        )
    if input.ndim == 2 and target.ndim == 1 and input.shape[0] != target.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0]})."
        )
    classes = input.shape[-1] if input.ndim else 1
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
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
    label_smoothing: float = 0.0,
) -> Tensor:
    """Softmax cross-entropy for raw scores `input` (N, C) and int64 classes `target` (N,).

    Computed as torch does, nll_loss(log_softmax(input, 1)): the graph shows NllLossBackward0
    on top of LogSoftmaxBackward0.
    """
    class_dim = 0 if input.ndim == 1 else 1
    log_probs = log_softmax(input, class_dim)
    if target.is_floating_point() and target.shape == input.shape:  # class probabilities
        _check_reduction(reduction)
        if reduction == "none":
            return -(log_probs * target).sum(class_dim)
        total = -(log_probs * target).sum()  # torch: the sum, negated, then / N for the mean
        if reduction == "sum":
            return total
        return apply(DivBackward1(input.shape[0] if input.ndim > 1 else 1), total)
    loss = nll_loss(log_probs, target, weight, ignore_index, reduction)
    if not label_smoothing:
        return loss
    # torch's label smoothing: mix in the loss against the uniform distribution over classes
    smooth = -log_probs.mean(class_dim)
    return (1 - label_smoothing) * loss + label_smoothing * _reduce_losses(smooth, reduction)


def _reduce_losses(losses: Tensor, reduction: str) -> Tensor:
    """Per-sample losses averaged, summed or kept."""
    if reduction == "mean":
        return losses.mean()
    return losses.sum() if reduction == "sum" else losses


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
    if target._array.dtype != input._array.dtype:
        raise RuntimeError(
            f"Found dtype {target.dtype.torch_kind} but expected {input.dtype.torch_kind}"
        )
    weights = None
    if weight is not None:  # spread over the target's shape first, as torch does (and saves)
        shape = broadcast_shapes(tuple(target.shape), tuple(weight.shape))
        weights = np.broadcast_to(weight._array, shape)
    node = BinaryCrossEntropyBackward0(weights, reduction)
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
    if not target.is_floating_point():
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {target.dtype.torch_kind}"
        )
    node = BinaryCrossEntropyWithLogitsBackward0(
        None if weight is None else weight._array,
        None if pos_weight is None else pos_weight._array,
        reduction,
    )
    return apply(node, input, target)
