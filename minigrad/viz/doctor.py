"""The gradient doctor's diagnosis: for every parameter, will `loss.backward()` reach it?

Read before backward, without running it (a custom Function's backward is the one exception:
whether it returns None is seen only by running it, on a copy of the graph's gradients, when
the graph holds one). The checks, in the order they are made for one parameter:

1. `requires_grad` is False ("frozen"; on purpose when an optimizer was given that does not
   hold it);
2. not a leaf: a "parameter" made by an op from a leaf ("non_leaf"), or a value in the middle
   of the graph whose `.grad` is read without `retain_grad()` ("retain_grad");
3. not reached from the loss: the trace (doctor_trace.py) says where its path was cut: "cut"
   (`.detach()`, `.data`), "left" (`.item()`, ..., perhaps coming back through `tensor(...)`),
   "integer" (`argmax`, comparisons, `.long()`), "no_grad", "inference_mode"; with no event,
   "unused" (traced) or "unreached" (not traced);
4. reached, but a custom Function's backward returns None for it ("function_none");
5. reached, but the optimizer given does not hold it ("optimizer");
6. its `.grad` still holds an earlier step's gradient ("stale").

And for the whole graph: a value saved for backward and changed in place since ("inplace":
backward will raise). A cut that keeps no asked parameter from its gradient is on purpose
("intended": a GAN's `fake.detach()`, a target network under no_grad, truncated BPTT).
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .doctor_trace import Event, Trace, Where
from .readers import MinigradReader, TorchReader, is_torch_tensor

__all__ = ["CAUSES", "Finding", "diagnose", "named_tensors"]

CAUSES = (
    "frozen",
    "non_leaf",
    "retain_grad",
    "cut",
    "left",
    "integer",
    "no_grad",
    "inference_mode",
    "unused",
    "unreached",
    "function_none",
    "optimizer",
    "stale",
    "inplace",
)
_OP_TEXT = {"data": ".data", "__float__": "float()", "__int__": "int()", "__index__": "int()"}


@dataclass(frozen=True)
class Finding:
    """One cause, the parameters it concerns, and where it happened."""

    cause: str
    names: tuple[str, ...]
    where: Where | None = None
    op: str = ""  # the call as the learner wrote it: ".detach()", ".item()"
    back: Where | None = None  # "left": where the value came back as a new tensor
    back_op: str = ""
    node: str = ""  # "inplace": the node whose saved value changed, and its slot
    slot: str = ""
    intended: bool = False
    event: Event | None = field(default=None, compare=False, repr=False)


def op_text(op: str) -> str:
    """How the learner wrote a call: `.detach()`, `.data`, `float()`, `tensor(...)`."""
    if op in _OP_TEXT:
        return _OP_TEXT[op]
    if op in ("tensor", "as_tensor", "from_numpy"):
        return f"{op}(...)"
    return f".{op}()"


def named_tensors(model_or_named: Any) -> dict[str, Any]:
    """{name: tensor} of a module (its `named_parameters()`) or of a mapping given."""
    if hasattr(model_or_named, "named_parameters"):
        return dict(model_or_named.named_parameters())
    if isinstance(model_or_named, Mapping):
        return dict(model_or_named)
    raise TypeError(
        "viz.explain: give a module (its parameters are checked) or a dict of named tensors, "
        f"such as dict(w=w, b=b); got {type(model_or_named).__name__}"
    )


class GraphFacts:
    """What the loss's graph reaches: its nodes, and the leaves it accumulates into."""

    def __init__(self, loss: Any) -> None:
        self.reader = TorchReader if is_torch_tensor(loss) else MinigradReader
        self.nodes: dict[int, Any] = {}
        self.leaves: set[int] = set()
        self.add(loss.grad_fn, self.nodes, self.leaves)

    def add(self, start: Any, nodes: dict[int, Any], leaves: set[int]) -> None:
        """Walk from `start`, adding nodes and leaf ids not already in `nodes`."""
        todo = [start]
        while todo:
            node = todo.pop()
            if node is None or id(node) in nodes:
                continue
            nodes[id(node)] = node
            variable = self.reader.variable(node)
            if variable is not None:
                leaves.add(id(variable))
            todo.extend(self.reader.next_functions(node))

    def holds(self, tensor: Any) -> bool:
        """Is this tensor on the loss's graph?"""
        if tensor.grad_fn is None:
            return id(tensor) in self.leaves
        return id(tensor.grad_fn) in self.nodes

    def leaves_behind(self, tensor: Any) -> set[int]:
        """ids of the leaves a tensor's own graph reaches."""
        if tensor.grad_fn is None:
            return {id(tensor)}
        leaves: set[int] = set()
        self.add(tensor.grad_fn, {}, leaves)
        return leaves


