"""Arithmetic methods: + - * / ** @ // %, their named forms (add, sub, ...), comparisons, the
bitwise operators & | ^ ~, and where."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .._shapes import broadcast_shapes
from ..functions import arith, linalg, views
from ..functions.unary import WhereBackward0
from ..watch import seen, watchers
from .base import TensorBase

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["ArithmeticMethods"]

_ROUNDING_MODES = (None, "trunc", "floor")


def _comparison(compare: np.ufunc, name: str = "") -> Callable[[TensorBase, object], Tensor]:
    """A comparison (`==`, `<`, ...): elementwise, a bool tensor, never recorded. The operator
    hands an unknown operand back to Python (NotImplemented); the named method (`t.eq(x)`,
    `name`) raises torch's TypeError."""

    def method(self: TensorBase, other: object) -> Tensor:
        wrapped = self._wrap(other)
        if wrapped is None:
            if name:
                raise TypeError(
                    f"{name}() received an invalid combination of arguments - got "
                    f"({type(other).__name__}), but expected one of:\n"
                    " * (Tensor other)\n * (Number other)"
                )
            return NotImplemented
        broadcast_shapes(self._array.shape, wrapped._array.shape)
        result = self._sibling(compare(self._array, wrapped._array))
        if watchers:
            seen(compare.__name__, (self, wrapped), result)
        return result

    method.__doc__ = f"Elementwise {compare.__name__}, as a bool tensor (not recorded)."
    return method


def _bitwise(ufunc: np.ufunc, torch_name: str) -> Callable[[TensorBase, object], Tensor]:
    """`&`, `|` or `^` of integer or bool tensors (never recorded), with torch's error for
    floats."""

    def method(self: TensorBase, other: object) -> Tensor:
        wrapped = self._wrap(other)
        if wrapped is None:
            return NotImplemented
        for array in (self._array, wrapped._array):
            if array.dtype.kind == "f":
                kind = "Float" if array.dtype == np.float32 else "Double"
                raise NotImplementedError(f"\"{torch_name}_cpu\" not implemented for '{kind}'")
        broadcast_shapes(self._array.shape, wrapped._array.shape)
        return self._sibling(np.asarray(ufunc(self._array, wrapped._array)))

    method.__doc__ = f"Elementwise {torch_name} of integer or bool tensors (not recorded)."
    return method


BOOL_SUBTRACTION_MESSAGE = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)
# the kernel torch names when both sides of a matrix product are bool, by their dims
_BOOL_KERNELS = {(2, 2): "addmm_impl_cpu_", (2, 1): "addmv_impl_cpu", (1, 1): "dot"}
_BOOL_KERNELS[(1, 2)] = "addmm_impl_cpu_"


def _check_bool_subtraction(a: TensorBase, b: object) -> None:
    """torch refuses `-` with a bool tensor or a Python bool on either side (two bools have
    their own words)."""
    a_bool = a._array.dtype.kind == "b"
    b_bool = isinstance(b, (bool, np.bool_)) or (
        isinstance(b, TensorBase) and b._array.dtype.kind == "b"
    )
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(BOOL_SUBTRACTION_MESSAGE)


def _check_alpha(a: TensorBase, b: TensorBase, alpha: object) -> None:
    """torch's check that an integer (or bool) sum is not scaled by a float alpha."""
    if isinstance(alpha, float) and "f" not in (a._array.dtype.kind, b._array.dtype.kind):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )


BOOL_REMAINDER_MESSAGE = "\"remainder_cpu\" not implemented for 'Bool'"


