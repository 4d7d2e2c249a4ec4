"""`viz.explain(loss, model)`: the gradient doctor's report, as text and as a picture.

The report's text (its repr, stable for a notebook's stored output) is:

    <total> parameters checked: <good> get a gradient[; <n> frozen on purpose][; <bad> have a
    problem:]
    - <names>: <one sentence: the cause, and where: file:line, or "line N" in a notebook cell>
    ...
    [backward() will raise before any parameter gets a gradient:
    - backward() will raise: <node>'s saved <slot> was changed in place at <where>.]
    [on purpose (details=True only):
    - cut on purpose by .detach() at <where>.]

Parameters with the same cause at the same place share one line, in the order they were given.
Sentences are in the language of `viz.set_language`. The picture (`report.picture()`, or the
report itself in Jupyter) draws the graph behind each cut up to the cut, marked in red.
"""

from __future__ import annotations

from typing import Any

from .doctor import Finding, diagnose, named_tensors
from .doctor_trace import Trace, last_trace
from .dot_graph import Graph, GraphTooLargeError
from .options import draw_options
from .render import draw_snapshot
from .style import RED
from .walk import snapshot
from .words import say

__all__ = ["Report", "explain"]


class Report:
    """What `viz.explain` found: `findings` (doctor.Finding), the text (repr) and a picture."""

    def __init__(self, findings: list[Finding], params: dict[str, Any], details: bool) -> None:
        self.findings = findings
        self.names = list(params)
        self.params = params
        self.details = details

    @property
    def problems(self) -> list[Finding]:
        """The findings that are bugs (not the cuts and frozen parameters meant so)."""
        return [f for f in self.findings if not f.intended]

    @property
    def ok(self) -> bool:
        """True when every parameter gets its gradient and backward will not raise."""
        return not self.problems

    def causes(self) -> dict[str, str]:
        """{parameter name: cause} for every parameter with a problem."""
        return {name: f.cause for f in self.problems for name in f.names}

    def text(self) -> str:
        lines = [_headline(self.findings, len(self.names))]
        per_name = [f for f in self.problems if f.cause != "inplace"]
        lines += ["- " + sentence(f) for f in per_name]
        raising = [f for f in self.problems if f.cause == "inplace"]
        if raising:
            lines.append(say("backward() will raise before any parameter gets a gradient:"))
            lines += ["- " + sentence(f) for f in raising]
        on_purpose = [f for f in self.findings if f.intended]
        if self.details and on_purpose:
            lines += ["- " + sentence(f) for f in on_purpose]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()

    def __str__(self) -> str:
        return self.text()

    def picture(self) -> Graph | None:
        """The graph behind each cut, up to the cut (None when no cut was traced)."""
        return draw_cuts([f for f in self.problems if _drawable(f)], self.params)

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The report's text, and its picture as every viz picture shows (SVG, with a PNG
        beside it for front ends that show no untrusted SVG, and the PNG's alt text)."""
        picture = self.picture()
        bundle, metadata = (
            ({}, {}) if picture is None else picture._repr_mimebundle_(include, exclude)
        )
        bundle["text/plain"] = self.text()
        return bundle, metadata


def explain(
    loss: Any,
    model_or_named_tensors: Any,
    optimizer: Any = None,
    trace: Trace | None = None,
    details: bool = False,
) -> Report:
    """Before `loss.backward()`: will a gradient reach each parameter, and if not, why?

    `model_or_named_tensors` is a module (its `named_parameters()`) or a dict of named tensors.
    Give the `optimizer` to check it holds every parameter. Where a path was cut is known when
    the forward ran inside `with viz.trace():` (the last such block is used unless `trace` is
    given). `details=True` also lists the cuts made on purpose. Works on minigrad and on torch.
    """
    if not hasattr(loss, "grad_fn"):
        raise TypeError(f"viz.explain: expected the loss tensor, got {type(loss).__name__}")
    params = named_tensors(model_or_named_tensors)
    chosen = trace if trace is not None else last_trace()
    findings = diagnose(loss, params, optimizer, chosen)
    return Report(findings, params, details)


_STILL_REACHED = ("optimizer", "stale", "inplace")  # a gradient arrives, but is of no use


def _headline(findings: list[Finding], total: int) -> str:
    bad = {n for f in findings if not f.intended for n in f.names}
    frozen = {n for f in findings if f.intended for n in f.names}
    starved = {n for f in findings if f.cause not in _STILL_REACHED for n in f.names}
    good = total - len(starved)
    text = say("{total} parameters checked: {good} get a gradient", total=total, good=good)
    if frozen:
        text += say("; {frozen} frozen on purpose", frozen=len(frozen))
    if bad:
        return text + say("; {bad} have a problem:", bad=len(bad))
    return text + "."


def sentence(f: Finding) -> str:
    """The finding's one sentence, in the current language."""
    names, where = ", ".join(f.names), str(f.where)
    if f.intended and not f.names:
        return say("cut on purpose by {what} at {where}.", what=_what(f), where=where)
    if f.cause == "frozen":
        if f.intended:
            return say(
                "{names}: frozen on purpose (requires_grad is False and the optimizer does "
                "not hold it).",
                names=names,
            )
        if f.where is None:
            return say("{names}: no gradient: requires_grad is False.", names=names)
        return say(
            "{names}: no gradient: requires_grad is False (set at {where}).",
            names=names,
            where=where,
        )
    if f.cause in _SHORT:
        return _short_sentence(f, names, where)
    return _path_sentence(f, names, where)