def diagnose(
    loss: Any, params: dict[str, Any], optimizer: Any, trace: Trace | None
) -> list[Finding]:
    """Every finding about `params` and the graph of `loss` (see the module's docstring)."""
    facts = GraphFacts(loss)
    held = _held_by(optimizer)
    per_name: list[tuple[str, Finding]] = []
    unreached: dict[str, Any] = {}
    for name, tensor in params.items():
        finding = _about_the_tensor(name, tensor, facts, held, trace)
        if finding is None and not _reached(tensor, facts):
            unreached[name] = tensor
            continue
        if finding is None:
            finding = _after_reaching(name, tensor, held)
        if finding is not None:
            per_name.append((name, finding))
    per_name += _why_unreached(unreached, facts, trace)
    per_name += _functions_returning_none(loss, params, facts, per_name)
    order = {name: index for index, name in enumerate(params)}
    per_name.sort(key=lambda pair: order[pair[0]])
    findings = _grouped(per_name) + _inplace_findings(facts, trace)
    return findings + _intended_cuts(findings, facts, trace)


def _held_by(optimizer: Any) -> set[int] | None:
    if optimizer is None:
        return None
    return {id(p) for group in optimizer.param_groups for p in group["params"]}


def _reached(tensor: Any, facts: GraphFacts) -> bool:
    return facts.holds(tensor)


def _about_the_tensor(
    name: str, tensor: Any, facts: GraphFacts, held: set[int] | None, trace: Trace | None
) -> Finding | None:
    """Causes read from the tensor itself: frozen, not a leaf."""
    if not tensor.requires_grad:
        event = _last_event(trace, "frozen", tensor)
        on_purpose = held is not None and id(tensor) not in held
        where = event.where if event else None
        return Finding("frozen", (name,), where, intended=on_purpose, event=event)
    if tensor.grad_fn is None or tensor.retains_grad:
        return None
    made = _last_event(trace, "made", tensor, as_result=True)
    next_nodes = [n for n in facts.reader.next_functions(tensor.grad_fn) if n is not None]
    from_a_leaf = bool(next_nodes) and all(facts.reader.variable(n) is not None for n in next_nodes)
    if made is not None or from_a_leaf:
        where = made.where if made else None
        return Finding("non_leaf", (name,), where, event=made)
    return Finding("retain_grad", (name,))


def _after_reaching(name: str, tensor: Any, held: set[int] | None) -> Finding | None:
    """Causes of a parameter the gradient reaches: not in the optimizer, a stale .grad."""
    if held is not None and id(tensor) not in held:
        return Finding("optimizer", (name,))
    grad = tensor.grad
    if grad is not None and bool((grad != 0).any()):
        return Finding("stale", (name,))
    return None


def _last_event(
    trace: Trace | None, kind: str, tensor: Any, as_result: bool = False
) -> Event | None:
    if trace is None:
        return None
    for event in reversed(trace.events):
        if event.kind != kind:
            continue
        if (event.result is tensor) if as_result else any(t is tensor for t in event.inputs):
            return event
    return None


PATH_CUTS = ("cut", "left", "integer", "no_grad", "inference_mode")


def _why_unreached(
    unreached: dict[str, Any], facts: GraphFacts, trace: Trace | None
) -> list[tuple[str, Finding]]:
    """For each parameter the loss does not reach: the first cut on its path, if traced."""
    if not unreached:
        return []
    if trace is None:
        return [(name, Finding("unreached", (name,))) for name in unreached]
    candidates = []
    for index, event in enumerate(trace.events):
        if event.kind in PATH_CUTS and not any(facts.holds(t) for t in event.inputs):
            behind = set().union(*(facts.leaves_behind(t) for t in event.inputs))
            candidates.append((index, event, behind))
    found = []
    for name, tensor in unreached.items():
        hit = next((c for c in candidates if id(tensor) in c[2]), None)
        if hit is None:
            found.append((name, Finding("unused", (name,))))
            continue
        index, event, _ = hit
        found.append((name, _cut_finding(name, index, event, trace)))
    return found


def _cut_finding(name: str, index: int, event: Event, trace: Trace) -> Finding:
    op = op_text(event.op) if event.kind in ("cut", "left") else ""
    if event.kind != "left":
        return Finding(event.kind, (name,), event.where, op, event=event)
    back = next((e for e in trace.events[index + 1 :] if e.kind == "back"), None)
    if back is None:
        return Finding("left", (name,), event.where, op, event=event)
    return Finding("left", (name,), event.where, op, back.where, op_text(back.op), event=event)


