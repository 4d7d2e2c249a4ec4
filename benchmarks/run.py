"""Benchmarks: minigrad beside raw numpy, PyTorch and micrograd, all in one process (issue 8).

Run it with `make bench` (or `.venv/bin/python benchmarks/run.py`). It prints one table and
writes the same figures to `benchmarks/results/latest.json`. Every figure is the median of
repeated runs, each timed with `time.perf_counter` after warm-up runs, with the spread (quartiles
and min-max) beside it. Each run of a fast operation loops over it enough times to last a few
milliseconds, and the per-call time is the run's time divided by the loop count.

Options:
  --quick        fewer repeats (a rough answer in well under a minute plus the notebooks)
  --only ROW     run only these rows (repeatable, or comma-separated); ROW is one of ROWS
  --skip ROW     leave these rows out
  --smoke        every row once at tiny sizes: checks the harness, figures mean nothing
  --json PATH    where to write the results (default: results/latest.json for a full run of
                 every row; partial, quick and smoke runs write nothing unless given a path)
  --no-install   do not pip-install the optional peers listed in benchmarks/requirements.txt
  --markdown [JSON]  print a README "Performance" section from a results file (default
                 results/latest.json) and measure nothing
  --without PEER leave out torch or micrograd (as if not installed)

The garbage collector stays on during timing (unlike `timeit`): a training loop in a notebook
runs with it, and an engine whose graph forms reference cycles pays for it there. torch runs on
one thread, as numpy's elementwise operations do.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib
import importlib.metadata
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_JSON = HERE / "results" / "latest.json"
REQUIREMENTS = HERE / "requirements.txt"

PEERS = ("torch", "micrograd")
ROWS = ("overhead", "large", "large-kept", "alias", "mlp", "chain", "viz", "course")

# glibc: serve 4-40 MB arrays from the heap and keep freed memory instead of handing it back to
# the kernel, so a fresh array does not page-fault in again (ignored by other C libraries)
KEEP_MEMORY_ENV = {"MALLOC_MMAP_THRESHOLD_": "268435456", "MALLOC_TRIM_THRESHOLD_": "1073741824"}


# --------------------------------------------------------------------------------------------
# Settings and results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """How hard to measure: repeat counts, the time one repeat aims for, and problem sizes."""

    name: str
    min_repeats: int
    max_repeats: int
    warmup: int
    repeat_time: float  # seconds one timed repeat should last (fast calls are looped)
    budget: float  # seconds of timed repeats per measurement, within min/max repeats
    slow_repeats: int  # repeats for a call that alone takes more than the budget allows
    large_sizes: tuple[int, ...] = (10**6, 10**7)
    alias_size: int = 10**7
    chain_length: int = 100_000
    viz_sizes: tuple[int, ...] = (10, 100, 500, 1000)
    viz_shared_sizes: tuple[int, ...] = (200, 300, 1000)  # one weight reused, as in an RNN
    micrograd_batch: int = 16
    run_course: bool = True
    collect_between_rows: bool = True  # a full collection costs ~0.1 s with torch imported


FULL = Settings(
    "full", min_repeats=7, max_repeats=25, warmup=2, repeat_time=0.02, budget=1.0, slow_repeats=5
)
QUICK = Settings(
    "quick", min_repeats=3, max_repeats=7, warmup=1, repeat_time=0.01, budget=0.3, slow_repeats=3
)
# Tiny sizes, one repeat: only proves that every row still runs (tests/test_benchmarks_smoke.py).
SMOKE = Settings(
    "smoke",
    min_repeats=1,
    max_repeats=1,
    warmup=0,
    repeat_time=0.0,
    budget=0.0,
    slow_repeats=1,
    large_sizes=(1000,),
    alias_size=1000,
    chain_length=200,
    viz_sizes=(5,),
    viz_shared_sizes=(),
    micrograd_batch=2,
    run_course=False,
    collect_between_rows=False,
)


@dataclass
class Result:
    """One line of the table: a case of a row, measured for one implementation."""

    row: str
    case: str
    impl: str
    times: list[float] = field(default_factory=list)  # seconds per call, one per repeat
    number: int = 1  # calls per timed repeat
    scale: float = 1.0  # factor applied to every time (micrograd's smaller batch)
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def skipped(self) -> bool:
        """True when nothing was measured (a peer or module is missing)."""
        return not self.times

    def stats(self) -> dict[str, float]:
        """Median, quartiles and extremes of the per-call times, in seconds."""
        values = sorted(t * self.scale for t in self.times)
        if len(values) >= 2:
            q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
        else:
            q1 = q3 = values[0]
        return {
            "median": statistics.median(values),
            "q1": q1,
            "q3": q3,
            "min": values[0],
            "max": values[-1],
        }

    def to_json(self) -> dict[str, Any]:
        """The result as plain data: raw times plus the summary figures."""
        data = asdict(self)
        data["repeats"] = len(self.times)
        data.update({f"{k}_s": v for k, v in self.stats().items()} if self.times else {})
        return data


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def _run_repeat(fn: Callable[[], object], number: int) -> float:
    """Seconds per call over one timed loop of `number` calls."""
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def _autorange(fn: Callable[[], object], at_least: float) -> float:
    """Seconds per call, from loops of 1, 10, 100... calls until one lasts `at_least`."""
    number = 1
    while True:
        per_call = _run_repeat(fn, number)
        if per_call * number >= at_least or number >= 10_000:
            return per_call
        number *= 10


def repeat_count(seconds_per_repeat: float, settings: Settings) -> int:
    """As many repeats as fit in the budget, within limits; fewer for slow calls."""
    fits = int(settings.budget / max(seconds_per_repeat, 1e-9))
    if fits < settings.min_repeats:
        return max(settings.slow_repeats, min(fits, settings.min_repeats))
    return min(fits, settings.max_repeats)


def measure(
    fns: Sequence[Callable[[], object]], settings: Settings
) -> list[tuple[list[float], int]]:
    """Time functions of no arguments: for each, per-call seconds per repeat and calls per repeat.

    An untimed first call absorbs one-off costs, loops of growing length then estimate the
    cost of a call; fast calls are then looped so that a repeat lasts about
    `settings.repeat_time`, and each function gets as many repeats as fit in `settings.budget`.

    Functions measured together are compared with each other, so their repeats take turns:
    repeat 1 of every function, then repeat 2 of every function, and so on. A burst of other
    work on the machine then slows all of them alike, and the ratio between them stays
    meaningful (measured one after the other, a ratio gave 0.9x one time and 1.5x the next).
    """
    if settings.max_repeats == 1 and settings.warmup == 0:
        return [([_run_repeat(fn, 1)], 1) for fn in fns]  # smoke mode: one call proves it runs
    numbers = []
    per_repeat = 0.0
    for fn in fns:
        fn()  # the first call may pay for imports and caches: not representative
        estimate = _autorange(fn, settings.repeat_time / 10)
        numbers.append(max(1, min(100_000, math.ceil(settings.repeat_time / max(estimate, 1e-9)))))
        per_repeat += max(estimate * numbers[-1], 1e-9)
    repeats = repeat_count(per_repeat / len(fns), settings)  # each keeps its own time budget
    # a slow call has had two warm-up calls already (the first call and the estimate)
    if per_repeat * settings.min_repeats <= settings.budget * len(fns):
        for _ in range(settings.warmup):
            for fn, number in zip(fns, numbers, strict=True):
                _run_repeat(fn, number)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for fn, number, fn_times in zip(fns, numbers, times, strict=True):
            fn_times.append(_run_repeat(fn, number))
    return list(zip(times, numbers, strict=True))


# --------------------------------------------------------------------------------------------
# The context every row gets: settings, optional peers, a seeded generator, printed checks
# --------------------------------------------------------------------------------------------


@dataclass
class Context:
    """What the rows share: settings, the optional peers, and checks to print after the table."""

    settings: Settings
    torch: ModuleType | None
    micrograd: ModuleType | None
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    checks: list[str] = field(default_factory=list)
    load_at_start: list[float] | None = field(
        default_factory=lambda: list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    )
    child_args: list[str] = field(default_factory=list)  # mode options for a child run

    def timed(
        self, row: str, case: str, impl: str, fn: Callable[[], object], note: str = ""
    ) -> Result:
        """Measure `fn` and wrap the figures in a Result."""
        return self.timed_together(row, case, [(impl, fn, note)])[0]

    def timed_together(
        self, row: str, case: str, entries: Sequence[tuple[str, Callable[[], object], str]]
    ) -> list[Result]:
        """Measure several (impl, fn, note) entries with interleaved repeats (see `measure`)."""
        measured = measure([fn for _, fn, _ in entries], self.settings)
        return [
            Result(row, case, impl, times=times, number=number, note=note)
            for (impl, _, note), (times, number) in zip(entries, measured, strict=True)
        ]

    def check(self, text: str) -> None:
        """Record a line printed under the table (and stored in the JSON)."""
        self.checks.append(text)


def optional_import(name: str) -> ModuleType | None:
    """The module, or None when it is not installed (or fails to import)."""
    try:
        return importlib.import_module(name)
    except Exception:  # a broken optional peer must not stop the other rows
        return None


def size_text(n: int) -> str:
    """10**7 -> '1e7', 1000 -> '1e3', 200 -> '200'."""
    exponent = round(math.log10(n)) if n > 0 else 0
    return f"1e{exponent}" if n >= 1000 and 10**exponent == n else str(n)


def random_pair(rng: np.random.Generator, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Two float32 arrays of standard normal values."""
    return (
        rng.standard_normal(shape, dtype=np.float32),
        rng.standard_normal(shape, dtype=np.float32),
    )


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


