"""minigrad / torch time ratios, measured the plain way: one process, one thread, alternating.

Each round times a block of minigrad calls, then the same block with torch (the order flips
every round, so neither always runs on a warm cache), and the ratio of the two medians over
the rounds is reported. Workloads (issue 12, item 5):

- tiny:  (a*b + a).sigmoid().sum(), forward and backward, at shape (3,) and (64, 64)
- mlp:   one training step of an 8-64-1 MLP (relu, mse, SGD), batch 64
- chain: building y = y * 1.0 20,000 times (time per op)

Run: .venv/bin/python benchmarks/alternating.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import minigrad  # noqa: E402

try:
    import torch  # noqa: E402
except ImportError:  # pragma: no cover - the script needs torch to compare with
    torch = None


def tiny_graph(lib, shape: tuple[int, ...]) -> Callable[[], None]:
    values = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    a = lib.tensor(values, requires_grad=True)
    b = lib.tensor(values[::-1].copy(), requires_grad=True)

    def step() -> None:
        a.grad = None
        b.grad = None
        (a * b + a).sigmoid().sum().backward()

    return step


def mlp_step(lib) -> Callable[[], None]:
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(8, 64), lib.nn.ReLU(), lib.nn.Linear(64, 1))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 8), dtype=np.float32))
    y = lib.tensor(rng.standard_normal((64, 1), dtype=np.float32))

    def step() -> None:
        optimizer.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()

    return step


CHAIN = 20_000


def chain_build(lib) -> Callable[[], None]:
    start = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def step() -> None:
        y = start
        for _ in range(CHAIN):
            y = y * 1.0
        del y

    return step


def time_block(step: Callable[[], None], repeat: int) -> float:
    begin = time.perf_counter()
    for _ in range(repeat):
        step()
    return (time.perf_counter() - begin) / repeat


def measure(name: str, make: Callable, repeat: int, rounds: int, per: int = 1) -> dict:
    """Median seconds per call for both libraries, alternating, and their ratio."""
    steps = {"minigrad": make(minigrad), "torch": make(torch)}
    for step in steps.values():  # warm up
        time_block(step, max(1, repeat // 5))
    times: dict[str, list[float]] = {"minigrad": [], "torch": []}
    for round_index in range(rounds):
        order = ["minigrad", "torch"] if round_index % 2 == 0 else ["torch", "minigrad"]
        for lib_name in order:
            times[lib_name].append(time_block(steps[lib_name], repeat) / per)
    ours, theirs = statistics.median(times["minigrad"]), statistics.median(times["torch"])
    return {
        "name": name,
        "minigrad_us": ours * 1e6,
        "torch_us": theirs * 1e6,
        "ratio": ours / theirs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if torch is None:
        raise SystemExit("torch is not installed: pip install torch==2.13.0 (CPU)")
    torch.set_num_threads(1)
    rows = [
        measure("tiny (3,)", lambda lib: tiny_graph(lib, (3,)), 400, args.rounds),
        measure("tiny (64, 64)", lambda lib: tiny_graph(lib, (64, 64)), 300, args.rounds),
        measure("mlp step 8-64-1, batch 64", mlp_step, 200, args.rounds),
        measure("chain build, per op", chain_build, 1, args.rounds, per=CHAIN),
    ]
    print(f"{'workload':28} {'minigrad':>12} {'torch':>12} {'ratio':>7}")
    for row in rows:
        print(
            f"{row['name']:28} {row['minigrad_us']:10.2f}us {row['torch_us']:10.2f}us "
            f"{row['ratio']:6.2f}x"
        )


if __name__ == "__main__":
    main()
