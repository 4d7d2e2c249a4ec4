"""What `minigrad.nn.functional` records: the fused linear layer, embedding, leaky relu,
softmax and the losses, each one node named like torch's grad_fn, so a loss shows up in a
picture as one node, exactly where torch puts it."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._new_tensor import make_tensor
from .._shapes import wrap_dim
from ..dtypes import kind_word
from ..graph import Node, Save, unsigned
from ..versions import SECOND_BACKWARD_MESSAGE
from .formulas import clamp_min, constant, lift, record, sum_keepdim, zeros_like
from .linalg import mat1_gradient, mat2_gradient, strides_if_needed
from .unary import AbsBackward0, ExpBackward0, Log1PBackward0, LogBackward0, WhereBackward0
from .views import IndexBackward0, SavesIndices


def _reduce(values: np.ndarray, reduction: str) -> np.ndarray:
    """Apply 'mean' / 'sum' / 'none' to elementwise losses."""
    if reduction == "mean":
        if values.size == 0:
            return np.array(np.nan, dtype=values.dtype)  # torch's mean of nothing, no warning
        # the sum, then one division: numpy's mean does the same, through more Python steps
        return np.asarray(np.add.reduce(values, axis=None, dtype=values.dtype) / values.size)
    if reduction == "sum":
        return np.asarray(values.sum(dtype=values.dtype))
    return values


def _reduce_backward(grad: np.ndarray, shape: tuple[int, ...], reduction: str) -> np.ndarray:
    """The gradient reaching each elementwise loss (of `shape`), given the reduced loss's `grad`.

    For 'mean' and 'sum' it is one number for every loss, returned as a 0-d array: the formulas
    multiply it with arrays of the full shape, and broadcasting spreads it.
    """
    if reduction == "mean":
        return grad / max(math.prod(shape), 1)
    return grad


def _float(x: np.ndarray) -> np.ndarray:
    return x if x.dtype.kind == "f" else x.astype(np.float32)


class AddmmBackward0(Node):
    """addmm(self, mat1, mat2): self + mat1 @ mat2, torch's fused op behind `Linear` --
    self: grad (summed over the batch); mat1: grad @ mat2.T; mat2: mat1.T @ grad.

    `mat2` is `weight.t()`, a view: an optimizer step that changes the weight in place makes an
    older graph through this layer unusable, as in torch.
    """

    saves = (Save("mat1", input=1, needed_for=2), Save("mat2", input=2, needed_for=1))
    saved_numbers = (
        "alpha",
        "beta",
        "mat1_sym_sizes",
        "mat1_sym_strides",
        "mat2_sym_sizes",
        "mat2_sym_strides",
    )
    alpha = beta = 1  # (minigrad's addmm has no scaling: torch's defaults)
    input_strides: tuple[tuple[tuple[int, ...], int], ...] = ()

    def saved_number(self, name: str) -> Any:
        """The matrices' sizes and strides as torch's `_saved_mat1_sym_sizes`,
        `_saved_mat2_sym_strides`, ... (strides: `strides_if_needed`)."""
        number = 1 if name.startswith("mat1") else 2
        if name.endswith("_sym_sizes"):
            return tuple(self.input_shapes[number])
        if name.endswith("_sym_strides"):
            return strides_if_needed(self, number)
        return super().saved_number(name)

    def forward(self, bias: np.ndarray, mat1: np.ndarray, mat2: np.ndarray) -> np.ndarray:
        (n, k), (k2, m) = mat1.shape, mat2.shape
        if k != k2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        if mat1.dtype != mat2.dtype:
            raise RuntimeError(
                f"mat1 and mat2 must have the same dtype, but got {_kind(mat1)} and {_kind(mat2)}"
            )
        self.input_strides = (((), 1), (mat1.strides, mat1.itemsize), (mat2.strides, mat2.itemsize))
        product = mat1 @ mat2
        if bias.ndim == 1 and bias.dtype == product.dtype:  # Linear's bias: add it in place
            return np.add(product, bias, out=product)
        return product + bias

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        _, need_mat1, need_mat2 = self.needs_input_grad
        grad_mat1 = mat1_gradient(self, 1, grad, self.unpack("mat2")) if need_mat1 else None
        grad_mat2 = mat2_gradient(self, 2, grad, self.unpack("mat1")) if need_mat2 else None
        return grad, grad_mat1, grad_mat2


def _kind(array: np.ndarray) -> str:
    return kind_word(array.dtype)


class EmbeddingBackward0(SavesIndices):
    """embedding(weight, indices) -- weight: zeros with each grad row added at its index."""

    saved_numbers = (
        "indices",
        "padding_idx",
        "scale_grad_by_freq",
        "sparse",
        "weight_sym_argsize_0",
    )
    scale_grad_by_freq = sparse = False  # (options minigrad does not have: torch's defaults)

    def __init__(self, indices: np.ndarray, padding_idx: int | None) -> None:
        self.indices = indices
        self.padding_idx = padding_idx

    def rows(self) -> int:
        """The number of rows of the weight (the embedding's vocabulary)."""
        return self.input_shapes[0][0]

    def saved_number(self, name: str) -> Any:
        """The indices as a tensor; the padding row counted from the front, -1 (unsigned) for
        none, as torch shows them; the number of rows."""
        rows = self.rows()
        if name == "indices":
            return self.kept_tensor(self.indices)
        if name == "padding_idx":
            return unsigned(-1 if self.padding_idx is None else self.padding_idx % rows)
        if name == "weight_sym_argsize_0":
            return rows
        return super().saved_number(name)

    def forward(self, weight: np.ndarray) -> np.ndarray:
        rows = weight.shape[0]
        if self.indices.size and (self.indices.min() < 0 or self.indices.max() >= rows):
            raise IndexError("index out of range in self")
        return weight[self.indices]

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        self.check_indices()
        rows = self.rows()
        return (
            record(EmbeddingDenseBackwardBackward0(self.indices, self.padding_idx, rows), grad),
        )


class EmbeddingDenseBackwardBackward0(EmbeddingBackward0):
    """embedding_dense_backward(grad, indices, num_weights, padding_idx): embedding's backward
    as an op of its own, so that create_graph records torch's node: zeros of the weight's shape
    with each grad row added at its index (a repeated index collects every contribution), the
    padding row left at 0 -- grad: the rows at the indices (0 for the padding row)."""

    saved_numbers = ("indices", "padding_idx")

    def __init__(self, indices: np.ndarray, padding_idx: int | None, rows: int) -> None:
        super().__init__(indices, padding_idx)
        self.weight_rows = rows

    def rows(self) -> int:
        return self.weight_rows

    def forward(self, grad: np.ndarray) -> np.ndarray:
        full = np.zeros((self.weight_rows, grad.shape[-1]), dtype=grad.dtype)
        np.add.at(full, self.indices, grad)
        if self.padding_idx is not None:
            full[self.padding_idx] = 0
        return full

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        taken = record(IndexBackward0(self.indices), grad)
        if self.padding_idx is None:
            return (taken,)
        return (taken * constant(self.not_padding, taken),)

    def not_padding(self, taken: np.ndarray) -> np.ndarray:
        """1 for a row taken from anywhere but the padding row, 0 for those from it."""
        keep = self.indices % self.weight_rows != self.padding_idx % self.weight_rows
        return np.broadcast_to(keep[..., None], taken.shape).astype(taken.dtype)


class LeakyReluBackward0(Node):
    """leaky_relu(self, negative_slope) -- self: grad where self > 0, else grad * slope."""

    saves = (Save("self", input=0),)
    saved_numbers = ("negative_slope",)

    def __init__(self, negative_slope: float) -> None:
        self.negative_slope = negative_slope

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.where(x > 0, x, x * self.negative_slope).astype(x.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        slope = self.negative_slope
        return (record(LeakyReluBackwardBackward0(slope), grad, self.unpack("self")),)


class LeakyReluBackwardBackward0(Node):
    """leaky_relu_backward(grad_output, self, slope) = grad_output where self > 0, else
    grad_output * slope: leaky relu's formula as an op of its own, as in torch, so the gradient
    of a gradient stays connected to the input (WGAN-GP's penalty) -- grad_output: the same
    rule; self: zeros (flat almost everywhere)."""

    saves = (Save("self", input=1, needed_for=0),)
    saved_numbers = ("negative_slope",)

    def __init__(self, negative_slope: float) -> None:
        self.negative_slope = negative_slope

    def forward(self, grad_output: np.ndarray, x: np.ndarray) -> np.ndarray:
        scaled = grad_output * self.negative_slope
        return np.where(x > 0, grad_output, scaled).astype(grad_output.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_grad_output, need_x = self.needs_input_grad
        again = LeakyReluBackwardBackward0(self.negative_slope)
        return (
            record(again, grad, self.unpack("self")) if need_grad_output else None,
            constant(np.zeros_like, grad) if need_x else None,
        )


class _HardtanhBounds(Node):
    """What hardtanh's two nodes share: the bounds, shown as `_saved_min_val` / `_saved_max_val`."""

    saved_numbers = ("min_val", "max_val")

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def saved_number(self, name: str) -> Any:
        if name in ("min_val", "max_val"):
            return self.low if name == "min_val" else self.high
        return super().saved_number(name)


class HardtanhBackward0(_HardtanhBounds):
    """hardtanh(self, min_val, max_val) = self clipped to [min_val, max_val] -- self: grad
    where min_val < self < max_val, else 0."""

    saves = (Save("self", input=0),)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.clip(x, self.low, self.high).astype(x.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        node = HardtanhBackwardBackward0(self.low, self.high)
        return (record(node, grad, self.unpack("self")),)


class HardtanhBackwardBackward0(_HardtanhBounds):
    """hardtanh_backward(grad_output, self, min_val, max_val) = grad_output where min_val <
    self < max_val, else 0, as an op of its own (as torch) -- grad_output: the same rule;
    self: zeros."""

    saves = (Save("self", input=1, needed_for=0),)

    def forward(self, grad_output: np.ndarray, x: np.ndarray) -> np.ndarray:
        inside = (x > self.low) & (x < self.high)
        return np.where(inside, grad_output, 0).astype(grad_output.dtype, copy=False)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_grad_output, need_x = self.needs_input_grad
        again = HardtanhBackwardBackward0(self.low, self.high)
        return (
            record(again, grad, self.unpack("self")) if need_grad_output else None,
            constant(np.zeros_like, grad) if need_x else None,
        )


def softmax_dim(ndim: int, dim: int | None, name: str) -> int:
    """The dim of a softmax: torch's rule when none is given (with its deprecation warning)."""
    if dim is None:
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            "include dim=X as an argument.",
            UserWarning,
            stacklevel=4,
        )
        dim = 0 if ndim in (0, 1, 3) else 1
    return wrap_dim(dim, ndim)


def given_dim(node: Node, dim: int | None) -> Node:
    """`node`, showing `dim` as it was given (torch's `_saved_dim`), when one was given."""
    return node if dim is None else node.showing(dim=unsigned(dim))


def check_softmax_input(input: Any, dim: int | None, name: str) -> None:  # noqa: A002
    """torch has no integer softmax kernel (its message names the kernel it looked for)."""
    array = input._array
    if array.dtype.kind != "f":
        last = dim is None or array.ndim == 0 or wrap_dim(dim, array.ndim) == array.ndim - 1
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{kind_word(array.dtype)}'")


class SoftmaxBackward0(Node):
    """softmax(self, dim) -- self: result * (grad - (grad * result).sum(dim, keepdim=True))."""

    saves_result = True
    saved_numbers = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: np.ndarray) -> np.ndarray:
        x = _float(a)
        if x.ndim == 0:
            return np.ones_like(x)
        if x.size == 0:
            return x.copy()
        with np.errstate(invalid="ignore"):  # inf - inf is nan, quietly, as in torch
            shifted = np.exp(x - x.max(axis=self.dim, keepdims=True))  # no overflow for large x
            return shifted / shifted.sum(axis=self.dim, keepdims=True)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        s = self.unpack("result")
        if s.ndim == 0:
            return (grad * 0,)
        return (record(SoftmaxBackwardDataBackward0(self.dim), grad, s),)


class SoftmaxBackwardDataBackward0(Node):
    """_softmax_backward_data(grad_output, output, dim): softmax's backward as an op of its own,
    output * (grad_output - (grad_output * output).sum(dim)), so that create_graph records
    torch's node -- grad_output: the same op on grad; output: grad * grad_output
    - (output * grad_output).sum(dim) * grad - grad_output * (output * grad).sum(dim)."""

    saves = (Save("grad_output", input=0, needed_for=1), Save("output", input=1))
    saved_numbers = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, grad_output: np.ndarray, output: np.ndarray) -> np.ndarray:
        return output * (grad_output - sum_keepdim(grad_output * output, self.dim))

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_grad_output, need_output = self.needs_input_grad
        output = self.unpack("output")
        grad_output = self.unpack("grad_output") if need_output else None
        return (
            record(SoftmaxBackwardDataBackward0(self.dim), grad, output)
            if need_grad_output
            else None,
            grad_output * grad
            - sum_keepdim(output * grad_output, self.dim) * grad
            - grad_output * sum_keepdim(output * grad, self.dim)
            if need_output
            else None,
        )


class LogSoftmaxBackward0(Node):
    """log_softmax(self, dim) -- self: grad - exp(result) * grad.sum(dim, keepdim=True)."""

    saves_result = True
    saved_numbers = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: np.ndarray) -> np.ndarray:
        x = _float(a)
        if x.ndim == 0:
            return np.zeros_like(x)
        if x.size == 0:
            return x.copy()
        top = x.max(axis=self.dim, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):  # all -inf: nan, as in torch
            log_total = np.log(np.exp(x - top).sum(axis=self.dim, keepdims=True))
            return x - top - log_total

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        result = self.unpack("result")
        if result.ndim == 0:
            return (grad * 0,)
        return (record(LogSoftmaxBackwardDataBackward0(self.dim), grad, result),)