# --------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------


def the_step(lib: ModuleType, a_np: np.ndarray, b_np: np.ndarray) -> tuple[Any, Any, Any]:
    """(a*b + a).sigmoid().sum() forward and backward in minigrad or torch: (step, a, b)."""
    a = lib.tensor(a_np, requires_grad=True)
    b = lib.tensor(b_np, requires_grad=True)

    def step() -> None:
        a.grad = None
        b.grad = None
        (a * b + a).sigmoid().sum().backward()

    return step, a, b


def step_entries(
    ctx: Context, a_np: np.ndarray, b_np: np.ndarray
) -> tuple[list[tuple[str, Any, str]], tuple[Any, Any]]:
    """The minigrad and (when installed) torch versions of the step, for timed_together, and
    minigrad's two leaves (to check its gradients afterwards)."""
    import minigrad as mg

    step, a, b = the_step(mg, a_np, b_np)
    entries = [("minigrad", step, "fwd+bwd")]
    if ctx.torch is not None:
        entries.append(("torch", the_step(ctx.torch, a_np, b_np)[0], "fwd+bwd (eager)"))
    return entries, (a, b)


def torch_missing(row: str, case: str, ctx: Context) -> list[Result]:
    """The placeholder row when torch cannot be imported."""
    if ctx.torch is not None:
        return []
    return [Result(row, case, "torch", note="skipped: torch is not available")]


def row_overhead(ctx: Context) -> list[Result]:
    """Per-op overhead: (a*b + a).sigmoid().sum() forward + backward on tiny tensors."""
    results = []
    for shape in ((3,), (64, 64)):
        case = f"shape {shape}"
        a_np, b_np = random_pair(ctx.rng, shape)
        entries, _ = step_entries(ctx, a_np, b_np)
        entries.append(("numpy", lambda a=a_np, b=b_np: numpy_forward(a, b), "fwd only"))
        entries.append(
            ("numpy", lambda a=a_np, b=b_np: numpy_forward_backward(a, b), "fwd+bwd by hand")
        )
        results += ctx.timed_together("overhead", case, entries)
        results += torch_missing("overhead", case, ctx)
    return results