_SHORT = ("non_leaf", "retain_grad", "unused", "unreached", "optimizer", "stale", "inplace")


def _short_sentence(f: Finding, names: str, where: str) -> str:
    if f.cause == "non_leaf" and f.where is not None:
        return say(
            "{names}: .grad will stay None: it is not a leaf but made by an operation at "
            "{where}; make the parameter itself the leaf.",
            names=names,
            where=where,
        )
    if f.cause == "non_leaf":
        return say(
            "{names}: .grad will stay None: it is not a leaf but made by an operation; "
            "make the parameter itself the leaf.",
            names=names,
        )
    if f.cause == "retain_grad":
        return say(
            "{names}: .grad will stay None: it is not a leaf; call .retain_grad() on it "
            "before backward().",
            names=names,
        )
    if f.cause == "inplace":
        if f.where is None:
            return say(
                "backward() will raise: {node}'s saved {slot} was changed in place.",
                node=f.node,
                slot=f.slot,
            )
        return say(
            "backward() will raise: {node}'s saved {slot} was changed in place at {where}.",
            node=f.node,
            slot=f.slot,
            where=where,
        )
    return _parameter_sentence(f.cause, names)


def _parameter_sentence(cause: str, names: str) -> str:
    if cause == "unused":
        return say(
            "{names}: no gradient: never used in the forward that made the loss.", names=names
        )
    if cause == "unreached":
        return say(
            "{names}: no gradient: not on the loss's graph (run the forward inside "
            "`with viz.trace():` to see where it was cut).",
            names=names,
        )
    if cause == "optimizer":
        return say(
            "{names}: gets a gradient, but the optimizer does not hold it, so it never changes.",
            names=names,
        )
    return say(
        "{names}: .grad still holds an earlier step's gradient, and backward() adds to it "
        "(zero it first).",
        names=names,
    )


def _path_sentence(f: Finding, names: str, where: str) -> str:
    if f.cause == "cut":
        return say(
            "{names}: no gradient: {op} at {where} cuts the path to the loss.",
            names=names,
            op=f.op,
            where=where,
        )
    if f.cause == "left" and f.back is not None:
        return say(
            "{names}: no gradient: the value left the graph through {op} at {where} and came "
            "back through {back_op} at {back}.",
            names=names,
            op=f.op,
            where=where,
            back_op=f.back_op,
            back=str(f.back),
        )
    if f.cause == "left":
        return say(
            "{names}: no gradient: the value left the graph through {op} at {where}.",
            names=names,
            op=f.op,
            where=where,
        )
    if f.cause == "integer":
        return say(
            "{names}: no gradient: the step at {where} gives integers or booleans, which "
            "carry no gradient.",
            names=names,
            where=where,
        )
    if f.cause == "no_grad":
        return say(
            "{names}: no gradient: the forward ran under no_grad() (from {where}).",
            names=names,
            where=where,
        )
    if f.cause == "inference_mode":
        return say(
            "{names}: no gradient: the forward ran under inference_mode() (from {where}).",
            names=names,
            where=where,
        )
    return say(
        "{names}: no gradient: {op} (at {where}) returns None for it.",
        names=names,
        op=f.op,
        where=where,
    )


def _what(f: Finding) -> str:
    """The cut's name in a sentence: `.detach()`, `no_grad()`, an integer step."""
    if f.cause in ("no_grad", "inference_mode"):
        return f"{f.cause}()"
    if f.cause == "integer":
        return say("an integer step")
    return f.op


def _drawable(f: Finding) -> bool:
    return f.event is not None and bool(f.event.inputs) and f.cause not in ("frozen", "inplace")


def draw_cuts(findings: list[Finding], params: dict[str, Any]) -> Graph | None:
    """One picture: the graph behind every cut value, each cut marked as the course marks
    one (a red dashed edge ending in a bar, to a red note naming the cut and its line)."""
    if not findings:
        return None
    roots = [t for f in findings for t in f.event.inputs]  # type: ignore[union-attr]
    names = {name: params[name] for f in findings for name in f.names}
    snap = snapshot(*roots, names=names)
    try:
        graph = draw_snapshot(snap, draw_options({"show_saved": False}, "explain"))
    except GraphTooLargeError:
        return None
    keys = {t.uid: t.key for t in snap.tensors}
    for number, f in enumerate(findings):
        label = say("cut: {what}, {where}", what=_what(f), where=str(f.where))
        graph.node(f"cut{number}", label=label, shape="note", color=RED, fontcolor=RED)
        for tensor in f.event.inputs:  # type: ignore[union-attr]
            key = keys.get(tensor._serial if hasattr(tensor, "_serial") else id(tensor))
            if key is not None:
                graph.edge(key, f"cut{number}", style="dashed", color=RED, arrowhead="tee")
    return graph