class LogSoftmaxBackwardDataBackward0(Node):
    """_log_softmax_backward_data(grad_output, output, dim): log_softmax's backward as an op of
    its own, grad_output - exp(output) * grad_output.sum(dim), so that create_graph records
    torch's node -- grad_output: grad - (grad * exp(output)).sum(dim);
    output: -grad_output.sum(dim) * exp(output) * grad."""

    saves = (Save("grad_output", input=0, needed_for=1), Save("output", input=1))
    saved_numbers = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, grad_output: np.ndarray, output: np.ndarray) -> np.ndarray:
        return grad_output - np.exp(output) * sum_keepdim(grad_output, self.dim)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_grad_output, need_output = self.needs_input_grad
        softmax_values = record(ExpBackward0(), self.unpack("output"))
        return (
            grad - sum_keepdim(grad * softmax_values, self.dim) if need_grad_output else None,
            -sum_keepdim(self.unpack("grad_output"), self.dim) * softmax_values * grad
            if need_output
            else None,
        )


# torch's Reduction enum: `_saved_reduction` of a loss's node shows the reduction's place here
REDUCTIONS = ("none", "mean", "sum")


class _ReducedLoss(Node):
    """What the loss nodes share: `_saved_reduction`, the reduction as torch's number, and the
    BCE losses' `_saved_weight` / `_saved_pos_weight`: None, or the weights as a tensor."""

    saved_numbers = ("reduction",)

    def saved_number(self, name: str) -> Any:
        if name == "reduction":
            return REDUCTIONS.index(self.reduction)
        if name in ("weight", "pos_weight"):
            weights = getattr(self, name)
            if weights is None:
                return None
            if self.raw_saved("self").freed:  # torch saves the weights with the inputs
                raise RuntimeError(SECOND_BACKWARD_MESSAGE)
            return make_tensor(self.tensor_class, weights.copy())
        return super().saved_number(name)


