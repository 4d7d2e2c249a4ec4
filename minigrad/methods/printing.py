"""`repr(t)`: the numbers as torch prints them, then what autograd knows about the tensor
(`grad_fn=<MulBackward0>`, or `requires_grad=True` for a leaf that requires grad)."""

from __future__ import annotations

from .._format import dtype_suffix, format_tensor
from .base import TensorBase

__all__ = ["PrintingMethods"]


class PrintingMethods(TensorBase):
    """`__repr__` (the layout of the numbers is in _format.py)."""

    def __repr__(self) -> str:
        suffixes = []
        dtype_note = dtype_suffix(self._array)
        if dtype_note:
            suffixes.append(dtype_note)
        try:
            node = self._current_grad_fn()
        except RuntimeError:  # a view made under no_grad whose memory changed since
            node = None
            suffixes.append("grad_fn=<Invalid>")  # (torch prints this rather than raising)
        if node is not None:
            suffixes.append(f"grad_fn=<{node.name()}>")
        elif self._needs_grad() and not suffixes[-1:] == ["grad_fn=<Invalid>"]:
            suffixes.append("requires_grad=True")
        return format_tensor(self._array, suffixes)
