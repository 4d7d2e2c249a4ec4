"""minigrad.viz on a weight shared by many steps: a layout Graphviz finishes quickly.

These tests draw saved values beside their functions (`saved_layout="beside"`, the layout
this was made for; drawn inside their functions, saved values need none of it).

An unrolled RNN uses one weight at every step. Drawn plainly, its saved copies fill one
storage box stretched along the whole chain and its AccumulateGrad sends one long edge to
every step: `dot` needed 2.7 s for 200 nodes and over a minute for 300. Above
`viz.COLLAPSE_ABOVE` uses, the unchanged copies become one node and the edges leave along one
trunk line; stale and freed saved values still get one node each.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import minigrad as mg
from minigrad import viz

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz `dot` is not installed"
)

LIMIT = viz.COLLAPSE_ABOVE


def shared_chain(uses: int, change_after: int | None = None):
    """y * w and tanh in turn, `uses` multiplications by the same w; returns (w, loss).

    With `change_after`, w is changed in place (under no_grad, as an optimiser would) after
    that many multiplications: the copies saved before it are stale.
    """
    w = mg.tensor([0.5, -0.3], requires_grad=True)
    y = mg.tensor([1.0, 2.0], requires_grad=True)
    for step in range(uses):
        if step == change_after:
            with mg.no_grad():
                w.add_(1.0)
        y = (y * w).tanh()
    return w, y.sum()


def labels(source: str, head: str) -> list[str]:
    """The labels in a DOT source whose bold first line is `head`."""
    return re.findall(rf"label=<<B>{re.escape(head)}</B>(.*?)>\s", source)


def render_svg(graph: viz.Graph, timeout: float) -> str:
    """The SVG, through the same bounded call that Jupyter's display uses."""
    graph.render_timeout = timeout
    return graph._repr_image_svg_xml()


# ---- the collapsed form, and where it starts --------------------------------------------------


def test_at_the_threshold_every_saved_copy_is_drawn_as_before():
    w, loss = shared_chain(LIMIT)
    source = viz.draw(loss, saved_layout="beside", names=dict(w=w)).source
    assert len(labels(source, "saved other = w")) == LIMIT
    assert "by " not in source and "shape=point" not in source
    assert (
        source == viz.draw(loss, saved_layout="beside", names=dict(w=w), collapse_above=None).source
    )


def test_above_the_threshold_the_copies_are_one_node_in_the_memory_box():
    w, loss = shared_chain(LIMIT + 1)
    source = viz.draw(loss, saved_layout="beside", names=dict(w=w)).source
    assert labels(source, "saved other = w") == []
    (label,) = labels(source, "saved = w")
    assert f"by {LIMIT + 1} functions" in label and f"as other ×{LIMIT + 1}" in label
    assert "saved v0 / now v0" in label
    # one node in w's box, one dashed edge (through the trunk) to every MulBackward0
    box = re.search(r"subgraph cluster_S0 \{(.*?)\}", source, re.S).group(1)
    assert re.findall(r"\t\t(\w+) \[", box) == ["T0", "T0_saved"]
    branches = re.findall(r"T0_saved_saved\d+ -> (F\d+) \[", source)
    assert len(set(branches)) == LIMIT + 1
    snap = viz.snapshot(loss, names=dict(w=w))
    multiplications = {f.key for f in snap.functions if f.name == "MulBackward0"}
    assert set(branches) == multiplications
    # AccumulateGrad(w)'s forward edges leave along a trunk as well
    accumulate = snap.function("AccumulateGrad(w)").key
    assert set(re.findall(rf"{accumulate}_next\d+ -> (F\d+) \[", source)) == multiplications


def test_the_threshold_can_be_moved_or_switched_off():
    w, loss = shared_chain(4)
    assert (
        "saved = w"
        in viz.draw(loss, saved_layout="beside", names=dict(w=w), collapse_above=3).source
    )
    w, loss = shared_chain(3 * LIMIT)
    plain = viz.draw(loss, saved_layout="beside", names=dict(w=w), collapse_above=None).source
    assert len(labels(plain, "saved other = w")) == 3 * LIMIT
    assert "shape=point" not in plain


def test_counts_of_nodes_and_edges_say_what_is_drawn():
    w, loss = shared_chain(3 * LIMIT)
    plain = viz.draw(loss, saved_layout="beside", names=dict(w=w), collapse_above=None)
    collapsed = viz.draw(loss, saved_layout="beside", names=dict(w=w))
    # 3 * LIMIT saved copies became one node; relay points are not counted; every function
    # still has its edges
    assert collapsed.node_total == plain.node_total - 3 * LIMIT + 1
    assert collapsed.edge_total == plain.edge_total


# ---- what the course is about stays visible ---------------------------------------------------