class MseLossBackward0(_ReducedLoss):
    """mse_loss(self, target, reduction) -- self: 2 * (self - target) * grad (reduced back);
    target: the same with the opposite sign."""

    saves = (Save("self", input=0), Save("target", input=1))

    def __init__(self, reduction: str) -> None:
        self.reduction = reduction

    def forward(self, x: np.ndarray, target: np.ndarray) -> np.ndarray:
        diff = x - target
        return _reduce(diff * diff, self.reduction)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        # torch's formulas: mse_loss_backward(grad, self, target) and, for the target, the same
        # with the two swapped (an op of its own, so that create_graph records torch's node)
        need_self, need_target = self.needs_input_grad
        x, target = self.unpack("self"), self.unpack("target")
        return (
            record(MseLossBackwardBackward0(self.reduction), grad, x, target)
            if need_self
            else None,
            record(MseLossBackwardBackward0(self.reduction), grad, target, x)
            if need_target
            else None,
        )


class MseLossBackwardBackward0(_ReducedLoss):
    """mse_loss_backward(grad_output, self, target): 2 * (self - target) * grad_output (divided
    by the number of elements for 'mean') -- grad_output: grad * 2 * (self - target), summed
    for 'mean' and 'sum' (divided as above); self: 2 * grad * grad_output (divided as above);
    target: the same with the opposite sign."""

    saves = (Save("grad_output", input=0), Save("self", input=1), Save("target", input=2))

    def __init__(self, reduction: str) -> None:
        self.reduction = reduction

    def forward(self, grad_output: np.ndarray, x: np.ndarray, target: np.ndarray) -> np.ndarray:
        return 2 * (x - target) * _reduce_backward(grad_output, x.shape, self.reduction)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, ...]:
        need_grad_output, need_self, need_target = self.needs_input_grad
        x, target = self.unpack("self"), self.unpack("target")
        grad_grad_output = None
        if need_grad_output:
            local = _reduce_backward(2 * (x - target), x.shape, self.reduction)
            grad_grad_output = grad * local if self.reduction == "none" else (grad * local).sum()
        grad_self = None
        if need_self or need_target:
            spread = 2 * grad * self.unpack("grad_output")
            grad_self = _reduce_backward(spread, x.shape, self.reduction)
        return (
            grad_grad_output,
            grad_self if need_self else None,
            -grad_self if need_target else None,
        )


