"""Indexing with a key that mixes ints, slices or None with arrays, as torch applies it.

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