def test_stale_saved_values_keep_their_own_red_node():
    uses = 2 * LIMIT + 4
    w, loss = shared_chain(uses, change_after=LIMIT + 2)  # LIMIT + 2 stale, LIMIT + 2 plain
    source = viz.draw(loss, saved_layout="beside", names=dict(w=w)).source
    stale = labels(source, "saved other = w")
    assert len(stale) == LIMIT + 2
    assert all("saved v0 / now v1" in label and "backward will raise" in label for label in stale)
    (label,) = labels(source, "saved = w")
    assert f"by {LIMIT + 2} functions" in label and "saved v1 / now v1" in label
    # too many for the box: drawn beside their functions, and the box says so
    assert f"+ {LIMIT + 2} saved values of it, drawn beside their functions" in source
    box = re.search(r"subgraph cluster_S0 \{(.*?)\}", source, re.S).group(1)
    assert "backward will raise" not in box
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_a_few_stale_copies_stay_in_the_memory_box():
    w, loss = shared_chain(2 * LIMIT, change_after=2)
    source = viz.draw(loss, saved_layout="beside", names=dict(w=w)).source
    box = re.search(r"subgraph cluster_S0 \{(.*?)\}", source, re.S).group(1)
    assert box.count("backward will raise") == 2
    assert "drawn beside" not in source


def test_freed_saved_values_keep_their_own_node():
    uses = 2 * LIMIT
    w, loss = shared_chain(uses)
    loss.backward()
    source = viz.draw(loss, saved_layout="beside", names=dict(w=w)).source
    freed = labels(source, "saved other")
    assert len(freed) == uses and all("freed by backward" in label for label in freed)
    assert "saved = w" not in source


def test_data_alias_lists_the_copies_under_their_counter():
    w, loss = shared_chain(2 * LIMIT)
    d = w.data
    d.mul_(2.0)
    source = viz.draw(loss, saved_layout="beside", names=dict(w=w, d=d)).source
    assert "2 version counters on one memory" in source
    assert f"#1 at v0: w, saved by {2 * LIMIT} functions" in source
    assert "#2 at v1: d" in source


def test_cut_keeps_the_values_it_writes_about_individually():
    w, loss = shared_chain(2 * LIMIT)
    d = w.data
    comparison = viz.cut(lambda: d.mul_(2.0), loss, names=dict(w=w, d=d))
    source = comparison.draw(saved_layout="beside").source
    # before: one collapsed node; after: every copy carries the "memory changed" notes
    assert "before_T0_saved [" in source and "after_T0_saved [" not in source
    assert source.count("backward will NOT notice") == 2 * LIMIT


# ---- DOT is deterministic ---------------------------------------------------------------------

DETERMINISM_SCRIPT = """
import minigrad as mg
from minigrad import viz
w = mg.tensor([0.5, -0.3], requires_grad=True)
y = mg.tensor([1.0, 2.0], requires_grad=True)
for step in range(24):
    if step == 10:
        with mg.no_grad():
            w.add_(1.0)
    y = (y * w).tanh()
loss = y.sum()
d = w.data
print(viz.draw(loss, names=dict(w=w), legend=True, saved_layout="beside").source)
print(viz.cut(lambda: d.mul_(2.0), loss, names=dict(w=w, d=d)).draw(saved_layout="beside").source)
print(viz.draw(loss).source)
print(viz.draw(loss, names=dict(w=w), legend=True, saved_layout="inside").source)
print(viz.cut(lambda: d.mul_(2.0), loss, names=dict(w=w, d=d)).draw(theme="projector").source)
"""


def test_dot_source_is_identical_across_hash_seeds(outputs_under_hash_seeds):
    outputs = outputs_under_hash_seeds(DETERMINISM_SCRIPT)
    assert outputs[0] == outputs[1]
    assert "saved = w" in outputs[0] and "0x" not in outputs[0]


# ---- real dot, real sizes ---------------------------------------------------------------------


def test_shared_weight_graph_of_a_thousand_nodes_renders_in_time():
    if shutil.which("dot") is None:
        pytest.skip("Graphviz `dot` is not installed")
    w, loss = shared_chain(250)
    snap = viz.snapshot(loss, names=dict(w=w))
    assert snap.node_count >= 1000
    graph = snap.draw(saved_layout="beside", max_nodes=snap.node_count)
    # about 1 s here; drawn plainly the same graph takes dot minutes
    svg = render_svg(graph, timeout=20.0)
    assert svg.lstrip().startswith("<?xml") or "<svg" in svg[:500]
    assert "by 250 functions" in svg


@needs_dot
def test_collapsed_pictures_render_without_warnings():
    w, loss = shared_chain(2 * LIMIT + 4, change_after=LIMIT + 2)
    d = w.data
    graphs = [
        viz.draw(loss, saved_layout="beside", names=dict(w=w, d=d), legend=True),
        viz.cut(lambda: d.mul_(2.0), loss, names=dict(w=w, d=d)).draw(
            saved_layout="beside", legend=True
        ),
    ]
    for graph in graphs:
        done = subprocess.run(
            ["dot", "-Tsvg"], input=graph.source, capture_output=True, text=True, check=True
        )
        assert done.stderr == ""
