"""The function forms torch has beside the methods: `minigrad.sigmoid(x)` is `x.sigmoid()`,
`minigrad.where(c, x, y)` is `x.where(c, y)`, and so on; plus cat and stack, which join
several tensors (CatBackward0, StackBackward0)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._convert import type_name
from ._shapes import wrap_dim
from ._tensor import Tensor, apply
from .functions import views
from .grad_mode import is_grad_enabled, no_grad
from .methods.reductions import MaxResult

__all__ = [
    "sin",
    "cos",
    "square",
    "minimum",
    "maximum",
    "prod",
    "narrow",
    "select",
    "diagonal",
    "split_with_sizes",
    "abs",
    "add",
    "allclose",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cat",
    "chunk",
    "clamp",
    "clip",
    "clone",
    "detach",
    "div",
    "equal",
    "exp",
    "flatten",
    "gather",
    "is_inference",
    "is_tensor",
    "log",
    "log1p",
    "masked_fill",
    "matmul",
    "max",
    "mean",
    "min",
    "mul",
    "neg",
    "norm",
    "numel",
    "permute",
    "pow",
    "relu",
    "reshape",
    "round",
    "sigmoid",
    "sign",
    "split",
    "sqrt",
    "squeeze",
    "stack",
    "std",
    "sub",
    "sum",
    "t",
    "tanh",
    "transpose",
    "unbind",
    "unsqueeze",
    "var",
    "where",
]


def _tensor(value: object, name: str, function: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{function}(): argument '{name}' (position 1) must be Tensor, not "
            f"{type(value).__name__}"
        )
    return value


def _other(value: object, function: str) -> object:
    """The second operand of a function form (`minigrad.add(t, other)`): a tensor or a number,
    with torch's TypeError (position 2) for anything else."""
    if not isinstance(value, (Tensor, numbers.Number, np.number, np.bool_)):
        raise TypeError(
            f"{function}(): argument 'other' (position 2) must be Tensor, not {type_name(value)}"
        )
    return value


def is_tensor(value: object) -> bool:
    """True for a minigrad Tensor."""
    return isinstance(value, Tensor)


def is_inference(input: Tensor) -> bool:  # noqa: A002
    """True for an inference tensor (made inside `inference_mode()`)."""
    return _tensor(input, "input", "is_inference").is_inference()


def numel(input: Tensor) -> int:  # noqa: A002 - torch's argument names, here and below
    """The number of elements."""
    return _tensor(input, "input", "numel").numel()


def clone(input: Tensor, *, memory_format: object = None) -> Tensor:  # noqa: A002
    """A copy in new memory, still in the graph (CloneBackward0)."""
    return _tensor(input, "input", "clone").clone()


def detach(input: Tensor) -> Tensor:  # noqa: A002
    """A tensor on the same memory and version counter, outside the graph."""
    return _tensor(input, "input", "detach").detach()


def _into(out: Tensor | None, name: str, inputs: tuple[object, ...], compute: Any) -> Tensor:
    """torch's `out=` argument: the result written into `out`, which is returned.

    Writing into a tensor cannot be recorded, so torch refuses it while grad mode is on and an
    input or `out` requires grad; otherwise the result is copied into out's memory (an
    in-place change: out's version goes up)."""
    if out is None:
        return compute()
    tensors = [value for value in (*inputs, out) if isinstance(value, Tensor)]
    if is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    with no_grad():
        return out.copy_(compute())


def add(
    input: Tensor,  # noqa: A002
    other: object,
    *,
    alpha: float = 1,
    out: Tensor | None = None,
) -> Tensor:
    """input + alpha * other (out: write the result into that tensor)."""
    first = _tensor(input, "input", "add")
    return _into(out, "add", (input, other), lambda: first.add(_other(other, "add"), alpha=alpha))


def sub(input: Tensor, other: object, *, alpha: float = 1) -> Tensor:  # noqa: A002
    """input - alpha * other."""
    return _tensor(input, "input", "sub").sub(_other(other, "sub"), alpha=alpha)