def _functions_returning_none(
    loss: Any, params: dict[str, Any], facts: GraphFacts, found: list[tuple[str, Finding]]
) -> list[tuple[str, Finding]]:
    """Reached parameters whose gradient a custom Function's backward drops (returns None)."""
    functions = [node for node in facts.nodes.values() if _function_class(node) is not None]
    if not functions:
        return []
    blamed = {name for name, _ in found}
    names = [n for n, t in params.items() if n not in blamed and _reached(t, facts)]
    if not names:
        return []
    library = _library_of(loss)
    try:
        grads = library.autograd.grad(
            loss, [params[n] for n in names], retain_graph=True, allow_unused=True
        )
    except RuntimeError:
        return []  # backward itself fails: the in-place check says why
    cls = _function_class(functions[0])
    where = _code_place(cls.backward)
    return [
        (name, Finding("function_none", (name,), where, f"{cls.__name__}.backward"))
        for name, grad in zip(names, grads, strict=True)
        if grad is None
    ]


def _function_class(node: Any) -> type | None:
    """The custom Function class behind a node (torch's `_forward_cls`, minigrad's
    `function`), or None for a built-in op."""
    return getattr(node, "_forward_cls", None) or getattr(node, "function", None)


def _code_place(function: Any) -> Where:
    """Where a function's `def` line is (below its decorators)."""
    lines, first = inspect.getsourcelines(function)
    offset = next((i for i, line in enumerate(lines) if line.lstrip().startswith("def ")), 0)
    path = function.__code__.co_filename
    if path.startswith("<") or "ipykernel_" in path:  # a notebook cell
        return Where(None, first + offset)
    return Where(os.path.basename(path), first + offset)


def _library_of(tensor: Any) -> Any:
    # (torch is in sys.modules when a torch tensor exists)
    return sys.modules["torch" if is_torch_tensor(tensor) else "minigrad"]


def _inplace_findings(facts: GraphFacts, trace: Trace | None) -> list[Finding]:
    """Saved values changed in place since they were saved: backward would raise."""
    found = []
    for node in facts.nodes.values():
        for entry in facts.reader.saved_values(node, {}):
            saved, now = entry["saved_version"], entry["current_version"]
            if saved is None or now is None or saved == now:
                continue
            event = _inplace_event(trace, now)
            name = facts.reader.node_name(node)
            where = event.where if event else None
            found.append(Finding("inplace", (), where, node=name, slot=entry["slot"], event=event))
    return sorted(found, key=lambda f: (f.node, f.slot))


def _inplace_event(trace: Trace | None, version: int) -> Event | None:
    if trace is None:
        return None
    for event in reversed(trace.events):
        if event.kind == "inplace" and event.version == version:
            return event
    return None


def _grouped(per_name: list[tuple[str, Finding]]) -> list[Finding]:
    """One finding per cause and place, naming every parameter it concerns, in the order the
    parameters were given."""
    groups: dict[Finding, list[str]] = {}
    events: dict[Finding, Event | None] = {}
    for name, finding in per_name:
        key = Finding(**{**_fields(finding), "names": (), "event": None})
        groups.setdefault(key, []).append(name)
        events.setdefault(key, finding.event)
    return [
        Finding(**{**_fields(key), "names": tuple(names), "event": events[key]})
        for key, names in groups.items()
    ]


def _fields(finding: Finding) -> dict[str, Any]:
    return {name: getattr(finding, name) for name in Finding.__dataclass_fields__}


def _intended_cuts(
    findings: list[Finding], facts: GraphFacts, trace: Trace | None
) -> list[Finding]:
    """The cuts the trace saw that no finding blames: made on purpose."""
    if trace is None:
        return []
    blamed = {id(f.event) for f in findings if f.event is not None}
    seen: set[tuple[str, str, Where]] = set()
    intended = []
    for event in trace.events:
        if event.kind not in PATH_CUTS or id(event) in blamed:
            continue
        if any(facts.holds(t) for t in event.inputs):
            continue  # a side read of a value that still goes on to the loss (a logging line)
        op = op_text(event.op) if event.kind in ("cut", "left") else ""
        key = (event.kind, op, event.where)
        if key in seen:
            continue
        seen.add(key)
        intended.append(Finding(event.kind, (), event.where, op, intended=True, event=event))
    return intended
