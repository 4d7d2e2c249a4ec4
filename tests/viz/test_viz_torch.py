"""minigrad.viz reads real PyTorch graphs the same way: the same program, the same summary.

Each program is written once against the shared API (`lib` is torch or minigrad) and returns
the snapshot roots, the names, and optionally an action for `viz.cut`. The summaries are
compared with `counters=False`, because torch does not expose which version counter a tensor
uses (see minigrad/viz/readers.py, TorchReader); everything else must match line for line.
"""

from __future__ import annotations

import re
import shutil
from typing import Any

import pytest

import minigrad
from minigrad import viz

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.parity


def detach(lib: Any):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    y = c * a
    return (y,), dict(a=a, out=out, c=c, y=y), None


def version_error(lib: Any):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    return (out,), dict(a=a, out=out, c=c), lambda: c.zero_()


def data_alias(lib: Any):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    d = out.data
    return (out,), dict(a=a, out=out, d=d), None


def detach_inplace_non_leaf(lib: Any):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = 2 * a
    s = b.sum()
    return (s,), dict(a=a, b=b, s=s), lambda: b.detach_()


def detach_inplace_leaf(lib: Any):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (a * 2).sum()
    return (y,), dict(a=a, y=y), lambda: a.detach_()


def new_leaf(lib: Any):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.exp().detach().requires_grad_(True)
    y = (c * c).mean()
    return (y,), dict(a=a, c=c, y=y), None


def views(lib: Any):
    a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = a * 3
    v = b[1:]
    w = b.view(4)
    s = (v.sum() + w.tanh().sum()) / 2
    return (s,), dict(a=a, b=b, v=v, w=w, s=s), None


def backward_frees(lib: Any):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    loss = (out * a).sum()
    return (loss,), dict(a=a, out=out, loss=loss), lambda: loss.backward()


def no_grad(lib: Any):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.no_grad():
        y = a * 2
    k = a.clone()
    return (y, k), dict(a=a, y=y, k=k), None


def matmul_chain(lib: Any):
    w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    h = (x @ w).relu()
    loss = (h - 1).pow(2).mean()
    return (loss,), dict(w=w, x=x, h=h, loss=loss), None


PROGRAMS = [
    detach,
    version_error,
    data_alias,
    detach_inplace_non_leaf,
    detach_inplace_leaf,
    new_leaf,
    views,
    backward_frees,
    no_grad,
    matmul_chain,
]


def observe(program: Any, lib: Any) -> list[str]:
    roots, names, action = program(lib)
    texts = [viz.summary(*roots, names=names, counters=False)]
    if action is not None:
        comparison = viz.cut(action, *roots, names=names, label="action")
        texts.append(viz.summary(comparison.after, counters=False))
        texts.append(comparison.summary())
    return texts


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_torch_and_minigrad_graphs_read_the_same(program):
    expected = observe(program, torch)
    actual = observe(program, minigrad)
    for torch_text, minigrad_text in zip(expected, actual, strict=True):
        assert minigrad_text == torch_text


def test_torch_snapshot_says_counters_are_not_exposed():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    snap = viz.snapshot(out, names=dict(a=a, out=out, c=c))
    assert snap.source == "torch"
    assert snap.tensor("c").counter is None
    assert "torch does not expose version counters" in viz.summary(snap)
    assert "torch does not expose version counters" in viz.draw(snap).source


def test_torch_stale_saved_value_is_read_from_the_error():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.detach().zero_()
    (saved,) = viz.snapshot(out, names=dict(out=out)).saved
    assert (saved.saved_version, saved.current_version, saved.stale) == (0, 1, True)
    assert saved.tensor is not None  # the result slot belongs to the tensor made by this node


def shared_weight_chain(lib: Any, uses: int, change_after: int | None = None):
    """One weight used by `uses` multiplications (an unrolled RNN); w changed in place after
    `change_after` of them, as an optimiser step would."""
    w = lib.tensor([0.5, -0.3], requires_grad=True)
    y0 = lib.tensor([1.0, 2.0], requires_grad=True)
    y = y0
    for step in range(uses):
        if step == change_after:
            with lib.no_grad():
                w.add_(1.0)
        y = (y * w).tanh()
    loss = y.sum()
    return loss, dict(w=w, y0=y0, loss=loss)


def comparable(source: str) -> str:
    """DOT source without the comment naming the library and the storage-box line about
    version counters, which torch does not expose."""
    source = source.split("\n", 1)[1]
    return re.sub(
        r"one version counter, at v\d+|torch does not expose version counters", "", source
    )


def test_shared_weight_is_collapsed_the_same_way_for_torch():
    uses = 3 * viz.COLLAPSE_ABOVE
    loss, names = shared_weight_chain(torch, uses)
    torch_source = viz.draw(loss, names=names, saved_layout="beside").source
    loss, names = shared_weight_chain(minigrad, uses)
    minigrad_source = viz.draw(loss, names=names, saved_layout="beside").source
    assert f"by {uses} functions" in torch_source
    assert comparable(torch_source) == comparable(minigrad_source)


def test_torch_stale_copies_stay_individual():
    limit = viz.COLLAPSE_ABOVE
    loss, names = shared_weight_chain(torch, 2 * limit + 4, change_after=limit + 2)
    source = viz.draw(loss, names=names, saved_layout="beside").source
    assert source.count("backward will raise") == limit + 2
    assert f"by {limit + 2} functions" in source


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_torch_shared_weight_graph_of_a_thousand_nodes_renders_in_time():
    loss, names = shared_weight_chain(torch, 250)
    snap = viz.snapshot(loss, names=names)
    assert snap.node_count >= 1000
    graph = viz.draw(snap, saved_layout="beside", max_nodes=snap.node_count)
    graph.render_timeout = 20.0  # about 1 s here; drawn plainly, minutes
    assert "by 250 functions" in graph._repr_image_svg_xml()


def test_inside_rows_read_the_same_for_torch_and_minigrad():
    loss, names = shared_weight_chain(torch, 6)
    torch_source = viz.draw(loss, names=names, saved_layout="inside").source
    loss, names = shared_weight_chain(minigrad, 6)
    minigrad_source = viz.draw(loss, names=names, saved_layout="inside").source
    assert "saved other = w, v0 / now v0" in torch_source
    assert comparable(torch_source) == comparable(minigrad_source)


def test_torch_stale_values_are_red_rows():
    loss, names = shared_weight_chain(torch, 6, change_after=3)
    source = viz.draw(loss, names=names, saved_layout="inside").source
    # torch reports a changed value's versions through the error reading it raises
    assert source.count('v0 / now v1</FONT><BR/><FONT COLOR="#922b21">backward will raise') == 3
