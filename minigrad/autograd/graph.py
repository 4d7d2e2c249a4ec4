"""`minigrad.autograd.graph`: what torch.autograd.graph holds that a learner meets: the Node
class behind every `grad_fn`, `saved_tensors_hooks` (pack / unpack the saved values) and its
ready-made pair `save_on_cpu`, and `increment_version` (tell autograd a tensor was changed
behind its back)."""

from __future__ import annotations

from typing import Any

from ..graph import Node
from ..versions import saved_tensors_hooks

__all__ = ["Node", "increment_version", "save_on_cpu", "saved_tensors_hooks"]


def increment_version(tensor: Any) -> None:
    """Count one in-place change of `tensor` (or of each tensor in an iterable) that autograd
    did not see, e.g. one made through numpy: a saved copy of it then fails its version check.
    Inference tensors have no version counter and are left alone."""
    tensors = tensor if isinstance(tensor, (list, tuple)) else (tensor,)
    for each in tensors:
        if not each.is_inference():
            each._version_counter.bump()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - torch's name
    """Context manager: the tensors saved for backward inside are kept in CPU memory and moved
    back to their device when backward needs them (torch.autograd.graph.save_on_cpu).

    In torch this frees GPU memory during the forward pass. minigrad's tensors all live on the
    CPU already, so the pack hook keeps the tensor itself, as torch's does for a CPU tensor;
    `pin_memory=True` packs a copy, as torch's does (pinned memory makes the copy back to a GPU
    faster). `device_type` names the accelerator and changes nothing here.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple[str, Any]:
            if pin_memory:
                return tensor.device, tensor.detach().clone()
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed: tuple[str, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)
