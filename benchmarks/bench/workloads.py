"""The code that is timed: one builder per workload, shared by the harness and the plain loop.

A builder takes a library (`minigrad` or `torch`: the code is the same for both) and returns a
step, a function of no arguments; timing a workload means calling its step in a timed loop
(`timing.time_block`). Inputs, models and optimizers are made by the builder, off the clock.

`VS_TORCH` holds the four workloads of issue 12's speed targets. The `vs-torch` row of
`make bench` and the plain alternating loop (`benchmarks/alternating.py`) both time exactly
these steps, so their minigrad / torch ratios can be compared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

Step = Callable[[], Any]


def random_pair(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Two float32 arrays of standard normal values."""
    return (
        rng.standard_normal(shape, dtype=np.float32),
        rng.standard_normal(shape, dtype=np.float32),
    )


def linspace_pair(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Two fixed float32 arrays in [-1, 1]: a ramp and the same ramp reversed."""
    values = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    return values, values[::-1].copy()


def numpy_forward(a: np.ndarray, b: np.ndarray) -> np.floating:
    """The floor for the forward pass: sum(sigmoid(a*b + a)) in plain numpy."""
    return (1 / (1 + np.exp(-(a * b + a)))).sum()


def numpy_forward_backward(
    a: np.ndarray, b: np.ndarray
) -> tuple[np.floating, np.ndarray, np.ndarray]:
    """sum(sigmoid(a*b + a)) and its gradients for a and b, derived by hand in plain numpy."""
    u = a * b + a
    s = 1 / (1 + np.exp(-u))
    loss = s.sum()
    grad_u = s * (1 - s)  # d sum / d s is 1 everywhere, and sigmoid' = s (1 - s)
    return loss, grad_u * b + grad_u, grad_u * a


def tiny_graph(lib: ModuleType, a_np: np.ndarray, b_np: np.ndarray) -> tuple[Step, Any, Any]:
    """(a*b + a).sigmoid().sum() forward and backward, .grad reset each time: (step, a, b)."""
    a = lib.tensor(a_np, requires_grad=True)
    b = lib.tensor(b_np, requires_grad=True)

    def step() -> None:
        a.grad = None
        b.grad = None
        (a * b + a).sigmoid().sum().backward()

    return step, a, b


def mlp_step(lib: ModuleType, x_np: np.ndarray, y_np: np.ndarray, hidden: int, lr: float) -> Step:
    """One SGD training step of an MLP (inputs -> hidden -> 1, ReLU, MSE); returns the loss.

    `optimizer.step()` updates the weights under no_grad, as torch's SGD does.
    """
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(x_np.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, 1))
    optimizer = lib.optim.SGD(model.parameters(), lr=lr)
    x, y = lib.from_numpy(x_np), lib.from_numpy(y_np)

    def step() -> Any:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


MLP_BATCH = 64
MLP_HIDDEN = 64
MLP_LR = 0.05


def mlp_data(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A fixed regression batch: 64 points in 2-D and a smooth target."""
    x = rng.standard_normal((MLP_BATCH, 2)).astype(np.float32)
    y = (np.sin(2 * x[:, :1]) + 0.5 * x[:, 1:]).astype(np.float32)
    return x, y


def chain(lib: ModuleType, start: Any, length: int, factor: float) -> Any:
    """`y = y * factor`, `length` times from `start`: the end of the chain."""
    y = start
    for _ in range(length):
        y = y * factor
    return y


# --------------------------------------------------------------------------------------------
# Issue 12's four speed targets (minigrad / torch), as the plain loop and `vs-torch` time them
# --------------------------------------------------------------------------------------------

CHAIN_OPS = 20_000


def tiny_3(lib: ModuleType) -> Step:
    """The tiny graph at shape (3,)."""
    return tiny_graph(lib, *linspace_pair((3,)))[0]


def tiny_64(lib: ModuleType) -> Step:
    """The tiny graph at shape (64, 64)."""
    return tiny_graph(lib, *linspace_pair((64, 64)))[0]


def mlp_8_64_1(lib: ModuleType) -> Step:
    """The MLP step 8 -> 64 -> 1, batch 64, ReLU, MSE, SGD (lr 0.01)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 8), dtype=np.float32)
    y = rng.standard_normal((64, 1), dtype=np.float32)
    return mlp_step(lib, x, y, hidden=64, lr=0.01)


def chain_build(lib: ModuleType) -> Step:
    """Build a chain of CHAIN_OPS `y = y * 1.0` from a 3-element leaf, then drop it."""
    start = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def step() -> None:
        chain(lib, start, CHAIN_OPS, 1.0)  # the chain is freed as the call returns

    return step


@dataclass(frozen=True)
class Workload:
    """A named workload: how to build its step, and how the plain loop times it."""

    key: str  # a short name for the command line
    name: str
    build: Callable[[ModuleType], Step]
    calls: int  # calls per timed block in the plain alternating loop
    target: float  # issue 12's bound on the minigrad / torch ratio
    per: int = 1  # operations per call: a time per operation is the call's time / per
    max_rounds: int | None = None  # fewer rounds of the plain loop for a slow step

    @property
    def unit(self) -> str:
        """What one time is for: a call, or one operation of it."""
        return "per op" if self.per > 1 else "per call"


VS_TORCH: tuple[Workload, ...] = (
    Workload("tiny-3", "tiny graph (3,)", tiny_3, calls=400, target=1.0),
    Workload("tiny-64", "tiny graph (64, 64)", tiny_64, calls=300, target=1.0),
    Workload("mlp", "mlp step 8-64-1, batch 64", mlp_8_64_1, calls=200, target=1.0),
    # Three builds per timed block: a build meets one or two of the garbage collector's full
    # collections (each walks every object in the process), depending on how many objects the
    # builds before it left pending; timed one at a time, the per-op figure jumped between two
    # values (14 and 23 us here) and a median of a few runs picked either. Three builds in a
    # row meet five or six, so every block carries about the same share.
    Workload(
        "chain",
        f"chain build {CHAIN_OPS:,} ops",
        chain_build,
        calls=3,
        target=3.0,
        per=CHAIN_OPS,
        max_rounds=7,
    ),
)
