"""The viz rows: minigrad.viz.draw (snapshot + DOT) and Graphviz's render, by graph size.

The deep-chain and shared-weight cases draw with `saved_layout="auto"` (what a learner gets:
saved values inside their function's node for graphs this size); the `saved beside` cases
draw the same deep chains with the older layout, each saved value a node of its own, to show
what the inside layout saves Graphviz.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
from types import ModuleType
from typing import Any

import minigrad as mg

from .harness import Context, Result
from .timing import wall_clock

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
    try:
        viz = importlib.import_module("minigrad.viz")
    except ImportError as error:
        return [Result("viz", "-", "minigrad", note=f"skipped: {error}")]
    if shutil.which("dot") is None:
        return [Result("viz", "-", "minigrad", note="skipped: Graphviz's dot is not on PATH")]
    cases = [(nodes, False, "auto") for nodes in ctx.settings.viz_sizes]
    cases += [(nodes, True, "auto") for nodes in ctx.settings.viz_shared_sizes]
    cases += [(nodes, False, "beside") for nodes in ctx.settings.viz_beside_sizes]
    results = []
    for nodes, shared, layout in cases:
        results.extend(viz_case(ctx, mg, viz, nodes, shared, layout))
    return results


def viz_case(
    ctx: Context, mg: ModuleType, viz: ModuleType, nodes: int, shared: bool, layout: str
) -> list[Result]:
    """Build and render one graph; report a failure or a too-slow layout as a note.

    `layout` is draw()'s `saved_layout`: "auto" (the default) or "beside" (the older layout).
    """
    root, counted = viz_graph(mg, viz, nodes, shared)
    case = f"{counted} nodes" + (", shared w" if shared else "")
    case += ", saved beside" if layout == "beside" else ""

    def build(root: Any = root, limit: int = counted) -> Any:
        # draw() refuses graphs over max_nodes (default 300): lift the limit to this graph's
        return viz.draw(root, max_nodes=limit, saved_layout=layout)

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
    render = ctx.timed(  # wall time: the work is done by dot, in a process of its own
        "viz",
        case,
        "minigrad",
        lambda d=dot: d.pipe(format="svg"),
        "render: dot -Tsvg",
        read=wall_clock,
    )
    if 400 <= counted <= 600 and not shared and layout == "auto":
        seconds = build_result.stats()["median"] + render.stats()["median"]
        verdict = "under" if seconds < 1 else "OVER"
        ctx.check(f"viz {case}: build + render {seconds:.2f} s ({verdict} the 1 s target)")
    return [build_result, render]
