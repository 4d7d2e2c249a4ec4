"""The code that is timed: one builder per workload, minigrad and torch running the same lines.

A builder takes a library (`minigrad` or `torch`: the code is the same for both) and returns a
step, a function of no arguments; timing a workload means calling its step in a timed loop
(`timing.time_block`). Inputs, models and optimizers are made by the builder, off the clock.

`VS_TORCH` holds the minigrad / torch workloads: the three the speed targets were first stated
on (the tiny graph at two shapes, the MLP step, the chain build), and beside each of the first
two, the same work written the ways users write it, which the first versions avoid: a loop
body that keeps its `loss`, gradients zeroed in place, the loss as `((pred - y) ** 2).mean()`
with a hand-written `w.sub_(lr * w.grad)` update, the loss read with `.item()` every step,
SGD with momentum, Adam. A speed trick that only helps the first versions shows up here.
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
# minigrad / torch: the bench's workloads and what users write instead (the vs-torch row)
# --------------------------------------------------------------------------------------------

CHAIN_OPS = 20_000
MLP_SHAPE = (8, 64, 1)  # inputs -> hidden -> output of the vs-torch MLP
MLP_STEP_LR = 0.01


def tiny(shape: tuple[int, ...], style: str) -> Callable[[ModuleType], Step]:
    """The tiny graph (a*b + a).sigmoid().sum(), forward and backward, written in one `style`:

    - "bench": `a.grad = None` for both leaves, the loss dropped as the step returns;
    - "loop": the same written as a loop body at a notebook's top level: `loss` keeps the last
      graph alive until the next step has built its own;
    - "zero": the gradients zeroed in place (`a.grad.zero_()`), so backward adds into them.
    """

    def build(lib: ModuleType) -> Step:
        a_np, b_np = linspace_pair(shape)
        a = lib.tensor(a_np, requires_grad=True)
        b = lib.tensor(b_np, requires_grad=True)
        kept: dict[str, Any] = {}

        def bench() -> None:
            a.grad = None
            b.grad = None
            (a * b + a).sigmoid().sum().backward()

        def loop() -> None:
            a.grad = None
            b.grad = None
            kept["loss"] = loss = (a * b + a).sigmoid().sum()
            loss.backward()

        def zero() -> None:
            a.grad.zero_()
            b.grad.zero_()
            (a * b + a).sigmoid().sum().backward()

        bench()  # the leaves get their .grad, which "zero" expects
        return {"bench": bench, "loop": loop, "zero": zero}[style]

    return build


def mlp(style: str) -> Callable[[ModuleType], Step]:
    """One training step of an 8-64-1 MLP (ReLU), batch 64, written in one `style`:

    - "bench": `optimizer.zero_grad(); mse_loss(model(x), y).backward(); optimizer.step()`,
      plain SGD (no momentum);
    - "pow-sub": the loss as `((model(x) - y) ** 2).mean()`, the update by hand under
      `no_grad()`: `w.sub_(lr * w.grad)`, then `w.grad = None`;
    - "item": the bench step, and the loss read with `loss.item()` for a log, every step;
    - "momentum": the bench step with `SGD(..., momentum=0.9)`;
    - "adam": the bench step with `Adam(..., lr=1e-3)`.
    """

    def build(lib: ModuleType) -> Step:
        rng = np.random.default_rng(0)
        x_np = rng.standard_normal((64, MLP_SHAPE[0]), dtype=np.float32)
        y_np = rng.standard_normal((64, MLP_SHAPE[2]), dtype=np.float32)
        lib.manual_seed(0)
        nn = lib.nn
        model = nn.Sequential(
            nn.Linear(MLP_SHAPE[0], MLP_SHAPE[1]), nn.ReLU(), nn.Linear(MLP_SHAPE[1], MLP_SHAPE[2])
        )
        params = list(model.parameters())
        x, y = lib.from_numpy(x_np), lib.from_numpy(y_np)
        if style == "momentum":
            optimizer = lib.optim.SGD(params, lr=MLP_STEP_LR, momentum=0.9)
        elif style == "adam":
            optimizer = lib.optim.Adam(params, lr=1e-3)
        else:
            optimizer = lib.optim.SGD(params, lr=MLP_STEP_LR)
        log: list[float] = []

        def bench() -> None:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()

        def item() -> None:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            log.append(loss.item())
            if len(log) > 1000:
                log.clear()  # a log, not a memory leak in the timed loop

        def pow_sub() -> None:
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            with lib.no_grad():
                for w in params:
                    w.sub_(MLP_STEP_LR * w.grad)
                    w.grad = None

        steps = {"bench": bench, "momentum": bench, "adam": bench, "item": item}
        return steps.get(style, pow_sub)

    return build


def chain_build(lib: ModuleType) -> Step:
    """Build a chain of CHAIN_OPS `y = y * 1.0` from a 3-element leaf, then drop it."""
    start = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def step() -> None:
        chain(lib, start, CHAIN_OPS, 1.0)  # the chain is freed as the call returns

    return step


def numpy_floors(shape: tuple[int, ...]) -> Callable[[], list[tuple[str, Step, str]]]:
    """The tiny graph's arithmetic in plain numpy on the same inputs, as (impl, step, note):
    the forward pass alone (the floor any engine sits on) and forward + backward by hand."""

    def build() -> list[tuple[str, Step, str]]:
        a, b = linspace_pair(shape)
        return [
            ("numpy", lambda: numpy_forward(a, b), "fwd only"),
            ("numpy", lambda: numpy_forward_backward(a, b), "fwd+bwd by hand"),
        ]

    return build


@dataclass(frozen=True)
class Workload:
    """A named minigrad / torch workload: how to build its step, and how long a block is."""

    key: str  # a short name for the command line (--workloads)
    name: str
    build: Callable[[ModuleType], Step]
    calls: int  # calls per timed block, the same for minigrad and torch
    target: float  # the bound on the minigrad / torch ratio
    variant_of: str = ""  # the key of the bench's own version of this work ("" for that one)
    per: int = 1  # operations per call: a time per operation is the call's time / per
    floors: Callable[[], list[tuple[str, Step, str]]] | None = None  # numpy, measured alongside

    @property
    def unit(self) -> str:
        """What one time is for: a call, or one operation of it."""
        return "per op" if self.per > 1 else "per call"


VS_TORCH: tuple[Workload, ...] = (
    Workload(
        "tiny-3",
        "tiny graph (3,)",
        tiny((3,), "bench"),
        calls=400,
        target=1.0,
        floors=numpy_floors((3,)),
    ),
    Workload(
        "tiny-3-loop",
        "tiny graph (3,), loop body keeping loss",
        tiny((3,), "loop"),
        calls=400,
        target=1.0,
        variant_of="tiny-3",
    ),
    Workload(
        "tiny-3-zero",
        "tiny graph (3,), grad.zero_()",
        tiny((3,), "zero"),
        calls=400,
        target=1.0,
        variant_of="tiny-3",
    ),
    Workload(
        "tiny-64",
        "tiny graph (64, 64)",
        tiny((64, 64), "bench"),
        calls=300,
        target=1.0,
        floors=numpy_floors((64, 64)),
    ),
    Workload(
        "tiny-64-loop",
        "tiny graph (64, 64), loop body keeping loss",
        tiny((64, 64), "loop"),
        calls=300,
        target=1.0,
        variant_of="tiny-64",
    ),
    Workload(
        "tiny-64-zero",
        "tiny graph (64, 64), grad.zero_()",
        tiny((64, 64), "zero"),
        calls=300,
        target=1.0,
        variant_of="tiny-64",
    ),
    Workload("mlp", "mlp step 8-64-1, batch 64", mlp("bench"), calls=200, target=1.0),
    Workload(
        "mlp-pow-sub",
        "mlp step, (pred - y) ** 2 and w.sub_",
        mlp("pow-sub"),
        calls=200,
        target=1.0,
        variant_of="mlp",
    ),
    Workload(
        "mlp-item",
        "mlp step, loss.item() each step",
        mlp("item"),
        calls=200,
        target=1.0,
        variant_of="mlp",
    ),
    Workload(
        "mlp-momentum",
        "mlp step, SGD momentum 0.9",
        mlp("momentum"),
        calls=200,
        target=1.0,
        variant_of="mlp",
    ),
    Workload("mlp-adam", "mlp step, Adam", mlp("adam"), calls=200, target=1.0, variant_of="mlp"),
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
        target=2.0,
        per=CHAIN_OPS,
    ),
)
