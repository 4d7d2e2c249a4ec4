"""`minigrad.autograd.Variable`: the name tensors had before PyTorch 0.4, kept as torch keeps it.

`Variable(t)` is a new leaf on t's memory (like `t.detach()`), and `Variable(t,
requires_grad=True)` one that requires grad; every tensor counts as a Variable in
`isinstance`. Old tutorials still write it; new code writes tensors directly.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """The legacy wrapper: returns a tensor, never a Variable object."""

    def __new__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Any:  # noqa: D102
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
