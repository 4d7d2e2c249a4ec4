"""Devices: minigrad computes with numpy on the CPU, so `cpu` is the one device it has.

torch code passes `device=` everywhere (`torch.zeros(3, device="cpu")`, `t.to("cpu")`), so
minigrad accepts the CPU in every spelling torch accepts and refuses the others with torch's
own errors: a CUDA device as torch built without CUDA refuses it, any other word as torch
refuses a device string it does not know.
"""

from __future__ import annotations

__all__ = ["CUDA_MESSAGE", "check_device", "device", "is_device_like"]

CUDA_MESSAGE = "Torch not compiled with CUDA enabled. minigrad computes on the CPU only."
# the device types torch's parser knows, in the order its message lists them
_KNOWN = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()


class device:  # noqa: N801 - torch's name
    """Where a tensor's values live: always `device(type='cpu')` in minigrad."""

    def __init__(self, type: str | device = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index  # noqa: A001
        check_device(type if index is None else f"{type}:{index}")
        self.type = "cpu"
        self.index = index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, device):
            return (self.type, self.index) == (other.type, other.index)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.type, self.index))


def is_device_like(value: object) -> bool:
    """True for what torch reads as a device in `t.to(...)`: a device or a device string."""
    return isinstance(value, device) or (isinstance(value, str) and value.split(":")[0] in _KNOWN)


def check_device(value: object, what: str = "device") -> None:
    """Accept None and the CPU (`"cpu"`, `"cpu:0"`, `device("cpu")`); refuse the rest as torch
    does without an accelerator (`what` names the function in the TypeError)."""
    if value is None or isinstance(value, device):
        return
    if isinstance(value, int) and not isinstance(value, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if not isinstance(value, str):
        raise TypeError(
            f"{what}(): argument 'device' must be minigrad.device, not {type(value).__name__}"
        )
    kind = value.split(":")[0]
    if kind == "cpu":
        return
    if kind == "cuda":
        raise AssertionError(CUDA_MESSAGE)
    if kind in _KNOWN:
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")
    raise RuntimeError(
        f"Expected one of {', '.join(_KNOWN)} device type at start of device string: {value}"
    )
