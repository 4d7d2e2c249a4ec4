"""How to read one tensor and one graph node, from minigrad or from real PyTorch.

walk.py walks a graph through one of these two readers and never looks at a tensor itself, so
the two libraries differ only here. Both give the same facts, except for what torch does not
expose:

- which version counter a tensor uses (`counter_key` is None; `summary(counters=False)` leaves
  counters out, so minigrad's and torch's summaries of one program can be compared);
- the version a value had when it was saved: read from the error that reading a changed
  `_saved_*` attribute raises ("is at version 1; expected version 0"), and then the saved value
  is linked to a drawn tensor only for the `result` slot (the tensor the node made);
- a creation order: unnamed torch tensors are numbered in discovery order;
- object identity between two snapshots is `id()` of live objects, so a comparison should be
  given snapshots of graphs that are still alive (which `viz.cut` guarantees).

torch is never imported here: a torch tensor is recognised by its class's module.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["MinigradReader", "TorchReader", "is_torch_tensor"]


def is_torch_tensor(value: object) -> bool:
    """True for a torch.Tensor, decided without importing torch."""
    return any(cls.__module__.startswith("torch") for cls in type(value).__mro__)


class MinigradReader:
    """How to read minigrad's objects: the fields recording.py and versions.py document."""

    source = "minigrad"

    @staticmethod
    def order(tensor: Any) -> int:
        return tensor._serial

    @staticmethod
    def tensor_facts(tensor: Any) -> dict[str, Any]:
        return {
            "shape": tuple(tensor._array.shape),
            "dtype": tensor._array.dtype.name,
            "requires_grad": tensor.requires_grad,
            "is_leaf": tensor.grad_fn is None,
            "version": tensor._version_counter.value,
            "is_view": tensor._base is not None,
        }

    @staticmethod
    def grad_fn(tensor: Any) -> Any:
        return tensor.grad_fn

    @staticmethod
    def storage_key(tensor: Any) -> tuple[str, int]:
        return ("storage", tensor._storage.serial)

    @staticmethod
    def counter_key(tensor: Any) -> tuple[str, int] | None:
        return ("counter", id(tensor._version_counter))

    @staticmethod
    def node_name(node: Any) -> str:
        return node.name()

    @staticmethod
    def next_functions(node: Any) -> tuple[Any, ...]:
        return tuple(next_node for next_node, _ in node.next_functions)

    @staticmethod
    def variable(node: Any) -> Any:
        return getattr(node, "variable", None) if node.name() == "AccumulateGrad" else None

    @staticmethod
    def node_uid(node: Any) -> int:
        return node.serial

    @staticmethod
    def tensor_uid(tensor: Any) -> int:
        return tensor._serial

    @staticmethod
    def saved_values(node: Any, tensors: Mapping[int, Any]) -> list[dict[str, Any]]:
        """One dict per saved slot; `tensors` maps tensor uid -> tensor object."""
        values = []
        for slot, saved in node.saved.items():
            entry = {"slot": slot, "is_output": saved.is_output, "freed": saved.freed}
            if saved.freed:  # nothing is left of it (walk.py draws it on its own)
                entry.update(tensor=None, saved_version=None, current_version=None)
                entry.update(storage=None, counter=None)
            else:
                entry.update(
                    tensor=tensors.get(saved.tensor_serial),
                    saved_version=saved.saved_version,
                    current_version=saved.current_version,
                    storage=_key("storage", saved.storage, saved),
                    counter=_key("counter", saved.version_counter, saved),
                )
            values.append(entry)
        return values


def _key(kind: str, shared: Any, saved: Any) -> tuple[str, int]:
    """The key of a saved value's storage or counter; a number saved next to a tensor has
    neither (nothing else can look at it), so it gets one of its own."""
    if shared is None:
        return (f"number {kind}", id(saved))
    return (kind, shared.serial if kind == "storage" else id(shared))


_VERSION_ERROR = re.compile(r"is at version (\d+); expected version (\d+)")


