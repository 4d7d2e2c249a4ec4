"""minigrad / torch time ratios measured the plain way: one process, one thread, alternating.

Each round times a block of minigrad calls, then the same block with torch (the order flips
every round, so neither always runs on a warm cache); the ratio reported is the median over
the rounds of each round's minigrad / torch (`timing.paired_ratio`). The workloads are
`workloads.VS_TORCH` (issue 12, item 5):

- tiny:  (a*b + a).sigmoid().sum(), forward and backward, at shape (3,) and (64, 64)
- mlp:   one training step of an 8-64-1 MLP (relu, mse, SGD under no_grad), batch 64
- chain: building y = y * 1.0 20,000 times (time per op), three builds per block

`make bench` runs this in a process of its own and prints its ratios beside the harness's
(`bench.agreement`): the two methods time the same steps with the same `timing.time_block`,
and differ only in how they schedule the repeats and in the process they run in.

Run: .venv/bin/python benchmarks/alternating.py [--rounds 15] [--only tiny-3,chain] [--json F]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .timing import paired_ratio, time_block, turn_order
from .workloads import VS_TORCH, Workload


def measure_plain(
    workload: Workload, libs: Mapping[str, ModuleType], rounds: int
) -> dict[str, Any]:
    """Seconds per call (or per op) of each library, alternating blocks, and their medians.

    `libs` maps a name to a library: {"minigrad": minigrad, "torch": torch}.
    """
    steps = {name: workload.build(lib) for name, lib in libs.items()}
    names = list(steps)
    for name in names:  # warm up: caches, lazy imports, the allocator's free lists
        time_block(steps[name], max(1, workload.calls // 5))
    times: dict[str, list[float]] = {name: [] for name in names}
    rounds = min(rounds, workload.max_rounds or rounds)
    for round_index in range(rounds):
        for index in turn_order(len(names), round_index):
            name = names[index]
            times[name].append(time_block(steps[name], workload.calls) / workload.per)
    medians = {name: statistics.median(values) for name, values in times.items()}
    measured: dict[str, Any] = {
        "key": workload.key,
        "name": workload.name,
        "unit": workload.unit,
        "rounds": rounds,
        "calls_per_block": workload.calls,
        "times": times,
        "median_s": medians,
    }
    if "minigrad" in medians and "torch" in medians:
        measured["ratio"] = paired_ratio(times["minigrad"], times["torch"])
    return measured


def select(keys: Sequence[str] | None) -> list[Workload]:
    """The workloads named by `keys` (all of them for None), in VS_TORCH's order."""
    known = {workload.key: workload for workload in VS_TORCH}
    unknown = [key for key in keys or () if key not in known]
    if unknown:
        raise SystemExit(f"alternating: unknown workload(s) {unknown}; choose from {list(known)}")
    return [workload for workload in VS_TORCH if keys is None or workload.key in keys]


def format_line(measured: Mapping[str, Any]) -> str:
    """One printed line: workload, both times in microseconds, the ratio."""
    mine = measured["median_s"]["minigrad"] * 1e6
    theirs = measured["median_s"]["torch"] * 1e6
    name = f"{measured['name']} ({measured['unit']})"
    return f"{name:40} {mine:10.2f}us {theirs:10.2f}us {measured['ratio']:6.2f}x"


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Measure the selected workloads with minigrad and torch, print them, optionally save."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds (15)")
    parser.add_argument("--only", action="append", metavar="KEY", help="tiny-3 tiny-64 mlp chain")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    keys = [part for value in args.only or () for part in value.split(",") if part] or None
    workloads = select(keys)
    try:
        import torch
    except ImportError:
        message = "alternating: torch is not installed (.venv: pip install torch==2.13.0)"
        raise SystemExit(message) from None
    import minigrad

    torch.set_num_threads(1)  # numpy's elementwise work runs on one thread too
    print(f"{'workload':40} {'minigrad':>12} {'torch':>12} {'ratio':>7}", flush=True)
    rows = []
    for workload in workloads:
        rows.append(measure_plain(workload, {"minigrad": minigrad, "torch": torch}, args.rounds))
        print(format_line(rows[-1]), flush=True)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return rows
