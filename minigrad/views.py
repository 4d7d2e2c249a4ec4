"""Shared memory and version counters: what a tensor, its views, `detach()` and `.data` share.

Three tensors can look at the same numbers in three different ways, and the difference between
them is the whole story of this course:

- a view (`b[1:]`, `b.view(3, 1)`) shares the memory *and* the version counter of its base;
- `b.detach()` shares the memory *and* the version counter, but is cut from the graph;
- `b.data` shares the memory but gets a **fresh** version counter, so in-place changes made
  through it are invisible to the check that backward makes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

_storage_serials = itertools.count()


class VersionCounter:
    """How many times a piece of memory was changed in place; shared by value-sharing tensors."""

    def __init__(self) -> None:
        self.value = 0

    def bump(self) -> None:
        """Record one more in-place change."""
        self.value += 1


class Storage:
    """Identity of one block of memory, so the renderer can group the tensors that share it.

    numpy keeps the actual bytes; this object only says "these tensors look at the same bytes".
    The serial number gives storages a stable order (never `id()`, which changes between runs).
    """

    def __init__(self) -> None:
        self.serial = next(_storage_serials)


class ViewRegion:
    """The part of a base tensor that a view looks at, as a function from base array to view."""

    def __init__(self, view_of: Callable[[np.ndarray], np.ndarray]) -> None:
        self.view_of = view_of

    def read(self, base_array: np.ndarray) -> np.ndarray:
        """The values of the region, as an independent array."""
        return np.array(self.view_of(base_array))

    def clear(self, base_array: np.ndarray) -> None:
        """Set the region to zero, in place."""
        self.view_of(base_array)[...] = 0


class IndexRegion:
    """A region picked by an index (basic or advanced), used by `t[key] = value`."""

    def __init__(self, key: object) -> None:
        self.key = key

    def read(self, base_array: np.ndarray) -> np.ndarray:
        """The values of the region, as an independent array."""
        return np.array(base_array[self.key])

    def clear(self, base_array: np.ndarray) -> None:
        """Set the region to zero, in place."""
        base_array[self.key] = 0


def is_basic_index(key: object) -> bool:
    """True when numpy's indexing with `key` returns a view (ints, slices, None, Ellipsis)."""
    parts = key if isinstance(key, tuple) else (key,)
    for part in parts:
        if isinstance(part, bool):  # a bool is an int to Python but a mask to numpy
            return False
        if not (isinstance(part, (int, np.integer, slice)) or part is None or part is Ellipsis):
            return False
    return True


def expand_basic_index(key: object, ndim: int) -> list[object]:
    """Spell out a basic index one entry per dimension step (Ellipsis expanded, None kept).

    torch records `b[1:, 0]` as a SliceBackward0 followed by a SelectBackward0, one node per
    indexed dimension; this list is that sequence of steps.
    """
    parts = list(key) if isinstance(key, tuple) else [key]
    consumed = sum(1 for part in parts if part is not None and part is not Ellipsis)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for tensor of dimension {ndim} (got {consumed} indices)"
        )
    if Ellipsis in parts:
        where = parts.index(Ellipsis)
        parts[where : where + 1] = [slice(None)] * (ndim - consumed)
    return parts
