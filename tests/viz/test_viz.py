"""minigrad.viz: the graph snapshot for every case of docs/cheatsheet.md, the text, the DOT.

Structural checks read the snapshot (tensors, functions, edges, saved values, storage groups);
a few pictures are rendered with Graphviz `dot` to check they render without warnings.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import minigrad as mg
from minigrad import viz

DOT = shutil.which("dot")
needs_dot = pytest.mark.skipif(DOT is None, reason="Graphviz `dot` is not installed")


def sigmoid_graph():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    return a, out


def inputs_of(snap: viz.GraphSnapshot, label: str) -> list[str]:
    """The labels of a function's inputs, 'None' for an empty slot."""
    function = snap.function(label)
    return ["None" if key is None else snap.by_key(key).label for key in function.inputs]


def render(graph) -> str:
    """Run `dot -Tsvg` and return stderr (empty when Graphviz had nothing to complain about)."""
    done = subprocess.run(
        [DOT, "-Tsvg"], input=graph.source, capture_output=True, text=True, check=True
    )
    assert "<svg" in done.stdout
    return done.stderr


# ---- the cheat sheet, row by row -----------------------------------------------------------------


def test_detach_shares_memory_and_version_counter():
    a, out = sigmoid_graph()
    c = out.detach()
    snap = viz.snapshot(out, names=dict(a=a, out=out, c=c))
    tc, tout = snap.tensor("c"), snap.tensor("out")
    assert tc.is_leaf and not tc.requires_grad and tc.grad_fn is None
    assert tc.storage == tout.storage and tc.counter == tout.counter
    assert snap.tensor("a").storage != tout.storage
    assert [f.label for f in snap.functions] == ["SigmoidBackward0", "AccumulateGrad(a)"]
    (saved,) = snap.saved
    assert (saved.slot, saved.tensor, saved.storage) == ("result", tout.key, tout.storage)
    group = next(g for g in snap.storages if g.key == tout.storage)
    assert set(group.members) == {tout.key, tc.key, saved.key}
    assert len(group.counters) == 1
    assert "c    leaf      no grad" in viz.summary(snap)
    assert "(shares memory + version counter with out)" in viz.summary(snap)


def test_zero_through_detached_alias_makes_the_saved_result_stale():
    a, out = sigmoid_graph()
    c = out.detach()
    comparison = viz.cut(lambda: c.zero_(), out, names=dict(a=a, out=out, c=c))
    (before,) = comparison.before.saved
    (after,) = comparison.after.saved
    assert not before.stale
    assert after.stale and (after.saved_version, after.current_version) == (0, 1)
    assert comparison.after.tensor("out").version == 1
    assert comparison.summary() == textwrap.dedent(
        """\
        after c.zero_():
          out: version v0 -> v1
          c: version v0 -> v1
          SigmoidBackward0 saved result=out: saved v0, now v1 -> backward will raise"""
    )
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_data_shares_memory_but_not_the_version_counter():
    a, out = sigmoid_graph()
    d = out.data
    comparison = viz.cut(lambda: d.zero_(), out, names=dict(a=a, out=out, d=d))
    after = comparison.after
    td, tout = after.tensor("d"), after.tensor("out")
    assert td.storage == tout.storage and td.counter != tout.counter
    assert (td.version, tout.version) == (1, 0)
    (saved,) = after.saved
    assert not saved.stale  # the check backward makes sees nothing: the silent wrong gradient
    group = next(g for g in after.storages if g.key == tout.storage)
    assert len(group.counters) == 2
    assert "shares memory but not the version counter with out" in viz.summary(after)
    assert "2 version counters on one memory" in comparison.draw().source
    assert comparison.summary().splitlines()[-1] == (
        "  SigmoidBackward0 saved result=out: memory changed through d (another version counter), "
        "still v0: backward will silently use the new values"
    )