class ArithmeticMethods(TensorBase):
    """+ - * / ** @ // % and their named forms; comparisons; & | ^ ~; where."""

    def add(self, other: object, alpha: float = 1) -> Tensor:
        """self + alpha * other."""
        other = self._operand(other, "add")
        _check_alpha(self, other, alpha)
        return self._binary(arith.AddBackward0(alpha), other)

    def sub(self, other: object, alpha: float = 1) -> Tensor:
        """self - alpha * other."""
        if isinstance(other, (bool, np.bool_)):  # torch: a bool is no number to subtract
            _check_bool_subtraction(self, other)
        other = self._operand(other, "sub")
        _check_bool_subtraction(self, other)
        _check_alpha(self, other, alpha)
        return self._binary(arith.SubBackward0(alpha), other)

    def mul(self, other: object) -> Tensor:
        """self * other."""
        return self._binary(arith.MulBackward0(), self._operand(other, "mul"))

    def div(self, other: object, *, rounding_mode: str | None = None) -> Tensor:
        """self / other (always floating point, as in torch); rounding_mode 'trunc' or 'floor'
        rounds the quotient (and has a zero gradient)."""
        if rounding_mode not in _ROUNDING_MODES:
            raise RuntimeError(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                f"'{rounding_mode}'"
            )
        other = self._operand(other, "div")
        if rounding_mode is None:
            return self._binary(arith.DivBackward0(), other)
        return self._binary(arith.DivBackward2(rounding_mode), other)

    true_divide = divide = div

    def floor_divide(self, other: object) -> Tensor:
        """floor(self / other), elementwise (`//`); not differentiable, as in torch."""
        other = self._operand(other, "floor_divide")
        if self._array.dtype.kind == "b" and other._array.dtype.kind == "b":
            raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
        return self._binary(arith.NotDifferentiable("floor_divide", arith.floor_divide), other)

    def remainder(self, other: object) -> Tensor:
        """self - floor(self / other) * other (`%`, the sign of other, as Python's)."""
        other = self._operand(other, "remainder")
        if self._array.dtype.kind == "b" and other._array.dtype.kind == "b":
            raise NotImplementedError(BOOL_REMAINDER_MESSAGE)
        if other._wrapped_number:
            return self._apply(arith.RemainderBackward0(other._array), self)
        return self._binary(arith.RemainderBackward1(), other)

    def pow(self, exponent: object) -> Tensor:
        """self ** exponent (a number or a tensor)."""
        if isinstance(exponent, (numbers.Real, np.number)) and not isinstance(exponent, TensorBase):
            return self._apply(arith.PowBackward0(exponent), self)
        if not isinstance(exponent, (TensorBase, np.ndarray)):
            raise TypeError(
                "pow() received an invalid combination of arguments - got "
                f"({type(exponent).__name__}), but expected one of:\n (see help(minigrad.pow))"
            )
        exponent = self._operand(exponent, "pow")
        if self._array.dtype.kind == "b" and exponent._array.dtype.kind == "b":
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        return self._binary(arith.PowBackward1(), exponent)

    def matmul(self, other: object) -> Tensor:
        """Matrix product, with the node torch records for each pair of shapes: mm, mv, dot;
        more dims: folded into one mm or mv where torch folds, else bmm (leading dims
        broadcast), then an unsafe view."""
        other = self._operand(other, "matmul")
        a, b = self, other
        if a.ndim == 0 or b.ndim == 0:
            raise RuntimeError(
                "both arguments to matmul need to be at least 1D, but they are "
                f"{a.ndim}D and {b.ndim}D"
            )
        if a._array.dtype.kind == "b" and b._array.dtype.kind == "b":
            kernel = "bmm" if a.ndim > 2 or b.ndim > 2 else _BOOL_KERNELS[(a.ndim, b.ndim)]
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        if a.ndim > 2 or b.ndim > 2:
            return _folded_matmul(a, b) if _should_fold(a, b) else _batched_matmul(a, b)
        if a.ndim == 2 and b.ndim == 2:
            return self._apply(linalg.MmBackward0(), a, b)
        if a.ndim == 2:
            return self._apply(linalg.MvBackward0(), a, b)
        if b.ndim == 2:  # torch: unsqueeze the vector, multiply matrices, squeeze again
            product = a.unsqueeze(0).matmul(b)
            result = product._apply_view(views.SqueezeBackward4(0))
            # torch squeezes the product in place: the result is no view, and its _version is 1
            result._base = result._view_chain = None
            result._version_counter.bump()
            return result
        return self._apply(linalg.DotBackward0(), a, b)

    def neg(self) -> Tensor:
        """-self."""
        if self._array.dtype.kind == "b":
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                "to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return self._apply(arith.NegBackward0(), self)

    negative = neg

    def reciprocal(self) -> Tensor:
        """1 / self."""
        return self._apply(arith.ReciprocalBackward0(), self)

    def where(self, condition: object, other: object) -> Tensor:
        """self where condition is true, other elsewhere (torch's `Tensor.where`)."""
        condition = self._operand(condition, "where", 1, "condition")
        if condition._array.dtype != np.bool_:
            raise RuntimeError(
                f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{condition.dtype.torch_kind}"
            )
        other = self._operand(other, "where", 2)
        shape = broadcast_shapes(self._array.shape, other._array.shape)
        broadcast_shapes(condition._array.shape, shape)
        return self._apply(WhereBackward0(), condition, self, other)

    # ---- operators: a list or a string on the other side gives NotImplemented ------------------

    def __add__(self, other: object) -> Tensor:
        wrapped = other if isinstance(other, TensorBase) else self._wrap(other)
        if wrapped is None:
            return NotImplemented
        return self._binary(arith.AddBackward0(), wrapped)

    def __sub__(self, other: object) -> Tensor:
        if isinstance(other, (bool, np.bool_)):
            _check_bool_subtraction(self, other)
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else self.sub(wrapped)

    def __mul__(self, other: object) -> Tensor:
        wrapped = other if isinstance(other, TensorBase) else self._wrap(other)
        if wrapped is None:
            return NotImplemented
        if type(other) is float and not math.isfinite(other):
            with np.errstate(invalid="ignore"):  # 0 * inf is nan, quietly, as in torch
                return self._binary(arith.MulBackward0(), wrapped)
        return self._binary(arith.MulBackward0(), wrapped)

    def __truediv__(self, other: object) -> Tensor:
        if type(other) is int and self._array.dtype.kind in "iub":  # (uint8 / -1 is -3.0, not
            other = float(other)  # 3 / 255: the number is not taken into uint8 first)
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else self.div(wrapped)

    def __floordiv__(self, other: object) -> Tensor:
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else self.floor_divide(wrapped)

    def __mod__(self, other: object) -> Tensor:
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else self.remainder(wrapped)

    def __pow__(self, exponent: object) -> Tensor:
        if isinstance(exponent, (numbers.Real, np.number)):
            return self.pow(exponent)
        wrapped = self._wrap(exponent)
        return NotImplemented if wrapped is None else self.pow(wrapped)

    def __matmul__(self, other: object) -> Tensor:
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else self.matmul(wrapped)

    # `2 + t` records the same graph as `t + 2` in torch; a numpy array on the left is refused
    # (numpy hands `array + t` to us, and torch raises Python's TypeError there)
    def __radd__(self, other: object) -> Tensor:
        return NotImplemented if isinstance(other, np.ndarray) else self.__add__(other)

    def __rmul__(self, other: object) -> Tensor:
        return NotImplemented if isinstance(other, np.ndarray) else self.__mul__(other)

    def __rsub__(self, other: object) -> Tensor:
        if isinstance(other, np.ndarray):
            return NotImplemented
        if isinstance(other, (bool, np.bool_)):
            _check_bool_subtraction(self, other)
        if isinstance(other, (numbers.Real, np.number)):
            if self._array.dtype.kind == "b":
                raise RuntimeError(BOOL_SUBTRACTION_MESSAGE)
            return self._apply(arith.RsubBackward1(other), self)
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else wrapped.sub(self)

    def __rtruediv__(self, other: object) -> Tensor:
        if isinstance(other, np.ndarray):
            return NotImplemented
        if isinstance(other, (numbers.Real, np.number)):  # torch: number / t is reciprocal * n
            return self.reciprocal().mul(other)
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else wrapped.div(self)

    def __rfloordiv__(self, other: object) -> Tensor:
        if isinstance(other, np.ndarray):
            return NotImplemented
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else wrapped.floor_divide(self)

    def __rmod__(self, other: object) -> Tensor:
        if isinstance(other, np.ndarray):
            return NotImplemented
        wrapped = self._wrap(other)
        if wrapped is None:
            return NotImplemented
        if self._array.dtype.kind == "b" and wrapped._array.dtype.kind == "b":
            raise NotImplementedError(BOOL_REMAINDER_MESSAGE)
        return self._binary(arith.NotDifferentiable("remainder", _reversed_remainder), wrapped)

    def __rpow__(self, base: object) -> Tensor:
        if isinstance(base, np.ndarray):
            return NotImplemented
        if isinstance(base, (numbers.Real, np.number)):
            return self._apply(arith.PowBackward2(base), self)
        wrapped = self._wrap(base)
        return NotImplemented if wrapped is None else wrapped.pow(self)

    def __rmatmul__(self, other: object) -> Tensor:
        if isinstance(other, np.ndarray):
            return NotImplemented
        wrapped = self._wrap(other)
        return NotImplemented if wrapped is None else wrapped.matmul(self)

    def __neg__(self) -> Tensor:
        return self.neg()

    def __pos__(self) -> Tensor:
        if self._array.dtype.kind == "b":
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self  # type: ignore[return-value]

    def __abs__(self) -> Tensor:
        return self.abs()

    def __invert__(self) -> Tensor:
        if self._array.dtype.kind not in "iub":
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return self._sibling(np.invert(self._array))

    bitwise_not = __invert__
    __and__ = __rand__ = bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
    __or__ = __ror__ = bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
    __xor__ = __rxor__ = bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")

    # ---- comparisons (never recorded) -------------------------------------------------------

    __eq__ = _comparison(np.equal)  # type: ignore[assignment]
    __ne__ = _comparison(np.not_equal)  # type: ignore[assignment]
    __lt__ = _comparison(np.less)
    __le__ = _comparison(np.less_equal)
    __gt__ = _comparison(np.greater)
    __ge__ = _comparison(np.greater_equal)
    eq = _comparison(np.equal, "eq")
    ne = _comparison(np.not_equal, "ne")
    lt = _comparison(np.less, "lt")
    le = _comparison(np.less_equal, "le")
    gt = _comparison(np.greater, "gt")
    ge = _comparison(np.greater_equal, "ge")

    __hash__ = object.__hash__  # == is elementwise, so hash by identity as torch does


