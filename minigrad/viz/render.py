"""Turn a GraphSnapshot into Graphviz DOT (through the `graphviz` Python package).

Arrows point the way values flow forward, as in torchviz: leaf -> AccumulateGrad -> ... ->
the function that made the output -> the output. Backward walks them in reverse.

Colours: leaves light blue, outputs green, other non-leaf tensors pale green, functions grey,
saved values orange (red when changed since they were saved), tensors that do not require grad
dashed, empty `(None, 0)` slots small white circles, shared memory a dashed box.

A tensor used by many functions (more than COLLAPSE_ABOVE) is drawn in a form that Graphviz
lays out fast: its unchanged saved copies as one double-bordered node, its edges along one
trunk line with a small point and a branch per function (see Options).
"""

from __future__ import annotations

import html
import subprocess
from dataclasses import dataclass, field
from typing import Any

import graphviz

from .model import FunctionNode, GraphSnapshot, SavedNode, TensorNode
from .text import shape_text

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


class GraphRenderTimeoutError(RuntimeError):
    """Graphviz's `dot` took longer than `Graph.render_timeout` seconds to lay the graph out."""


class Graph(graphviz.Digraph):
    """A graphviz.Digraph with a stable text form.

    Jupyter shows the SVG (graphviz's own `_repr_mimebundle_`); the text/plain part is this
    repr, which holds no memory address, so notebook outputs compare equal between runs.
    """

    node_total = 0
    edge_total = 0
    render_timeout = 30.0  # seconds; some shapes (one weight reused 300 times) take minutes

    def __repr__(self) -> str:
        return f"<minigrad.viz graph: {self.node_total} nodes, {self.edge_total} edges>"

    def _repr_image_svg_xml(self) -> str:
        # graphviz's own pipe() waits for `dot` forever; a notebook cell must not hang on it
        try:
            finished = subprocess.run(
                ["dot", "-Tsvg"],
                input=self.source.encode("utf-8"),
                capture_output=True,
                timeout=self.render_timeout,
                check=True,
            )
        except subprocess.TimeoutExpired:
            raise GraphRenderTimeoutError(
                f"Graphviz needed more than {self.render_timeout:g} s to lay out this graph of "
                f"{self.node_total} nodes. Draw a smaller part of it (fewer roots or names), or "
                "set graph.render_timeout to a larger number of seconds and display it again."
            ) from None
        return finished.stdout.decode("utf-8")


def _esc(text: object) -> str:
    """Escape text for an HTML-like label (`<b>&"x"` stays text)."""
    return html.escape(str(text), quote=True)


def _html(*lines: str) -> str:
    """An HTML-like label from already escaped lines (first line bold)."""
    head, *rest = lines
    body = "".join(f'<BR/><FONT POINT-SIZE="9">{line}</FONT>' for line in rest)
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

    `collapse_above` (None: never) is the threshold for crowded graphs. Above it:
    - more saved values than that which are plain copies of one drawn tensor (same memory and
      version counter, unchanged since saved, not freed) are drawn as one "saved = w, by N
      functions" node, with a dashed edge to each function;
    - a node with more forward (or saved) edges than that sends them along one trunk line of
      small relay points, one branch per function, instead of one long edge each;
    - a storage box still holding more saved values than that draws them beside their
      functions instead, and says how many in its label.
    Saved values changed since they were saved (red) or freed always keep their own node.
    """

    show_saved: bool = True
    show_versions: bool = True
    show_storage: bool = True
    collapse_above: int | None = COLLAPSE_ABOVE


@dataclass(frozen=True)
class SavedCopies:
    """Saved values drawn as one node: unchanged copies of the same tensor."""

    key: str  # node id: "<tensor key>_saved", e.g. "T1_saved"
    tensor: str  # key of the TensorNode they were saved from
    members: tuple[str, ...]  # keys of the SavedNodes it stands for, in snapshot order


class _Builder:
    """Adds one snapshot's nodes and edges to a graph (or a cluster of it), with a key prefix."""

    def __init__(self, graph: Graph, snap: GraphSnapshot, options: Options, prefix: str = ""):
        self.graph = graph
        self.snap = snap
        self.options = options
        self.prefix = prefix
        self.copies: dict[str, SavedCopies] = {}  # node key -> collapsed saved values
        self.merged: dict[str, str] = {}  # saved key -> the key of the node that stands for it
        self.function_order = {function.key: n for n, function in enumerate(snap.functions)}

    def node_id(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def add_node(self, target: Any, key: str, **attrs: str) -> None:
        target.node(self.node_id(key), **attrs)
        self.graph.node_total += 1

    def add_edge(self, src: str, dst: str, **attrs: str) -> None:
        self.graph.edge(self.node_id(src), self.node_id(dst), **attrs)
        self.graph.edge_total += 1

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
        attrs = {"label": _html(*lines), "fillcolor": fill, "style": style}
        if tensor.key in marks.changed:
            attrs.update(color=RED, penwidth="2.5")
        elif tensor.key in marks.new:
            attrs.update(penwidth="2")
        return attrs

    def function_attrs(self, function: FunctionNode, marks: Marks) -> dict[str, str]:
        lines = [_esc(function.name)]
        lines += [_red(_esc(note)) for note in marks.notes.get(function.key, [])]
        attrs = {"label": _html(*lines)}  # grey rounded boxes are the node default
        if function.key in marks.changed:
            attrs.update(color=RED, penwidth="2.5")
        elif function.key in marks.new:
            attrs.update(penwidth="2")
        return attrs

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
        attrs = {"label": _html(*lines), "fillcolor": fill, "style": "filled"}
        if value.key in marks.changed:
            attrs.update(color=RED, penwidth="2")
        if value.stale:
            attrs.update(color=RED, penwidth="2")
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
            "label": _html(*lines),
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
        show_saved = self.options.show_saved
        if show_saved:
            self.collapse_copies(marks)
        placed: set[str] = set()
        if self.options.show_storage:
            for group in snap.storages:
                # members are tensor keys (T...) and saved-value keys (F<function>_<slot>)
                members = [key for key in group.members if show_saved or key.startswith("T")]
                members = list(dict.fromkeys(self.merged.get(key, key) for key in members))
                outside = self.crowd(members)
                members = [key for key in members if key not in outside]
                if len(members) < 2 and not outside:
                    continue
                with target.subgraph(name=f"cluster_{self.prefix}{group.key}") as box:
                    box.attr(
                        label=self.storage_label(group, set(members), len(outside)),
                        style="dashed,rounded",
                        color=STORAGE_COLOR,
                        fontcolor=STORAGE_COLOR,
                        fontsize="10",
                        labeljust="l",
                    )
                    for key in members:
                        self.add_any(box, key, marks)
                        placed.add(key)
        for tensor in snap.tensors:
            if tensor.key not in placed:
                self.add_any(target, tensor.key, marks)
        for function in snap.functions:
            self.add_node(target, function.key, **self.function_attrs(function, marks))
            if show_saved:
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
                    fontsize="8",
                    width="0.3",
                    fixedsize="true",
                    color="#888888",
                    fontcolor="#666666",
                )
        self.add_edges(target, show_saved)

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
            target.node(
                self.node_id(relay),
                label="",
                shape="point",
                width="0.05",
                style="filled",
                color=attrs.get("color", "black"),
            )
            self.graph.edge(self.node_id(previous), self.node_id(relay), **trunk)
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
        """An HTML label: 'shared memory S1', then its version counter(s) and who uses them."""
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
                who = ", ".join(names)
                lines.append(f"#{number} at v{self.counter_version(keys)}: {who}")
        return "<" + '<BR ALIGN="LEFT"/>'.join(lines) + '<BR ALIGN="LEFT"/>>'

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