def test_data_setter_moves_the_tensor_to_the_other_storage():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    other = mg.tensor([5.0, 6.0, 7.0])
    x.data = other
    snap = viz.snapshot(x, names=dict(x=x, other=other))
    assert snap.tensor("x").storage == snap.tensor("other").storage
    assert snap.tensor("x").requires_grad and snap.tensor("x").is_leaf
    assert snap.tensor("x").shape == (3,)


def test_detached_tensor_with_requires_grad_is_a_new_leaf():
    a, out = sigmoid_graph()
    c = out.detach().requires_grad_(True)
    y = c * 2
    snap = viz.snapshot(y, names=dict(a=a, out=out, c=c, y=y))
    assert snap.tensor("c").is_leaf and snap.tensor("c").requires_grad
    assert inputs_of(snap, "MulBackward0") == ["AccumulateGrad(c)", "None"]
    # out's own graph is still there, but nothing from y reaches it
    alone = viz.snapshot(y, names=dict(c=c, y=y))
    assert [f.label for f in alone.functions] == ["MulBackward0", "AccumulateGrad(c)"]


def test_detached_input_leaves_a_none_slot():
    a, out = sigmoid_graph()
    y = out.detach() * a
    snap = viz.snapshot(y, names=dict(a=a, y=y))
    assert inputs_of(snap, "MulBackward0") == ["None", "AccumulateGrad(a)"]
    none_edges = [e for e in snap.edges if e.kind == "none"]
    assert len(none_edges) == 1 and none_edges[0].slot == 0
    assert "F0_none0 [label=None" in viz.draw(snap).source


def test_detach_in_place_on_a_used_non_leaf_keeps_the_earlier_edge():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = 2 * a
    s = b.sum()
    comparison = viz.cut(lambda: b.detach_(), s, names=dict(a=a, b=b, s=s))
    before, after = comparison.before, comparison.after
    assert not before.tensor("b").is_leaf
    assert after.tensor("b").is_leaf and not after.tensor("b").requires_grad
    assert inputs_of(after, "SumBackward0") == ["MulBackward0"]  # the earlier edge survives
    removed = [(e.src, e.dst, e.kind) for e in comparison.changes.removed_edges]
    assert removed == [(before.function("MulBackward0").key, before.tensor("b").key, "output")]
    assert comparison.summary().splitlines() == [
        "after b.detach_():",
        "  b: became a leaf (grad_fn was MulBackward0); no longer requires grad",
        "  edge removed: MulBackward0 -> b",
    ]
    s.backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


def test_detach_in_place_on_a_leaf():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (a * 2).sum()
    comparison = viz.cut(lambda: a.detach_(), y, names=dict(a=a, y=y))
    after = comparison.after
    assert not after.tensor("a").requires_grad
    # the AccumulateGrad node is still in y's graph, pointing at a leaf that no longer wants grad
    assert after.function("AccumulateGrad(a)").variable == after.tensor("a").key
    assert "a: no longer requires grad" in comparison.summary()


def test_views_share_memory_and_version_counter_with_their_base():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    v = b[1:]
    snap = viz.snapshot(v, names=dict(a=a, b=b, v=v))
    tb, tv = snap.tensor("b"), snap.tensor("v")
    assert tv.is_view and not tb.is_view
    assert (tv.storage, tv.counter) == (tb.storage, tb.counter)
    assert snap.by_key(tv.grad_fn).name == "SliceBackward0"
    with mg.no_grad():
        v.mul_(3)
    after = viz.snapshot(v, names=dict(a=a, b=b, v=v))
    assert after.tensor("b").version == after.tensor("v").version == 1


def test_in_place_on_a_non_leaf_gives_it_a_new_grad_fn():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    comparison = viz.cut(lambda: b.mul_(3), b, names=dict(a=a, b=b))
    assert "b: grad_fn is now MulBackward0#2; version v0 -> v1" in comparison.summary()
    assert inputs_of(comparison.after, "MulBackward0#2") == ["MulBackward0", "None"]


