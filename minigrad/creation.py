"""Making tensors: from data, filled with a value, evenly spaced, or random (seeded)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from . import dtypes, random
from ._convert import data_to_array, type_name
from ._shapes import check_sizes, shape_args
from .dtypes import default_float
from .tensor import Tensor

__all__ = [
    "arange",
    "empty",
    "empty_like",
    "from_numpy",
    "full",
    "full_like",
    "get_rng_state",
    "initial_seed",
    "linspace",
    "manual_seed",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "randperm",
    "seed",
    "set_rng_state",
    "tensor",
    "zeros",
    "zeros_like",
]


def tensor(data: object, dtype: dtypes.DType | None = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of `data` (floats become float32, ints int64)."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than minigrad.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    array = data_to_array(data._array if isinstance(data, Tensor) else data, dtype)
    if requires_grad and array.dtype.kind != "f":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    result = Tensor._from_array(array)
    result._requires_grad = requires_grad
    return result


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a numpy array (no copy)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(array)})")
    dtypes.from_numpy_dtype(array.dtype)
    if any(stride < 0 for stride in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
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
    return _sized(
        shape, lambda s: np.zeros(s, dtype=default_float()), dtype, requires_grad, "zeros"
    )


def ones(*shape: int, dtype: dtypes.DType | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones (float32 by default)."""
    return _sized(shape, lambda s: np.ones(s, dtype=default_float()), dtype, requires_grad, "ones")


def empty(*shape: int, dtype: dtypes.DType | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor whose values are not set yet (minigrad gives zeros: nothing random leaks in)."""
    return _sized(
        shape, lambda s: np.zeros(s, dtype=default_float()), dtype, requires_grad, "empty"
    )


def full(
    shape: Sequence[int],
    value: float,
    dtype: dtypes.DType | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor filled with `value` (a float gives float32, an int int64, as in torch)."""
    sizes = check_sizes(shape_args((shape,), "full"))
    kind = data_to_array(value, dtype)  # the dtype torch gives `value` (and its checks)
    return tensor(np.full(sizes, kind), requires_grad=requires_grad)


def _like(
    other: Tensor,
    fill: Callable[[np.ndarray], np.ndarray],
    dtype: dtypes.DType | None,
    requires_grad: bool,
) -> Tensor:
    """A new tensor with `other`'s shape and (unless `dtype` is given) dtype."""
    if not isinstance(other, Tensor):
        raise TypeError(f"expected Tensor as first argument, but got {type(other).__name__}")
    numpy_dtype = other._array.dtype if dtype is None else dtypes.to_numpy_dtype(dtype)
    return tensor(
        fill(np.zeros(other._array.shape, dtype=numpy_dtype)), requires_grad=requires_grad
    )


def zeros_like(
    other: Tensor, dtype: dtypes.DType | None = None, requires_grad: bool = False
) -> Tensor:
    """Zeros with `other`'s shape and dtype."""
    return _like(other, lambda z: z, dtype, requires_grad)


def ones_like(
    other: Tensor, dtype: dtypes.DType | None = None, requires_grad: bool = False
) -> Tensor:
    """Ones with `other`'s shape and dtype."""
    return _like(other, lambda z: z + 1, dtype, requires_grad)


def empty_like(
    other: Tensor, dtype: dtypes.DType | None = None, requires_grad: bool = False
) -> Tensor:
    """A tensor shaped like `other`, values not set (zeros here)."""
    return _like(other, lambda z: z, dtype, requires_grad)


def full_like(
    other: Tensor, fill_value: float, dtype: dtypes.DType | None = None, requires_grad: bool = False
) -> Tensor:
    """`fill_value` everywhere, with `other`'s shape and dtype."""
    return _like(other, lambda z: np.full_like(z, fill_value), dtype, requires_grad)


def randn_like(
    other: Tensor, dtype: dtypes.DType | None = None, requires_grad: bool = False
) -> Tensor:
    """Standard normal samples with `other`'s shape and dtype (from the default generator)."""
    _like(other, lambda z: z, dtype, False)  # (the checks)
    kind = dtype if dtype is not None else other.dtype
    return randn(*other.shape, dtype=kind, requires_grad=requires_grad)


def rand_like(
    other: Tensor, dtype: dtypes.DType | None = None, requires_grad: bool = False
) -> Tensor:
    """Uniform samples on [0, 1) with `other`'s shape and dtype."""
    _like(other, lambda z: z, dtype, False)
    kind = dtype if dtype is not None else other.dtype
    return rand(*other.shape, dtype=kind, requires_grad=requires_grad)


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
        values if values.dtype.kind != "f" else values.astype(default_float()),
        dtype=dtype,
        requires_grad=requires_grad,
    )


