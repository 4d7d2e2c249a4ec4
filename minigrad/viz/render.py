"""Turn a GraphSnapshot into Graphviz DOT (through the `graphviz` Python package).

Arrows point the way values flow forward, as in torchviz: leaf -> AccumulateGrad -> ... ->
the function that made the output -> the output. Backward walks them in reverse.

Colours: leaves light blue, outputs green, other non-leaf tensors pale green, functions grey,
saved values orange (red when changed since they were saved), tensors that do not require grad
dashed, empty `(None, 0)` slots small white circles, shared memory a dashed box.

Saved values are drawn beside their function or inside it (see layout.py); type sizes and line
widths come from a theme (see themes.py).

A tensor used by many functions (more than COLLAPSE_ABOVE) is drawn in a form that Graphviz
lays out fast: its unchanged saved copies as one double-bordered node, its edges along one
trunk line with a small point and a branch per function (see Options).
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import graphviz

from .dot_program import (
    GraphRenderTimeoutError,
    GraphvizFailedError,
    GraphvizNotFoundError,
    run_dot,
)
from .layout import choose_saved_layout, estimate_width, label_width
from .model import FunctionNode, GraphSnapshot, SavedNode, TensorNode
from .text import shape_text
from .themes import DEFAULT, Theme, resolve_theme, wants_legend

__all__ = [
    "COLLAPSE_ABOVE",
    "Graph",
    "GraphRenderTimeoutError",
    "GraphTooLargeError",
    "draw_snapshot",
]

FONT = "Helvetica"
LEAF_FILL = "#cfe8fc"  # light blue, as torchviz
OUTPUT_FILL = "#c5e8a0"  # green for the tensors the graph was drawn from
NONLEAF_FILL = "#e8f5dc"
NOGRAD_FILL = "#f4f4f4"
FUNCTION_FILL = "#dcdcdc"
SAVED_FILL = "#ffd8a8"  # orange
STALE_FILL = "#ffb3b3"
FREED_FILL = "#ffffff"
RED = "#c0392b"
STORAGE_COLOR = "#6f6f6f"
SAVED_EDGE = "#e67e22"

# A tensor used by more than this many functions (an RNN's weight, reused at every step) is
# drawn in a form Graphviz lays out fast (see Options). Drawn plainly, a hundred long edges
# from one node, and a storage box stretched along the whole chain, take dot minutes; every
# graph of the course stays far below this, so the notebooks' pictures do not change.
COLLAPSE_ABOVE = 8


class GraphTooLargeError(ValueError):
    """The graph has more nodes than `max_nodes`; Graphviz would be slow to lay it out."""


class Graph(graphviz.Digraph):
    """A graphviz.Digraph with a stable text form, and clear errors when `dot` cannot run.

    Jupyter shows the SVG (graphviz's own `_repr_mimebundle_`, which calls `pipe`); the
    text/plain part is this repr, which holds no memory address, so notebook outputs compare
    equal between runs. `pipe` (and so displaying) gives up after `render_timeout` seconds;
    `pipe` and `render` raise GraphvizNotFoundError without `dot` on PATH and
    GraphvizFailedError, with dot's stderr, when it fails.
    """

    node_total = 0
    edge_total = 0
    saved_layout = "beside"  # how saved values were drawn: "beside" or "inside"
    stacked = False  # a before/after drawn one above the other
    estimated_width = 0.0  # points, before dot lays it out (layout.estimate_width)
    theme = "default"
    # seconds `dot` may take before displaying fails with a clear message (some shapes take
    # minutes); set it on one picture, or on viz.Graph for every picture
    render_timeout = 30.0

    def __repr__(self) -> str:
        return f"<minigrad.viz graph: {self.node_total} nodes, {self.edge_total} edges>"

    def pipe(  # type: ignore[override]
        self,
        format: str | None = None,
        renderer: str | None = None,
        formatter: str | None = None,
        neato_no_op: bool | int | None = None,
        quiet: bool = False,
        *,
        engine: str | None = None,
        encoding: str | None = None,
    ) -> bytes | str:
        """The picture in `format` from `dot`, bounded by `render_timeout` (graphviz's pipe)."""
        if renderer is not None or formatter is not None or neato_no_op is not None:
            with _clear_errors(engine or self.engine):
                return super().pipe(
                    format,
                    renderer,
                    formatter,
                    neato_no_op,
                    quiet,
                    engine=engine,
                    encoding=encoding,
                )
        # graphviz's own pipe() waits for `dot` forever; a notebook cell must not hang on it
        output = run_dot(
            self.source,
            [f"-T{format or self.format}"],
            timeout=self.render_timeout,
            nodes=self.node_total,
            program=engine or self.engine,
        )
        return output.decode(encoding) if encoding is not None else output

    def render(self, *args: Any, **kwargs: Any) -> str:
        """graphviz's render (writes files), with the clear errors of `pipe`."""
        with _clear_errors(kwargs.get("engine") or self.engine):
            return super().render(*args, **kwargs)

    def _repr_image_svg_xml(self) -> str:
        return self.pipe(format="svg", encoding="utf-8")


@contextmanager
def _clear_errors(program: str) -> Iterator[None]:
    """Turn graphviz's own errors for a missing or failing `dot` into ours."""
    try:
        yield
    except GraphvizNotFoundError:
        raise
    except graphviz.ExecutableNotFound:
        raise GraphvizNotFoundError(program) from None
    except graphviz.CalledProcessError as error:
        stderr = error.stderr or b""
        text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
        raise GraphvizFailedError(program, error.returncode, text) from None


def _esc(text: object) -> str:
    """Escape text for an HTML-like label (`<b>&"x"` stays text)."""
    return html.escape(str(text), quote=True)


def _html(*lines: str, small: int = DEFAULT.small) -> str:
    """An HTML-like label from already escaped lines (first line bold, the others `small` pt)."""
    head, *rest = lines
    body = "".join(f'<BR/><FONT POINT-SIZE="{small}">{line}</FONT>' for line in rest)
    return f"<<B>{head}</B>{body}>"


def _red(text: str) -> str:
    return f'<FONT COLOR="{RED}">{text}</FONT>'


@dataclass
class Marks:
    """What compare() wants highlighted in the 'after' half (keys are snapshot keys)."""

    notes: dict[str, list[str]] = field(default_factory=dict)  # extra red lines per node
    changed: set[str] = field(default_factory=set)  # nodes drawn with a red border
    new: set[str] = field(default_factory=set)  # nodes that did not exist before


@dataclass
class Options:
    """Drawing switches shared by draw() and compare().

    `saved_layout` is "beside" or "inside" (already decided from "auto", see layout.py).

    `collapse_above` (None: never) is the threshold for crowded graphs. Above it:
    - more saved values than that which are plain copies of one drawn tensor (same memory and
      version counter, unchanged since saved, not freed) are drawn as one "saved = w, by N
      functions" node, with a dashed edge to each function;
    - a node with more forward (or saved) edges than that sends them along one trunk line of
      small relay points, one branch per function, instead of one long edge each;
    - a storage box still holding more saved values than that draws them beside their
      functions instead, and says how many in its label.
    Saved values changed since they were saved (red) or freed always keep their own node.
    (Drawn inside their functions, saved values need none of this; trunks still apply.)
    """

    show_saved: bool = True
    show_versions: bool = True
    show_storage: bool = True
    collapse_above: int | None = COLLAPSE_ABOVE
    saved_layout: str = "beside"
    theme: Theme = DEFAULT

    @property
    def beside(self) -> bool:
        """Saved values are nodes of their own."""
        return self.show_saved and self.saved_layout == "beside"

    @property
    def inside(self) -> bool:
        """Saved values are rows of their function's node."""
        return self.show_saved and self.saved_layout == "inside"


@dataclass(frozen=True)
class SavedCopies:
    """Saved values drawn as one node: unchanged copies of the same tensor."""

    key: str  # node id: "<tensor key>_saved", e.g. "T1_saved"
    tensor: str  # key of the TensorNode they were saved from
    members: tuple[str, ...]  # keys of the SavedNodes it stands for, in snapshot order


class _Builder:
    """Adds one snapshot's nodes and edges to a graph (or a cluster of it), with a key prefix.

    It also notes each node's estimated width and each rank-constraining edge, from which
    `width()` estimates how wide dot will draw this part (see layout.estimate_width).
    """

    def __init__(self, graph: Graph, snap: GraphSnapshot, options: Options, prefix: str = ""):
        self.graph = graph
        self.snap = snap
        self.options = options
        self.theme = options.theme
        self.prefix = prefix
        self.copies: dict[str, SavedCopies] = {}  # node key -> collapsed saved values
        self.merged: dict[str, str] = {}  # saved key -> the key of the node that stands for it
        self.function_order = {function.key: n for n, function in enumerate(snap.functions)}
        self.widths: dict[str, float] = {}  # node id -> estimated width, points
        self.links: list[tuple[str, str]] = []  # node ids of every edge, forward
        self.boxes: list[tuple[list[str], float]] = []  # each storage box: node ids, label width

    def node_id(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def add_node(self, target: Any, key: str, **attrs: str) -> None:
        self.add_point(target, key, **attrs)
        self.graph.node_total += 1

    def add_point(self, target: Any, key: str, **attrs: str) -> None:
        """A node that is not counted in node_total (a relay point of a trunk line)."""
        node_id = self.node_id(key)
        target.node(node_id, **attrs)
        if "width" in attrs and attrs.get("fixedsize") == "true" or attrs.get("shape") == "point":
            self.widths[node_id] = float(attrs.get("width", "0.05")) * 72
        else:
            font = float(attrs.get("fontsize", self.theme.font))
            self.widths[node_id] = label_width(attrs.get("label", key), font, self.theme.small)

    def add_edge(self, src: str, dst: str, count: bool = True, **attrs: str) -> None:
        self.graph.edge(self.node_id(src), self.node_id(dst), **attrs)
        self.links.append((self.node_id(src), self.node_id(dst)))
        if count:
            self.graph.edge_total += 1

    def width(self) -> float:
        """About how wide (points) dot will draw what this builder added."""
        nodesep = float(self.theme.nodesep) * 72
        return estimate_width(self.widths, self.links, nodesep, self.boxes)

    def html(self, *lines: str) -> str:
        return _html(*lines, small=self.theme.small)

    def mark(self, attrs: dict[str, str], key: str, marks: Marks) -> None:
        """A red border for what the call changed, a thick one for what it made."""
        if key in marks.changed:
            attrs.update(color=RED, penwidth=self.theme.marked_pen)
        elif key in marks.new:
            attrs.update(penwidth=self.theme.new_pen)

    # ---- labels -----------------------------------------------------------------------

    def tensor_attrs(self, tensor: TensorNode, marks: Marks) -> dict[str, str]:
        lines = [_esc(tensor.name), _esc(f"{shape_text(tensor.shape)} {tensor.dtype}")]
        if tensor.is_leaf:
            kind = "leaf, requires_grad" if tensor.requires_grad else "leaf, no grad"
        else:
            kind = "non-leaf"
        if tensor.is_view:
            kind += ", view"
        if self.options.show_versions:
            kind += f", v{tensor.version}"
        lines.append(_esc(kind))
        lines += [_red(_esc(note)) for note in marks.notes.get(tensor.key, [])]
        if not tensor.is_leaf:
            fill = OUTPUT_FILL if tensor.is_root else NONLEAF_FILL
        else:
            fill = LEAF_FILL if tensor.requires_grad else NOGRAD_FILL
        style = "filled" if tensor.requires_grad else "filled,dashed"
        attrs = {"label": self.html(*lines), "fillcolor": fill, "style": style}
        self.mark(attrs, tensor.key, marks)
        return attrs

    def function_attrs(self, function: FunctionNode, marks: Marks) -> dict[str, str]:
        lines = [_esc(function.name)]
        lines += [_red(_esc(note)) for note in marks.notes.get(function.key, [])]
        if self.options.inside and function.saved:
            return self.function_with_saved(function, lines, marks)
        attrs = {"label": self.html(*lines)}  # grey rounded boxes are the node default
        self.mark(attrs, function.key, marks)
        return attrs

    def function_with_saved(
        self, function: FunctionNode, lines: list[str], marks: Marks
    ) -> dict[str, str]:
        """A function node that lists its saved values in rows of its own (layout "inside")."""
        values = [self.snap.by_key(key) for key in function.saved]
        head = self.html(*lines)[1:-1]  # the plain label, without its outer < >
        rows = [f"<TR><TD>{head}</TD></TR>"] + [self.saved_row(value, marks) for value in values]
        table = '<TABLE BORDER="0" CELLSPACING="1" CELLPADDING="1">' + "".join(rows) + "</TABLE>"
        attrs = {"label": f"<{table}>", "margin": "0.08,0.04"}
        self.mark(attrs, function.key, marks)
        # a red border too when a value it saved is stale or was changed by the call
        troubled = any(value.stale or value.key in marks.changed for value in values)
        if troubled and function.key not in marks.changed:
            attrs.update(color=RED, penwidth=self.theme.new_pen)
        return attrs

    def saved_row(self, value: SavedNode, marks: Marks) -> str:
        """One table row: 'saved result = out, v0 / now v0' (red and pink when stale)."""
        owner = self.snap.by_key(value.tensor).name if value.tensor else None
        text = f"saved {value.slot}" + (f" = {owner}" if owner else "")
        fill, cell = SAVED_FILL, ""
        if value.freed:
            text += ": freed by backward"
            fill, cell = FREED_FILL, ' BORDER="1" STYLE="dashed" COLOR="#888888"'
        elif value.saved_version is None:
            text += ", version unknown"
        elif self.options.show_versions:
            text += f", v{value.saved_version} / now v{value.current_version}"
        if value.stale:
            lines = [_red(_esc(text)), _red("backward will raise")]
            fill = STALE_FILL
        else:
            lines = [_esc(text)]
        lines += [_red(_esc(note)) for note in marks.notes.get(value.key, [])]
        body = "<BR/>".join(lines)
        return (
            f'<TR><TD BGCOLOR="{fill}"{cell}><FONT POINT-SIZE="{self.theme.small}">{body}'
            "</FONT></TD></TR>"
        )

    def saved_attrs(self, value: SavedNode, marks: Marks) -> dict[str, str]:
        owner = self.snap.by_key(value.tensor).name if value.tensor else None
        head = f"saved {value.slot}" + (f" = {owner}" if owner else "")
        lines = [_esc(head)]
        fill = SAVED_FILL
        if value.freed:
            lines.append("freed by backward")
        elif value.saved_version is None:
            lines.append("version unknown")
        elif self.options.show_versions:
            versions = f"saved v{value.saved_version} / now v{value.current_version}"
            if value.stale:
                lines.append(_red(_esc(versions)))
                lines.append(_red("backward will raise"))
                fill = STALE_FILL
            else:
                lines.append(_esc(versions))
        lines += [_red(_esc(note)) for note in marks.notes.get(value.key, [])]
        attrs = {"label": self.html(*lines), "fillcolor": fill, "style": "filled"}
        pen = self.theme.new_pen
        if value.key in marks.changed:
            attrs.update(color=RED, penwidth=pen)
        if value.stale:
            attrs.update(color=RED, penwidth=pen)
        if value.freed:
            attrs["style"] = "filled,dashed"
        return attrs

    def copies_attrs(self, copies: SavedCopies) -> dict[str, str]:
        """One node for many unchanged saved copies of a tensor: 'saved by N functions'."""
        values = [self.snap.by_key(key) for key in copies.members]
        owner = self.snap.by_key(copies.tensor).name
        slots: dict[str, int] = {}
        for value in values:
            slots[value.slot] = slots.get(value.slot, 0) + 1
        lines = [
            _esc(f"saved = {owner}"),
            _esc(f"by {len(values)} functions"),
            _esc("as " + ", ".join(f"{slot} ×{count}" for slot, count in slots.items())),
        ]
        if self.options.show_versions:
            first = values[0]  # every copy has the same versions: that is what made it a copy
            lines.append(_esc(f"saved v{first.saved_version} / now v{first.current_version}"))
        users = ", ".join(self.snap.by_key(value.function).label for value in values)
        return {
            "label": self.html(*lines),
            "fillcolor": SAVED_FILL,
            "style": "filled",
            "peripheries": "2",  # a stack of identical values
            "tooltip": f"saved {owner} (the same memory, unchanged) for: {users}",
        }

    # ---- the graph ----------------------------------------------------------------------

    def build(self, target: Any, marks: Marks | None = None) -> None:
        """Add every node (inside storage boxes when asked) and every edge to `target`."""
        marks = marks or Marks()
        snap = self.snap
        beside = self.options.beside
        if beside:
            self.collapse_copies(marks)
        placed: set[str] = set()
        if self.options.show_storage:
            for group in snap.storages:
                # members are tensor keys (T...) and saved-value keys (F<function>_<slot>)
                members = [key for key in group.members if beside or key.startswith("T")]
                members = list(dict.fromkeys(self.merged.get(key, key) for key in members))
                outside = self.crowd(members)
                members = [key for key in members if key not in outside]
                if len(members) < 2 and not outside:
                    continue
                box_label = self.storage_label(group, set(members), len(outside))
                with target.subgraph(name=f"cluster_{self.prefix}{group.key}") as box:
                    box.attr(
                        label=box_label,
                        style="dashed,rounded",
                        color=STORAGE_COLOR,
                        fontcolor=STORAGE_COLOR,
                        fontsize=str(self.theme.storage_font),
                        labeljust="l",
                    )
                    for key in members:
                        self.add_any(box, key, marks)
                        placed.add(key)
                    size = self.theme.storage_font
                    label_size = label_width(box_label, size, size)
                    self.boxes.append(([self.node_id(key) for key in members], label_size))
        for tensor in snap.tensors:
            if tensor.key not in placed:
                self.add_any(target, tensor.key, marks)
        for function in snap.functions:
            self.add_node(target, function.key, **self.function_attrs(function, marks))
            if beside:
                for key in function.saved:
                    key = self.merged.get(key, key)
                    if key not in placed:
                        self.add_any(target, key, marks)
                        placed.add(key)
        for edge in snap.edges:
            if edge.kind == "none":
                self.add_node(
                    target,
                    edge.src,
                    label="None",
                    shape="circle",
                    style="dashed",
                    fontsize=str(self.theme.none_font),
                    width=self.theme.none_width,
                    fixedsize="true",
                    color="#888888",
                    fontcolor="#666666",
                )
        self.add_edges(target, beside)

    def add_edges(self, target: Any, show_saved: bool) -> None:
        """Every edge; a node used by many functions gets one trunk line (see add_fan)."""
        limit = self.options.collapse_above
        edges = [
            (self.merged.get(edge.src, edge.src) if edge.kind == "saved" else edge.src, edge)
            for edge in self.snap.edges
            if edge.kind != "saved" or show_saved
        ]
        fans: dict[tuple[str, str], list[str]] = {}
        if limit is not None:
            for src, edge in edges:
                if edge.kind in ("next", "saved"):
                    fans.setdefault((src, edge.kind), []).append(edge.dst)
            fans = {fan: users for fan, users in fans.items() if len(users) > limit}
        for src, edge in edges:
            if (src, edge.kind) not in fans:
                self.add_snapshot_edge(src, edge.dst, edge.kind, show_saved)
        for (src, kind), users in fans.items():
            self.add_fan(target, src, kind, users)

    def is_saved(self, key: str) -> bool:
        """True for the key of one saved value (not a tensor, not a group of copies)."""
        return key not in self.copies and isinstance(self.snap.by_key(key), SavedNode)

    def crowd(self, members: list[str]) -> set[str]:
        """The saved values a storage box leaves out, to be drawn beside their functions.

        Only when more than `collapse_above` of them remain after collapsing copies (values
        changed since they were saved, say): a box stretched along a long chain is what
        makes dot slow. They keep their own node and their red "backward will raise".
        """
        limit = self.options.collapse_above
        saved = [key for key in members if self.is_saved(key)]
        return set(saved) if limit is not None and len(saved) > limit else set()

    def collapse_copies(self, marks: Marks) -> None:
        """Find the saved values to draw as one node per tensor (see Options)."""
        limit = self.options.collapse_above
        if limit is None:
            return
        tensors = {tensor.key: tensor for tensor in self.snap.tensors}
        candidates: dict[tuple[str, str | None, int | None], list[str]] = {}
        for value in self.snap.saved:
            owner = tensors.get(value.tensor) if value.tensor is not None else None
            plain = (
                owner is not None
                and not value.freed
                and not value.stale
                and value.saved_version is not None
                and value.storage == owner.storage
                and value.counter == owner.counter
                # compare() writes notes on changed values: those keep their own node
                and value.key not in marks.notes
                and value.key not in marks.changed
                and value.key not in marks.new
            )
            if plain:
                group_key = (owner.key, value.counter, value.saved_version)
                candidates.setdefault(group_key, []).append(value.key)
        taken: set[str] = set()
        for (tensor_key, _, _), members in candidates.items():
            if len(members) <= limit:
                continue
            key, number = f"{tensor_key}_saved", 1
            while key in taken:  # one tensor saved at two versions: two nodes
                number += 1
                key = f"{tensor_key}_saved{number}"
            taken.add(key)
            self.copies[key] = SavedCopies(key, tensor_key, tuple(members))
            self.merged.update((member, key) for member in members)

    def add_snapshot_edge(self, src: str, dst: str, kind: str, show_saved: bool) -> None:
        if kind != "saved" or show_saved:
            self.add_edge(src, dst, **edge_attrs(kind))

    def add_fan(self, target: Any, src: str, kind: str, users: list[str]) -> None:
        """Edges from one node to many functions, drawn as one trunk line with a branch each.

        dot straightens every long edge through every rank it crosses; a hundred of them from
        one node (a weight used at every step) take it minutes. A chain of small relay points,
        one just above each user, keeps every edge short.
        """
        # a weight on each branch pulls its relay down next to its user (a saved edge alone
        # has none); the trunk's total length is fixed, its weight only keeps it straight
        attrs = {**edge_attrs(kind), "weight": "2"}
        trunk = {**attrs, "arrowhead": "none", "weight": "4"}
        # the functions are in breadth-first order from the roots: the last ones are drawn
        # highest, so the trunk runs from the top user down to the one nearest the roots
        users = sorted(users, key=self.function_order.__getitem__, reverse=True)
        previous = src
        for number, user in enumerate(users):
            relay = f"{src}_{kind}{number}"
            self.add_point(
                target,
                relay,
                label="",
                shape="point",
                width="0.05",
                style="filled",
                color=attrs.get("color", "black"),
            )
            self.add_edge(previous, relay, count=False, **trunk)
            self.add_edge(relay, user, **attrs)
            previous = relay

    def add_any(self, target: Any, key: str, marks: Marks) -> None:
        """Add the node for a tensor, a saved value or a group of saved copies."""
        if key in self.copies:
            self.add_node(target, key, **self.copies_attrs(self.copies[key]))
            return
        node = self.snap.by_key(key)
        if isinstance(node, TensorNode):
            self.add_node(target, key, **self.tensor_attrs(node, marks))
        elif isinstance(node, SavedNode):
            self.add_node(target, key, **self.saved_attrs(node, marks))

    def storage_label(self, group: Any, visible: set[str], outside: int = 0) -> str:
        """An HTML label: 'shared memory S1', then its version counter(s) and who uses them.

        With saved values inside their functions, the values saved from this memory are named
        in the label (or counted, when there are many).
        """
        lines = [f"<B>shared memory {group.key}</B>"]
        if outside:
            lines.append(f"+ {outside} saved values of it, drawn beside their functions")
        known = [counter for counter, _ in group.counters if counter is not None]
        if self.options.show_versions and not known:
            lines.append("torch does not expose version counters")
        elif self.options.show_versions and len(group.counters) == 1:
            (_, keys), *_ = group.counters
            lines.append(f"one version counter, at v{self.counter_version(keys)}")
        elif self.options.show_versions:
            lines.append(_red(f"{len(group.counters)} version counters on one memory:"))
            for number, (_, keys) in enumerate(group.counters, start=1):
                shown = dict.fromkeys(self.merged.get(key, key) for key in keys)
                names = [_esc(self.member_name(key)) for key in shown if key in visible]
                if outside:
                    hidden = sum(1 for key in shown if key not in visible and self.is_saved(key))
                    names += [f"+ {hidden} saved values"] if hidden else []
                if self.options.inside:
                    names += self.saved_names([key for key in shown if self.is_saved(key)])
                who = ", ".join(names)
                lines.append(f"#{number} at v{self.counter_version(keys)}: {who}")
        if self.options.inside and (len(group.counters) == 1 or not self.options.show_versions):
            saved = [key for key in group.members if self.is_saved(key)]
            if saved:
                lines.append("saved for backward: " + ", ".join(self.saved_names(saved)))
        return "<" + '<BR ALIGN="LEFT"/>'.join(lines) + '<BR ALIGN="LEFT"/>>'

    def saved_names(self, keys: list[str]) -> list[str]:
        """Escaped names of saved values drawn inside their functions; a count if many."""
        if len(keys) > 3:
            return [f"{len(keys)} saved values"]
        return [_esc(self.member_name(key)) for key in keys]

    def counter_version(self, keys: tuple[str, ...]) -> int | str:
        """The value of the counter that these members share."""
        for key in keys:
            node = self.snap.by_key(key)
            if isinstance(node, TensorNode):
                return node.version
            if node.current_version is not None:
                return node.current_version
        return "?"

    def member_name(self, key: str) -> str:
        if key in self.copies:
            return f"saved by {len(self.copies[key].members)} functions"
        node = self.snap.by_key(key)
        if isinstance(node, TensorNode):
            return node.name
        function = self.snap.by_key(node.function)
        return f"saved {node.slot} of {function.label}"


def edge_attrs(kind: str) -> dict[str, str]:
    """How an edge of this kind looks (see model.Edge for the kinds)."""
    if kind == "saved":
        return {"style": "dashed", "color": SAVED_EDGE, "arrowhead": "none", "weight": "0"}
    if kind == "none":
        return {"style": "dashed", "color": "#888888"}
    return {}


def new_graph(comment: str, theme: Theme = DEFAULT) -> Graph:
    """An empty Graph with the house style, in `theme`'s sizes."""
    graph = Graph(comment=comment)
    graph.theme = theme.name
    graph.attr(rankdir="TB", fontname=FONT, nodesep=theme.nodesep, ranksep=theme.ranksep)
    pen = {} if theme.penwidth == "1" else {"penwidth": theme.penwidth}
    # defaults = a function node and a forward edge, the most common kinds in big graphs
    graph.attr(
        "node",
        fontname=FONT,
        fontsize=str(theme.font),
        margin="0.12,0.05",
        height="0.3",
        shape="box",
        style="filled,rounded",
        fillcolor=FUNCTION_FILL,
        **pen,
    )
    # a high weight keeps the forward flow straight
    graph.attr(
        "edge",
        fontname=FONT,
        fontsize=str(theme.edge_font),
        arrowsize=theme.arrowsize,
        weight="4",
        **pen,
    )
    return graph


def legend_label(before_after: bool = False, theme: Theme = DEFAULT) -> str:
    """One HTML table that explains every colour and line style."""
    rows = [
        (LEAF_FILL, "solid", "leaf tensor that requires grad"),
        (NOGRAD_FILL, "dashed", "tensor that does not require grad (dashed)"),
        (OUTPUT_FILL, "solid", "non-leaf tensor: an output drawn from"),
        (NONLEAF_FILL, "solid", "non-leaf tensor in between"),
        (FUNCTION_FILL, "rounded", "grad_fn node (torch's name) / AccumulateGrad"),
        (SAVED_FILL, "solid", "value saved for backward: saved vN / now vN"),
        (STALE_FILL, "solid", "saved value changed since: backward will raise"),
        ("#ffffff", "dashed", "None: an input slot with no graph behind it"),
    ]
    swatch = "22" if theme.legend_font <= DEFAULT.legend_font else "32"

    def cell(fill: str, style: str, text: str) -> str:
        return (
            f'<TD BGCOLOR="{fill}" STYLE="{style}" WIDTH="{swatch}"> </TD>'
            f'<TD ALIGN="LEFT" BORDER="0">{_esc(text)}</TD>'
        )

    height = -(-len(rows) // theme.legend_columns)  # rows per column; two keep it short
    cells = "".join(
        "<TR>" + "".join(cell(*row) for row in rows[i::height]) + "</TR>" for i in range(height)
    )
    notes = [
        "arrows: the forward flow (backward walks them in reverse)",
        "dashed box: tensors that share memory",
    ]
    if before_after:
        notes += [
            f'<FONT COLOR="{RED}">red outline</FONT> = changed by the call',
            "thick outline = new",
            f'<FONT COLOR="{RED}">red dashed edge</FONT> = an edge the call cut',
        ]
    if theme.legend_columns == 1:  # one note a row keeps a narrow legend narrow
        lines = notes
    else:
        lines = ["; ".join(notes[:2])] + ([", ".join(notes[2:])] if before_after else [])
    span = 2 * theme.legend_columns
    note = "".join(
        f'<TR><TD COLSPAN="{span}" ALIGN="LEFT" BORDER="0">{line}</TD></TR>' for line in lines
    )
    return f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="3">{cells}{note}</TABLE>>'


def add_legend(graph: Graph, before_after: bool = False, theme: Theme = DEFAULT) -> None:
    """The legend as the graph's own label, under the picture (it takes no rank of the layout)."""
    graph.attr(
        label=legend_label(before_after, theme),
        labelloc="b",
        labeljust="l",
        fontsize=str(theme.legend_font),
    )


def check_size(node_count: int, max_nodes: int) -> None:
    """Refuse graphs Graphviz would take too long to lay out."""
    if node_count > max_nodes:
        raise GraphTooLargeError(
            f"this graph has {node_count} nodes, more than max_nodes={max_nodes}; draw a "
            f"smaller part of it, or pass max_nodes={node_count} (or larger) to draw it anyway "
            "(layout time grows quickly with size)"
        )


def make_options(
    snaps: tuple[GraphSnapshot, ...],
    show_saved: bool,
    show_versions: bool,
    show_storage: bool,
    collapse_above: int | None,
    saved_layout: str,
    theme: str | Theme | None,
) -> Options:
    """Options for drawing `snaps` ("auto" and a theme name decided here)."""
    return Options(
        show_saved=show_saved,
        show_versions=show_versions,
        show_storage=show_storage,
        collapse_above=collapse_above,
        saved_layout=choose_saved_layout(saved_layout, snaps),
        theme=resolve_theme(theme),
    )


def draw_snapshot(
    snap: GraphSnapshot,
    show_saved: bool = True,
    show_versions: bool = True,
    show_storage: bool = True,
    max_nodes: int = 300,
    legend: bool | None = None,
    collapse_above: int | None = COLLAPSE_ABOVE,
    saved_layout: str = "auto",
    theme: str | Theme | None = None,
) -> Graph:
    """Draw one snapshot (see `viz.draw`)."""
    check_size(snap.node_count, max_nodes)
    options = make_options(
        (snap,), show_saved, show_versions, show_storage, collapse_above, saved_layout, theme
    )
    graph = new_graph(f"minigrad.viz: {snap.source} graph", options.theme)
    graph.saved_layout = options.saved_layout
    builder = _Builder(graph, snap, options)
    builder.build(graph)
    graph.estimated_width = builder.width()
    if wants_legend(legend, options.theme):
        add_legend(graph, theme=options.theme)
    return graph
