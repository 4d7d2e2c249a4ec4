"""The `vs-torch` row: minigrad / torch on every workload of `workloads.VS_TORCH`.

Each workload's minigrad and torch steps are measured together by `timing.measure` (one
process, their blocks taking turns round by round, both on one thread) with blocks of exactly
`workload.calls` calls on both sides, and the ratio is the median of the per-round ratios
(`timing.paired_ratio`). Run alone (`python -m benchmarks --only vs-torch`) it is the plain
alternating loop. The tiny graph's two bench workloads also time numpy doing the same
arithmetic by hand, in the same rounds: the floor under any engine.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import minigrad

from .harness import Context, Result, ratio
from .workloads import VS_TORCH, Workload

ROW = "vs-torch"


def select(keys: Sequence[str] | None) -> list[Workload]:
    """The workloads named by `keys` (all of them for None or empty), in VS_TORCH's order."""
    known = {workload.key: workload for workload in VS_TORCH}
    unknown = [key for key in keys or () if key not in known]
    if unknown:
        raise SystemExit(f"bench: unknown workload(s) {unknown}; choose from {', '.join(known)}")
    return [workload for workload in VS_TORCH if not keys or workload.key in keys]


def row_vs_torch(ctx: Context) -> list[Result]:
    """minigrad and torch on the selected workloads (all of VS_TORCH unless ctx says which)."""
    results = []
    for workload in select(ctx.workloads):
        load = load_average()
        entries = [("minigrad", workload.build(minigrad), workload.unit)]
        if ctx.baseline is not None:
            before = f"minigrad@{ctx.baseline_label}"
            entries.append((before, workload.build(ctx.baseline), workload.unit))
        if ctx.control is not None:
            control = f"minigrad@{ctx.baseline_label} again"
            entries.append((control, workload.build(ctx.control), workload.unit))
        if ctx.torch is not None:
            entries.append(("torch", workload.build(ctx.torch), workload.unit))
        entries += workload.floors() if workload.floors is not None else []
        measured = ctx.timed_together(ROW, workload.name, entries, calls=workload.calls)
        for result in measured:
            result.scale = 1 / workload.per
            result.extra.update(key=workload.key, load_average_before=load)
        results += measured + ctx.torch_missing(ROW, workload.name)
    return results


def load_average() -> float | None:
    """The 1-minute load average (None where the system does not tell)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def summary(results: Sequence[Result]) -> list[dict[str, Any]]:
    """One entry per workload measured with both libraries: medians, ratio, target, verdict."""
    found = {(r.case, r.impl, r.note): r for r in results if r.row == ROW and not r.skipped}
    rows = []
    for workload in VS_TORCH:
        mine = found.get((workload.name, "minigrad", workload.unit))
        theirs = found.get((workload.name, "torch", workload.unit))
        if mine is None or theirs is None:
            continue
        floor = found.get((workload.name, "numpy", "fwd only"))
        before = _before(found, workload, again=False)
        again = _before(found, workload, again=True)
        rows.append(
            {
                "key": workload.key,
                "name": workload.name,
                "unit": workload.unit,
                "variant_of": workload.variant_of,
                "minigrad_s": mine.stats()["median"],
                "torch_s": theirs.stats()["median"],
                "rounds": len(mine.times),
                "calls_per_block": workload.calls,
                "ratio": ratio(mine, theirs),
                "target": workload.target,
                "meets_target": ratio(mine, theirs) <= workload.target,
                "numpy_fwd_ratio": ratio(mine, floor) if floor is not None else None,
                "before": before.impl if before is not None else None,
                "after_vs_before": ratio(mine, before) if before is not None else None,
                # the same code against itself in the same rounds: how far ratios move by chance
                "noise": ratio(again, before) if before is not None and again is not None else None,
            }
        )
    return rows


def _before(
    found: dict[tuple[str, str, str], Result], workload: Workload, again: bool
) -> Result | None:
    """The `--ab` result of `workload`: minigrad at REF, or (`again`) its second copy; or None."""
    for (case, impl, note), result in found.items():
        if case == workload.name and impl.startswith("minigrad@") and note == workload.unit:
            if impl.endswith(" again") == again:
                return result
    return None