def linspace(start: float, end: float, steps: int, requires_grad: bool = False) -> Tensor:
    """`steps` evenly spaced float32 values from start to end, both included."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return tensor(
        np.linspace(start, end, steps, dtype=default_float()), requires_grad=requires_grad
    )


# ---- random numbers: torch's generator and samplers (minigrad.random), torch's signatures ----

# Generator.get_state() hands back a uint8 tensor; minigrad.random sits below Tensor
random.set_state_wrapper(from_numpy)


def manual_seed(seed: int) -> random.Generator:
    """Seed the default generator (randn, rand, randint, randperm, nn init, dropout); return it.

    After `manual_seed(s)` every random function gives the numbers torch gives after
    `torch.manual_seed(s)`, bit for bit.
    """
    return random.default_generator().manual_seed(int(seed))  # type: ignore[call-overload]


def seed() -> int:
    """Seed the default generator from the operating system; return that seed."""
    return random.default_generator().seed()


def initial_seed() -> int:
    """The seed the default generator was last started from."""
    return random.default_generator().initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state: a uint8 tensor of 5056 bytes, laid out as torch's."""
    return random.default_generator().get_state()  # type: ignore[return-value]


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from `get_rng_state()` (or torch's)."""
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a minigrad.ByteTensor, but got {type(new_state).__name__}")
    random.default_generator().set_state(new_state._array)


def _random_tensor(
    shape: tuple,
    draw: Callable[[int, np.dtype], np.ndarray],
    dtype: dtypes.DType | None,
    requires_grad: bool,
    what: str,
) -> Tensor:
    """A new contiguous tensor of `shape`, filled with `draw(count, numpy dtype)`."""
    sizes = check_sizes(shape_args(shape, what), what)
    numpy_dtype = dtypes.to_numpy_dtype(dtype, what) if dtype is not None else default_float()
    array = draw(math.prod(sizes), np.dtype(numpy_dtype)).astype(numpy_dtype, copy=False)
    array = array.reshape(sizes)
    if requires_grad:
        return tensor(array, requires_grad=True)  # torch's error for an integer dtype
    return from_numpy(array)


def randn(
    *size: int,
    generator: random.Generator | None = None,
    dtype: dtypes.DType | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples from the standard normal distribution (float32 unless `dtype` says otherwise)."""
    return _random_tensor(
        size,
        lambda count, kind: random.normal(count, 0.0, 1.0, kind, generator),
        dtype,
        requires_grad,
        "randn",
    )


def rand(
    *size: int,
    generator: random.Generator | None = None,
    dtype: dtypes.DType | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples uniform on [0, 1) (float32 unless `dtype` says otherwise)."""
    return _random_tensor(
        size,
        lambda count, kind: random.uniform(count, 0.0, 1.0, kind, generator),
        dtype,
        requires_grad,
        "rand",
    )


def randint(
    *args: int | Sequence[int],
    generator: random.Generator | None = None,
    dtype: dtypes.DType | None = None,
    requires_grad: bool = False,
    **bounds: int | Sequence[int],
) -> Tensor:
    """Random integers in [low, high) (int64): `randint(high, size)` or `randint(low, high, size)`.

    As in torch, `low`, `high` and `size` may also be given by name.
    """
    low, high, size = _randint_args(args, bounds)
    dtype = dtypes.int64 if dtype is None else dtype
    _check_randint_bounds(low, high, np.dtype(dtypes.to_numpy_dtype(dtype, "randint")))
    return _random_tensor(
        (tuple(size),),
        lambda count, kind: random.integers(count, low, high, generator),
        dtype,
        requires_grad,
        "randint",
    )


def _randint_args(args: tuple, bounds: dict) -> tuple[int, int, Sequence[int]]:
    """(low, high, size) from torch's two call forms, positional or by name."""
    unknown = set(bounds) - {"low", "high", "size"}
    if unknown:
        raise TypeError(f"randint() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    names = ("low", "high", "size") if len(args) + len(bounds) == 3 else ("high", "size")
    values = dict(zip(names, args, strict=False)) | bounds
    if set(values) != set(names) or len(args) > len(names):
        raise TypeError(
            "randint() received an invalid combination of arguments: use randint(high, size) "
            "or randint(low, high, size), with size a tuple of ints"
        )
    low, high, size = values.get("low", 0), values["high"], values["size"]
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, int):
            position = names.index(name)
            raise TypeError(
                f"randint(): argument '{name}' (position {position + 1}) must be int, not "
                f"{type(value).__name__}"
            )
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"randint(): argument 'size' (position {names.index('size') + 1}) must be tuple of "
            f"ints, not {type(size).__name__}"
        )
    for value in (low, high):
        if not -(2**63) <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
    return low, high, size


def _check_randint_bounds(low: int, high: int, numpy_dtype: np.dtype) -> None:
    """torch's check that [low, high) fits the dtype (after its check that low < high)."""
    if not low < high:
        return  # minigrad.random raises torch's "random_ expects 'from' ..." error
    if numpy_dtype.kind == "f":
        return  # every int64 bound is a float number
    if numpy_dtype.kind == "b":
        smallest, largest = 0, 1
    else:
        smallest, largest = int(np.iinfo(numpy_dtype).min), int(np.iinfo(numpy_dtype).max)
    name = _C_TYPE_NAMES[numpy_dtype.name]
    if not smallest <= low <= largest:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not smallest <= high - 1 <= largest:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")


# the C type names torch's bound checks print
_C_TYPE_NAMES = {
    "int64": "long",
    "int32": "int",
    "int16": "short",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def randperm(
    n: int,
    *,
    generator: random.Generator | None = None,
    dtype: dtypes.DType | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """A random permutation of 0 .. n-1 (int64 unless `dtype` says otherwise)."""
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    return _random_tensor(
        (int(n),),
        lambda count, kind: random.permutation(count, generator),
        dtypes.int64 if dtype is None else dtype,
        requires_grad,
        "randperm",
    )
