"""The command line: `python benchmarks/run.py [options]` (see benchmarks/README.md).

Options:
  --quick        fewer repeats (a rough answer in about a minute plus the notebooks)
  --only ROW     run only these rows (repeatable, or comma-separated); ROW is one of ROWS
  --rows ROW     the same as --only
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
import gc
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from . import paths
from .agreement import row_vs_torch
from .harness import Context, Result
from .machine import machine_info
from .peers import PEERS, ensure_peers, optional_import
from .readme import markdown, update_readmes
from .report import ratios, table
from .rows_course import row_course
from .rows_engine import row_alias, row_chain, row_large, row_large_kept, row_mlp, row_overhead
from .rows_viz import row_viz
from .timing import FULL, QUICK, SMOKE, wall_clock

ROWS = ("overhead", "vs-torch", "large", "large-kept", "alias", "mlp", "chain", "viz", "course")
ROW_FUNCTIONS: dict[str, Callable[[Context], list[Result]]] = {
    "overhead": row_overhead,
    "vs-torch": row_vs_torch,
    "large": row_large,
    "large-kept": row_large_kept,
    "alias": row_alias,
    "mlp": row_mlp,
    "chain": row_chain,
    "viz": row_viz,
    "course": row_course,
}


def parse_rows(values: Sequence[str] | None) -> list[str]:
    """'--only a,b --only c' -> ['a', 'b', 'c'], checked against ROWS."""
    rows = [part.strip() for value in values or () for part in value.split(",") if part.strip()]
    unknown = [row for row in rows if row not in ROWS]
    if unknown:
        raise SystemExit(f"bench: unknown row(s) {unknown}; choose from {', '.join(ROWS)}")
    return rows


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options of `benchmarks/run.py` (see this module's docstring)."""
    parser = argparse.ArgumentParser(description="minigrad's benchmarks (make bench)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat")
    parser.add_argument("--only", "--rows", action="append", metavar="ROW", help=", ".join(ROWS))
    parser.add_argument("--skip", action="append", metavar="ROW", help="rows to leave out")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--no-install", action="store_true", help="do not pip-install peers")
    parser.add_argument(
        "--markdown",
        type=Path,
        nargs="?",
        const=paths.DEFAULT_JSON,
        metavar="JSON",
        help="print a README 'Performance' section from a results file, measure nothing",
    )
    parser.add_argument(
        "--without", action="append", choices=PEERS, default=[], help="leave out a peer"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the selected rows, print the table and the checks, write the JSON; return the data.

    A full run of every row (no options but --no-install) also writes results/latest.json
    and the Performance sections of README.md and benchmarks/README.md. `data["agreement"]`
    says whether the harness and the plain loop agreed (benchmarks/run.py exits 1 if not).
    """
    args = parse_args(argv)
    if args.markdown is not None:
        data = json.loads(args.markdown.read_text())
        print(markdown(data), end="")
        return data

    settings = SMOKE if args.smoke else QUICK if args.quick else FULL
    only, skip = parse_rows(args.only), parse_rows(args.skip)
    selected = [row for row in (only or ROWS) if row not in skip]
    problems = [] if args.no_install else ensure_peers()

    started = wall_clock()
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
    row_seconds: dict[str, float] = {}
    for row in selected:
        print(f"bench: {row} ...", flush=True)
        row_started = wall_clock()
        results.extend(ROW_FUNCTIONS[row](ctx))
        if settings.collect_between_rows:
            gc.collect()  # one row's garbage must not be collected on the next row's clock
        row_seconds[row] = wall_clock() - row_started
        print(f"bench: {row} done in {row_seconds[row]:.1f} s", flush=True)
    total = wall_clock() - started

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
    print_agreement(ctx.agreement)

    data = {
        "schema": 1,
        "mode": settings.name,
        "rows": selected,
        "machine": machine,
        "settings": asdict(settings),
        "total_seconds": total,
        "row_seconds": row_seconds,
        "ratios": headline,
        "agreement": ctx.agreement,
        "checks": ctx.checks,
        "results": [r.to_json() for r in results],
    }
    out = args.json
    if out is None and settings is FULL and not only and not skip:
        out = paths.DEFAULT_JSON
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=1) + "\n")
        print(f"bench: wrote {out}")
    if out == paths.DEFAULT_JSON:
        for path in update_readmes(data):
            print(f"bench: updated the Performance section of {path.relative_to(paths.REPO)}")
    return data


def print_agreement(agreement: dict[str, Any] | None) -> None:
    """The harness's and the plain loop's ratios side by side; a loud banner if they differ."""
    if agreement is None:
        return
    print("\nminigrad / torch, by make bench and by the plain loop (benchmarks/alternating.py):")
    print(f"  {'workload':38} {'make bench':>10} {'plain loop':>10} {'difference':>10}")
    for w in agreement["workloads"]:
        flag = "" if w["agree"] or not agreement["judged"] else "  <-- DISAGREE"
        print(
            f"  {w['name'] + ' (' + w['unit'] + ')':38} {w['harness_ratio']:9.2f}x "
            f"{w['plain_ratio']:9.2f}x {w['difference']:+10.0%}{flag}"
        )
    if not agreement["ok"]:
        over = f"a ratio differs by more than {agreement['tolerance']:.0%}"
        reason = agreement.get("error", over)
        print(
            f"\n!!! bench: make bench and the plain loop DISAGREE: {reason}.\n"
            "!!! Is the machine busy (see the load average)? Run `make bench` again on a quiet "
            "machine;\n!!! if it persists, the harness is not measuring what the plain loop does."
        )
