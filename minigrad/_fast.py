"""Speed tricks, each behind one named helper, so the code that uses them reads plainly.

None of them changes what a learner sees; each saves time or objects on a path that runs at
every op (benchmarks/README.md lists what each one buys):

- `shared(values)`        one copy of each small tuple a node keeps (bounded, see below)
- `write_in_place(...)`   add_, mul_, zero_ ... write straight into the memory when nothing records
- `ones_like_array(a)`    the gradient backward starts with, without np.ones' Python steps
- `quietly(ufunc, ...)`   a ufunc with inf/nan warnings off, without np.errstate's Python steps
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

try:  # numpy's own switch for floating-point warnings, which np.errstate sets (numpy >= 2)
    from numpy._core.umath import _extobj_contextvar, _make_extobj
except ImportError:  # pragma: no cover - another numpy: np.errstate, a little slower
    _extobj_contextvar = None

__all__ = [
    "SHARED_TUPLES",
    "SHARED_TUPLES_CAP",
    "ones_like_array",
    "quietly",
    "shared",
    "write_in_place",
]

# How many different tuples `shared` keeps: enough for the few patterns of a training loop
# (which inputs need a gradient, the shapes of its layers, the names of saved values); a
# program that makes thousands of shapes starts again from empty when it is full.
SHARED_TUPLES_CAP = 512


class _SharedTuples(dict):
    """tuple -> the first equal tuple seen; a key not there yet is added (see `shared`)."""

    def __missing__(self, values: tuple) -> tuple:
        if len(self) >= SHARED_TUPLES_CAP:
            self.clear()
        self[values] = values
        return values


SHARED_TUPLES = _SharedTuples()
# shared(values): one shared copy of a small tuple (equal tuples give the first one seen). A
# graph of many nodes then holds fewer objects, and the garbage collector, which walks every
# object a graph keeps alive, has less to do. (A dict lookup: a hit runs no Python code.)
shared = SHARED_TUPLES.__getitem__


def write_in_place(node: Any, target: Any, others: Sequence[Any]) -> bool:
    """Run `node`'s `forward_into` straight into `target`'s memory, if it has one and the result
    has the target's dtype and shape; returns whether it did (else the caller computes the
    result and copies it in, with torch's errors for a wrong shape or dtype)."""
    if node.forward_into is None:
        return False
    array = target._array
    if target._inference or not array.flags.writeable:
        return False
    for other in others:
        values = other._array
        if values.dtype != array.dtype or (values.shape != array.shape and values.ndim):
            return False
    node.forward_into(array, *[other._array for other in others])
    target._version_counter.bump()  # (never an inference tensor: see above)
    return True


def ones_like_array(array: np.ndarray) -> np.ndarray:
    """Ones of `array`'s shape and dtype (np.ones without its Python-level steps: this runs at
    every backward())."""
    return np.array(1, dtype=array.dtype).reshape(array.shape)


def quietly(ufunc: np.ufunc, *args: Any, **kwargs: Any) -> Any:
    """`ufunc(*args, **kwargs)` with numpy's warnings about overflow, division by zero and
    invalid values off, as `with np.errstate(...)` would switch them off, at half its cost: torch
    gives inf and nan without a word. The other settings (underflow) stay as the user set them.
    (Sigmoid's exp, a division and a power of a tensor run it at every call.)"""
    if _extobj_contextvar is None:  # pragma: no cover
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return ufunc(*args, **kwargs)
    settings = _make_extobj(divide="ignore", invalid="ignore", over="ignore")  # (on the user's)
    token = _extobj_contextvar.set(settings)
    try:
        return ufunc(*args, **kwargs)
    finally:
        _extobj_contextvar.reset(token)
