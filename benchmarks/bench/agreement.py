"""The `vs-torch` row: issue 12's minigrad / torch ratios, by the harness and by the plain loop.

The harness times each of `workloads.VS_TORCH` like every other row (`Context.timed_together`),
then runs `benchmarks/alternating.py` on all of them in order in one process of its own, as a
person running that script does; the two ratios are put side by side.
Both time the same steps with the same `timing.time_block`; a difference above TOLERANCE means
something other than the code is being measured (a busy machine, the process's state), and the
run says so loudly and ends with a non-zero exit status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from . import paths
from .harness import Context, Result
from .timing import paired_ratio
from .workloads import VS_TORCH, Workload

ROW = "vs-torch"
TOLERANCE = 0.15  # the two methods' ratios may differ by this much (relative)
# the plain loop's settings, as issue 12 measured them (numpy's BLAS on one thread)
ONE_THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def row_vs_torch(ctx: Context) -> list[Result]:
    """minigrad and torch on the VS_TORCH workloads, then the plain loop's ratios beside them."""
    import minigrad

    results = []
    for workload in VS_TORCH:
        load = load_average()
        entries = [("minigrad", workload.build(minigrad), workload.unit)]
        if ctx.torch is not None:
            entries.append(("torch", workload.build(ctx.torch), workload.unit))
        # loops at least as long as the plain loop's blocks: after each switch between the two
        # libraries the first calls run on cold caches, and shorter loops (the harness's usual
        # ~20 ms) counted more of them (the MLP step's ratio came out ~10 % higher)
        measured = ctx.timed_together(ROW, workload.name, entries, min_calls=workload.calls)
        for result in measured:
            result.scale = 1 / workload.per
            result.extra["load_average_before"] = load
        results += measured + ctx.torch_missing(ROW, workload.name)
    if ctx.torch is not None:
        # All four in one process, in order, and not one fresh process per workload: the
        # chain build's per-op time depends on what the process ran before it (measured here:
        # 1.98x torch in a fresh process, 2.31x after the three other workloads, 2.5x in the
        # harness after the rows before it), and the harness's chain never runs first. Right
        # after the harness, so that both see about the same machine.
        plain = plain_loop(ctx, VS_TORCH)
        # smoke runs prove that both methods run; their one-call figures mean nothing
        judged = ctx.settings.name != "smoke"
        ctx.agreement = compare(harness_ratios(results), plain, judged)
        ctx.checks.extend(agreement_lines(ctx.agreement))
    return results


def load_average() -> float | None:
    """The 1-minute load average (None where the system does not tell)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def harness_ratios(results: Sequence[Result]) -> dict[str, float]:
    """minigrad / torch per workload name, from the vs-torch results: the median of the
    rounds' ratios (`timing.paired_ratio`), as the plain loop reports it."""
    times = {(r.case, r.impl): r.times for r in results if not r.skipped}
    return {
        workload.name: paired_ratio(
            times[(workload.name, "minigrad")], times[(workload.name, "torch")]
        )
        for workload in VS_TORCH
        if (workload.name, "torch") in times
    }


def plain_loop(ctx: Context, workloads: Sequence[Workload]) -> dict[str, Any]:
    """Run benchmarks/alternating.py on `workloads` in one fresh process: ratios by name."""
    output = paths.REPO / "build" / "bench-alternating.json"
    output.parent.mkdir(exist_ok=True)
    command = [sys.executable, str(paths.ALTERNATING_PY), "--json", str(output)]
    keys = ",".join(workload.key for workload in workloads)
    command += ["--rounds", str(ctx.settings.plain_rounds), "--only", keys]
    load = load_average()
    completed = subprocess.run(
        command, env={**os.environ, **ONE_THREAD_ENV}, capture_output=True, text=True
    )
    if completed.returncode != 0:
        tail = completed.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"error": f"alternating.py failed: {tail[0]}"}
    rows = json.loads(output.read_text())
    for row in rows:
        row["load_average_before"] = load
    return {"rows": rows, "ratios": {row["name"]: row["ratio"] for row in rows}}


def compare(
    harness: dict[str, float], plain: dict[str, Any], judged: bool = True
) -> dict[str, Any]:
    """Both ratios per workload, their relative difference, and whether all are within TOLERANCE.

    The difference is harness / plain - 1: +0.10 means `make bench` found minigrad 10 %
    slower, relative to torch, than the plain loop did. With `judged=False` (smoke runs) the
    figures are kept but `ok` stays True.
    """
    base = {"tolerance": TOLERANCE, "judged": judged}
    if "error" in plain:
        return {**base, "ok": False, "error": plain["error"], "workloads": []}
    workloads = []
    for workload in VS_TORCH:
        if workload.name not in harness or workload.name not in plain["ratios"]:
            continue
        ours, theirs = harness[workload.name], plain["ratios"][workload.name]
        difference = ours / theirs - 1
        workloads.append(
            {
                "name": workload.name,
                "unit": workload.unit,
                "harness_ratio": ours,
                "plain_ratio": theirs,
                "difference": difference,
                "agree": abs(difference) <= TOLERANCE,
                "target": workload.target,
            }
        )
    ok = bool(workloads) and all(w["agree"] for w in workloads)
    return {**base, "ok": ok or not judged, "workloads": workloads}


def agreement_lines(agreement: dict[str, Any]) -> list[str]:
    """The checks printed under the table: one line per workload, both ratios side by side."""
    if "error" in agreement:
        return [f"vs-torch: DISAGREEMENT: could not run the plain loop ({agreement['error']})"]
    lines = []
    for w in agreement["workloads"]:
        verdict = "agree" if w["agree"] else f"DISAGREE (over {TOLERANCE:.0%})"
        if not agreement["judged"]:
            verdict = "not judged in a smoke run"
        lines.append(
            f"vs-torch {w['name']}: minigrad / torch {w['harness_ratio']:.2f}x by make bench, "
            f"{w['plain_ratio']:.2f}x by the plain loop (alternating.py): "
            f"{w['difference']:+.0%}, {verdict}"
        )
    return lines