def minor_faults() -> int:
    """Page faults of this process so far that the kernel served without disk (fresh memory)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


class FaultCounter:
    """Wraps a function and counts the page faults (fresh memory mapped in) during its calls."""

    def __init__(self, fn: Callable[[], object]) -> None:
        self.fn = fn
        self.calls = 0
        self.faults = 0

    def __call__(self) -> object:
        before = minor_faults()
        value = self.fn()
        self.faults += minor_faults() - before
        self.calls += 1
        return value

    def note(self, result: Result) -> None:
        """Add the faults per call to the result (extra and note)."""
        per_call = self.faults / max(self.calls, 1)
        result.extra["page_faults_per_call"] = per_call
        result.note += f", {per_call:.0f} page faults per call"


def row_large(ctx: Context) -> list[Result]:
    """Large tensors: the same expression, forward + backward, against numpy by hand."""
    results = []
    for n in ctx.settings.large_sizes:
        case = f"n={size_text(n)}"
        a_np, b_np = random_pair(ctx.rng, (n,))
        entries, (a, b) = step_entries(ctx, a_np, b_np)
        floor = lambda a=a_np, b=b_np: numpy_forward_backward(a, b)  # noqa: E731
        entries.append(("numpy", floor, "fwd+bwd by hand (floor)"))
        counted = [(impl, FaultCounter(fn), note) for impl, fn, note in entries]
        measured = ctx.timed_together("large", case, counted)
        for result, (_, counter, _) in zip(measured, counted, strict=True):
            counter.note(result)
        results += measured + torch_missing("large", case, ctx)
        # the floor is only a floor if both compute the same thing (grads of the last step)
        _, grad_a, grad_b = numpy_forward_backward(a_np, b_np)
        same = np.allclose(a.grad.numpy(), grad_a, atol=1e-5) and np.allclose(
            b.grad.numpy(), grad_b, atol=1e-5
        )
        ctx.check(f"large {case}: minigrad's gradients match numpy's hand-written ones: {same}")
        del a, b, a_np, b_np, entries, counted
    return results


def row_large_kept(ctx: Context) -> list[Result]:
    """The `large` row again, in a child process whose C allocator keeps freed memory.

    With glibc's default settings, whether a fresh 4 MB array is page-faulted in depends on
    what the process freed before: the same code costs 9 ms or 30 ms at 10^6 elements. Keeping
    freed memory (KEEP_MEMORY_ENV) removes that, and leaves the arithmetic and the engine's
    own work: the comparison the engine's target is about.
    """
    output = REPO / "build" / "bench-large-kept.json"
    output.parent.mkdir(exist_ok=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--only", "large"]
    command += [*ctx.child_args, "--no-install", "--json", str(output)]
    completed = subprocess.run(
        command, env={**os.environ, **KEEP_MEMORY_ENV}, capture_output=True, text=True
    )
    if completed.returncode != 0:
        tail = completed.stderr.strip().splitlines()[-1:] or ["no output"]
        return [Result("large-kept", "-", "minigrad", note=f"child run failed: {tail[0]}")]
    child = json.loads(output.read_text())
    ctx.checks.extend(f"(memory kept) {line}" for line in child["checks"])
    results = []
    for data in child["results"]:
        kept = Result(
            "large-kept",
            data["case"],
            data["impl"],
            times=data["times"],
            number=data["number"],
            note=data["note"],
            extra=data["extra"],
        )
        results.append(kept)
    return results


def row_alias(ctx: Context) -> list[Result]:
    """detach(), .data, a view and clone(): the first three must cost the same at any size."""
    import minigrad as mg

    n_big = ctx.settings.alias_size
    sizes = (10, n_big)
    results = []
    fastest: dict[tuple[str, int], float] = {}
    for n in sizes:
        array = ctx.rng.standard_normal(n, dtype=np.float32)
        a = mg.tensor(array, requires_grad=True)
        operations: dict[str, Callable[[], Any]] = {
            "detach()": a.detach,
            ".data": lambda a=a: a.data,
            "view a[1:]": lambda a=a: a[1:],
            "clone()": a.clone,
        }
        for label, fn in operations.items():
            result = ctx.timed("alias", f"{label} n={size_text(n)}", "minigrad", fn)
            fastest[(label, n)] = result.stats()["min"]
            results.append(result)
            if n == n_big:
                shares = bool(np.shares_memory(a._array, fn()._array))
                result.extra["shares_memory"] = shares
                ctx.check(f"alias {label} on n={size_text(n)}: np.shares_memory = {shares}")
        if n == n_big:
            results.extend(alias_peers(ctx, array))
        del a, array
    for label in ("detach()", ".data", "view a[1:]"):
        # the fastest runs: the least disturbed by other work on the machine
        ratio = fastest[(label, n_big)] / fastest[(label, 10)]
        verdict = "O(1)" if ratio < 3 else "NOT O(1)"
        ctx.check(
            f"alias {label}: fastest time at n={size_text(n_big)} / at n=10 = {ratio:.2f} "
            f"({verdict})"
        )
    return results


def alias_peers(ctx: Context, array: np.ndarray) -> list[Result]:
    """torch and numpy doing the same four things on the big tensor, for scale."""
    case_n = size_text(array.size)
    results = []
    numpy_ops: dict[str, Callable[[], Any]] = {
        "detach()": array.view,
        ".data": array.view,
        "view a[1:]": lambda: array[1:],
        "clone()": array.copy,
    }
    torch = ctx.torch
    if torch is not None:
        t = torch.from_numpy(array.copy()).requires_grad_()
        torch_ops: dict[str, Callable[[], Any]] = {
            "detach()": t.detach,
            ".data": lambda: t.data,
            "view a[1:]": lambda: t[1:],
            "clone()": t.clone,
        }
    for label, numpy_fn in numpy_ops.items():
        case = f"{label} n={case_n}"
        if torch is not None:
            results.append(ctx.timed("alias", case, "torch", torch_ops[label]))
        kind = "a copy" if label == "clone()" else "a view"
        results.append(ctx.timed("alias", case, "numpy", numpy_fn, f"numpy {kind} (floor)"))
    return results


MLP_BATCH = 64
MLP_HIDDEN = 64
MLP_LR = 0.05


def mlp_data(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A fixed regression batch: 64 points in 2-D and a smooth target."""
    x = rng.standard_normal((MLP_BATCH, 2)).astype(np.float32)
    y = (np.sin(2 * x[:, :1]) + 0.5 * x[:, 1:]).astype(np.float32)
    return x, y