def test_no_grad_records_nothing():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with mg.no_grad():
        y = a * 2
    snap = viz.snapshot(y, names=dict(a=a, y=y))
    assert snap.functions == () and snap.edges == ()
    assert snap.tensor("y").is_leaf and not snap.tensor("y").requires_grad
    assert "functions:\n  (none: nothing was recorded)" in viz.summary(snap)


def test_no_grad_compared_with_grad_mode():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a * 2
    recorded = viz.snapshot(y, names=dict(a=a, y=y))
    with mg.no_grad():
        y = a * 2
    plain = viz.snapshot(y, names=dict(a=a, y=y))
    graph = viz.compare(recorded, plain, label="under no_grad()")
    assert "cut by under no_grad()" in graph.source
    assert "no longer in this graph" in graph.source


def test_backward_frees_saved_values():
    a, out = sigmoid_graph()
    loss = out.sum()
    comparison = viz.cut(lambda: loss.backward(), loss, names=dict(a=a, out=out, loss=loss))
    (saved,) = comparison.after.saved
    assert saved.freed and not saved.stale
    assert "SigmoidBackward0 saved result=out: freed" in comparison.summary()
    assert "saved: result (freed by backward)" in viz.summary(comparison.after)


def test_clone_has_its_own_memory():
    a, out = sigmoid_graph()
    k = out.clone()
    snap = viz.snapshot(k, names=dict(out=out, k=k))
    assert snap.tensor("k").storage != snap.tensor("out").storage
    assert snap.by_key(snap.tensor("k").grad_fn).name == "CloneBackward0"


# ---- naming, text, API -----------------------------------------------------------------------


def test_unnamed_tensors_are_numbered_in_creation_order():
    a = mg.tensor([1.0], requires_grad=True)
    b = mg.tensor([2.0], requires_grad=True)
    y = b * a
    snap = viz.snapshot(y)
    assert [t.name for t in snap.tensors] == ["t0", "t1", "t2"]  # a, b, y by creation
    assert snap.tensor("t2").is_root
    named = viz.snapshot(y, names={"t0": b})
    assert [t.name for t in named.tensors] == ["t0", "t1", "t2"]
    assert named.tensor("t0").uid == b._serial  # the user's t0; the others skip that name


def test_summary_text():
    a, out = sigmoid_graph()
    c = out.detach()
    text = viz.summary(out.sum(), names=dict(a=a, out=out, c=c))
    assert text.splitlines() == [
        "tensors:",
        "  a    leaf      requires_grad  float32 (3,)  v0  storage S0",
        "  out  non-leaf  grad_fn=SigmoidBackward0  float32 (3,)  v0  storage S1",
        "  c    leaf      no grad  float32 (3,)  v0  storage S1"
        " (shares memory + version counter with out)",
        "  t0   non-leaf  grad_fn=SumBackward0  float32 ()  v0  storage S2",
        "functions:",
        "  SumBackward0       <- [SigmoidBackward0]",
        "  SigmoidBackward0   <- [AccumulateGrad(a)]  saved: result=out (saved v0, now v0)",
        "  AccumulateGrad(a)  -> .grad of a",
    ]


def test_repr_is_stable_and_svg_is_offered():
    a, out = sigmoid_graph()
    graph = viz.draw(out, names=dict(a=a, out=out))
    assert repr(graph) == "<minigrad.viz graph: 5 nodes, 4 edges>"
    comparison = viz.cut(lambda: out.detach_(), out, names=dict(a=a, out=out))
    assert repr(comparison) == "<minigrad.viz comparison after out.detach_(): 3 changes>"
    if DOT is not None:
        # a PNG beside the SVG: shown where a stored SVG is not (untrusted notebooks, GitHub);
        # and an <img> of the SVG with its alt, which JupyterLab shows (alt_text.html_picture)
        assert set(graph._repr_mimebundle_()[0]) == {"image/svg+xml", "image/png", "text/html"}
        assert set(comparison._repr_mimebundle_()[0]) == {
            "image/svg+xml",
            "image/png",
            "text/html",
            "text/plain",
        }
        assert set(graph._repr_mimebundle_(include=["image/svg+xml"])[0]) == {"image/svg+xml"}
        only_svg = graph._repr_mimebundle_(exclude=["image/png", "text/html"])[0]
        assert set(only_svg) == {"image/svg+xml"}


