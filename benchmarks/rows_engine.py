"""The engine rows: large tensors, aliasing, minigrad beside micrograd, a long chain."""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg

from . import paths
from .harness import Context, Entry, Result
from .report import size_text
from .timing import Settings, clock, measure, turn_order
from .workloads import (
    MLP_SHAPE,
    MLP_STEP_LR,
    chain,
    mlp,
    numpy_forward_backward,
    random_pair,
    tiny_graph,
)

# glibc: serve 4-40 MB arrays from the heap and keep freed memory instead of handing it back to
# the kernel, so a fresh array does not page-fault in again (ignored by other C libraries)
KEEP_MEMORY_ENV = {"MALLOC_MMAP_THRESHOLD_": "268435456", "MALLOC_TRIM_THRESHOLD_": "1073741824"}


def step_entries(
    ctx: Context, a_np: np.ndarray, b_np: np.ndarray
) -> tuple[list[Entry], tuple[Any, Any]]:
    """The minigrad and (when installed) torch versions of the tiny graph's expression, for
    timed_together, and minigrad's two leaves (to check its gradients afterwards)."""
    step, a, b = tiny_graph(mg, a_np, b_np)
    entries: list[Entry] = [("minigrad", step, "fwd+bwd")]
    if ctx.torch is not None:
        entries.append(("torch", tiny_graph(ctx.torch, a_np, b_np)[0], "fwd+bwd (eager)"))
    return entries, (a, b)


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
        results += measured + ctx.torch_missing("large", case)
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
    output = paths.REPO / "build" / "bench-large-kept.json"
    output.parent.mkdir(exist_ok=True)
    command = [sys.executable, "-m", "benchmarks", "--only", "large"]
    command += [*ctx.child_args, "--json", str(output)]
    completed = subprocess.run(
        command,
        env={**os.environ, **KEEP_MEMORY_ENV},
        capture_output=True,
        text=True,
        cwd=paths.REPO,
    )
    if completed.returncode != 0:
        tail = completed.stderr.strip().splitlines()[-1:] or ["no output"]
        return [Result("large-kept", "-", "minigrad", note=f"child run failed: {tail[0]}")]
    child = json.loads(output.read_text())
    ctx.checks.extend(f"(memory kept) {line}" for line in child["checks"])
    return [Result.from_json(data, row="large-kept") for data in child["results"]]


def row_alias(ctx: Context) -> list[Result]:
    """detach(), .data, a view and clone(): the first three must cost the same at any size."""
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


def row_micrograd(ctx: Context) -> list[Result]:
    """micrograd, a scalar engine, on the vs-torch MLP step (8-64-1, ReLU, MSE, plain SGD),
    beside minigrad's step; micrograd runs a smaller batch and is scaled up to 64.

    Measured twice: with the garbage collector on (what a user gets: micrograd's graph is full
    of reference cycles) and off (its own arithmetic, which is linear in the batch).
    """
    case = "mlp step 8-64-1, batch 64"
    if ctx.micrograd is None:
        note = "skipped: micrograd is not installed (python -m benchmarks --install-peers)"
        return [Result("micrograd", case, "micrograd", note=note)]
    from micrograd.nn import MLP  # optional: imported only when installed

    batch = ctx.settings.micrograd_batch
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((64, MLP_SHAPE[0]), dtype=np.float32)
    y_np = rng.standard_normal((64, MLP_SHAPE[2]), dtype=np.float32)
    random.seed(0)
    model = MLP(MLP_SHAPE[0], list(MLP_SHAPE[1:]))
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
                p.data -= MLP_STEP_LR * p.grad
            return loss.data

        return step

    scale = 64 / batch
    entries: list[Entry] = [
        ("minigrad", mlp("bench")(mg), "the vs-torch mlp step"),
        ("micrograd", make_step(batch), f"batch {batch} timed, x{scale:g}; gc on"),
    ]
    mine, with_gc = ctx.timed_together("micrograd", case, entries)
    with_gc.scale = scale
    # without the cycle collector: the engine's own arithmetic, which is linear in the batch
    gc.disable()
    try:
        without_gc = ctx.timed("micrograd", case, "micrograd", make_step(batch))
        ((half_times, _),) = measure([make_step(max(1, batch // 2))], ctx.settings)
    finally:
        gc.enable()
        gc.collect()
    without_gc.scale = scale
    without_gc.note = f"batch {batch} timed, x{scale:g}; gc off: engine work only"
    for result in (with_gc, without_gc):
        result.extra["measured_batch"] = batch
    linear = without_gc.stats()["median"] / scale / statistics.median(half_times)
    without_gc.extra["time_ratio_batch_vs_half_batch"] = linear
    ctx.check(
        f"micrograd (gc off): time at batch {batch} / time at batch {max(1, batch // 2)} = "
        f"{linear:.2f} (2.00 is exactly linear, which the x{scale:g} scaling assumes)"
    )
    return [mine, with_gc, without_gc]


def time_chains(
    builds: dict[str, Callable[[], tuple[Any, Any]]], settings: Settings
) -> dict[str, tuple[list[float], list[float]]]:
    """Build each chain and run backward, timing both, once per repeat (a graph runs once).

    The libraries take turns, as in `timing.measure`. The graph is freed between repeats,
    outside the clock. No warm-up run: a single run already calls the same operation
    100,000 times.
    """
    times: dict[str, tuple[list[float], list[float]]] = {impl: ([], []) for impl in builds}
    # each run takes seconds: three are enough to see the spread
    for round_index in range(min(3, settings.slow_repeats)):
        for index in turn_order(len(builds), round_index):
            impl = list(builds)[index]
            start = clock()
            x, root = builds[impl]()
            built = clock()
            root.backward()
            done = clock()
            del x, root
            times[impl][0].append(built - start)
            times[impl][1].append(done - built)
    return times


def row_chain(ctx: Context) -> list[Result]:
    """Backward through a long chain y = y * c: time, and peak memory seen by tracemalloc."""
    length = ctx.settings.chain_length
    case = f"{length:,} nodes"
    factor = 1 - 2**-17  # exact in float32, so the expected gradient is easy to state
    libs = {"minigrad": mg, "torch": ctx.torch}

    def builder(lib: Any) -> Callable[[], tuple[Any, Any]]:
        def build() -> tuple[Any, Any]:
            x = lib.ones(16, requires_grad=True)
            return x, chain(lib, x, length, factor).sum()

        return build

    builds = {impl: builder(lib) for impl, lib in libs.items() if lib is not None}
    results = []
    for impl, (forward_times, backward_times) in time_chains(builds, ctx.settings).items():
        results.append(Result("chain", case, impl, forward_times, note="forward: build the chain"))
        results.append(Result("chain", case, impl, backward_times, note="backward"))
    if ctx.torch is None:
        results.append(Result("chain", case, "torch", note="skipped: torch is not available"))
    chain_memory(ctx, builds["minigrad"], results[1], length, factor)
    return results


def chain_memory(
    ctx: Context,
    build: Callable[[], tuple[Any, Any]],
    backward: Result,
    length: int,
    factor: float,
) -> None:
    """tracemalloc's view of minigrad's chain (torch's memory is outside it), and the gradient."""
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