def row_mlp(ctx: Context) -> list[Result]:
    """One SGD step of a 2-layer MLP (2 -> 64 -> 1, ReLU, MSE) on a batch of 64."""
    case = f"batch {MLP_BATCH}, hidden {MLP_HIDDEN}"
    x_np, y_np = mlp_data(ctx.rng)
    return [
        mlp_minigrad(ctx, case, x_np, y_np),
        mlp_torch(ctx, case, x_np, y_np),
        *mlp_micrograd(ctx, case, x_np, y_np),
    ]


def mlp_minigrad(ctx: Context, case: str, x_np: np.ndarray, y_np: np.ndarray) -> Result:
    """minigrad.nn + minigrad.optim, written as the torch version is."""
    import minigrad

    return mlp_step(ctx, case, "minigrad", minigrad, x_np, y_np, "nn.Sequential + optim.SGD")


def mlp_torch(ctx: Context, case: str, x_np: np.ndarray, y_np: np.ndarray) -> Result:
    """The same step in torch eager mode."""
    if ctx.torch is None:
        return Result("mlp", case, "torch", note="skipped: torch is not available")
    return mlp_step(ctx, case, "torch", ctx.torch, x_np, y_np, "eager")


def mlp_step(
    ctx: Context, case: str, impl: str, lib: Any, x_np: np.ndarray, y_np: np.ndarray, note: str
) -> Result:
    """Time one training step with `lib` (minigrad or torch: the code is the same for both)."""
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(2, MLP_HIDDEN), nn.ReLU(), nn.Linear(MLP_HIDDEN, 1))
    loss_fn = nn.MSELoss()
    optimizer = lib.optim.SGD(model.parameters(), lr=MLP_LR)
    x, y = lib.from_numpy(x_np), lib.from_numpy(y_np)

    def step() -> float:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    first = step()
    result = ctx.timed("mlp", case, impl, step, note)
    ctx.check(f"mlp {impl}: loss {first:.4f} at the first step, {step():.4f} after the timing")
    return result


