"""The command line: `python -m benchmarks [options]` (`make bench`; see benchmarks/README.md).

Options:
  --quick          fewer rounds (a rough answer in a few minutes)
  --smoke          every row once at tiny sizes: checks the harness, figures mean nothing
  --only ROW       run only these rows (repeatable, or comma-separated); ROW is one of ROWS
  --rows ROW       the same as --only
  --skip ROW       leave these rows out
  --workloads KEY  the vs-torch row's workloads to run (default: all; keys in workloads.py)
  --json PATH      where to write the results (default: results/latest.json for a full run of
                   every row; partial, quick and smoke runs write nothing unless given a path)
  --readme         also rewrite the Performance sections of README.md and benchmarks/README.md
                   from this run (opt-in: figures from a busy machine must not land there)
  --install-peers  pip-install the optional peers of benchmarks/requirements.txt (micrograd)
                   first; without it a missing peer's lines are skipped
  --markdown [JSON]  print a README "Performance" section from a results file (default
                   results/latest.json) and measure nothing
  --without PEER   leave out torch or micrograd (as if not installed)
  --ab REF         also time minigrad as it was at git commit REF in the same rounds of the
                   vs-torch row (before / after in one run; baseline.py), and a second copy
                   of it: REF / its copy is the noise of the run

The garbage collector stays on during timing (unlike `timeit`): a training loop in a notebook
runs with it, and an engine whose graph forms reference cycles pays for it there. torch runs on
one thread, as numpy does (benchmarks/__init__.py).
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
from .baseline import load_minigrad_at
from .harness import Context, Result
from .machine import machine_info
from .peers import PEERS, install_peers, optional_import
from .readme import markdown, update_readmes
from .report import ratios, table, vs_torch_table
from .rows_course import row_course
from .rows_doctor import row_doctor
from .rows_engine import row_alias, row_chain, row_large, row_large_kept, row_micrograd
from .rows_viz import row_viz
from .rows_vs_torch import row_vs_torch, select, summary
from .timing import FULL, QUICK, SMOKE, wall_clock

ROWS = (
    "vs-torch",
    "large",
    "large-kept",
    "alias",
    "micrograd",
    "chain",
    "viz",
    "doctor",
    "course",
)
ROW_FUNCTIONS: dict[str, Callable[[Context], list[Result]]] = {
    "vs-torch": row_vs_torch,
    "large": row_large,
    "large-kept": row_large_kept,
    "alias": row_alias,
    "micrograd": row_micrograd,
    "chain": row_chain,
    "viz": row_viz,
    "doctor": row_doctor,
    "course": row_course,
}


def split(values: Sequence[str] | None) -> list[str]:
    """'--only a,b --only c' -> ['a', 'b', 'c']."""
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


def parse_rows(values: Sequence[str] | None) -> list[str]:
    """The rows named by repeatable, comma-separated options, checked against ROWS."""
    rows = split(values)
    unknown = [row for row in rows if row not in ROWS]
    if unknown:
        raise SystemExit(f"bench: unknown row(s) {unknown}; choose from {', '.join(ROWS)}")
    return rows


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options of `python -m benchmarks` (see this module's docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="minigrad's benchmarks (make bench)"
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one call each")
    parser.add_argument("--only", "--rows", action="append", metavar="ROW", help=", ".join(ROWS))
    parser.add_argument("--skip", action="append", metavar="ROW", help="rows to leave out")
    parser.add_argument("--workloads", action="append", metavar="KEY", help="vs-torch workloads")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--readme", action="store_true", help="rewrite the README sections")
    parser.add_argument("--install-peers", action="store_true", help="pip-install micrograd")
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
    parser.add_argument("--ab", metavar="REF", help="also time minigrad at this git commit")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the selected rows, print the tables and the checks, write the JSON; return the data.

    A full run of every row writes results/latest.json; the READMEs change only with --readme.
    """
    args = parse_args(argv)
    if args.markdown is not None:
        data = json.loads(args.markdown.read_text())
        print(markdown(data), end="")
        return data

    settings = SMOKE if args.smoke else QUICK if args.quick else FULL
    only, skip = parse_rows(args.only), parse_rows(args.skip)
    selected = [row for row in (only or ROWS) if row not in skip]
    workloads = split(args.workloads) or None
    select(workloads)  # an unknown key stops the run before anything is measured
    problems = install_peers() if args.install_peers else []

    started = wall_clock()
    ctx = Context(
        settings=settings,
        torch=None if "torch" in args.without else optional_import("torch"),
        micrograd=None if "micrograd" in args.without else optional_import("micrograd.engine"),
        workloads=workloads,
    )
    ctx.checks.extend(problems)
    if args.ab:
        ctx.baseline, ctx.baseline_label = load_minigrad_at(args.ab)
        ctx.control, _ = load_minigrad_at(args.ab, copy=1)
        ctx.check(f"A/B: minigrad@{ctx.baseline_label} is {args.ab} (git), in the same rounds")
    ctx.child_args = ["--smoke"] if args.smoke else ["--quick"] if args.quick else []
    ctx.child_args += [f"--without={peer}" for peer in args.without]
    if ctx.torch is not None:
        # numpy's elementwise work runs on one thread: give torch one too, which also spares
        # it from spinning threads when the machine is busy with something else
        ctx.torch.set_num_threads(1)
    results: list[Result] = []
    row_seconds: dict[str, float] = {}
    # A full collection walks every object the process holds. Without this, most of those are
    # torch's, numpy's and the A/B copies' (what the bench imported, not what a row builds):
    # the chain build spent about 40 % of its time walking them, and its A/B swung by 15 %.
    gc.collect()
    gc.freeze()
    ctx.frozen_objects = gc.get_freeze_count()
    for row in selected:
        print(f"bench: {row} ...", flush=True)
        row_started = wall_clock()
        results.extend(ROW_FUNCTIONS[row](ctx))
        if settings.collect_between_rows:
            gc.collect()  # one row's garbage must not be collected on the next row's clock
        row_seconds[row] = wall_clock() - row_started
        print(f"bench: {row} done in {row_seconds[row]:.1f} s", flush=True)
    gc.unfreeze()  # main() also runs inside the smoke test's process
    total = wall_clock() - started

    machine = machine_info(ctx)
    headline = ratios(results)
    vs_torch = summary(results)
    print()
    print(table(results))
    print()
    if vs_torch:
        print(vs_torch_table(vs_torch))
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
        "schema": 2,
        "mode": settings.name,
        "rows": selected,
        "machine": machine,
        "settings": asdict(settings),
        "total_seconds": total,
        "row_seconds": row_seconds,
        "ratios": headline,
        "vs_torch": vs_torch,
        "checks": ctx.checks,
        "results": [r.to_json() for r in results],
    }
    out = args.json
    if out is None and settings is FULL and not only and not skip and not workloads:
        out = paths.DEFAULT_JSON
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=1) + "\n")
        print(f"bench: wrote {out}")
    if args.readme:
        for path in update_readmes(data):
            print(f"bench: updated the Performance section of {path.relative_to(paths.REPO)}")
    return data