class NllLossBackward0(SavesIndices, _ReducedLoss):
    """nll_loss(self, target, weight, reduction, ignore_index) -- self: -weight[target] * grad
    at each sample's target class (divided by the total weight for 'mean'), 0 elsewhere.

    The integer target is not differentiable, so it is no edge of the graph; it is kept as an
    array. With 'mean' the losses are divided by the total weight of the counted samples.
    torch keeps the input too (`_saved_self`), so changing it in place makes backward fail.
    """

    saves = (Save("self", input=0),)
    saved_numbers = ("ignore_index", "reduction", "target", "total_weight", "weight")

    def __init__(
        self, target: np.ndarray, weight: np.ndarray | None, ignore_index: int, reduction: str
    ) -> None:
        self.target = target
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = reduction

    def saved_number(self, name: str) -> Any:
        """The target and the total weight as tensors, ignore_index unsigned, as torch shows
        them (the reduction and the weights: see _ReducedLoss)."""
        if name == "target":
            return self.kept_tensor(self.target)
        if name == "total_weight":
            return self.kept_tensor(self.total_weight)
        if name == "ignore_index":
            return unsigned(self.ignore_index)
        return super().saved_number(name)

    def forward(self, log_probs: np.ndarray) -> np.ndarray:
        x, safe_target = self.weigh(log_probs)
        losses = -x[np.arange(x.shape[0]), safe_target] * self.sample_weight
        if self.reduction == "none":
            return losses.reshape(log_probs.shape[:-1])
        total = losses.sum(dtype=x.dtype)
        if self.reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                total = total / self.total_weight  # nan when every sample is ignored, as torch
        return np.asarray(total, dtype=x.dtype)

    def weigh(self, log_probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Check the target; note each sample's weight (0 for an ignored one) and their total;
        return the log-probabilities as rows x classes and the target with 0 where ignored."""
        x, target = log_probs, self.target
        if x.ndim == 1:  # one sample without a batch dimension
            x, target = x[None, :], target.reshape(1)
        counted = target != self.ignore_index
        wrong = counted & ((target < 0) | (target >= x.shape[1]))
        if np.any(wrong):
            raise IndexError(f"Target {int(target[wrong][0])} is out of bounds.")
        self.safe_target = safe_target = np.where(counted, target, 0)
        weights = np.ones(x.shape[1], dtype=x.dtype) if self.weight is None else self.weight
        self.sample_weight = (weights[safe_target] * counted).astype(x.dtype)
        self.total_weight = self.sample_weight.sum()
        return x, safe_target

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        self.check_indices()
        log_probs = self.unpack("self")  # (as torch reads it: fails if changed in place)
        return (record(NllLossBackwardBackward0(self), grad, log_probs),)


class NllLossBackwardBackward0(NllLossBackward0):
    """nll_loss_backward(grad_output, self, target, ...): nll_loss's backward as an op of its
    own, so that create_graph records torch's node -- grad_output: nll_loss(grad, target, ...);
    self: zeros (the gradient does not depend on the log-probabilities' values)."""

    saves = ()
    saved_numbers = ("ignore_index", "reduction", "target", "weight")

    def __init__(self, loss: NllLossBackward0) -> None:
        super().__init__(loss.target, loss.weight, loss.ignore_index, loss.reduction)
        # the target checked and the weights computed by the loss's forward, not again here
        self.safe_target, self.sample_weight = loss.safe_target, loss.sample_weight
        self.total_weight = loss.total_weight

    def forward(self, grad_output: np.ndarray, log_probs: np.ndarray) -> np.ndarray:
        shape = log_probs.shape
        rows, safe_target = self.safe_target.shape[0], self.safe_target
        per_sample = grad_output if self.reduction == "none" else np.broadcast_to(grad_output, rows)
        per_sample = per_sample.reshape((rows, 1)) * self.sample_weight[:, None]
        if self.reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                per_sample = per_sample / float(self.total_weight)
        at_target = np.zeros((rows, shape[-1]), dtype=per_sample.dtype)  # 1 at each class
        at_target[np.arange(rows), safe_target] = 1  # (an ignored sample's weight is 0)
        return (-per_sample * at_target).reshape(shape)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        need_grad_output, need_log_probs = self.needs_input_grad
        loss = NllLossBackward0(self.target, self.weight, self.ignore_index, self.reduction)
        return (
            record(loss, grad) if need_grad_output else None,
            zeros_like(grad) if need_log_probs else None,
        )


class BinaryCrossEntropyBackward0(_ReducedLoss):
    """binary_cross_entropy(self, target, weight) on probabilities p --
    self: grad * (p - t) / max(p * (1 - p), 1e-12); target: -logit(p) * grad (inf and -inf at
    p = 0 and 1, as torch's).

    As torch, each log of the loss is clamped at -100, so p = 0 or 1 gives a finite loss.
    """

    saves = (Save("self", input=0), Save("target", input=1))
    saved_numbers = ("reduction", "weight")

    def __init__(self, weight: np.ndarray | None, reduction: str) -> None:
        self.weight = weight
        self.reduction = reduction

    def forward(self, p: np.ndarray, t: np.ndarray) -> np.ndarray:
        if np.any((p < 0) | (p > 1)):
            raise RuntimeError("all elements of input should be between 0 and 1")
        with np.errstate(divide="ignore"):
            log_p = np.maximum(np.log(p), -100)
            log_not_p = np.maximum(np.log1p(-p), -100)
        losses = -(t * log_p + (1 - t) * log_not_p)
        if self.weight is not None:
            losses = losses * self.weight
        return _reduce(losses.astype(p.dtype, copy=False), self.reduction)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # torch's binary_cross_entropy_backward and _target_backward, step by step in its order
        # (the same rounding); the weight, then the mean's division, come last
        p, t = self.unpack("self"), self.unpack("target")
        grad_p = grad * (p - t) / clamp_min(p * (1 - p), 1e-12)
        grad_t = None
        if self.needs_input_grad[1]:
            with np.errstate(divide="ignore"):  # p = 0 or 1: the logit is -inf or inf, as torch
                logit = record(LogBackward0(), p / (1 - p))
            grad_t = -logit * grad
        weight = None if self.weight is None else lift(self.weight, grad)
        return self._weighed(grad_p, weight), self._weighed(grad_t, weight)

    def _weighed(self, value: np.ndarray | None, weight: np.ndarray | None) -> np.ndarray | None:
        """`value` times the weight (if any), divided by the number of losses for 'mean'."""
        if value is None:
            return None
        if weight is not None:
            value = value * weight
        return _reduce_backward(value, self.input_shapes[0], self.reduction)


class BinaryCrossEntropyWithLogitsBackward0(_ReducedLoss):
    """binary_cross_entropy_with_logits(self, target, weight, pos_weight) on raw scores x --
    self: grad * (sigmoid(x) - t) (with pos_weight: grad * ((1 - t) - c * (1 - sigmoid(x))));
    target: grad * -x (plus (pos_weight - 1) * softplus(-x) with pos_weight).

    Per element, with c = 1 + (pos_weight - 1) * t:
    loss = (1 - t) * x + c * softplus(-x), and softplus(-x) = max(-x, 0) + log1p(exp(-|x|)).
    """

    saves = (Save("self", input=0), Save("target", input=1))
    saved_numbers = ("pos_weight", "reduction", "weight")

    def __init__(
        self, weight: np.ndarray | None, pos_weight: np.ndarray | None, reduction: str
    ) -> None:
        self.weight = weight
        self.pos_weight = pos_weight
        self.reduction = reduction

    def forward(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        softplus_neg = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
        scale = 1 if self.pos_weight is None else 1 + (self.pos_weight - 1) * t
        losses = (1 - t) * x + scale * softplus_neg
        if self.weight is not None:
            losses = losses * self.weight
        return _reduce(losses.astype(x.dtype, copy=False), self.reduction)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, t = self.unpack("self"), self.unpack("target")
        shape = np.broadcast_shapes(tuple(x.shape), tuple(t.shape))
        upstream = _reduce_backward(grad, shape, self.reduction)
        if self.weight is not None:
            upstream = upstream * lift(self.weight, grad)
        exp_neg_abs = record(ExpBackward0(), -record(AbsBackward0(), x))
        sig = record(
            WhereBackward0(), x >= 0, 1 / (1 + exp_neg_abs), exp_neg_abs / (1 + exp_neg_abs)
        )
        if self.pos_weight is None:
            grad_x = sig - t
            grad_t = -x
        else:
            pos_weight = lift(self.pos_weight, grad)
            scale = 1 + (pos_weight - 1) * t
            grad_x = (1 - t) - scale * (1 - sig)
            softplus_neg = clamp_min(-x, 0) + record(Log1PBackward0(), exp_neg_abs)
            grad_t = -x + (pos_weight - 1) * softplus_neg
        return upstream * grad_x, upstream * grad_t
