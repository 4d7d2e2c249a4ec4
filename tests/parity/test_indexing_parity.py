"""Indexing (reading and writing) with a key that mixes ints, slices or None with arrays, as
torch applies it.

torch applies the ints, slices and None first, as views (SelectBackward0, SliceBackward0,
UnsqueezeBackward0), then the arrays on what is left (IndexBackward0). The graph shows it, and
the shape can differ from numpy's: `t[0, :, [0, 1]]` of a 2 x 3 x 4 tensor is 3 x 2 in torch,
2 x 3 in numpy. A slice that keeps its whole dim (`:`, `0:n`) records no node, unless it is the
whole key (`t[:]`). Each key is compared on the result's shape and values, the chain of nodes
back to the leaf, and the leaf's gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from .conftest import error_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

KEYS: dict[str, tuple[object, ...] | slice] = {
    "t[0, :, [0, 1]]": (0, slice(None), [0, 1]),
    "t[[0, 1], 0, [0, 1]]": ([0, 1], 0, [0, 1]),
    "t[:, 0, [0, 1]]": (slice(None), 0, [0, 1]),
    "t[[1, 0], :, 1]": ([1, 0], slice(None), 1),
    "t[None, [0, 1]]": (None, [0, 1]),
    "t[..., 1, [0, 2]]": (Ellipsis, 1, [0, 2]),
    "t[[0, 1], ..., 1:3]": ([0, 1], Ellipsis, slice(1, 3)),
    "t[0:2, [0, 1]]": (slice(0, 2), [0, 1]),
    "t[::2, [[0], [1]], [1, 3]]": (slice(None, None, 2), [[0], [1]], [1, 3]),
    "t[[0, 1], None, 2]": ([0, 1], None, 2),
    "t[-1, [2, -3]]": (-1, [2, -3]),
    "t[1:, :, [True, False, True, True]]": (slice(1, None), slice(None), [True, False, True, True]),
    "t[None, 0, None, [1, 2]]": (None, 0, None, [1, 2]),
    "t[[[0, 1]], :, -2]": ([[0, 1]], slice(None), -2),
    "t[0:2, 1]": (slice(0, 2), 1),
    "t[:, 0:3]": (slice(None), slice(0, 3)),
    "t[1, 0:9]": (1, slice(0, 9)),
    "t[0:2]": slice(0, 2),
    "t[:]": slice(None),
    "t[0, [5]] (out of range)": (0, [5]),
}


def chain(node: Any) -> list[str]:
    """The class names from `node` back to the leaf, following the first input."""
    names = []
    while node is not None and type(node).__name__ != "AccumulateGrad":
        names.append(type(node).__name__)
        node = node.next_functions[0][0]
    return names


@pytest.mark.parametrize("key", list(KEYS))
def test_mixed_index_is_applied_in_torchs_order(parity: Callable[..., None], key: str) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        t = lib.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
        index = KEYS[key]
        failure = error_of(lambda: t[index])
        note("error", failure)
        if failure is not None:
            return
        out = t[index]
        note("shape", list(out.shape))
        note("values", out.detach().numpy().tolist())
        note("nodes", chain(out.grad_fn))
        out.sum().backward()
        note("grad", t.grad.numpy().tolist())

    parity(script)


# key -> the value written (its shape follows torch's order of applying the key)
WRITES: dict[str, tuple[tuple[object, ...], tuple[int, ...] | None]] = {
    "t[0, :, [0, 1]] = (3, 2)": ((0, slice(None), [0, 1]), (3, 2)),
    "t[0, :, [0, 1]] = (2, 3)": ((0, slice(None), [0, 1]), (2, 3)),
    "t[:, 0, [0, 1]] = (2, 2)": ((slice(None), 0, [0, 1]), (2, 2)),
    "t[[0, 1], 1:3, 0] = (2, 2)": (([0, 1], slice(1, 3), 0), (2, 2)),
    "t[0, [1, 2]] = (4,)": ((0, [1, 2]), (4,)),
    "t[[1, 0], :, 1] = 5.0": (([1, 0], slice(None), 1), None),
    "t[None, 0, [1]] = (1, 1, 4)": ((None, 0, [1]), (1, 1, 4)),
    "t[[0, 1]] = (1, 3, 4)": (([0, 1],), (1, 3, 4)),
    "t[[0, 1]] = (3, 3)": (([0, 1],), (3, 3)),
    "t[[0, 1], [1, 2]] = (3,)": (([0, 1], [1, 2]), (3,)),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_mixed_index_writes_in_torchs_order(parity: Callable[..., None], write: str) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        a = lib.tensor(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4), requires_grad=True)
        t = a * 1
        index, shape = WRITES[write]
        value = 5.0 if shape is None else lib.arange(float(np.prod(shape))).reshape(shape)

        def assign() -> None:
            t[index] = value

        failure = error_of(assign)
        note("error", failure)
        if failure is not None:
            return
        note("values", t.detach().numpy().tolist())
        note("nodes", chain(t.grad_fn))
        t.sum().backward()
        note("grad", a.grad.numpy().tolist())

    parity(script)


# value -> what `t[index] = value` does for a float32 `t`: torch writes through an array index
# only a value of t's own dtype (a Python number is converted; one 0-d value into a mask is a
# masked_fill, which converts too).
MISMATCHED: dict[str, tuple[object, Callable[[Any], Any]]] = {
    "t[[0, 1]] = float64 (3, 4)": (([0, 1],), lambda lib: lib.ones(3, 4, dtype=lib.float64)),
    "t[[0, 1]] = int64 0-d": (([0, 1],), lambda lib: lib.tensor(5)),
    "t[[0, 1]] = 5": (([0, 1],), lambda lib: 5),
    "t[mask] = float64 0-d": ("mask", lambda lib: lib.tensor(5.0, dtype=lib.float64)),
    "t[mask] = float64 (3, 4)": ("mask", lambda lib: lib.ones(3, 4, dtype=lib.float64)),
    "t[0, [1]] = float64 (1, 4)": ((0, [1]), lambda lib: lib.ones(1, 4, dtype=lib.float64)),
}


@pytest.mark.parametrize("write", list(MISMATCHED))
def test_an_array_index_writes_only_its_own_dtype(parity: Callable[..., None], write: str) -> None:
    def script(lib: Any, note: Callable[[str, Any], None]) -> None:
        t = lib.zeros(2, 3, 4)
        index, make_value = MISMATCHED[write]
        if index == "mask":
            index = lib.tensor([True, False])
        value = make_value(lib)

        def assign() -> None:
            t[index] = value

        note("error", error_of(assign))
        note("values", t.numpy().tolist())

    parity(script)