def mul(input: Tensor, other: object, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """input * other (out: write the result into that tensor)."""
    first = _tensor(input, "input", "mul")
    return _into(out, "mul", (input, other), lambda: first.mul(_other(other, "mul")))


def div(input: Tensor, other: object, *, rounding_mode: str | None = None) -> Tensor:  # noqa: A002
    """input / other (rounding_mode 'trunc' or 'floor' rounds the quotient)."""
    return _tensor(input, "input", "div").div(_other(other, "div"), rounding_mode=rounding_mode)


def pow(input: Tensor, exponent: object) -> Tensor:  # noqa: A001, A002
    """input ** exponent."""
    return _tensor(input, "input", "pow").pow(exponent)


def neg(input: Tensor) -> Tensor:  # noqa: A002
    """-input."""
    return _tensor(input, "input", "neg").neg()


def matmul(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """Matrix product (1-D, 2-D and batched)."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"matmul(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    return _tensor(input, "input", "matmul").matmul(other)


def exp(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """e ** input (out: write the result into that tensor)."""
    return _into(out, "exp", (input,), _tensor(input, "input", "exp").exp)


def sin(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """Sine, elementwise (out: write the result into that tensor)."""
    return _into(out, "sin", (input,), _tensor(input, "input", "sin").sin)


def cos(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """Cosine, elementwise (out: write the result into that tensor)."""
    return _into(out, "cos", (input,), _tensor(input, "input", "cos").cos)


def square(input: Tensor) -> Tensor:  # noqa: A002
    """input ** 2."""
    return _tensor(input, "input", "square").square()


def minimum(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The smaller of the two, elementwise."""
    return _tensor(input, "input", "minimum").minimum(_tensor(other, "other", "minimum"))


def maximum(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The larger of the two, elementwise."""
    return _tensor(input, "input", "maximum").maximum(_tensor(other, "other", "maximum"))


def log(input: Tensor) -> Tensor:  # noqa: A002
    """Natural logarithm."""
    return _tensor(input, "input", "log").log()


def log1p(input: Tensor) -> Tensor:  # noqa: A002
    """log(1 + input)."""
    return _tensor(input, "input", "log1p").log1p()


def sqrt(input: Tensor) -> Tensor:  # noqa: A002
    """Square root."""
    return _tensor(input, "input", "sqrt").sqrt()


def abs(input: Tensor) -> Tensor:  # noqa: A001, A002
    """Absolute value."""
    return _tensor(input, "input", "abs").abs()


def sign(input: Tensor) -> Tensor:  # noqa: A002
    """-1, 0 or 1 by sign."""
    return _tensor(input, "input", "sign").sign()


def round(input: Tensor) -> Tensor:  # noqa: A001, A002
    """Round half to even."""
    return _tensor(input, "input", "round").round()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """1 / (1 + exp(-input))."""
    return _tensor(input, "input", "sigmoid").sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    """Hyperbolic tangent."""
    return _tensor(input, "input", "tanh").tanh()


def relu(input: Tensor) -> Tensor:  # noqa: A002
    """max(input, 0)."""
    return _tensor(input, "input", "relu").relu()


def clamp(input: Tensor, min: float | None = None, max: float | None = None) -> Tensor:  # noqa: A001, A002
    """Limit values to [min, max]."""
    return _tensor(input, "input", "clamp").clamp(min, max)


clip = clamp


def where(condition: Tensor, input: object = None, other: object = None) -> Any:  # noqa: A002
    """input where condition is true, other elsewhere; with the condition alone, the indices
    where it is true (one tensor per dim)."""
    condition = _tensor(condition, "condition", "where")
    if input is None and other is None:
        return tuple(Tensor(i) for i in condition._array.nonzero())
    if input is None or other is None:
        given = ", ".join(type(v).__name__ for v in (condition, input, other) if v is not None)
        raise TypeError(
            f"where() received an invalid combination of arguments - got ({given}), but "
            "expected one of:\n (see help(minigrad.where))"
        )
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            input = Tensor(input)
        else:
            input = other._wrap(input)
    return input.where(condition, other)


def sum(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A001, A002
    """Sum of all elements, or along `dim`."""
    return _tensor(input, "input", "sum").sum(*args, **kwargs)


def mean(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Mean of all elements, or along `dim`."""
    return _tensor(input, "input", "mean").mean(*args, **kwargs)


def max(input: Tensor, *args: Any, **kwargs: Any) -> Tensor | MaxResult:  # noqa: A001, A002
    """Maximum of all elements, or (values, indices) along `dim`."""
    return _tensor(input, "input", "max").max(*args, **kwargs)


def min(input: Tensor, *args: Any, **kwargs: Any) -> Tensor | MaxResult:  # noqa: A001, A002
    """Minimum of all elements, or (values, indices) along `dim`."""
    return _tensor(input, "input", "min").min(*args, **kwargs)


def amax(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Maximum along dims."""
    return _tensor(input, "input", "amax").amax(*args, **kwargs)


def amin(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Minimum along dims."""
    return _tensor(input, "input", "amin").amin(*args, **kwargs)


def argmax(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Index of the maximum."""
    return _tensor(input, "input", "argmax").argmax(*args, **kwargs)


def argmin(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Index of the minimum."""
    return _tensor(input, "input", "argmin").argmin(*args, **kwargs)


def std(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Standard deviation."""
    return _tensor(input, "input", "std").std(*args, **kwargs)


def var(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Variance."""
    return _tensor(input, "input", "var").var(*args, **kwargs)


def norm(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """The p-norm (2 by default)."""
    return _tensor(input, "input", "norm").norm(*args, **kwargs)


def allclose(
    input: Tensor,
    other: Tensor,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    equal_nan: bool = False,  # noqa: A002
) -> bool:
    """True when all values are close: |input - other| <= atol + rtol * |other|."""
    return _tensor(input, "input", "allclose").allclose(other, rtol, atol, equal_nan)


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    """True when both have the same shape and values."""
    return _tensor(input, "input", "equal").equal(other)


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    """Values picked along `dim` at `index`."""
    return _tensor(input, "input", "gather").gather(dim, index)


def masked_fill(input: Tensor, mask: Tensor, value: float) -> Tensor:  # noqa: A002
    """`value` where `mask` is true."""
    return _tensor(input, "input", "masked_fill").masked_fill(mask, value)


def reshape(input: Tensor, shape: Sequence[int]) -> Tensor:  # noqa: A002
    """Another shape (a view when possible)."""
    return _tensor(input, "input", "reshape").reshape(shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    """Dims start_dim..end_dim (all by default) merged into one."""
    return _tensor(input, "input", "flatten").flatten(start_dim, end_dim)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    """Swap two dimensions (a view)."""
    return _tensor(input, "input", "transpose").transpose(dim0, dim1)


def t(input: Tensor) -> Tensor:  # noqa: A002
    """Transpose of a matrix (a view)."""
    return _tensor(input, "input", "t").t()


def permute(input: Tensor, dims: Sequence[int]) -> Tensor:  # noqa: A002
    """Reorder dimensions (a view)."""
    return _tensor(input, "input", "permute").permute(dims)


def squeeze(input: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """Remove dimensions of size 1 (a view)."""
    return _tensor(input, "input", "squeeze").squeeze(dim)


def unsqueeze(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """Insert a dimension of size 1 (a view)."""
    return _tensor(input, "input", "unsqueeze").unsqueeze(dim)


def prod(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Product of all elements, or along a dim."""
    return _tensor(input, "input", "prod").prod(*args, **kwargs)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:  # noqa: A002
    """`length` entries along `dim` from `start` (a view)."""
    return _tensor(input, "input", "narrow").narrow(dim, start, length)


def select(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """The entry `index` along `dim` (a view, that dimension removed)."""
    return _tensor(input, "input", "select").select(dim, index)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """The diagonal of the (dim1, dim2) planes (a view)."""
    return _tensor(input, "input", "diagonal").diagonal(offset, dim1, dim2)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """Pieces of the listed sizes along `dim` (each a view)."""
    return _tensor(input, "input", "split_with_sizes").split_with_sizes(split_sizes, dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """The slices along `dim`, each a view."""
    return _tensor(input, "input", "unbind").unbind(dim)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Consecutive pieces along `dim`."""
    return _tensor(tensor, "tensor", "split").split(split_size_or_sections, dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """`chunks` pieces along `dim`."""
    return _tensor(input, "input", "chunk").chunk(chunks, dim)


def _tensor_list(tensors: object, function: str) -> list[Tensor]:
    """The tensors of cat/stack: a list or tuple of tensors, with torch's TypeErrors."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{function}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    for position, item in enumerate(tensors):
        if not isinstance(item, Tensor):
            raise TypeError(
                f"expected Tensor as element {position} in argument 0, but got "
                f"{type(item).__name__}"
            )
    return list(tensors)


def cat(tensors: Sequence[Tensor], dim: int = 0, *, axis: int | None = None) -> Tensor:
    """Concatenate tensors along an existing dimension (CatBackward0). As in torch, a 1-D
    empty tensor may be mixed with tensors of any shape: it is left out."""
    tensors = _tensor_list(tensors, "cat")
    dim = dim if axis is None else axis
    if not tensors:
        raise ValueError("minigrad.cat(): expected a non-empty list of Tensors")
    if any(item.ndim != 1 for item in tensors):
        tensors = [item for item in tensors if item.shape != (0,)] or tensors[:1]
    for position, item in enumerate(tensors):
        if item.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {position}) cannot be concatenated"
            )
    first = tensors[0]
    axis = wrap_dim(dim, first.ndim)
    for number, item in enumerate(tensors[1:], start=1):
        if item.ndim != first.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {first.ndim} and {item.ndim}"
            )
        for d in range(first.ndim):
            if d != axis and item.shape[d] != first.shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {axis}. Expected size "
                    f"{first.shape[d]} but got size {item.shape[d]} for tensor number {number} "
                    "in the list."
                )
    return apply(views.CatBackward0(axis, given_dim=dim), *tensors)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Stack tensors along a new dimension (StackBackward0)."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for entry, item in enumerate(tensors):
        if item.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                f"entry 0 and {list(item.shape)} at entry {entry}"
            )
    axis = wrap_dim(dim, tensors[0].ndim + 1)
    return apply(views.StackBackward0(axis, given_dim=dim), *tensors)