class TorchReader:
    """How to read torch's objects: `next_functions`, `variable`, `_saved_*`, `_version`.

    torch does not expose which version counter a tensor uses (so `counter` is None), nor the
    version a value had when it was saved; reading a `_saved_*` attribute of a changed value
    raises the same error backward would, and that error states both versions.
    """

    source = "torch"

    @staticmethod
    def order(tensor: Any) -> int | None:
        return None  # torch keeps no creation order: discovery order is used

    @staticmethod
    def tensor_facts(tensor: Any) -> dict[str, Any]:
        return {
            "shape": tuple(tensor.shape),
            "dtype": str(tensor.dtype).removeprefix("torch."),
            "requires_grad": tensor.requires_grad,
            "is_leaf": tensor.is_leaf,
            "version": tensor._version,
            "is_view": tensor._base is not None,
        }

    @staticmethod
    def grad_fn(tensor: Any) -> Any:
        return tensor.grad_fn

    @staticmethod
    def storage_key(tensor: Any) -> tuple[str, int]:
        # only compared for equality inside one snapshot, never printed
        return ("storage", tensor.untyped_storage().data_ptr())

    @staticmethod
    def counter_key(tensor: Any) -> None:
        return None

    @staticmethod
    def node_name(node: Any) -> str:
        return node.name().rsplit("::", 1)[-1]  # 'torch::autograd::AccumulateGrad'

    @staticmethod
    def next_functions(node: Any) -> tuple[Any, ...]:
        return tuple(next_node for next_node, _ in node.next_functions)

    @staticmethod
    def variable(node: Any) -> Any:
        return getattr(node, "variable", None)

    @staticmethod
    def node_uid(node: Any) -> int:
        return id(node)  # matching between two snapshots of live graphs only; never shown

    @staticmethod
    def tensor_uid(tensor: Any) -> int:
        return id(tensor)

    @staticmethod
    def saved_values(node: Any, tensors: Mapping[int, Any]) -> list[dict[str, Any]]:
        values = []
        slots = sorted(
            name.removeprefix("_raw_saved_") for name in dir(node) if name.startswith("_raw_saved_")
        )
        for slot in slots:
            if slot == "tensors" and hasattr(type(node), "saved_tensors"):
                # a custom Function's node is its ctx: save_for_backward's values are read as
                # `saved_tensors` (named saved_tensors[0], ... as minigrad names them); once
                # backward freed them torch no longer says how many: one entry stands for all
                try:
                    count = len(node._raw_saved_tensors)
                except RuntimeError:
                    count = 1
                for index in range(count):
                    values += _torch_saved(
                        f"saved_tensors[{index}]", lambda i=index: node.saved_tensors[i], tensors
                    )
                continue
            try:
                values += _torch_saved(slot, lambda s=slot: getattr(node, f"_saved_{s}"), tensors)
            except AttributeError:
                continue  # a slot torch lists but does not hand out
        return values


def _torch_saved(slot: str, read: Any, tensors: Mapping[int, Any]) -> list[dict[str, Any]]:
    """The entry of one torch saved value (none for an undefined optional tensor); `read()`
    gives the value, or raises the error backward would when it was changed or freed."""
    entry: dict[str, Any] = {
        "slot": slot,
        "tensor": None,
        "is_output": slot == "result",
        "freed": False,
        "saved_version": None,
        "current_version": None,
        "storage": None,
        "counter": None,
    }
    try:
        value = read()
    except RuntimeError as error:
        text = str(error)
        match = _VERSION_ERROR.search(text)
        if match:
            entry["current_version"] = int(match.group(1))
            entry["saved_version"] = int(match.group(2))
        elif "second time" in text:
            entry["freed"] = True
        return [entry]
    if value is None or not is_torch_tensor(value):
        return []  # an undefined optional tensor
    entry["saved_version"] = entry["current_version"] = value._version
    entry["storage"] = ("storage", value.untyped_storage().data_ptr())
    entry["tensor"] = tensors.get(id(value))  # torch hands back the saved input object itself
    return [entry]
