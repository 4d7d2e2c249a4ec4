"""The nodes that in-place changes record. Their first input is the value *before* the change
(a copy `Tensor._apply_inplace` makes when recording), so backward never sees the new values.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..graph import Node


class CopySlices(Node):
    """A base tensor whose region (seen through a view) was replaced in place.

    Inputs: the base before the change, and the new values of the region -- base: grad with the
    region zeroed; new values: grad of the region.

    Different from torch, on purpose: torch's CopySlices wraps the node of the change and its
    edges are (old base, *that node's other inputs*), so for `b[1:].mul_(2)` they read
    (MulBackward0, None). Here the node of the change stays a node of its own, so the edges are
    (old base, MulBackward0 of the new values) and a picture shows every step. Gradients are the
    same; the parity tests compare only this node's name.
    """

    def __init__(self, view_of: Callable[[np.ndarray], np.ndarray]) -> None:
        super().__init__()
        self.view_of = view_of  # base array -> the region's view of it

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grad_base = np.array(grad)
        region = self.view_of(grad_base)
        grad_region = region.copy()
        region[...] = 0  # the old values of the region were overwritten: no gradient for them
        return grad_base, grad_region


class FillBackward2(Node):
    """fill_(self, value) -- self: zeros_like(grad) (the old values are gone)."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, before: np.ndarray) -> np.ndarray:
        return np.full_like(before, self.value)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (np.zeros_like(grad),)


class ZeroBackward0(FillBackward2):
    """zero_(self) -- self: zeros_like(grad)."""

    def __init__(self) -> None:
        super().__init__(0)


class CopyBackwards(Node):
    """copy_(self, src) -- self: zeros_like(grad); src: grad (summed back to src's shape).

    `passes_source` tells the in-place machinery that, written into a view, the source
    connects straight to the base's CopySlices (as in torch) instead of through this node.
    """

    passes_source = True

    def forward(self, before: np.ndarray, source: np.ndarray) -> np.ndarray:
        return np.broadcast_to(source, before.shape).astype(before.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros_like(grad), grad


class IndexPutBackward0(Node):
    """index_put_(self, indices, values) -- self: grad with the indexed places zeroed;
    values: grad[indices]."""

    def __init__(self, key: object) -> None:
        super().__init__()
        self.key = key

    def forward(self, before: np.ndarray, values: np.ndarray) -> np.ndarray:
        result = before.copy()
        result[self.key] = values
        return result

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grad_before = grad.copy()
        grad_before[self.key] = 0
        return grad_before, grad[self.key]
