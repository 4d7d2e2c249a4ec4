"""Measurements the course plots: how much memory a training loop holds, step by step.

The classic leak: logging the running loss with `total = total + loss` (or `total += loss`)
makes `total` a tensor whose graph points at every step's loss, and through it at every step's
graph. Nothing of it can be freed. `total += loss.item()` (a Python float) keeps nothing.

`loss_accumulation_memory()` runs the same small training loop both ways and returns the memory
traced by `tracemalloc` after each step, ready to plot:

    curves = loss_accumulation_memory(steps=100)
    for label, values in curves.items():
        plt.plot([v / 1024 for v in values], label=label)
"""

from __future__ import annotations

import gc
import tracemalloc

from .._tensor import Tensor
from ..creation import manual_seed, randn
from ..grad_mode import no_grad
from . import functional as F
from .modules import Linear, ReLU, Sequential

__all__ = ["GRAPH_KEPT", "ITEM", "loss_accumulation_memory", "traced_memory_per_step"]

GRAPH_KEPT = "total = total + loss"
ITEM = "total += loss.item()"


def traced_memory_per_step(
    accumulate: str = GRAPH_KEPT,
    steps: int = 100,
    batch_size: int = 64,
    hidden: int = 64,
    backward: bool = True,
    seed: int = 0,
) -> list[int]:
    """Bytes allocated (beyond what existed before the loop) after each step of a training loop.

    `accumulate` is GRAPH_KEPT or ITEM. With `backward=False` the loop only evaluates the loss
    (a logging or validation loop without `no_grad`): then even the saved activations stay
    alive in the GRAPH_KEPT variant, and the curve climbs much faster. With `backward=True`,
    backward frees the saved arrays, but every step's nodes stay linked to `total`.
    """
    if accumulate not in (GRAPH_KEPT, ITEM):
        raise ValueError(f"accumulate must be {GRAPH_KEPT!r} or {ITEM!r}, not {accumulate!r}")
    manual_seed(seed)
    model = Sequential(Linear(2, hidden), ReLU(), Linear(hidden, 1))
    inputs, targets = randn(batch_size, 2), randn(batch_size, 1)
    params = list(model.parameters())

    # A full collection empties CPython's free lists (of tuples, floats, ...), whose recycled
    # blocks tracemalloc still counts as allocated: without it even the good loop seems to grow
    # by a few hundred KiB before levelling off. gc.freeze() parks every existing object where
    # the collector does not look, so collecting after each step stays cheap.
    gc.freeze()
    gc.collect()  # cheap once frozen: it only empties the free lists before the baseline
    started_here = not tracemalloc.is_tracing()
    if started_here:
        tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        total: Tensor | float = 0.0
        sizes = []
        for _ in range(steps):
            loss = F.mse_loss(model(inputs), targets)
            if backward:
                for param in params:
                    param.grad = None
                loss.backward()
                with no_grad():
                    for param in params:
                        param.sub_(param.grad, alpha=0.01)
            if accumulate == GRAPH_KEPT:
                total = total + loss  # a tensor with a grad_fn: it links every step's graph
            else:
                total += loss.item()  # a float: nothing of the graph survives the step
            del loss
            gc.collect()
            sizes.append(tracemalloc.get_traced_memory()[0] - baseline)
        del total
    finally:
        if started_here:
            tracemalloc.stop()
        gc.unfreeze()
    return sizes


def loss_accumulation_memory(
    steps: int = 100,
    batch_size: int = 64,
    hidden: int = 64,
    backward: bool = True,
    seed: int = 0,
) -> dict[str, list[int]]:
    """Traced memory per step for both ways of accumulating the loss: {label: [bytes, ...]}."""
    return {
        label: traced_memory_per_step(label, steps, batch_size, hidden, backward, seed)
        for label in (GRAPH_KEPT, ITEM)
    }
