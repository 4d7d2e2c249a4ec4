"""Making tensors: from data, filled with a value, evenly spaced, or random (seeded)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from . import dtypes
from ._shapes import check_sizes, shape_args
from .tensor import Tensor, _to_array

__all__ = [
    "arange",
    "from_numpy",
    "full",
    "generator",
    "linspace",
    "manual_seed",
    "ones",
    "ones_like",
    "rand",
    "randint",
    "randn",
    "randperm",
    "tensor",
    "zeros",
    "zeros_like",
]


def tensor(data: object, dtype: dtypes.DType | None = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of `data` (floats become float32, ints int64)."""
    array = _to_array(data, dtype)
    if requires_grad and array.dtype.kind != "f":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    result = Tensor._from_array(array)
    result._requires_grad = requires_grad
    return result


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a numpy array (no copy)."""
    dtypes.from_numpy_dtype(array.dtype)
    return Tensor._from_array(array)


def _sized(
    shape: tuple,
    make: Callable[[tuple[int, ...]], np.ndarray],
    dtype,
    requires_grad,
    what: str = "tensor",
):
    array = make(check_sizes(shape_args(shape, what), what))
    if dtype is not None:
        array = array.astype(dtypes.to_numpy_dtype(dtype, what))
    return tensor(array, requires_grad=requires_grad) if requires_grad else from_numpy(array)


def zeros(*shape: int, dtype: dtypes.DType | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros (float32 by default)."""
    return _sized(shape, lambda s: np.zeros(s, dtype=np.float32), dtype, requires_grad, "zeros")


def ones(*shape: int, dtype: dtypes.DType | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones (float32 by default)."""
    return _sized(shape, lambda s: np.ones(s, dtype=np.float32), dtype, requires_grad, "ones")


def full(
    shape: Sequence[int],
    value: float,
    dtype: dtypes.DType | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor filled with `value` (a float gives float32, an int int64, as in torch)."""
    check_sizes(shape_args((shape,), "full"))
    return tensor(np.full(tuple(shape), value).tolist(), dtype=dtype, requires_grad=requires_grad)


def zeros_like(other: Tensor, requires_grad: bool = False) -> Tensor:
    """Zeros with `other`'s shape and dtype."""
    return tensor(np.zeros_like(other._array), requires_grad=requires_grad)


def ones_like(other: Tensor, requires_grad: bool = False) -> Tensor:
    """Ones with `other`'s shape and dtype."""
    return tensor(np.ones_like(other._array), requires_grad=requires_grad)


def arange(
    start: float,
    end: float | None = None,
    step: float = 1,
    dtype: dtypes.DType | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Evenly spaced values in [start, end): integers stay int64, floats become float32."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    values = np.arange(start, end, step)
    return tensor(
        values if values.dtype.kind != "f" else values.astype(np.float32),
        dtype=dtype,
        requires_grad=requires_grad,
    )


def linspace(start: float, end: float, steps: int, requires_grad: bool = False) -> Tensor:
    """`steps` evenly spaced float32 values from start to end, both included."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return tensor(np.linspace(start, end, steps, dtype=np.float32), requires_grad=requires_grad)


# ---- random numbers: one seeded generator, so every run prints the same numbers --------------

_generator = np.random.default_rng(0)


def manual_seed(seed: int) -> None:
    """Seed minigrad's random generator (randn, rand, randint, randperm, nn initialisation)."""
    global _generator
    _generator = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    """The generator behind minigrad's random functions (for nn initialisation)."""
    return _generator


def randn(*shape: int, requires_grad: bool = False, dtype: dtypes.DType | None = None) -> Tensor:
    """Samples from the standard normal distribution (float32)."""
    return _sized(
        shape, lambda s: _generator.standard_normal(s, dtype=np.float32), dtype, requires_grad
    )


def rand(*shape: int, requires_grad: bool = False, dtype: dtypes.DType | None = None) -> Tensor:
    """Samples uniform on [0, 1) (float32)."""
    return _sized(shape, lambda s: _generator.random(s, dtype=np.float32), dtype, requires_grad)


def randint(low: int, high: int, size: Sequence[int]) -> Tensor:
    """Random integers in [low, high) (int64)."""
    return from_numpy(_generator.integers(low, high, size=tuple(size), dtype=np.int64))


def randperm(n: int) -> Tensor:
    """A random permutation of 0 .. n-1 (int64)."""
    return from_numpy(_generator.permutation(n).astype(np.int64))
