"""Functions behind the layers and losses: `minigrad.nn.functional`, used as `F` like torch's.

The ops the engine does not have are defined here the same way `ops.py` defines its own: one
`Node` subclass per op, named like torch's `grad_fn` (`AddmmBackward0`, `LogSoftmaxBackward0`,
`NllLossBackward0`, ...), with `forward` and `backward` side by side. A loss therefore shows up in
a graph picture as one node, exactly where torch puts it.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..autograd import Node
from ..creation import generator
from ..ops import run_op
from ..tensor import Tensor

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


def _reduce(values: np.ndarray, reduction: str) -> np.ndarray:
    """Apply 'mean' / 'sum' / 'none' to elementwise losses."""
    if reduction == "mean":
        return np.asarray(values.mean(dtype=values.dtype))
    if reduction == "sum":
        return np.asarray(values.sum(dtype=values.dtype))
    return values


def _reduce_backward(grad: np.ndarray, shape: tuple[int, ...], reduction: str) -> np.ndarray:
    """The gradient reaching each elementwise loss, for the gradient `grad` of the reduced one."""
    if reduction == "mean":
        return np.broadcast_to(grad / max(int(np.prod(shape)), 1), shape)
    if reduction == "sum":
        return np.broadcast_to(grad, shape)
    return grad


# --------------------------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------------------------


class AddmmBackward0(Node):
    """bias + mat1 @ mat2, torch's fused op behind `Linear` (mat2 is `weight.t()`, a view).

    Saving `mat2` saves a view of the weight: an optimizer step that changes the weight in place
    makes an older graph through this layer unusable, as in torch.
    """

    def forward(self, bias: Tensor, mat1: Tensor, mat2: Tensor) -> np.ndarray:
        (n, k), (k2, m) = mat1._array.shape, mat2._array.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        if mat1._array.dtype != mat2._array.dtype:
            raise RuntimeError(
                "mat1 and mat2 must have the same dtype, but got "
                f"{mat1.dtype.torch_kind} and {mat2.dtype.torch_kind}"
            )
        if mat2.requires_grad:
            self.save("mat1", mat1)
        if mat1.requires_grad:
            self.save("mat2", mat2)
        return mat1._array @ mat2._array + bias._array

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        grad_mat1 = grad @ self.unpack("mat2").T if "mat2" in self.saved else None
        grad_mat2 = self.unpack("mat1").T @ grad if "mat1" in self.saved else None
        return grad, grad_mat1, grad_mat2  # the engine sums grad over the batch for the bias


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """input @ weight.T + bias, recorded with torch's nodes (AddmmBackward0, or MmBackward0).

    Inputs with other than 2 dimensions are flattened to 2-D and reshaped back, as torch does.
    """
    if input.ndim == 2:
        if bias is None:
            return input @ weight.t()
        return run_op(AddmmBackward0(), bias, input, weight.t())
    leading = tuple(input.shape[:-1])
    flat = linear(input.reshape(-1, input.shape[-1]), weight, bias)
    return flat.view(*leading, weight.shape[0])


class EmbeddingBackward0(Node):
    """Rows of `weight` picked by integer indices; backward adds each gradient to its row."""

    def __init__(self, indices: np.ndarray, padding_idx: int | None) -> None:
        super().__init__()
        self.indices = indices
        self.padding_idx = padding_idx

    def forward(self, weight: Tensor) -> np.ndarray:
        return weight._array[self.indices]

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        full = np.zeros(self.input_shapes[0], dtype=grad.dtype)
        np.add.at(full, self.indices, grad)  # a repeated index collects every contribution
        if self.padding_idx is not None:
            full[self.padding_idx] = 0
        return (full,)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None) -> Tensor:  # noqa: A002
    """Look up rows of `weight` for the integer tensor `input` (any shape)."""
    if input._array.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.dtype.torch_kind} instead"
        )
    return run_op(EmbeddingBackward0(input._array.astype(np.int64), padding_idx), weight)


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


class LeakyReluBackward0(Node):
    """x where x > 0, negative_slope * x elsewhere; the gradient is 1 or negative_slope."""

    def __init__(self, negative_slope: float) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, a: Tensor) -> np.ndarray:
        self.save("self", a)
        x = a._array
        return np.where(x > 0, x, x * self.negative_slope).astype(x.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (np.where(self.unpack("self") > 0, grad, grad * self.negative_slope),)


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    """max(x, 0) + negative_slope * min(x, 0) (LeakyReluBackward0)."""
    return run_op(LeakyReluBackward0(negative_slope), input)


def dropout(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:  # noqa: A002
    """In training, zero each element with probability p and scale the rest by 1 / (1 - p).

    Recorded as a multiplication by a random mask (MulBackward0), as in torch. Outside training
    the input is returned as it is: `model.eval()` switches dropout off, but it does not stop
    the graph from being recorded (that is what `no_grad` is for).
    """
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    keep = generator().random(input._array.shape) >= p
    scale = 0.0 if p == 1 else 1 / (1 - p)
    mask = Tensor._from_array((keep * scale).astype(_float(input).dtype))
    return input * mask


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
    return dim % max(ndim, 1)


def _float(input: Tensor) -> np.ndarray:  # noqa: A002
    array = input._array
    return array if array.dtype.kind == "f" else array.astype(np.float32)


class SoftmaxBackward0(Node):
    """exp(x) / sum(exp(x)) along `dim`; backward uses its own output s: s * (g - sum(g * s))."""

    saves_result = True

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, a: Tensor) -> np.ndarray:
        x = _float(a)
        shifted = np.exp(x - x.max(axis=self.dim, keepdims=True))  # no overflow for large x
        return shifted / shifted.sum(axis=self.dim, keepdims=True)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        s = self.unpack("result")
        return (s * (grad - (grad * s).sum(axis=self.dim, keepdims=True)),)


class LogSoftmaxBackward0(Node):
    """x - log(sum(exp(x))) along `dim`; backward: g - softmax * sum(g), from its own output."""

    saves_result = True

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, a: Tensor) -> np.ndarray:
        x = _float(a)
        top = x.max(axis=self.dim, keepdims=True)
        log_total = np.log(np.exp(x - top).sum(axis=self.dim, keepdims=True))
        return x - top - log_total

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        softmax_values = np.exp(self.unpack("result"))
        return (grad - softmax_values * grad.sum(axis=self.dim, keepdims=True),)


def softmax(input: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """Softmax along `dim` (SoftmaxBackward0)."""
    return run_op(SoftmaxBackward0(_softmax_dim(input.ndim, dim, "softmax")), input)


def log_softmax(input: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """log(softmax(input)) along `dim`, computed without overflow (LogSoftmaxBackward0)."""
    return run_op(LogSoftmaxBackward0(_softmax_dim(input.ndim, dim, "log_softmax")), input)


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


class MseLossBackward0(Node):
    """Mean squared error; both the input and the target receive a gradient (opposite signs)."""

    def __init__(self, reduction: str) -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> np.ndarray:  # noqa: A002
        self.save("self", input)
        self.save("target", target)
        diff = input._array - target._array
        return _reduce(diff * diff, self.reduction)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        diff = self.unpack("self") - self.unpack("target")
        grad_input = 2 * diff * _reduce_backward(grad, diff.shape, self.reduction)
        return grad_input, -grad_input


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Squared error (input - target) ** 2, averaged, summed or kept elementwise."""
    _check_reduction(reduction)
    _check_target_size(input, target)
    return run_op(MseLossBackward0(reduction), input, target)