def test_cut_label_defaults():
    a, out = sigmoid_graph()

    def cut_it():
        return out.detach_()

    assert viz.cut(cut_it, out).label == "cut_it()"
    assert viz.cut(lambda: None, out, label="nothing").label == "nothing"
    assert "nothing changed" in viz.cut(lambda: None, out, label="x").summary()


def test_cut_adds_the_returned_tensor_and_reraises():
    a, out = sigmoid_graph()
    comparison = viz.cut(lambda: out.detach(), out, names=dict(a=a, out=out))
    alias = comparison.after.tensor("out.detach()")
    assert alias.storage == comparison.after.tensor("out").storage
    assert comparison.summary().splitlines() == [
        "after out.detach():",
        "  out.detach(): new tensor, leaf, no grad (shares memory + version counter with out)",
    ]

    def boom():
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        viz.cut(boom, out)


def test_mixing_libraries_or_non_tensors_is_refused():
    with pytest.raises(TypeError, match="expects tensors"):
        viz.snapshot([1, 2])


# ---- drawing: escaping, size limit, determinism -----------------------------------------------


@needs_dot
def test_labels_are_escaped_and_render_without_warnings():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    y = a * 3
    graph = viz.draw(y, names={'<b>&"x"': a, "y\n{z}": y}, legend=True)
    assert "&lt;b&gt;&amp;&quot;x&quot;" in graph.source
    assert render(graph) == ""


@needs_dot
def test_every_case_renders_without_warnings():
    a, out = sigmoid_graph()
    c = out.detach()
    d = out.data
    v = out[1:]
    comparisons = [
        viz.cut(lambda: c.zero_(), out, names=dict(a=a, out=out, c=c, d=d, v=v)),
        viz.cut(lambda: out.detach_(), out, names=dict(a=a, out=out)),
    ]
    for comparison in comparisons:
        assert render(comparison.draw(legend=True)) == ""
    assert render(viz.draw(out, names=dict(a=a, c=c), show_storage=False, show_saved=False)) == ""


def chain(length: int):
    x = mg.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(length):
        y = y * 1.0
    return x, y


def test_size_limit_refuses_with_a_clear_message():
    _, y = chain(400)
    with pytest.raises(viz.GraphTooLargeError, match=r"has \d+ nodes, more than max_nodes=300"):
        viz.draw(y)
    assert issubclass(viz.GraphTooLargeError, ValueError)
    graph = viz.draw(y, max_nodes=2000)
    assert graph.node_total > 300


def test_deep_chains_do_not_recurse():
    _, y = chain(5000)
    snap = viz.snapshot(y)
    assert len(snap.functions) == 5001


DETERMINISM_SCRIPT = """
import minigrad as mg
from minigrad import viz
a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
d = out.data
b = out * a
s = (b[1:] * out[:2]).sum()
names = {"a": a, "out": out, "c": c, "d": d, "b": b}
print(viz.draw(s, names=names, legend=True).source)
print(viz.cut(lambda: c.zero_(), s, names=names).draw().source)
print(viz.summary(s, names=names))
print(viz.draw(s).source)
"""


def test_dot_source_is_identical_across_hash_seeds(outputs_under_hash_seeds):
    outputs = outputs_under_hash_seeds(DETERMINISM_SCRIPT)
    assert outputs[0] == outputs[1]
    assert "0x" not in outputs[0]


