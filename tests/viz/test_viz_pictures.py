"""What a picture must never do (issue 24): an edge through a label or through another node.

Each picture is laid out by the real `dot` (`-Tjson`), every edge's Bézier curve is sampled,
and no sample may fall inside a label (a storage box's label, a before/after title, an edge's
label) or a node that is not one of the edge's two ends. The pictures: the course's figures,
every frame of every ready-made stepper, and the before/after pictures notebook 04 shows.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import minigrad as mg
from minigrad import viz

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is missing")

FIGURES = Path(__file__).resolve().parents[2] / "figures" / "build.py"
INSET = 2.0  # points: a curve may graze a box's border, not enter it


def figure_builders() -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("figures_build", FIGURES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FIGURES


def sample(points: list[list[float]], steps: int = 12) -> list[tuple[float, float]]:
    """Points along a piecewise cubic Bézier curve (dot's `b` drawing operation)."""
    found = []
    for start in range(0, len(points) - 3, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points[start : start + 4]
        for k in range(steps + 1):
            t = k / steps
            a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3
            found.append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
    return found


def boxes(layout: dict[str, Any]) -> list[tuple[str, Any, tuple[float, float, float, float]]]:
    """(what, owner, (x0, y0, x1, y1)) of every label and visible node of a laid-out graph."""
    found = []
    for item in layout.get("objects", []):
        if "pos" not in item:  # a cluster: its label, if it has one
            if item.get("label") and item.get("lp"):
                x, y = map(float, item["lp"].split(","))
                w, h = float(item["lwidth"]) * 72, float(item["lheight"]) * 72
                found.append(
                    (f"label of {item['name']}", None, (x - w / 2, y - h / 2, x + w / 2, y + h / 2))
                )
        elif item.get("style") != "invis" and item.get("shape") != "point":
            x, y = map(float, item["pos"].split(","))
            w, h = float(item["width"]) * 72, float(item["height"]) * 72
            box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            found.append((f"node {item['name']}", item["_gvid"], box))
    for number, edge in enumerate(layout.get("edges", [])):
        if edge.get("label", "").strip() and edge.get("lp"):
            x, y = map(float, edge["lp"].split(","))
            w, h = len(edge["label"]) * 5.0, 12.0  # about: 10 pt type
            found.append(
                (
                    f"label {edge['label']!r}",
                    ("edge", number),
                    (x - w / 2, y - h / 2, x + w / 2, y + h / 2),
                )
            )
    return found


def crossings(source: str) -> list[str]:
    """'edge A -> B crosses X' for every visible edge that passes through a label or node."""
    done = subprocess.run(["dot", "-Tjson"], input=source.encode(), capture_output=True, check=True)
    layout = json.loads(done.stdout)
    names = {item["_gvid"]: item["name"] for item in layout.get("objects", []) if "_gvid" in item}
    found = []
    for number, edge in enumerate(layout.get("edges", [])):
        if edge.get("style") == "invis":
            continue
        points = [
            p for op in edge.get("_draw_", []) if op["op"] == "b" for p in sample(op["points"])
        ]
        for what, owner, (x0, y0, x1, y1) in boxes(layout):
            if owner in (edge["tail"], edge["head"], ("edge", number)):
                continue
            if any(x0 + INSET < x < x1 - INSET and y0 + INSET < y < y1 - INSET for x, y in points):
                found.append(f"edge {names[edge['tail']]} -> {names[edge['head']]} crosses {what}")
    return found


def notebook_04_picture(route: str) -> viz.Graph:
    """Notebook 04's before/after of route 1 (`detach()`) or route 2 (`.data`), then zero_()."""
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach() if route == "detach" else out.data
    return viz.cut(lambda: c.zero_(), out, names=dict(a=a, out=out, c=c)).graph


@pytest.mark.parametrize("name", list(figure_builders()))
def test_no_edge_crosses_a_label_in_the_figures(name):
    assert crossings(figure_builders()[name]().source) == []


@pytest.mark.parametrize("route", ["detach", "detach_", "data", "numpy", "clone_detach", "no_grad"])
def test_no_edge_crosses_a_label_in_a_stepper(route):
    for frame in viz.cut_stepper(route):
        assert crossings(frame.graph.source) == [], f"step {frame.index + 1}"


@pytest.mark.parametrize("name", ["detach", "data"])
def test_no_edge_crosses_a_label_in_notebook_04(name):
    assert crossings(notebook_04_picture(name).source) == []


def test_a_storage_box_says_what_it_is_in_a_node_of_its_own():
    # dot routes edges around nodes but straight through a cluster's label, so the box's own
    # label stays empty and a plaintext node under its members carries the text
    source = notebook_04_picture("data").source
    for box in re.findall(r"subgraph cluster_(?:before|after)_S\d+ \{(.*?)\}", source, re.S):
        assert 'label=""' in box.splitlines()[1]
        assert "shape=plaintext" in box and "shared memory S" in box


def test_the_crossing_check_finds_an_edge_through_a_cluster_label():
    # the check itself: an edge forced through a long cluster label is reported
    source = (
        'digraph { top -> bottom; subgraph cluster_x { label="a long label right over it"; '
        "bottom } }"
    )
    assert crossings(source) == ["edge top -> bottom crosses label of cluster_x"]
