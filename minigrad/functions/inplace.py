"""The nodes that in-place changes record. Their first input is the value *before* the change
(a copy `_apply_inplace` makes when recording), so backward never sees the new values.
"""

from __future__ import annotations

import numpy as np

from .. import random
from ..graph import Node
from .formulas import constant, record, zeros_like
from .views import GradIntoView, SavesIndices, TakeView, ViewChain


class CopySlices(Node):
    """A base tensor whose region (seen through a view) was changed in place, as torch records it.

    It wraps `fn`, the node of the change (MulBackward0 for `b[1:].mul_(2)`): its edges are the
    base's history before the change and `fn`'s edges for its other inputs, (old base, None)
    there. Backward: the base's gradient outside the region goes to the old base; the region's
    gradient goes through `fn`, whose gradient for the old region values goes back into the
    region, and whose other gradients go to its other inputs. The view's own old node is no
    longer in the graph (its values were overwritten), so hooks on it do not fire.
    """

    def __init__(self, chain: ViewChain, fn: Node) -> None:
        self.chain = chain  # from the base's memory to the region that was replaced
        self.fn = fn
        # fn's saved values are this node's: backward frees them (and checks them) through it
        self.saved_names, self.saved_values = fn.saved_names, fn.saved_values

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray | None, ...]:
        fn_grads = self.fn.backward(record(TakeView(self.chain), grad))
        # the old values of the region were overwritten: only fn's gradient for them is there
        grad_base = grad * constant(self.outside_region, grad)
        if fn_grads[0] is not None:
            grad_base = grad_base + record(GradIntoView(self.chain, grad.shape), fn_grads[0])
        return (grad_base, *fn_grads[1:])

    def release_saved(self) -> None:
        self.fn.release_saved()

    def outside_region(self, like: np.ndarray) -> np.ndarray:
        """1 outside the replaced region, 0 inside it (in `like`'s shape and dtype)."""
        mask = np.ones(like.shape, dtype=like.dtype)
        self.chain.view_of(mask)[...] = 0
        return mask


class FillBackward2(Node):
    """fill_(self, value) -- self: zeros_like(grad) (the old values are gone)."""

    def __init__(self, value: float) -> None:
        self.value = value

    def forward(self, before: np.ndarray) -> np.ndarray:
        return np.full_like(before, self.value)

    def forward_into(self, a: np.ndarray) -> None:
        """`a` filled with the value, in its own memory (fill_ and zero_ when nothing is
        recorded: `grad.zero_()` each step costs no new array)."""
        np.copyto(a, self.value, casting="unsafe")  # (the cast np.full_like makes)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (zeros_like(grad),)


class FillBackward3(Node):
    """fill_(self, value) for a 0-d tensor value -- self: zeros_like(grad); value: grad.sum()."""

    def forward(self, before: np.ndarray, value: np.ndarray) -> np.ndarray:
        return np.full_like(before, value)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return zeros_like(grad), grad  # (summed down to the 0-d value's shape by the engine)


class ZeroBackward0(FillBackward2):
    """zero_(self) -- self: zeros_like(grad)."""

    value = 0

    def __init__(self) -> None:
        pass  # (the value is always 0: `grad.zero_()` runs at every step of a training loop)

    def forward_into(self, a: np.ndarray) -> None:
        """`a` set to 0 in its own memory (zero_ when nothing is recorded)."""
        a.fill(0)


class CopyBackwards(Node):
    """copy_(self, src) -- self: zeros_like(grad); src: grad (summed back to src's shape)."""

    def forward(self, before: np.ndarray, source: np.ndarray) -> np.ndarray:
        return np.broadcast_to(source, before.shape).astype(before.dtype)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return zeros_like(grad), grad


class IndexPutBackward0(SavesIndices):
    """index_put_(self, indices, values) -- self: grad with the indexed places zeroed;
    values: grad[indices]."""

    def __init__(self, key: object) -> None:
        self.key = key

    def forward(self, before: np.ndarray, values: np.ndarray) -> np.ndarray:
        result = before.copy()
        try:
            result[self.key] = values
        except ValueError as error:
            if "broadcast" not in str(error):
                raise
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast "
                f"to indexing result of shape {list(result[self.key].shape)}"
            ) from None
        return result

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.check_indices()
        return grad * constant(self.outside_indices, grad), grad[self.key]

    def outside_indices(self, like: np.ndarray) -> np.ndarray:
        """1 where the indices did not write, 0 where they did."""
        mask = np.ones(like.shape, dtype=like.dtype)
        mask[self.key] = 0
        return mask


class _RandomFill(Node):
    """Base of the in-place random fills: new values drawn from a generator, none of the old
    values kept -- self: zeros_like(grad).

    `order` says where the values go in a tensor that is not contiguous (torch fills those in
    memory order, see minigrad.random.fill_order); the recorded input is a contiguous copy, so
    the layout is taken from the tensor itself when the node is made.
    """

    def __init__(self, generator: random.Generator | None, order: np.ndarray | None) -> None:
        self.generator = generator
        self.order = order

    def draw(self, count: int, dtype: np.dtype) -> np.ndarray:
        raise NotImplementedError

    def forward(self, before: np.ndarray) -> np.ndarray:
        values = self.draw(before.size, before.dtype).astype(before.dtype, copy=False)
        if self.order is not None:
            placed = np.empty(before.size, dtype=before.dtype)
            placed[self.order] = values
            values = placed
        return values.reshape(before.shape)

    def backward(self, grad: np.ndarray) -> tuple[np.ndarray]:
        return (zeros_like(grad),)


class NormalBackward0(_RandomFill):
    """normal_(self, mean, std) -- self: zeros_like(grad)."""

    def __init__(
        self, mean: float, std: float, generator: random.Generator | None, order: np.ndarray | None
    ) -> None:
        super().__init__(generator, order)
        self.mean, self.std = mean, std

    def draw(self, count: int, dtype: np.dtype) -> np.ndarray:
        contiguous = self.order is None
        return random.normal(count, self.mean, self.std, dtype, self.generator, contiguous)


class UniformBackward0(_RandomFill):
    """uniform_(self, from, to) -- self: zeros_like(grad)."""

    def __init__(
        self, low: float, high: float, generator: random.Generator | None, order: np.ndarray | None
    ) -> None:
        super().__init__(generator, order)
        self.low, self.high = low, high

    def draw(self, count: int, dtype: np.dtype) -> np.ndarray:
        return random.uniform(count, self.low, self.high, dtype, self.generator)


class BernoulliBackward2(_RandomFill):
    """bernoulli_(self, p) with a float p -- self: zeros_like(grad)."""

    def __init__(
        self, p: float, generator: random.Generator | None, order: np.ndarray | None
    ) -> None:
        super().__init__(generator, order)
        self.p = p

    def draw(self, count: int, dtype: np.dtype) -> np.ndarray:
        return random.bernoulli(count, self.p, self.generator)
