"""One hook point for watching a forward pass: `minigrad.viz.trace()` listens here.

The few places where a value can leave the graph call `seen(op, inputs, result)` when someone is
watching: an op run by the engine (`Tensor._apply`, also under no_grad), `detach()` and `.data`,
`item()`, `tolist()`, `numpy()`, `float()`, `argmax`, comparisons, `tensor(...)`,
`requires_grad_()` and in-place changes. `op` uses torch's name for the call ("detach",
"item", "__float__", "requires_grad_", ...), so one reader understands minigrad and torch.

While nobody watches, `watchers` is empty and each of those places pays one truth test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["seen", "watchers"]

# each is called as watcher(op, inputs, result); viz.trace() adds one and removes it again
watchers: list[Callable[[str, tuple[Any, ...], Any], None]] = []


def seen(op: str, inputs: tuple[Any, ...], result: Any) -> None:
    """Tell every watcher that `op` made `result` from `inputs`."""
    for watcher in watchers:
        watcher(op, inputs, result)