def _reversed_remainder(a: np.ndarray, number: np.ndarray) -> np.ndarray:
    """number % a, for `number % tensor` (torch does not differentiate it)."""
    return arith.remainder(number, a)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """torch's choice for a tensor of 3 or more dims times one of 1 or 2 (either order): fold
    the bigger one into a matrix and make one mm (or mv), when the smaller one requires grad
    (its gradient is then one matrix, not a batch of them to sum) or when folding needs no
    copy; else the batched product."""
    big, small = (a._array, b) if a.ndim >= b.ndim else (np.swapaxes(b._array, -2, -1), a)
    if big.ndim < 3 or small.ndim > 2:
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:  # the product would have to be transposed and copied back
        return False
    if big.size == 0:
        return True
    strides = [stride // big.itemsize for stride in big.strides]  # (in elements, as torch's)
    return all(strides[i] == strides[i + 1] * big.shape[i + 1] for i in range(big.ndim - 2))


def _folded_matmul(a: Tensor, b: Tensor) -> Tensor:
    """`a @ b` as torch folds it (see `_should_fold`): the bigger tensor reshaped to a matrix,
    one mm (or mv), the result viewed back in the batch's shape (and transposed back, when the
    bigger tensor was on the right)."""
    transposed = b.ndim > a.ndim
    big = b.transpose(-2, -1) if transposed else a
    small = (a.t() if a.ndim == 2 else a) if transposed else b
    *rows, k = big.shape
    folded = big.reshape(math.prod(rows), k)
    if small.ndim == 1:
        product = folded._apply(linalg.MvBackward0(), folded, small)
        return product._apply(views.UnsafeViewBackward0(tuple(rows)), product)
    product = folded._apply(linalg.MmBackward0(), folded, small)
    shape = (*rows, small.shape[1])
    result = product._apply(views.UnsafeViewBackward0(shape), product)
    return result.transpose(-2, -1).contiguous() if transposed else result


def _batched_matmul(a: Tensor, b: Tensor) -> Tensor:
    """`a @ b` with more than two dims: the batch dims broadcast, then one bmm, as torch."""
    vector_a, vector_b = a.ndim == 1, b.ndim == 1
    left = a.unsqueeze(0) if vector_a else a
    right = b.unsqueeze(-1) if vector_b else b
    (n, k), (k2, m) = left.shape[-2:], right.shape[-2:]
    batch = broadcast_shapes(tuple(left.shape[:-2]), tuple(right.shape[:-2]))
    if k != k2:
        rows = int(np.prod(left.shape[:-1]))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {k2}x{m})")
    count = int(np.prod(batch))
    left = left.expand(*batch, n, k).reshape(count, n, k)
    right = right.expand(*batch, k, m).reshape(count, k, m)
    product = left._apply(linalg.BmmBackward0(), left, right)
    shape = (*batch, *((n,) if not vector_a else ()), *((m,) if not vector_b else ()))
    return product._apply(views.UnsafeViewBackward0(shape), product)
