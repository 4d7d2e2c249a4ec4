"""Before and after: snapshot, compare, draw. This module only puts the other layers together.

`viz.cut(action, *roots)` snapshots the graph (walk.py), runs the action, snapshots again,
aligns the two (matching.py), finds what changed (changes.py), says it (change_text.py) and
draws both halves (pairs.py). `viz.compare(before, after)` does the same for two snapshots
taken by hand (two runs of a program, with and without `no_grad`, say).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from .change_text import change_lines, change_marks, unseen_marks, with_unseen
from .changes import Changes, Unseen, find_facts
from .dot_graph import Graph
from .matching import align
from .model import GraphSnapshot
from .options import draw_options
from .pairs import draw_pair
from .themes import Theme
from .walk import snapshot
from .words import say

__all__ = ["Comparison", "align", "changes", "compare", "cut"]


def changes(before: GraphSnapshot, after: GraphSnapshot) -> Changes:
    """What changed from `before` to an aligned `after` (see matching.align)."""
    facts, edges = find_facts(before, after)
    return Changes(
        removed_edges=edges.removed,
        gone=edges.gone,
        marks=change_marks(facts),
        lines=tuple(change_lines(after, facts, edges)),
        facts=tuple(facts),
        edges=edges,
    )


def compare(
    before: GraphSnapshot, after: GraphSnapshot, label: str = "after", **options: Any
) -> Graph:
    """Draw `before` and `after` side by side, marking what changed in the 'after' half.

    Too wide for a notebook side by side (see themes.Theme.fit_width), 'after' goes under
    'before' (or as `stack=True/False` says). The other drawing options (`show_saved`,
    `collapse_above`, `saved_layout`, `legend`, `theme`, ...) are those of `viz.draw`: see
    options.DrawOptions.
    """
    chosen = draw_options(options, "compare")
    aligned = align(before, after)
    return draw_pair(before, aligned, label, changes(before, aligned), chosen)


class Comparison:
    """The result of `cut()`: shows as the before/after picture; `.summary()` says it in text.

    `unseen` (a stepper's memory of earlier steps, see changes.Unseen) keeps saved values that
    an earlier step changed behind their version check marked in both halves.
    """

    def __init__(
        self,
        before: GraphSnapshot,
        after: GraphSnapshot,
        label: str,
        result: Any,
        theme: str | Theme | None = None,
        unseen: Unseen | None = None,
    ):
        self.before = before
        self.after = align(before, after)
        self.label = label
        self.result = result  # what the action returned
        self.theme = theme  # None: the theme current when the picture is drawn
        self.changes = changes(before, self.after)
        # what each half marks: in a stepper, values an earlier step changed unseen stay red
        # (`unseen`, see changes.Unseen) in both halves, as stale values do
        self.unseen = dict(unseen or {})
        self.marks = (
            unseen_marks(before, self.unseen),
            with_unseen(self.changes.marks, self.after, self.unseen),
        )
        self._graph: Graph | None = None

    def draw(self, **options: Any) -> Graph:
        """The picture (options: see options.DrawOptions; `theme` defaults to this one's)."""
        options.setdefault("theme", self.theme)
        chosen = draw_options(options, "draw")
        return draw_pair(self.before, self.after, self.label, self.changes, chosen, self.marks)

    @property
    def graph(self) -> Graph:
        """The picture with default options (built once, when first shown)."""
        if self._graph is None:
            self._graph = self.draw()
        return self._graph

    def summary(self) -> str:
        """What changed, one fact per line, in a stable order."""
        lines = [say("after {label}:", label=self.label)]
        lines += [f"  {line}" for line in self.changes.lines] or ["  " + say("nothing changed")]
        return "\n".join(lines)

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        bundle, metadata = self.graph._repr_mimebundle_(include=include, exclude=exclude)
        bundle["text/plain"] = repr(self)
        return bundle, metadata

    def __repr__(self) -> str:
        count = len(self.changes.lines)
        return say(
            "<minigrad.viz comparison after {label}: {count} change>"
            if count == 1
            else "<minigrad.viz comparison after {label}: {count} changes>",
            label=self.label,
            count=count,
        )


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