def test_torch_is_not_imported_for_minigrad_graphs():
    script = (
        "import sys\n"
        "import minigrad as mg\n"
        "from minigrad import viz\n"
        "a = mg.tensor([1.0], requires_grad=True)\n"
        "viz.cut(lambda: a.detach_(), (a * 2).sum(), names=dict(a=a)).draw()\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"


def test_options_hide_saved_values_versions_and_storage():
    a, out = sigmoid_graph()
    c = out.detach()
    names = dict(a=a, out=out, c=c)
    full = viz.draw(out, names=names).source
    assert "saved result" in full and "cluster_S1" in full and ", v0" in full
    bare = viz.draw(out, names=names, show_saved=False, show_versions=False, show_storage=False)
    assert "saved result" not in bare.source
    assert "cluster_" not in bare.source
    assert ", v0" not in bare.source


@needs_dot
def test_notebook_outputs_are_svg_png_plus_stable_text():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    cells = [
        "import minigrad as mg\nfrom minigrad import viz\n"
        "a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)\nout = a.sigmoid()\nc = out.detach()",
        "viz.draw(out, names=dict(a=a, out=out, c=c))",
        "viz.cut(lambda: c.zero_(), out, names=dict(a=a, out=out, c=c))",
    ]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    outputs = [cell.outputs for cell in notebook.cells[1:]]
    assert [sorted(output["data"]) for (output,) in outputs] == [
        ["image/png", "image/svg+xml", "text/html", "text/plain"],
        ["image/png", "image/svg+xml", "text/html", "text/plain"],
    ]
    assert [output["data"]["text/plain"] for (output,) in outputs] == [
        "<minigrad.viz graph: 6 nodes, 4 edges>",
        "<minigrad.viz comparison after c.zero_(): 3 changes>",
    ]


def test_rendering_is_bounded_by_a_timeout_with_a_clear_message():
    import minigrad as mg
    from minigrad import viz as viz_module

    a = mg.tensor([1.0, 2.0], requires_grad=True)
    graph = viz_module.draw(a.sigmoid(), names=dict(a=a))
    assert graph._repr_image_svg_xml() == graph.pipe(format="svg", encoding="utf-8")
    graph.render_timeout = 1e-4  # far too short for dot to even start
    with pytest.raises(viz_module.GraphRenderTimeoutError, match="render_timeout"):
        graph._repr_image_svg_xml()


def test_notes_mark_a_named_tensor_or_function_and_name_a_missing_one() -> None:
    """viz.draw(notes=...) puts a red line on the node named (a hook has no node of its own)."""
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2
    loss = (x * 3 + b).sum()
    source = viz.draw(loss, names=dict(x=x, b=b), notes={"b": "hook: grad * 0"}).source
    assert "hook: grad * 0" in source
    assert "hook: grad * 0" in viz.draw(loss, notes={"SumBackward0": "hook: grad * 0"}).source
    assert "hook" not in viz.draw(loss, names=dict(x=x, b=b)).source
    with pytest.raises(ValueError, match="no tensor or function called 'c'"):
        viz.draw(loss, names=dict(x=x, b=b), notes={"c": "hook"})


@pytest.mark.skipif(DOT is None, reason="Graphviz `dot` is not installed")
def test_the_png_is_the_same_picture_as_the_svg():
    """The PNG beside the SVG is drawn by `dot` from the same DOT: the same size (points at
    96 dpi), small (gd's palette PNG), and text in other scripts gets the SVG alone unless
    this machine has a font for it."""
    import base64
    import struct

    a, out = sigmoid_graph()
    bundle = viz.draw(out, names=dict(a=a, out=out))._repr_mimebundle_()[0]
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(b"\x89PNG")
    width, height = struct.unpack(">II", png[16:24])
    points = re.search(r'<svg width="(\d+)pt" height="(\d+)pt"', bundle["image/svg+xml"])
    assert (
        abs(width - int(points[1]) * 96 / 72) <= 2 and abs(height - int(points[2]) * 96 / 72) <= 2
    )
    assert len(bundle["image/png"]) < 2 * len(bundle["image/svg+xml"])
