"""Making tensors: from data, filled with a value, evenly spaced, or random (seeded)."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from . import dtypes, random
from ._convert import check_strides, data_to_array, number_in, type_name
from ._device import check_device
from ._shapes import check_sizes, shape_args
from ._tensor import Tensor
from .dtypes import default_float
from .random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .watch import seen, watchers

__all__ = [
    "as_tensor",
    "arange",
    "empty",
    "empty_like",
    "eye",
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


def missing_argument(function: str, name: str) -> TypeError:
    """torch's TypeError for a required argument left out (its own wording, "arguments")."""
    return TypeError(f'{function}() missing 1 required positional arguments: "{name}"')


_NO_DATA = object()  # tensor() called without data: torch's TypeError, not Python's


def tensor(
    data: object = _NO_DATA,
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """A new tensor holding a copy of `data` (floats become float32, ints int64)."""
    if data is _NO_DATA:
        raise missing_argument("tensor", "data")
    if type(requires_grad) is not bool:
        raise TypeError(
            f"tensor(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}"
        )
    check_device(device, "tensor")
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
    if watchers:  # viz.trace(): a value may come back into a graph here
        seen("tensor", (), result)
    return result


# torch's warning for a read-only array (its tensors are always writable)
READ_ONLY_MESSAGE = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
    "This means writing to this tensor will result in undefined behavior. You may want to copy "
    "the array to protect its data or make it writable before converting it to a tensor."
)


def as_tensor(data: object, dtype: dtypes.DType | None = None, device: object = None) -> Tensor:
    """`data` as a tensor, sharing memory where it can: a tensor of that dtype is returned
    itself, a numpy array is shared (from_numpy); anything else is copied (tensor())."""
    check_device(device, "as_tensor")
    if isinstance(data, Tensor):
        return data if dtype is None or dtype == data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and data.flags.writeable:
        shared = from_numpy(data)
        return shared if dtype is None or dtype == shared.dtype else shared.to(dtype)
    return tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a numpy array (no copy)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(array)})")
    dtypes.from_numpy_dtype(array.dtype)
    check_strides(array)
    if not array.flags.writeable:
        warnings.warn(READ_ONLY_MESSAGE, UserWarning, stacklevel=2)
    result = Tensor._from_array(array)
    if watchers:
        seen("from_numpy", (), result)
    return result


def _sized(
    shape: tuple,
    size: object,
    make: Callable[[tuple[int, ...]], np.ndarray],
    options: tuple,
    what: str,
) -> Tensor:
    """A new tensor of the shape given as `*shape` or `size=` (zeros, ones, empty)."""
    dtype, device, requires_grad = options
    if size is not None:
        if shape:
            raise TypeError(f"{what}() got multiple values for argument 'size'")
        if not isinstance(size, (tuple, list)):
            raise TypeError(
                f"{what}(): argument 'size' must be tuple of ints, not {type(size).__name__}"
            )
        shape = (size,)
    if not shape:
        raise missing_argument(what, "size")
    if len(shape) > 1 and isinstance(shape[0], (tuple, list)):
        raise TypeError(f"{what}() takes 1 positional argument but {len(shape)} were given")
    check_device(device, what)
    array = make(check_sizes(shape_args(shape, what), what))
    if dtype is not None:
        array = array.astype(dtypes.to_numpy_dtype(dtype, what))
    return tensor(array, requires_grad=True) if requires_grad else from_numpy(array)


