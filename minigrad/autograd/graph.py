"""`minigrad.autograd.graph`: what torch.autograd.graph holds that a learner meets: the Node
class behind every `grad_fn`, `saved_tensors_hooks` (pack / unpack the saved values) and its
ready-made pair `save_on_cpu`, `register_multi_grad_hook` (one hook for the gradients of
several tensors), and `increment_version` (tell autograd a tensor was changed behind its
back)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..engine import current_walk
from ..graph import Node, RemovableHandle
from ..versions import saved_tensors_hooks

__all__ = [
    "Node",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]
MULTI_GRAD_MODES = ("all", "any")


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


class _MultiHandle(RemovableHandle):
    """The handle `register_multi_grad_hook` returns: `remove()` takes away the hook it put on
    each tensor."""

    def __init__(self, handles: tuple[RemovableHandle, ...]) -> None:
        self.handles = handles

    def remove(self) -> None:
        """Unregister the hooks on all the tensors."""
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(
    tensors: Sequence[Any], fn: Callable[[Any], None], *, mode: str = "all"
) -> RemovableHandle:
    """One hook for the gradients of several tensors (torch.autograd.graph's function).

    mode="all": once every gradient of `tensors` that this backward computes is known, `fn` gets
    them all, in the order of `tensors`, with None for a tensor this backward does not reach
    (not in its graph, or not on the way to the `inputs=` it was asked for).
    mode="any": `fn` gets the first of them to be computed, once per backward.
    Both are built from a tensor hook (`register_hook`) on each tensor.
    """
    if mode not in MULTI_GRAD_MODES:
        raise ValueError(f"Expects mode to be one of {MULTI_GRAD_MODES} but got {mode}")
    if mode == "any":
        return _MultiHandle(_first_gradient_hooks(tensors, fn))
    return _MultiHandle(_all_gradients_hooks(tensors, fn))


def _all_gradients_hooks(
    tensors: Sequence[Any], fn: Callable[[list[Any]], None]
) -> tuple[RemovableHandle, ...]:
    """mode="all": each tensor's hook files its gradient under the backward pass it belongs to;
    the last one expected calls `fn`."""
    nodes = [_node_of(tensor) for tensor in tensors]
    gathered: dict[int, list[Any]] = {}  # per backward pass: the gradients so far
    waiting_for: dict[int, int] = {}  # per backward pass: how many hook calls are still to come

    def hook_for(index: int) -> Callable[[Any], None]:
        def file_gradient(grad: Any) -> None:
            walk = _running_walk()
            number = walk.number
            if number not in gathered:  # the first call of this pass: count the ones to come
                gathered[number] = [None] * len(tensors)
                waiting_for[number] = sum(walk.will_run(node) for node in nodes)
            gathered[number][index] = grad
            waiting_for[number] -= 1
            if waiting_for[number] == 0:
                del waiting_for[number]
                fn(gathered.pop(number))

        return file_gradient

    return tuple(tensor.register_hook(hook_for(i)) for i, tensor in enumerate(tensors))


def _first_gradient_hooks(
    tensors: Sequence[Any], fn: Callable[[Any], None]
) -> tuple[RemovableHandle, ...]:
    """mode="any": the first hook called in a backward pass calls `fn`, the others do not."""
    passes_served: set[int] = set()

    def first_only(grad: Any) -> None:
        number = _running_walk().number
        if number not in passes_served:
            passes_served.add(number)
            fn(grad)

    return tuple(tensor.register_hook(first_only) for tensor in tensors if tensor.requires_grad)


def _node_of(tensor: Any) -> Node:
    """The node that receives `tensor`'s gradient: its grad_fn, or a leaf's AccumulateGrad."""
    node = tensor._grad_accumulator() if tensor.requires_grad and tensor.is_leaf else None
    node = tensor.grad_fn if node is None else node
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def _running_walk() -> Any:
    walk = current_walk()
    if walk is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return walk
