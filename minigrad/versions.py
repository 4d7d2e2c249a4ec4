"""Shared memory and version counters: what a tensor, its views, `detach()` and `.data` share.

Three tensors can look at the same numbers in three different ways, and the difference between
them is the whole story of this course:

- a view (`b[1:]`, `b.view(3, 1)`) shares the memory *and* the version counter of its base;
- `b.detach()` shares the memory *and* the version counter, but is cut from the graph;
- `b.data` shares the memory but gets a **fresh** version counter, so in-place changes made
  through it are invisible to the check that backward makes.

That check is `SavedTensor.unpack`, at the bottom: a value saved for backward remembers the
version its memory had, and backward refuses to use it once the counter has moved on.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor

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


# ---- saved tensors: the values a backward formula needs, and the version check ------------

SECOND_BACKWARD_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


class SavedTensor:
    """A value kept for backward, with the version its memory had when it was saved.

    It keeps the array and the version counter, never the tensor object: a node that kept its
    own output tensor would form a reference cycle (output -> grad_fn -> output).
    """

    def __init__(self, tensor: Tensor, is_output: bool) -> None:
        self.array: np.ndarray | None = tensor._array
        self.version_counter = tensor._version_counter
        self.saved_version = tensor._version_counter.value
        self.storage = tensor._storage
        self.tensor_serial = tensor._serial
        self.is_output = is_output
        # what the version error names: "output 0 of Sigmoid" (kept as a string, not the node,
        # so a node that saves its own output does not point back at itself)
        self._output_of = _output_of(tensor)

    @property
    def freed(self) -> bool:
        """True once backward has dropped the values (it does unless retain_graph=True)."""
        return self.array is None

    @property
    def current_version(self) -> int:
        """The version of the memory now; backward fails if it differs from `saved_version`."""
        return self.version_counter.value

    def unpack(self) -> np.ndarray:
        """Return the saved values, after checking they were not freed or changed in place."""
        if self.array is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        if self.current_version != self.saved_version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: {self._describe()} is at version {self.current_version}; "
                f"expected version {self.saved_version} instead. Hint: the tensor was changed in "
                "place (perhaps through a view or a detach()ed alias) after this operation saved "
                "it; clone() it before changing it, or change it out of place."
            )
        return self.array

    def _describe(self) -> str:
        """'[minigrad.FloatTensor [3]], which is output 0 of Sigmoid,', as torch words it."""
        kinds = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor"}
        kind = kinds.get(self.array.dtype.name, "Tensor")
        text = f"[minigrad.{kind} [{', '.join(str(n) for n in self.array.shape)}]]"
        if self._output_of is None:
            return text
        return f"{text}, which is output 0 of {self._output_of},"

    def free(self) -> None:
        """Drop the values (what backward does without retain_graph=True)."""
        self.array = None


def _output_of(tensor: Tensor) -> str | None:
    """'Sigmoid' for an output of SigmoidBackward0, 'AsStrided' for a view, None for a leaf."""
    if tensor._base is not None:
        return "AsStrided"
    node = tensor.grad_fn
    return None if node is None else node.name().removesuffix("Backward0")
