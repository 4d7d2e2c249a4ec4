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
