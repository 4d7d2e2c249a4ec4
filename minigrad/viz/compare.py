"""Before and after: draw two snapshots side by side (one above the other when that would be
too wide for a notebook) and mark what changed.

The two snapshots are matched object by object (the same tensor, the same grad_fn node), so
keys in the "after" half are renamed to the keys the same objects had "before". Tensors that
are different objects but carry the same user name are matched too, which lets two runs of a
program (with and without `no_grad`, say) be compared.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from .changes import Changes, changes, edge_name
from .model import GraphSnapshot, snapshot
from .render import (
    COLLAPSE_ABOVE,
    RED,
    Graph,
    Options,
    _Builder,
    _esc,
    add_legend,
    check_size,
    make_options,
    new_graph,
)
from .themes import Theme, wants_legend

__all__ = ["Comparison", "align", "changes", "compare", "cut"]


# --------------------------------------------------------------------------------------------
# Matching the two snapshots
# --------------------------------------------------------------------------------------------


def align(before: GraphSnapshot, after: GraphSnapshot) -> GraphSnapshot:
    """`after` with its keys (and automatic names) replaced by those of the same objects before."""
    rename: dict[str, str] = {}
    names: dict[str, str] = {}
    before_tensors = {t.uid: t for t in before.tensors}
    before_named = {t.name: t for t in before.tensors if t.named}
    used = set()
    for tensor in after.tensors:
        match = before_tensors.get(tensor.uid)
        if match is None and tensor.named:
            match = before_named.get(tensor.name)
        if match is not None and match.key not in used:
            used.add(match.key)
            rename[tensor.key] = match.key
            names[tensor.key] = match.name if not tensor.named else tensor.name
    matched = _match_functions(before, after, rename)
    before_by_key = {f.key: f for f in before.functions}
    labels: dict[str, str] = {}  # keep the labels of matched functions; number new ones on
    taken = {f.label for f in before.functions}
    for after_key, before_key in matched.items():
        rename[after_key] = before_key
        labels[after_key] = before_by_key[before_key].label
    for function in after.functions:
        if function.key in labels or function.variable is not None:
            continue
        label, count = function.name, 1
        while label in taken:
            count += 1
            label = f"{function.name}#{count}"
        taken.add(label)
        labels[function.key] = label
    # everything new gets a key that cannot collide with a "before" key
    fresh = {"T": len(before.tensors), "F": len(before.functions)}
    for node in (*after.tensors, *after.functions):
        if node.key not in rename:
            prefix = node.key[0]
            rename[node.key] = f"{prefix}{fresh[prefix]}"
            fresh[prefix] += 1

    def key_of(key: str | None) -> str | None:
        if key is None:
            return None
        if key in rename:
            return rename[key]
        function, _, rest = key.partition("_")  # saved and None-slot keys: F3_result, F3_none0
        return f"{rename[function]}_{rest}"

    tensors = tuple(
        dataclasses.replace(
            t,
            key=key_of(t.key),
            name=names.get(t.key, t.name),
            grad_fn=key_of(t.grad_fn),
        )
        for t in after.tensors
    )
    functions = tuple(
        dataclasses.replace(
            f,
            key=key_of(f.key),
            label=labels.get(f.key, f.label),
            inputs=tuple(key_of(k) for k in f.inputs),
            saved=tuple(key_of(k) for k in f.saved),
            variable=key_of(f.variable),
        )
        for f in after.functions
    )
    saved = tuple(
        dataclasses.replace(
            s, key=key_of(s.key), function=key_of(s.function), tensor=key_of(s.tensor)
        )
        for s in after.saved
    )
    storages = tuple(
        dataclasses.replace(
            g,
            members=tuple(key_of(k) for k in g.members),
            counters=tuple((c, tuple(key_of(k) for k in keys)) for c, keys in g.counters),
        )
        for g in after.storages
    )
    edges = tuple(dataclasses.replace(e, src=key_of(e.src), dst=key_of(e.dst)) for e in after.edges)
    return GraphSnapshot(tensors, functions, saved, storages, edges, after.source)


def _match_functions(
    before: GraphSnapshot, after: GraphSnapshot, tensor_rename: Mapping[str, str]
) -> dict[str, str]:
    """after function key -> before function key.

    First the same node objects. Then, for two runs of a program, structure: the grad_fns of
    matched tensors, and from there the inputs slot by slot, when the names agree.
    """
    by_uid = {f.uid: f.key for f in before.functions}
    matched = {f.key: by_uid[f.uid] for f in after.functions if f.uid in by_uid}
    used = set(matched.values())
    before_f = {f.key: f for f in before.functions}
    after_f = {f.key: f for f in after.functions}
    before_t = {t.key: t for t in before.tensors}

    def pair(after_key: str | None, before_key: str | None) -> bool:
        if after_key is None or before_key is None:
            return False
        if after_key in matched or before_key in used:
            return False
        if after_f[after_key].name != before_f[before_key].name:
            return False
        matched[after_key] = before_key
        used.add(before_key)
        return True

    queue = deque(matched.items())
    for tensor in after.tensors:
        old = before_t.get(tensor_rename.get(tensor.key, ""))
        if old is not None and pair(tensor.grad_fn, old.grad_fn):
            queue.append((tensor.grad_fn, old.grad_fn))
    while queue:
        after_key, before_key = queue.popleft()
        after_inputs, before_inputs = after_f[after_key].inputs, before_f[before_key].inputs
        for next_after, next_before in zip(after_inputs, before_inputs, strict=False):
            if pair(next_after, next_before):
                queue.append((next_after, next_before))
    return matched


# --------------------------------------------------------------------------------------------
# Drawing both halves
# --------------------------------------------------------------------------------------------


def _draw_pair(
    before: GraphSnapshot,
    after: GraphSnapshot,
    label: str,
    found: Changes,
    options: Options,
    max_nodes: int,
    legend: bool | None,
) -> Graph:
    check_size(before.node_count + after.node_count + len(found.gone), max_nodes)
    theme = options.theme
    graph = new_graph(f"minigrad.viz: before / after {label}", theme)
    graph.saved_layout = options.saved_layout
    graph.attr(compound="true")
    left = _Builder(graph, before, options, prefix="before_")
    right = _Builder(graph, after, options, prefix="after_")
    title = {"fontsize": str(theme.title_font), "style": "rounded", "color": "#bbbbbb"}
    with graph.subgraph(name="cluster_before") as box:
        box.attr(label="before", labeljust="c", **title)
        left.build(box)
    with graph.subgraph(name="cluster_after") as box:
        box.attr(label="after" if label == "after" else f"after {label}", labeljust="c", **title)
        right.build(box, found.marks)
        for key in found.gone:  # drawn faintly where they used to be
            old = before.by_key(key) if "_none" not in key else None
            text = edge_name(before, key)
            kind = "no longer in this graph" if old is not None and key.startswith("F") else "gone"
            right.add_node(
                box,
                key,
                label=right.html(_esc(text), _esc(kind)),
                shape="box",
                style="dashed,rounded",
                color="#aaaaaa",
                fontcolor="#888888",
            )
    after_keys = set(after._index())
    for edge in found.removed_edges:
        # the label goes on the edges the call cut, not on every edge that became unreachable
        text = f" cut by {label} " if edge.dst in after_keys else ""
        right.add_edge(
            edge.src,
            edge.dst,
            style="dashed",
            color=RED,
            fontcolor=RED,
            penwidth=theme.cut_pen,
            label=text,
            arrowhead="tee",
        )
    # side by side: the two halves and the frames around them
    graph.estimated_width = left.width() + right.width() + 3 * FRAME
    if graph.estimated_width > theme.fit_width:
        _stack(graph, left, right)
        graph.estimated_width = max(left.width(), right.width()) + 2 * FRAME
    if wants_legend(legend, theme):
        add_legend(graph, before_after=True, theme=theme)
    return graph


FRAME = 16.0  # points a cluster frame adds on each side, about


def _stack(graph: Graph, top: _Builder, bottom: _Builder) -> None:
    """Put the 'after' half under the 'before' half (it would be too wide beside it).

    Invisible edges lead from every node of `top` that has no edge out to one hidden point,
    and from there to every node of `bottom` that has no edge in: dot ranks them all below.
    """
    graph.stacked = True
    graph.node("stack", label="", shape="point", style="invis", width="0")
    # weight 0 above leaves the point free to sit centred over the lower half; weight 0 below
    # as well would let dot keep the halves side by side
    has_out = {src for src, _ in top.links}
    for node in top.widths:
        if node not in has_out:
            graph.edge(node, "stack", style="invis", weight="0")
    has_in = {dst for _, dst in bottom.links}
    for node in bottom.widths:
        if node not in has_in:
            graph.edge("stack", node, style="invis")


def compare(
    before: GraphSnapshot,
    after: GraphSnapshot,
    label: str = "after",
    show_saved: bool = True,
    show_versions: bool = True,
    show_storage: bool = True,
    max_nodes: int = 300,
    legend: bool | None = None,
    collapse_above: int | None = COLLAPSE_ABOVE,
    saved_layout: str = "auto",
    theme: str | Theme | None = None,
) -> Graph:
    """Draw `before` and `after` side by side, marking what changed in the 'after' half.

    Too wide for a notebook side by side (see themes.Theme.fit_width), 'after' goes under
    'before'. `collapse_above`, `saved_layout`, `legend` and `theme`: see `viz.draw`.
    """
    aligned = align(before, after)
    found = changes(before, aligned)
    options = make_options(
        (before, aligned),
        show_saved,
        show_versions,
        show_storage,
        collapse_above,
        saved_layout,
        theme,
    )
    return _draw_pair(before, aligned, label, found, options, max_nodes, legend)


class Comparison:
    """The result of `cut()`: shows as the before/after picture; `.summary()` says it in text."""

    def __init__(
        self,
        before: GraphSnapshot,
        after: GraphSnapshot,
        label: str,
        result: Any,
        theme: str | Theme | None = None,
    ):
        self.before = before
        self.after = align(before, after)
        self.label = label
        self.result = result  # what the action returned
        self.theme = theme  # None: the theme current when the picture is drawn
        self.changes = changes(before, self.after)
        self._graph: Graph | None = None

    def draw(self, **options: Any) -> Graph:
        """The picture (same options as `viz.compare`; `theme` defaults to this one's)."""
        options.setdefault("theme", self.theme)
        return compare(self.before, self.after, self.label, **options)

    @property
    def graph(self) -> Graph:
        """The picture with default options (built once, when first shown)."""
        if self._graph is None:
            self._graph = self.draw()
        return self._graph

    def summary(self) -> str:
        """What changed, one fact per line, in a stable order."""
        lines = [f"after {self.label}:"]
        lines += [f"  {line}" for line in self.changes.lines] or ["  nothing changed"]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = self.graph._repr_mimebundle_(include=include, exclude=exclude)
        bundle["text/plain"] = repr(self)
        return bundle

    def __repr__(self) -> str:
        count = len(self.changes.lines)
        noun = "change" if count == 1 else "changes"
        return f"<minigrad.viz comparison after {self.label}: {count} {noun}>"


def action_label(action: Callable[[], Any]) -> str:
    """The text of a lambda's body (`out.detach_()`), or `name()` for a def, else 'after'."""
    name = getattr(action, "__name__", "")
    if name and name != "<lambda>":
        return f"{name}()"
    try:
        source = textwrap.dedent(inspect.getsource(action)).strip()
    except (OSError, TypeError):
        return "after"
    tree = None
    for text in (source, f"({source})", source.rstrip(",)"), source.split("=", 1)[-1].strip()):
        try:
            tree = ast.parse(text)
            source = text
            break
        except SyntaxError:
            continue
    if tree is None:
        return "after"
    lambdas = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)]
    if len(lambdas) != 1:
        return "after"
    body = ast.get_source_segment(source, lambdas[0].body)
    return " ".join(body.split()) if body else "after"


def _returned_tensors(result: Any) -> list[Any]:
    values = result if isinstance(result, (tuple, list)) else [result]
    return [value for value in values if hasattr(value, "grad_fn") and hasattr(value, "shape")]


def cut(
    action: Callable[[], Any],
    *roots: Any,
    names: Mapping[str, Any] | None = None,
    label: str | None = None,
    theme: str | Theme | None = None,
) -> Comparison:
    """Snapshot, run `action()`, snapshot again: the before/after of one call.

    `theme` is the theme of its picture (None: the one current when it is shown).

    Tensors the action returns are added to the 'after' graph (unless already there), named by
    the label (`out.detach()`), so `viz.cut(lambda: out.detach(), out)` shows the new alias.
    """
    before = snapshot(*roots, names=names)
    result = action()  # an exception propagates: nothing else has happened yet
    text = label if label is not None else action_label(action)
    extra_names = dict(names or {})
    known = list(roots) + list(extra_names.values())
    for index, value in enumerate(_returned_tensors(result)):
        if any(value is other for other in known):
            continue
        name = text if index == 0 else f"{text}[{index}]"
        extra_names.setdefault(name, value)
    after = snapshot(*roots, names=extra_names)
    return Comparison(before, after, text, result, theme=theme)