def zeros(
    *shape: int,
    size: Sequence[int] | None = None,
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of zeros (float32 by default)."""
    make = lambda s: np.zeros(s, dtype=default_float())  # noqa: E731
    return _sized(shape, size, make, (dtype, device, requires_grad), "zeros")


def ones(
    *shape: int,
    size: Sequence[int] | None = None,
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ones (float32 by default)."""
    make = lambda s: np.ones(s, dtype=default_float())  # noqa: E731
    return _sized(shape, size, make, (dtype, device, requires_grad), "ones")


def empty(
    *shape: int,
    size: Sequence[int] | None = None,
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor whose values are not set yet (minigrad gives zeros: nothing random leaks in)."""
    make = lambda s: np.zeros(s, dtype=default_float())  # noqa: E731
    return _sized(shape, size, make, (dtype, device, requires_grad), "empty")


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """The n x m identity matrix (ones on the diagonal; m = n by default)."""
    for position, (name, value) in enumerate((("n", n), ("m", m)), start=1):
        if value is not None and (isinstance(value, bool) or not hasattr(value, "__index__")):
            raise TypeError(
                f"eye(): argument '{name}' (position {position}) must be int, not "
                f"{type(value).__name__}"
            )
    m = n if m is None else m
    if n < 0 or m < 0:
        name, value = ("n", n) if n < 0 else ("m", m)
        raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    check_device(device, "eye")
    numpy_dtype = default_float() if dtype is None else dtypes.to_numpy_dtype(dtype, "eye")
    return tensor(np.eye(n, m, dtype=numpy_dtype), requires_grad=requires_grad)


_NO_FILL = object()


def full(
    size: Sequence[int],
    fill_value: float = _NO_FILL,  # type: ignore[assignment]
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor filled with `fill_value` (a float gives float32, an int int64, as in torch)."""
    if fill_value is _NO_FILL:
        raise missing_argument("full", "fill_value")
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    if not isinstance(fill_value, (numbers.Number, np.number, np.bool_, Tensor)):
        raise TypeError(
            f"full(): argument 'fill_value' (position 2) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    check_device(device, "full")
    sizes = check_sizes(shape_args((size,), "full"))
    if dtype is not None:
        fill_value = number_in(fill_value, dtypes.to_numpy_dtype(dtype, "full"))
    kind = data_to_array(fill_value, dtype)  # the dtype torch gives `fill_value` (and its checks)
    return tensor(np.full(sizes, kind), requires_grad=requires_grad)


def _like(
    other: Tensor,
    fill: Callable[[np.ndarray], np.ndarray],
    options: tuple,
    what: str,
) -> Tensor:
    """A new tensor with `other`'s shape and (unless a dtype is given) dtype."""
    dtype, device, requires_grad = options
    if not isinstance(other, Tensor):
        raise TypeError(
            f"{what}(): argument 'input' (position 1) must be Tensor, not {type(other).__name__}"
        )
    check_device(device, what)
    numpy_dtype = other._array.dtype if dtype is None else dtypes.to_numpy_dtype(dtype, what)
    return tensor(
        fill(np.zeros(other._array.shape, dtype=numpy_dtype)), requires_grad=requires_grad
    )


def zeros_like(
    input: Tensor,  # noqa: A002 - torch's argument names, here and below
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """Zeros with `input`'s shape and dtype."""
    return _like(input, lambda z: z, (dtype, device, requires_grad), "zeros_like")


def ones_like(
    input: Tensor,  # noqa: A002
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """Ones with `input`'s shape and dtype."""
    return _like(input, lambda z: z + 1, (dtype, device, requires_grad), "ones_like")


def empty_like(
    input: Tensor,  # noqa: A002
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor shaped like `input`, values not set (zeros here)."""
    return _like(input, lambda z: z, (dtype, device, requires_grad), "empty_like")


def full_like(
    input: Tensor,  # noqa: A002
    fill_value: float,
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """`fill_value` everywhere, with `input`'s shape and dtype."""
    options = (dtype, device, requires_grad)
    kind = input._array.dtype if dtype is None else dtypes.to_numpy_dtype(dtype, "full_like")
    fill_value = number_in(fill_value, kind)
    return _like(input, lambda z: np.full_like(z, fill_value), options, "full_like")


def randn_like(
    input: Tensor,  # noqa: A002
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """Standard normal samples with `input`'s shape and dtype (from the default generator)."""
    _like(input, lambda z: z, (dtype, device, False), "randn_like")  # (the checks)
    kind = dtype if dtype is not None else input.dtype
    return randn(*input.shape, dtype=kind, requires_grad=requires_grad)


def rand_like(
    input: Tensor,  # noqa: A002
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """Uniform samples on [0, 1) with `input`'s shape and dtype."""
    _like(input, lambda z: z, (dtype, device, False), "rand_like")
    kind = dtype if dtype is not None else input.dtype
    return rand(*input.shape, dtype=kind, requires_grad=requires_grad)


def _invalid_combination(function: str, args: tuple) -> TypeError:
    """torch's TypeError when no overload of `function` takes these argument types."""
    kinds = ", ".join(type(arg).__name__ for arg in args)
    return TypeError(
        f"{function}() received an invalid combination of arguments - got ({kinds}), but "
        f"expected one of:\n (see help(minigrad.{function}))"
    )


def _is_number(value: object) -> bool:
    return isinstance(value, (numbers.Real, np.number, np.bool_)) or (
        isinstance(value, Tensor) and value.numel() == 1
    )


_NO_END = object()


def arange(
    start: float = _NO_END,  # type: ignore[assignment]
    end: float | None = None,
    step: float = 1,
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """Evenly spaced values in [start, end): integers stay int64, floats become float32."""
    given = tuple(v for v in (start, end) if v is not _NO_END and v is not None)
    given += (step,) if step != 1 else ()
    if start is _NO_END or not all(_is_number(v) for v in given):
        if len(given) == 1 or start is None:
            raise TypeError(
                f"arange(): argument 'end' (position 1) must be Number, not {type(start).__name__}"
            )
        raise _invalid_combination("arange", given)
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if end is None:
        start, end = 0, start
    check_device(device, "arange")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is not None and dtypes.to_numpy_dtype(dtype, "arange").kind == "b":
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if dtype is not None and dtypes.to_numpy_dtype(dtype, "arange").kind in "iu":
        step = int(step)  # torch counts in the integer dtype: a step of 0.5 becomes 0
        if step == 0:
            raise ValueError("step must be nonzero")
    values = np.arange(start, end, step)
    return tensor(
        values if values.dtype.kind != "f" else values.astype(default_float()),
        dtype=dtype,
        requires_grad=requires_grad,
    )


_NO_STEPS = object()


def linspace(
    start: float,
    end: float,
    steps: int = _NO_STEPS,  # type: ignore[assignment]
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """`steps` evenly spaced values from start to end, both included (float32 by default)."""
    given = (start, end) if steps is _NO_STEPS else (start, end, steps)
    if steps is _NO_STEPS or isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise _invalid_combination("linspace", given)
    check_device(device, "linspace")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    numpy_dtype = default_float() if dtype is None else dtypes.to_numpy_dtype(dtype, "linspace")
    if numpy_dtype.kind == "b":
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    values = np.linspace(start, end, steps)
    if numpy_dtype.kind != "f":
        values = np.trunc(values)  # torch rounds toward zero for an integer dtype
    return tensor(values.astype(numpy_dtype), requires_grad=requires_grad)


# ---- random numbers: torch's generator and samplers (minigrad.random), torch's signatures ----

# Generator.get_state() hands back a uint8 tensor; minigrad.random sits below Tensor
random.set_state_wrapper(from_numpy)


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


def _check_generator(what: str, args: tuple, generator: object) -> None:
    """torch's TypeError for a `generator=` that is not a Generator (no overload takes it)."""
    if generator is not None and not isinstance(generator, random.Generator):
        kinds = ", ".join(type(arg).__name__ for arg in args)
        raise TypeError(
            f"{what}() received an invalid combination of arguments - got ({kinds}, "
            f"generator={type(generator).__name__}), but expected one of:\n (see "
            f"help(minigrad.{what}))"
        )


def randn(
    *size: int,
    generator: random.Generator | None = None,
    dtype: dtypes.DType | None = None,
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples from the standard normal distribution (float32 unless `dtype` says otherwise)."""
    check_device(device, "randn")
    _check_generator("randn", size, generator)
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
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples uniform on [0, 1) (float32 unless `dtype` says otherwise)."""
    check_device(device, "rand")
    _check_generator("rand", size, generator)
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
    device: object = None,
    requires_grad: bool = False,
    **bounds: int | Sequence[int],
) -> Tensor:
    """Random integers in [low, high) (int64): `randint(high, size)` or `randint(low, high, size)`.

    As in torch, `low`, `high` and `size` may also be given by name.
    """
    check_device(device, "randint")
    _check_generator("randint", args, generator)
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
        if not bounds and len(args) == 3:  # three numbers: torch finds no overload for them
            kinds = ", ".join(type(arg).__name__ for arg in args)
            raise TypeError(
                f"randint() received an invalid combination of arguments - got ({kinds}), but "
                "expected one of:\n (see help(minigrad.randint))"
            )
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
    device: object = None,
    requires_grad: bool = False,
) -> Tensor:
    """A random permutation of 0 .. n-1 (int64 unless `dtype` says otherwise)."""
    check_device(device, "randperm")
    _check_generator("randperm", (n,), generator)
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