def mlp_micrograd(ctx: Context, case: str, x_np: np.ndarray, y_np: np.ndarray) -> list[Result]:
    """micrograd's scalar MLP on a smaller batch; its cost grows linearly with the batch."""
    if ctx.micrograd is None:
        return [Result("mlp", case, "micrograd", note="skipped: micrograd is not available")]
    import random

    from micrograd.nn import MLP

    batch = ctx.settings.micrograd_batch
    random.seed(0)
    model = MLP(2, [MLP_HIDDEN, 1])
    parameters = model.parameters()

    def make_step(size: int) -> Callable[[], float]:
        xs = x_np[:size].tolist()
        ys = y_np[:size, 0].tolist()

        def step() -> float:
            model.zero_grad()
            predictions = [model(x) for x in xs]
            loss = sum((p - y) ** 2 for p, y in zip(predictions, ys, strict=True)) * (1.0 / size)
            loss.backward()
            for p in parameters:
                p.data -= MLP_LR * p.grad
            return loss.data

        return step

    scale = MLP_BATCH / batch
    with_gc = ctx.timed("mlp", case, "micrograd", make_step(batch))
    with_gc.scale = scale
    with_gc.note = f"batch {batch} timed, x{scale:g}; gc on (its graph is full of cycles)"
    # without the cycle collector: the engine's own arithmetic, which is linear in the batch
    gc.disable()
    try:
        without_gc = ctx.timed("mlp", case, "micrograd", make_step(batch))
        ((half_times, _),) = measure([make_step(max(1, batch // 2))], ctx.settings)
    finally:
        gc.enable()
        gc.collect()
    without_gc.scale = scale
    without_gc.note = f"batch {batch} timed, x{scale:g}; gc off: engine work only"
    for result in (with_gc, without_gc):
        result.extra["measured_batch"] = batch
    ratio = without_gc.stats()["median"] / scale / statistics.median(half_times)
    without_gc.extra["time_ratio_batch_vs_half_batch"] = ratio
    ctx.check(
        f"mlp micrograd (gc off): time at batch {batch} / time at batch {max(1, batch // 2)} = "
        f"{ratio:.2f} (2.00 is exactly linear, which the x{scale:g} scaling assumes)"
    )
    return [with_gc, without_gc]


def time_chain(
    build: Callable[[], tuple[Any, Any]], settings: Settings
) -> tuple[list[float], list[float]]:
    """Build the chain and run backward, timing both, once per repeat (a graph runs once).

    The graph is freed between repeats, outside the clock. No warm-up run: a single run
    already calls the same operation 100,000 times.
    """
    forward, backward = [], []
    # each run takes seconds: three are enough to see the spread
    for _ in range(min(3, settings.slow_repeats)):
        start = time.perf_counter()
        x, root = build()
        built = time.perf_counter()
        root.backward()
        done = time.perf_counter()
        del x, root
        forward.append(built - start)
        backward.append(done - built)
    return forward, backward


def row_chain(ctx: Context) -> list[Result]:
    """Backward through a long chain y = y * c: time, and peak memory seen by tracemalloc."""
    import minigrad as mg

    length = ctx.settings.chain_length
    case = f"{length:,} nodes"
    factor = 1 - 2**-17  # exact in float32, so the expected gradient is easy to state

    def build() -> tuple[Any, Any]:
        x = mg.ones(16, requires_grad=True)
        y = x
        for _ in range(length):
            y = y * factor
        return x, y.sum()

    forward_times, backward_times = time_chain(build, ctx.settings)
    forward = Result("chain", case, "minigrad", forward_times, note="forward: build the chain")
    backward = Result("chain", case, "minigrad", backward_times, note="backward")

    gc.collect()
    tracemalloc.start()
    x, y = build()
    after_build, _ = tracemalloc.get_traced_memory()
    y.backward()
    after_backward, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # float32 rounding at every one of the steps: allow a little drift
    correct = bool(np.allclose(x.grad.numpy(), factor**length, rtol=1e-2))
    del x, y
    mib = 1024 * 1024
    backward.extra.update(
        peak_bytes=peak, bytes_after_build=after_build, bytes_after_backward=after_backward
    )
    backward.note += f"; peak {peak / mib:.1f} MiB, {after_backward / mib:.1f} MiB kept after"
    ctx.check(
        f"chain minigrad: tracemalloc peak {peak / mib:.1f} MiB (graph built: "
        f"{after_build / mib:.1f} MiB, after backward: {after_backward / mib:.1f} MiB); "
        f"x.grad == (1 - 2**-17)**{length}: {correct}"
    )
    return [forward, backward, *chain_torch(ctx, case, length, factor)]


def chain_torch(ctx: Context, case: str, length: int, factor: float) -> list[Result]:
    """The same chain in torch (its memory is outside tracemalloc's view)."""
    torch = ctx.torch
    if torch is None:
        return [Result("chain", case, "torch", note="skipped: torch is not available")]

    def build() -> tuple[Any, Any]:
        x = torch.ones(16, requires_grad=True)
        y = x
        for _ in range(length):
            y = y * factor
        return x, y.sum()

    forward_times, backward_times = time_chain(build, ctx.settings)
    return [
        Result("chain", case, "torch", forward_times, note="forward: build the chain"),
        Result("chain", case, "torch", backward_times, note="backward"),
    ]


RENDER_TIMEOUT = 15.0  # seconds a first render may take before the case is reported as too slow


def viz_chain(mg: ModuleType, steps: int, shared: bool) -> Any:
    """A chain alternating y * w and tanh, summed: the root tensor.

    With `shared=False` every multiplication gets its own weight leaf (a deep MLP's shape);
    with `shared=True` one weight is used at every step (an unrolled RNN's shape).
    """

    def weight() -> Any:
        return mg.tensor([0.5, 0.25, 0.125, 1.0], requires_grad=True)

    x = mg.ones(4, requires_grad=True)
    w = weight()
    y = x
    for i in range(steps):
        y = y * (w if shared else weight()) if i % 2 == 0 else y.tanh()
    return y.sum()


def viz_graph(mg: ModuleType, viz: ModuleType, nodes: int, shared: bool) -> tuple[Any, int]:
    """A graph with about `nodes` nodes in viz's own count (tensors, functions, saved values)."""
    # the count grows linearly with the chain: fit it from two small chains
    small = viz.snapshot(viz_chain(mg, 2, shared)).node_count
    per_step = (viz.snapshot(viz_chain(mg, 12, shared)).node_count - small) / 10
    steps = max(1, 2 + round((nodes - small) / per_step))
    root = viz_chain(mg, steps, shared)
    return root, viz.snapshot(root).node_count


def renders_in_time(source: str) -> bool:
    """Whether dot lays the graph out within RENDER_TIMEOUT (some shapes take minutes)."""
    try:
        subprocess.run(
            ["dot", "-Tsvg"],
            input=source.encode(),
            capture_output=True,
            timeout=RENDER_TIMEOUT,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return False
    return True


def row_viz(ctx: Context) -> list[Result]:
    """minigrad.viz: build the Digraph (snapshot + DOT), then render it to SVG with dot."""
    import minigrad as mg

    try:
        viz = importlib.import_module("minigrad.viz")
    except ImportError as error:
        return [Result("viz", "-", "minigrad", note=f"skipped: {error}")]
    if shutil.which("dot") is None:
        return [Result("viz", "-", "minigrad", note="skipped: Graphviz's dot is not on PATH")]
    cases = [(nodes, False) for nodes in ctx.settings.viz_sizes]
    cases += [(nodes, True) for nodes in ctx.settings.viz_shared_sizes]
    results = []
    for nodes, shared in cases:
        results.extend(viz_case(ctx, mg, viz, nodes, shared))
    return results


def viz_case(
    ctx: Context, mg: ModuleType, viz: ModuleType, nodes: int, shared: bool
) -> list[Result]:
    """Build and render one graph; report a failure or a too-slow layout as a note."""
    root, counted = viz_graph(mg, viz, nodes, shared)
    case = f"{counted} nodes" + (", shared w" if shared else "")

    def build(root: Any = root, limit: int = counted) -> Any:
        # draw() refuses graphs over max_nodes (default 300): lift the limit to this graph's
        return viz.draw(root, max_nodes=limit)

    try:
        dot = build()
    except Exception as error:  # a viz bug must not stop the other rows
        return [Result("viz", case, "minigrad", note=f"failed: {error}"[:200])]
    build_result = ctx.timed("viz", case, "minigrad", build, "build: draw()")
    build_result.extra["dot_statements"] = len(dot.body)
    if counted > 50 and not renders_in_time(dot.source):
        note = f"render: dot -Tsvg took over {RENDER_TIMEOUT:.0f} s, stopped"
        ctx.check(f"viz {case}: {note}")
        return [build_result, Result("viz", case, "minigrad", note=note)]
    render = ctx.timed(
        "viz", case, "minigrad", lambda d=dot: d.pipe(format="svg"), "render: dot -Tsvg"
    )
    if 400 <= counted <= 600 and not shared:
        seconds = build_result.stats()["median"] + render.stats()["median"]
        verdict = "under" if seconds < 1 else "OVER"
        ctx.check(f"viz {case}: build + render {seconds:.2f} s ({verdict} the 1 s target)")
    return [build_result, render]


NBVAL_COMMAND = [
    "-m",
    "pytest",
    "--nbval",
    "--nbval-current-env",
    "--nbval-sanitize-with",
    "tests/nbval_sanitize.cfg",
    "-n",
    "2",
    "--dist",
    "loadfile",
    "notebooks",
    "-q",
    "-p",
    "no:cacheprovider",
]


def row_course(ctx: Context) -> list[Result]:
    """Wall time of the whole course through nbval (one run: it takes tens of seconds)."""
    notebooks = sorted((REPO / "notebooks").glob("*.ipynb"))
    case = f"{len(notebooks)} notebooks"
    if not ctx.settings.run_course:
        return [Result("course", case, "nbval", note="skipped in this mode")]
    if not notebooks:
        return [Result("course", case, "nbval", note="skipped: there are no notebooks yet")]
    start = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, *NBVAL_COMMAND], cwd=REPO, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else "(no output)"
    note = f"pytest -n 2 --nbval, one run: {summary}"
    if completed.returncode != 0:
        note = f"FAILED (exit {completed.returncode}): {summary}"
    result = Result("course", case, "nbval", [elapsed], note=note)
    result.extra.update(exit_code=completed.returncode, summary=summary)
    return [result]


ROW_FUNCTIONS: dict[str, Callable[[Context], list[Result]]] = {
    "overhead": row_overhead,
    "large": row_large,
    "large-kept": row_large_kept,
    "alias": row_alias,
    "mlp": row_mlp,
    "chain": row_chain,
    "viz": row_viz,
    "course": row_course,
}


# --------------------------------------------------------------------------------------------
# Optional peers, machine description
# --------------------------------------------------------------------------------------------


def ensure_peers() -> list[str]:
    """pip-install benchmarks/requirements.txt into this interpreter when something is missing.

    torch is deliberately not in that file: the only acceptable build is torch==2.13.0 (CPU),
    which the project's CI installs; here it is used when importable and skipped otherwise.
    """
    wanted = []
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            wanted.append(line)
    missing = []
    for requirement in wanted:
        name, _, version = requirement.partition("==")
        try:
            installed = importlib.metadata.version(name.strip())
        except importlib.metadata.PackageNotFoundError:
            missing.append(requirement)
            continue
        if version and installed != version.strip():
            missing.append(requirement)
    if not missing:
        return []
    print(f"bench: installing optional peers: {', '.join(missing)}", flush=True)
    completed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", *missing], check=False
    )
    if completed.returncode != 0:
        return [f"could not install {', '.join(missing)} (pip exit {completed.returncode})"]
    importlib.invalidate_caches()
    return []


def cpu_model() -> str:
    """The processor's name as /proc/cpuinfo gives it (platform's guess elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit() -> str:
    """HEAD's short hash, with '+dirty' when minigrad/ has uncommitted changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "minigrad"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def version_of(distribution: str) -> str | None:
    """Installed version of a distribution, or None."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine_info(ctx: Context) -> dict[str, Any]:
    """Everything needed to compare figures across machines and runs."""
    try:
        dot = subprocess.run(["dot", "-V"], capture_output=True, text=True, check=False).stderr
    except OSError:
        dot = ""
    info: dict[str, Any] = {
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": ctx.torch.__version__ if ctx.torch else None,
        "torch_threads": ctx.torch.get_num_threads() if ctx.torch else None,
        "micrograd": version_of("micrograd") if ctx.micrograd else None,
        "graphviz_python": version_of("graphviz"),
        "graphviz_dot": dot.strip().removeprefix("dot - ") or None,
        "minigrad_commit": git_commit(),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "gc_enabled_during_timing": gc.isenabled(),
        # other work on the machine inflates every figure: a load above the core count shows it
        "load_average_at_start": ctx.load_at_start,
        "load_average_at_end": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    return info


# --------------------------------------------------------------------------------------------
# Ratios and the table
# --------------------------------------------------------------------------------------------


def find(
    results: Sequence[Result], row: str, case: str, impl: str, note: str = ""
) -> Result | None:
    """The first measured result with these keys whose note contains `note`, if any."""
    for result in results:
        if (result.row, result.case, result.impl) == (row, case, impl) and not result.skipped:
            if note in result.note:
                return result
    return None


def ratios(results: Sequence[Result]) -> dict[str, float]:
    """The headline comparisons, as 'how many times slower than' (median / median)."""
    out: dict[str, float] = {}

    def ratio(
        label: str, row: str, case: str, top: str, bottom: str, note: str = "", top_note: str = ""
    ) -> None:
        a = find(results, row, case, top, top_note)
        b = find(results, row, case, bottom, note)
        if a is not None and b is not None:
            out[label] = a.stats()["median"] / b.stats()["median"]

    for shape in ("(3,)", "(64, 64)"):
        ratio(
            f"overhead {shape}: minigrad / torch", "overhead", f"shape {shape}", "minigrad", "torch"
        )
        ratio(
            f"overhead {shape}: minigrad / numpy fwd only",
            "overhead",
            f"shape {shape}",
            "minigrad",
            "numpy",
            "fwd only",
        )
    for row, kept in (("large", ""), ("large-kept", ", memory kept")):
        for n in ("1e6", "1e7"):
            for impl in ("minigrad", "torch"):
                label = f"large n={n}{kept}: {impl} / numpy floor"
                ratio(label, row, f"n={n}", impl, "numpy")
    case_mlp = f"batch {MLP_BATCH}, hidden {MLP_HIDDEN}"
    ratio("mlp step: minigrad / torch", "mlp", case_mlp, "minigrad", "torch")
    for gc_state in ("gc on", "gc off"):
        label = f"mlp step: micrograd ({gc_state}) / minigrad"
        ratio(label, "mlp", case_mlp, "micrograd", "minigrad", top_note=gc_state)
    return out


def format_seconds(seconds: float) -> str:
    """A time with a unit that keeps three or four significant digits."""
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= factor:
            return f"{seconds / factor:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def table(results: Sequence[Result]) -> str:
    """The results as an aligned text table: median, quartiles, min-max, repeats x loops."""
    header = ("row", "case", "impl", "median", "IQR (q1-q3)", "min-max", "runs", "note")
    lines = [header]
    for r in results:
        if r.skipped:
            lines.append((r.row, r.case, r.impl, "-", "-", "-", "-", r.note))
            continue
        s = r.stats()
        lines.append(
            (
                r.row,
                r.case,
                r.impl,
                format_seconds(s["median"]),
                f"{format_seconds(s['q1'])} - {format_seconds(s['q3'])}",
                f"{format_seconds(s['min'])} - {format_seconds(s['max'])}",
                f"{len(r.times)}x{r.number}",
                r.note,
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
    text = []
    for index, line in enumerate(lines):
        cells = [cell.ljust(width) for cell, width in zip(line, widths, strict=False)]
        text.append("  ".join([*cells, line[-1]]).rstrip())
        if index == 0:
            text.append("  ".join("-" * w for w in widths) + "  ----")
    return "\n".join(text)


def summary_lines(data: dict[str, Any]) -> list[str]:
    """The short table: one line per question, one column per implementation (medians)."""
    results = data["results"]

    def median(row: str, case: str, impl: str, note: str = "") -> str:
        for r in results:
            if (r["row"], r["case"], r["impl"]) == (row, case, impl) and note in r["note"]:
                if r["times"]:
                    return format_seconds(r["median_s"])
                return f"> {RENDER_TIMEOUT:.0f} s" if "took over" in r["note"] else "-"
        return "-"

    def cases(row: str) -> list[str]:
        return list(dict.fromkeys(r["case"] for r in results if r["row"] == row))

    lines = [
        "| measured (median) | minigrad | torch 2.13 eager | numpy floor | micrograd |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for case in cases("overhead"):
        lines.append(
            f"| `(a*b + a).sigmoid().sum()` fwd+bwd, {case.replace('shape ', '')} "
            f"| {median('overhead', case, 'minigrad')} | {median('overhead', case, 'torch')} "
            f"| {median('overhead', case, 'numpy', 'fwd only')} (fwd only) | |"
        )
    for row, kept in (("large", ""), ("large-kept", ", allocator keeps freed memory")):
        for case in cases(row):
            lines.append(
                f"| same, {case.removeprefix('n=')} elements{kept} "
                f"| {median(row, case, 'minigrad')} | {median(row, case, 'torch')} "
                f"| {median(row, case, 'numpy')} | |"
            )
    for case in cases("alias"):
        if not case.endswith("n=10"):
            lines.append(
                f"| `{case.split(' n=')[0]}`, {case.split(' n=')[-1]} elements "
                f"| {median('alias', case, 'minigrad')} | {median('alias', case, 'torch')} "
                f"| {median('alias', case, 'numpy')} | |"
            )
    for case in cases("mlp"):
        lines.append(
            f"| MLP training step 2-64-1, {case} | {median('mlp', case, 'minigrad')} "
            f"| {median('mlp', case, 'torch')} | "
            f"| {median('mlp', case, 'micrograd', 'gc on')} "
            f"({median('mlp', case, 'micrograd', 'gc off')} with gc off), scaled from a smaller "
            "batch |"
        )
    for case in cases("chain"):
        lines.append(
            f"| chain of {case}: build / backward "
            f"| {median('chain', case, 'minigrad', 'forward')} / "
            f"{median('chain', case, 'minigrad', 'backward')} "
            f"| {median('chain', case, 'torch', 'forward')} / "
            f"{median('chain', case, 'torch', 'backward')} | | |"
        )
    for case in cases("viz"):
        lines.append(
            f"| `viz.draw` / render to SVG, {case} | {median('viz', case, 'minigrad', 'build')} / "
            f"{median('viz', case, 'minigrad', 'render')} | | | |"
        )
    for r in results:
        if r["row"] == "course":
            figure = format_seconds(r["median_s"]) if r["times"] else "-"
            lines.append(f"| whole course through nbval ({r['case']}) | {figure} | | | |")
    return lines


def markdown(data: dict[str, Any]) -> str:
    """A short 'Performance' section for a README, then every row, from a run's JSON."""
    m = data["machine"]
    load = m.get("load_average_at_start") or [float("nan")]
    peers = f"torch {m['torch']} (one thread)" if m["torch"] else "no torch"
    dot_version = re.search(r"version (\S+)", m["graphviz_dot"] or "")
    dot = f"Graphviz {dot_version.group(1)}" if dot_version else "no Graphviz"
    if load[0] > m["cores"]:
        quiet = f"load average {load[0]:.1f} at the start: other work was sharing the machine."
    else:
        quiet = f"load average {load[0]:.1f} at the start (an otherwise quiet machine)."
    lines = [
        "## Performance",
        "",
        f"Measured by `make bench` on {m['date_utc']} UTC: {m['cpu']}, {m['cores']} cores, "
        f"Python {m['python']}, numpy {m['numpy']}, {peers}, micrograd {m['micrograd']}, "
        f"{dot}; minigrad at commit {m['minigrad_commit']}; {quiet}",
        "",
        *summary_lines(data),
        "",
        "numpy floor: the same arithmetic written by hand in numpy (forward only for the two small "
        "shapes). micrograd is a scalar engine: timed on a smaller batch and scaled up. "
        "`shared w`: one weight reused at every step, as in an unrolled RNN. Method, caveats and "
        "every measured row: `benchmarks/README.md`.",
        "",
        "Ratios from the same run (median / median):",
        "",
        *[f"- {label}: {value:.2f}x" for label, value in data["ratios"].items()],
        "",
        "### Every row",
        "",
        "| row | case | impl | median | IQR (q1 - q3) | runs | note |",
        "| --- | --- | --- | ---: | --- | --- | --- |",
    ]
    for r in data["results"]:
        if r["times"]:
            median = format_seconds(r["median_s"])
            iqr = f"{format_seconds(r['q1_s'])} - {format_seconds(r['q3_s'])}"
            runs = f"{r['repeats']}x{r['number']}"
        else:
            median = iqr = runs = "-"
        note = r["note"].replace("|", "/")
        lines.append(
            f"| {r['row']} | {r['case']} | {r['impl']} | {median} | {iqr} | {runs} | {note} |"
        )
    lines += ["", "Checks printed by the same run:", ""]
    lines += [f"- {line}" for line in data["checks"]]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


README_MARKER = "<!-- copied from benchmarks/README.md (make bench writes it) -->"
BENCH_START = "<!-- performance:start (generated: benchmarks/run.py --markdown) -->"
BENCH_END = "<!-- performance:end -->"


def update_readmes(data: dict[str, Any]) -> list[Path]:
    """Write a full run's Performance section into benchmarks/README.md and README.md.

    benchmarks/README.md gets the whole section between its markers; README.md gets the short
    part (the table and the ratios), from its marker line to the link to the full method.
    """
    section = markdown(data)
    written = []
    bench_readme = HERE / "README.md"
    text = bench_readme.read_text()
    if BENCH_START in text and BENCH_END in text:
        head, rest = text.split(BENCH_START, 1)
        tail = rest.split(BENCH_END, 1)[1]
        bench_readme.write_text(f"{head}{BENCH_START}\n{section}{BENCH_END}{tail}")
        written.append(bench_readme)
    readme = REPO / "README.md"
    text = readme.read_text()
    end_marker = "Full method, caveats and every measured row"
    if README_MARKER in text and end_marker in text.split(README_MARKER, 1)[1]:
        head, rest = text.split(README_MARKER, 1)
        tail = rest[rest.index(end_marker) :]
        short = section.split("### Every row", 1)[0].split("\n", 2)[2]  # without "## Performance"
        readme.write_text(f"{head}{README_MARKER}\n{short}{tail}")
        written.append(readme)
    return written


def parse_rows(values: Sequence[str] | None) -> list[str]:
    """'--only a,b --only c' -> ['a', 'b', 'c'], checked against ROWS."""
    rows = [part.strip() for value in values or () for part in value.split(",") if part.strip()]
    unknown = [row for row in rows if row not in ROWS]
    if unknown:
        raise SystemExit(f"bench: unknown row(s) {unknown}; choose from {', '.join(ROWS)}")
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the selected rows, print the table and the checks, write the JSON; return the data."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat")
    parser.add_argument("--only", action="append", metavar="ROW", help=", ".join(ROWS))
    parser.add_argument("--skip", action="append", metavar="ROW", help="rows to leave out")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--no-install", action="store_true", help="do not pip-install peers")
    parser.add_argument(
        "--markdown",
        type=Path,
        nargs="?",
        const=DEFAULT_JSON,
        metavar="JSON",
        help="print a README 'Performance' section from a results file, measure nothing",
    )
    parser.add_argument(
        "--without", action="append", choices=PEERS, default=[], help="leave out a peer"
    )
    args = parser.parse_args(argv)
    if args.markdown is not None:
        data = json.loads(args.markdown.read_text())
        print(markdown(data), end="")
        return data

    settings = SMOKE if args.smoke else QUICK if args.quick else FULL
    only, skip = parse_rows(args.only), parse_rows(args.skip)
    selected = [row for row in (only or ROWS) if row not in skip]
    problems = [] if args.no_install else ensure_peers()

    started = time.perf_counter()
    ctx = Context(
        settings=settings,
        torch=None if "torch" in args.without else optional_import("torch"),
        micrograd=None if "micrograd" in args.without else optional_import("micrograd.engine"),
    )
    ctx.checks.extend(problems)
    ctx.child_args = ["--smoke"] if args.smoke else ["--quick"] if args.quick else []
    ctx.child_args += [f"--without={peer}" for peer in args.without]
    if ctx.torch is not None:
        # numpy's elementwise work runs on one thread: give torch one too, which also spares
        # it from spinning threads when the machine is busy with something else
        ctx.torch.set_num_threads(1)
    results: list[Result] = []
    for row in selected:
        print(f"bench: {row} ...", flush=True)
        row_started = time.perf_counter()
        results.extend(ROW_FUNCTIONS[row](ctx))
        if settings.collect_between_rows:
            gc.collect()  # one row's garbage must not be collected on the next row's clock
        print(f"bench: {row} done in {time.perf_counter() - row_started:.1f} s", flush=True)
    total = time.perf_counter() - started

    machine = machine_info(ctx)
    headline = ratios(results)
    print()
    print(table(results))
    print()
    for label, value in headline.items():
        print(f"ratio  {label}: {value:.2f}x")
    for line in ctx.checks:
        print(f"check  {line}")
    print(
        f"\nmachine: {machine['cpu']}, {machine['cores']} cores, python {machine['python']}, "
        f"numpy {machine['numpy']}, torch {machine['torch']}, micrograd {machine['micrograd']}, "
        f"{machine['date_utc']} UTC; mode {settings.name}, {total:.0f} s in all"
    )

    data = {
        "schema": 1,
        "mode": settings.name,
        "rows": selected,
        "machine": machine,
        "settings": asdict(settings),
        "total_seconds": total,
        "ratios": headline,
        "checks": ctx.checks,
        "results": [r.to_json() for r in results],
    }
    out = args.json
    if out is None and settings is FULL and not only and not skip:
        out = DEFAULT_JSON
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=1) + "\n")
        print(f"bench: wrote {out}")
    if out == DEFAULT_JSON:
        for path in update_readmes(data):
            print(f"bench: updated the Performance section of {path.relative_to(REPO)}")
    return data


if __name__ == "__main__":
    main()
