"""Shapes and dimensions: the checks every op shares, written once, with torch's messages.

Nothing here knows about tensors: these functions take shapes (tuples of ints) and dims.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

__all__ = ["Size", "broadcast_shapes", "infer_shape", "normalize_dims", "shape_args", "wrap_dim"]


class Size(tuple):
    """A tensor's shape: a tuple that prints like `minigrad.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"minigrad.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        return math.prod(self)


def wrap_dim(dim: object, ndim: int) -> int:
    """One dimension as a non-negative index, with torch's IndexError when out of range.

    A 0-d tensor accepts the dims 0 and -1, as in torch (`tensor(5.).sum(0)` works).
    """
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(f"dim must be an int, not {type(dim).__name__}") from None
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got "
            f"{dim})"
        )
    return dim % size


def normalize_dims(dim: object, ndim: int) -> tuple[int, ...]:
    """`dim` (an int, a sequence of ints, or None for every dim) as sorted non-negative axes.

    An empty sequence also means every dim, as in torch's sum and mean. A dim given twice is
    torch's RuntimeError. A 0-d tensor has no axis to give numpy, so its dims come back empty.
    """
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if dim is None or not dims:
        return tuple(range(ndim))
    axes: list[int] = []
    for d in dims:
        axis = wrap_dim(d, ndim)
        if axis in axes:
            raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
        axes.append(axis)
    if ndim == 0:
        return ()
    return tuple(sorted(axes))


def broadcast_shapes(shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> tuple[int, ...]:
    """The shape two shapes broadcast to, or torch's error naming the dimension that clashes."""
    if shape_a == shape_b:
        return shape_a
    ndim = max(len(shape_a), len(shape_b))
    result = []
    for offset in range(1, ndim + 1):  # from the last dimension, as torch checks them
        size_a = shape_a[-offset] if offset <= len(shape_a) else 1
        size_b = shape_b[-offset] if offset <= len(shape_b) else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {ndim - offset}"
            )
        result.append(size_b if size_a == 1 else size_a)
    return tuple(reversed(result))


def shape_args(args: tuple, what: str = "view") -> tuple[int, ...]:
    """Accept both t.view(2, 3) and t.view((2, 3)); every size must be an int (torch's
    TypeError names the function, `what`)."""
    packed = len(args) == 1 and isinstance(args[0], (tuple, list))
    items = tuple(args[0]) if packed else tuple(args)
    sizes = []
    for position, n in enumerate(items):
        if isinstance(n, bool) or not hasattr(n, "__index__"):
            if packed or len(items) > 1:
                raise TypeError(
                    f"{what}(): argument 'size' (position 1) must be tuple of ints, but found "
                    f"element of type {type(n).__name__} at pos {position}"
                )
            raise TypeError(
                f"{what}(): argument 'size' (position 1) must be tuple of ints, not "
                f"{type(n).__name__}"
            )
        sizes.append(operator.index(n))
    return tuple(sizes)


def check_sizes(shape: Sequence[int], what: str = "") -> tuple[int, ...]:
    """Sizes for a new tensor: torch refuses negative ones (zeros words it its own way)."""
    shape = tuple(shape)
    for n in shape:
        if n < 0:
            if what == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {n}: {list(shape)}"
            )
    return shape


def infer_shape(shape: Sequence[int], size: int) -> tuple[int, ...]:
    """`shape` for `size` elements, with at most one -1 filled in (view / reshape)."""
    shape = tuple(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for index, n in enumerate(shape):
        if n < -1:
            raise RuntimeError(
                f"invalid shape dimension {n} at index {index} of shape {list(shape)}"
            )
    known = math.prod(n for n in shape if n != -1)
    if -1 in shape and size == 0 and known == 0:
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
            "unspecified dimension size -1 can be any value and is ambiguous"
        )
    if -1 in shape:
        if known == 0 or size % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    if math.prod(shape) != size:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return shape
