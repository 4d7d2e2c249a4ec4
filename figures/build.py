"""Build the course's key before/after pictures from code: `make figures`.

Each figure is a small minigrad program drawn with `minigrad.viz.compare`. For every name in
FIGURES this writes `figures/<name>_compare.dot` (the source, checked by
tests/viz/test_viz_figures.py), `.svg` (for the notebooks and the web) and `.png` (for README).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import minigrad as mg
from minigrad import nn, viz
from minigrad.viz.alt_text import accessible_svg

HERE = Path(__file__).resolve().parent
PNG_DPI = "110"


def detach() -> viz.Graph:
    """`detach()`: the same computation with `out` or with `out.detach()` as an input."""
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    y = out * a
    before = viz.snapshot(y, names=dict(a=a, out=out, y=y))
    c = out.detach()
    y = c * a  # the input slot that pointed at SigmoidBackward0 is now empty: (None, 0)
    after = viz.snapshot(y, names=dict(a=a, out=out, c=c, y=y))
    return viz.compare(before, after, label="c = out.detach()", show_saved=False, legend=True)


def detach_() -> viz.Graph:
    """`detach_()` on a tensor an earlier operation already used: that edge survives."""
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = 2 * a
    s = b.sum()
    return viz.cut(lambda: b.detach_(), s, names=dict(a=a, b=b, s=s)).draw(legend=True)


def data() -> viz.Graph:
    """`.data` versus `detach()`: the same memory, but `.data` has its own version counter."""
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    d = out.data
    names = {"a": a, "out": out, "c = out.detach()": c, "d = out.data": d}
    return viz.cut(lambda: d.zero_(), out, names=names).draw(legend=True)


def version_error() -> viz.Graph:
    """An in-place change through a detached alias: the saved output is stale, backward raises."""
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    names = {"a": a, "out": out, "c = out.detach()": c}
    return viz.cut(lambda: c.zero_(), out, names=names).draw(legend=True)


def no_grad() -> viz.Graph:
    """The same operation with grad mode on, and under `no_grad()`: nothing is recorded."""
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a * 2
    before = viz.snapshot(y, names=dict(a=a, y=y))
    with mg.no_grad():
        y = a * 2
    after = viz.snapshot(y, names=dict(a=a, y=y))
    return viz.compare(before, after, label="no_grad()", legend=True)


def truncated_bptt() -> viz.Graph:
    """Two steps of an RNN cell, then `h.detach()` (notebook 07): a larger picture, so saved
    values are listed inside their functions and the halves are stacked to fit a notebook."""
    mg.manual_seed(0)
    cell = nn.RNNCell(1, 2)
    h = cell(mg.tensor([[0.5]]))
    h = cell(mg.tensor([[-0.2]]), h)
    names = dict(W_ih=cell.weight_ih, W_hh=cell.weight_hh, b_ih=cell.bias_ih, b_hh=cell.bias_hh)
    return viz.cut(lambda: h.detach(), h, names=dict(names, h=h)).draw()


FIGURES: dict[str, Callable[[], viz.Graph]] = {
    "detach": detach,
    "detach_": detach_,
    "data": data,
    "version_error": version_error,
    "no_grad": no_grad,
    "truncated_bptt": truncated_bptt,
    # the Chinese cheat sheet's pictures: the same programs, viz's words in Chinese
    "detach:zh": detach,
    "detach_:zh": detach_,
    "data:zh": data,
    "version_error:zh": version_error,  # (README.zh-CN shows it)
}


def file_stem(name: str) -> str:
    """'detach' -> 'detach_compare' (the README shows figures/detach_compare.png);
    'detach:zh' -> 'detach_compare_zh'."""
    name, _, language = name.partition(":")
    return f"{name}_compare" + (f"_{language}" if language else "")


def figure(name: str) -> viz.Graph:
    """One figure, drawn in its language."""
    language = name.partition(":")[2] or "en"
    before = viz.current_language()
    viz.set_language(language)
    try:
        return FIGURES[name]()
    finally:
        viz.set_language(before)


def dot_source(name: str) -> str:
    """The DOT text of one figure, exactly as it is written to disk."""
    return figure(name).source


def render(dot_path: Path, fmt: str) -> None:
    """Run Graphviz on a written .dot file; fail on any warning."""
    target = dot_path.with_suffix(f".{fmt}")
    extra = [f"-Gdpi={PNG_DPI}"] if fmt == "png" else []
    done = subprocess.run(
        ["dot", f"-T{fmt}", *extra, "-o", str(target), str(dot_path)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"dot failed for {dot_path.name}: {done.stderr.strip()}")


def main(names: list[str]) -> None:
    """Write .dot, .svg and .png for the named figures (all, and the cheat sheet, by default)."""
    wanted = names or [*FIGURES, "cheatsheet"]
    for name in (n for n in wanted if n != "cheatsheet"):
        dot_path = HERE / f"{file_stem(name)}.dot"
        dot_path.write_text(dot_source(name))
        for fmt in ("svg", "png"):
            render(dot_path, fmt)
        # the SVG gets the picture's text alternative, as every SVG viz gives (alt_text.py)
        graph, svg_path = figure(name), dot_path.with_suffix(".svg")
        svg = svg_path.read_text(encoding="utf-8")
        svg_path.write_text(accessible_svg(svg, graph.alt_name, graph.alt_description), "utf-8")
        print(f"wrote figures/{file_stem(name)}.{{dot,svg,png}}")
    if "cheatsheet" in wanted:  # the one-page summary, from the pictures above (cheatsheet.py)
        sys.path.insert(0, str(HERE))
        from cheatsheet import build

        for path in build():
            print(f"wrote figures/{path.name}")


if __name__ == "__main__":
    main(sys.argv[1:])
