"""`minigrad.autograd.graph`: what torch.autograd.graph holds that a learner meets: the Node
class behind every `grad_fn`, `saved_tensors_hooks` (pack / unpack the saved values), and
`increment_version` (tell autograd a tensor was changed behind its back)."""

from __future__ import annotations

from typing import Any

from ..graph import Node
from ..versions import saved_tensors_hooks

__all__ = ["Node", "increment_version", "saved_tensors_hooks"]


def increment_version(tensor: Any) -> None:
    """Count one in-place change of `tensor` (or of each tensor in an iterable) that autograd
    did not see, e.g. one made through numpy: a saved copy of it then fails its version check.
    Inference tensors have no version counter and are left alone."""
    tensors = tensor if isinstance(tensor, (list, tuple)) else (tensor,)
    for each in tensors:
        if not each.is_inference():
            each._version_counter.bump()
