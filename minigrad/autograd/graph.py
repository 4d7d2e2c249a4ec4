"""`minigrad.autograd.graph`: what torch.autograd.graph holds that a learner meets: the Node
class behind every `grad_fn`, and `saved_tensors_hooks` (pack / unpack the saved values)."""

from __future__ import annotations

from ..graph import Node
from ..versions import saved_tensors_hooks

__all__ = ["Node", "saved_tensors_hooks"]