class NllLossBackward0(Node):
    """Negative log-likelihood: minus the log-probability of each sample's class.

    The integer target is not differentiable, so it is no edge of the graph; it is only saved.
    With 'mean' the losses are divided by the total weight of the counted samples.
    """

    def __init__(
        self, target: Tensor, weight: np.ndarray | None, ignore_index: int, reduction: str
    ) -> None:
        super().__init__()
        self.target = target
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, log_probs: Tensor) -> np.ndarray:
        self.save("target", self.target)
        x = log_probs._array
        target = self.target._array
        if x.ndim == 1:  # one sample without a batch dimension
            x, target = x[None, :], target.reshape(1)
        counted = target != self.ignore_index
        safe_target = np.where(counted, target, 0)
        if np.any((safe_target < 0) | (safe_target >= x.shape[1])):
            raise IndexError(f"Target {int(target[counted].max())} is out of bounds.")
        weights = np.ones(x.shape[1], dtype=x.dtype) if self.weight is None else self.weight
        self.sample_weight = (weights[safe_target] * counted).astype(x.dtype)
        self.total_weight = self.sample_weight.sum()
        losses = -x[np.arange(x.shape[0]), safe_target] * self.sample_weight
        if self.reduction == "none":
            return losses.reshape(log_probs._array.shape[:-1])
        total = losses.sum(dtype=x.dtype)
        if self.reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                total = total / self.total_weight  # nan when every sample is ignored, as torch
        return np.asarray(total, dtype=x.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        shape = self.input_shapes[0]
        target = self.unpack("target")
        rows = 1 if len(shape) == 1 else shape[0]
        target = target.reshape(rows)
        per_sample = np.broadcast_to(grad, (rows,)) if self.reduction != "none" else grad
        per_sample = per_sample.reshape(rows) * self.sample_weight
        if self.reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                per_sample = per_sample / self.total_weight
        full = np.zeros((rows, shape[-1]), dtype=grad.dtype)
        full[np.arange(rows), np.where(target != self.ignore_index, target, 0)] = -per_sample
        return (full.reshape(shape),)


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
    if target._array.dtype.kind not in "iu":
        raise RuntimeError(
            f"expected scalar type Long but found {target.dtype.torch_kind}"
            " (class targets must be int64; probability targets are not supported)"
        )
    weights = None if weight is None else weight._array.astype(input._array.dtype)
    node = NllLossBackward0(target.detach(), weights, ignore_index, reduction)
    return run_op(node, input)


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


class BinaryCrossEntropyBackward0(Node):
    """Binary cross-entropy on probabilities p: -(t log p + (1 - t) log(1 - p)).

    As torch, each log is clamped at -100, so p = 0 or 1 gives a finite loss, and the gradient
    divides by max(p (1 - p), 1e-12).
    """

    def __init__(self, weight: np.ndarray | None, reduction: str) -> None:
        super().__init__()
        self.weight = weight
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> np.ndarray:  # noqa: A002
        p, t = input._array, target._array
        if np.any((p < 0) | (p > 1)):
            raise RuntimeError("all elements of input should be between 0 and 1")
        self.save("self", input)
        self.save("target", target)
        with np.errstate(divide="ignore"):
            log_p = np.maximum(np.log(p), -100)
            log_not_p = np.maximum(np.log1p(-p), -100)
        losses = -(t * log_p + (1 - t) * log_not_p)
        if self.weight is not None:
            losses = losses * self.weight
        return _reduce(losses.astype(p.dtype, copy=False), self.reduction)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p, t = self.unpack("self"), self.unpack("target")
        upstream = _reduce_backward(grad, p.shape, self.reduction)
        if self.weight is not None:
            upstream = upstream * self.weight
        grad_p = upstream * (p - t) / np.maximum(p * (1 - p), 1e-12)
        with np.errstate(divide="ignore"):
            grad_t = upstream * (np.maximum(np.log1p(-p), -100) - np.maximum(np.log(p), -100))
        return grad_p, grad_t


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
    return run_op(node, input, target)


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """Binary cross-entropy on raw scores x, computed without overflow.

    Per element, with c = 1 + (pos_weight - 1) * t:
    loss = (1 - t) * x + c * softplus(-x), and softplus(-x) = max(-x, 0) + log1p(exp(-|x|)).
    """

    def __init__(
        self, weight: np.ndarray | None, pos_weight: np.ndarray | None, reduction: str
    ) -> None:
        super().__init__()
        self.weight = weight
        self.pos_weight = pos_weight
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> np.ndarray:  # noqa: A002
        self.save("self", input)
        self.save("target", target)
        x, t = input._array, target._array
        softplus_neg = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
        scale = 1 if self.pos_weight is None else 1 + (self.pos_weight - 1) * t
        losses = (1 - t) * x + scale * softplus_neg
        if self.weight is not None:
            losses = losses * self.weight
        return _reduce(losses.astype(x.dtype, copy=False), self.reduction)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, t = self.unpack("self"), self.unpack("target")
        shape = np.broadcast_shapes(x.shape, t.shape)
        upstream = _reduce_backward(grad, shape, self.reduction)
        if self.weight is not None:
            upstream = upstream * self.weight
        exp_neg_abs = np.exp(-np.abs(x))
        sig = np.where(x >= 0, 1 / (1 + exp_neg_abs), exp_neg_abs / (1 + exp_neg_abs))
        if self.pos_weight is None:
            grad_x = sig - t
            grad_t = -x
        else:
            scale = 1 + (self.pos_weight - 1) * t
            grad_x = (1 - t) - scale * (1 - sig)
            softplus_neg = np.maximum(-x, 0) + np.log1p(exp_neg_abs)
            grad_t = -x + (self.pos_weight - 1) * softplus_neg
        return upstream * grad_x, upstream * grad_t


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
    return run_op(node, input, target)