def new_graph(comment: str) -> Graph:
    """An empty Graph with the house style."""
    graph = Graph(comment=comment)
    graph.attr(rankdir="TB", fontname=FONT, nodesep="0.3", ranksep="0.35")
    # defaults = a function node and a forward edge, the most common kinds in big graphs
    graph.attr(
        "node",
        fontname=FONT,
        fontsize="11",
        margin="0.12,0.05",
        height="0.3",
        shape="box",
        style="filled,rounded",
        fillcolor=FUNCTION_FILL,
    )
    # a high weight keeps the forward flow straight
    graph.attr("edge", fontname=FONT, fontsize="10", arrowsize="0.7", weight="4")
    return graph


def legend_label(before_after: bool = False) -> str:
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

    def cell(fill: str, style: str, text: str) -> str:
        return (
            f'<TD BGCOLOR="{fill}" STYLE="{style}" WIDTH="22"> </TD>'
            f'<TD ALIGN="LEFT" BORDER="0">{_esc(text)}</TD>'
        )

    half = (len(rows) + 1) // 2  # two columns keep the legend short
    cells = "".join(
        "<TR>" + "".join(cell(*row) for row in rows[i::half]) + "</TR>" for i in range(half)
    )
    note = (
        '<TR><TD COLSPAN="4" ALIGN="LEFT" BORDER="0">arrows: the forward flow (backward walks '
        "them in reverse); dashed box: tensors that share memory</TD></TR>"
    )
    if before_after:
        note += (
            f'<TR><TD COLSPAN="4" ALIGN="LEFT" BORDER="0"><FONT COLOR="{RED}">red outline'
            "</FONT> = changed by the call, thick outline = new, "
            f'<FONT COLOR="{RED}">red dashed edge</FONT> = an edge the call cut</TD></TR>'
        )
    return f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="3">{cells}{note}</TABLE>>'


def add_legend(graph: Graph, before_after: bool = False) -> None:
    """The legend as the graph's own label, under the picture (it takes no rank of the layout)."""
    graph.attr(label=legend_label(before_after), labelloc="b", labeljust="l", fontsize="9")


def check_size(node_count: int, max_nodes: int) -> None:
    """Refuse graphs Graphviz would take too long to lay out."""
    if node_count > max_nodes:
        raise GraphTooLargeError(
            f"this graph has {node_count} nodes, more than max_nodes={max_nodes}; draw a "
            f"smaller part of it, or pass max_nodes={node_count} (or larger) to draw it anyway "
            "(layout time grows quickly with size)"
        )


def draw_snapshot(
    snap: GraphSnapshot,
    show_saved: bool = True,
    show_versions: bool = True,
    show_storage: bool = True,
    max_nodes: int = 300,
    legend: bool = False,
    collapse_above: int | None = COLLAPSE_ABOVE,
) -> Graph:
    """Draw one snapshot (see `viz.draw`)."""
    check_size(snap.node_count, max_nodes)
    graph = new_graph(f"minigrad.viz: {snap.source} graph")
    options = Options(show_saved, show_versions, show_storage, collapse_above)
    _Builder(graph, snap, options).build(graph)
    if legend:
        add_legend(graph)
    return graph
