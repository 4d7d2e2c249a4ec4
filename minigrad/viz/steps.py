"""The steps of a stepper: checked before anything runs, and their results named.

A step is a pair `(code_text, action)`. The code text is what the learner reads; the action is
what runs. An action asks for the values of earlier steps by naming them as its parameters
(`lambda out: out.detach()` gets the `out` an earlier step made). When the code text is an
assignment (`c = out.detach()`), the action's return value gets that name (`store`).

Everything a learner can get wrong in the list of steps is found here, before the first step
runs, and raised as a TypeError or ValueError that says what to write instead.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Checked", "Step", "check_names", "check_steps", "store"]

Step = tuple[str, Callable[..., Any]]


@dataclasses.dataclass(frozen=True)
class Checked:
    """One step, checked: its code text, its action, and the names it takes and makes."""

    code: str
    action: Callable[..., Any]
    needs: tuple[str, ...]  # parameters that must come from earlier steps
    may_use: tuple[str, ...]  # parameters with a default: passed when an earlier step made them
    names: tuple[str, ...]  # the names the code text assigns (its return value gets them)


def assigned_names(code: str) -> tuple[str, ...]:
    """`c = out.detach()` -> ('c',); `x, y = f()` -> ('x', 'y'); anything else -> ()."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return ()
    if len(tree.body) != 1:
        return ()
    statement = tree.body[0]
    while isinstance(statement, ast.With) and len(statement.body) == 1:
        statement = statement.body[0]  # `with mg.no_grad(): c = out * 2` names c
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return ()
    target = statement.targets[0]
    if isinstance(target, ast.Name):
        return (target.id,)
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return tuple(e.id for e in target.elts)
    return ()


def _short(value: Any) -> str:
    text = repr(value)
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", text)  # no addresses in messages either
    return text if len(text) <= 60 else text[:57] + "..."


def check_steps(steps: Any) -> list[Checked]:
    """Turn `steps` into checked steps, or raise a TypeError / ValueError saying what to fix."""
    example = "[('out = a.sigmoid()', lambda a: a.sigmoid()), ...]"
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise TypeError(
            f"viz.stepper expects a list of (code_text, action) pairs, got "
            f"{type(steps).__name__}; for example {example}"
        )
    if len(steps) == 0:
        raise ValueError(f"viz.stepper needs at least one (code_text, action) step: {example}")
    checked: list[Checked] = []
    made: list[str] = []
    for number, step in enumerate(steps, start=1):
        if not isinstance(step, (tuple, list)) or len(step) != 2:
            raise TypeError(
                f"step {number} must be a (code_text, action) pair, got {_short(step)}; "
                f"for example {example}"
            )
        code, action = step
        if not isinstance(code, str):
            raise TypeError(
                f"step {number}: the first item must be the code text (a str), got "
                f"{type(code).__name__} {_short(code)}"
            )
        if not callable(action):
            raise TypeError(
                f"step {number} ({code!r}): the action must be callable, a lambda or a "
                f"function, got {type(action).__name__} {_short(action)}; write "
                f"({code!r}, lambda ...: ...)"
            )
        needs, may_use = parameters(number, code, action)
        missing = [name for name in needs if name not in made]
        if missing:
            earlier = ", ".join(made) if made else "nothing yet"
            raise ValueError(
                f"step {number} ({code!r}): its action asks for {', '.join(missing)}, which no "
                f"earlier step makes (earlier steps made: {earlier}). A step makes a name when "
                "its code text assigns it, e.g. 'c = out.detach()'."
            )
        names = assigned_names(code)
        made += [name for name in names if name not in made]
        checked.append(Checked(code, action, needs, may_use, names))
    return checked


def parameters(number: int, code: str, action: Callable[..., Any]) -> tuple[tuple[str, ...], ...]:
    """(required names, names with defaults) of an action, which are passed by name."""
    try:
        signature = inspect.signature(action)
    except (TypeError, ValueError):
        raise TypeError(
            f"step {number} ({code!r}): cannot read the parameters of {_short(action)}; wrap "
            "it in a lambda, e.g. lambda out: out.detach()"
        ) from None
    needs, may_use = [], []
    for parameter in signature.parameters.values():
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            raise TypeError(
                f"step {number} ({code!r}): the action's parameter {parameter} cannot be passed "
                "by name; name each value the step uses, e.g. lambda a, out: ..."
            )
        if parameter.default is parameter.empty:
            needs.append(parameter.name)
        else:
            may_use.append(parameter.name)
    return tuple(needs), tuple(may_use)


def check_names(kind: str, values: Any, checked: list[Checked]) -> tuple[str, ...]:
    made = {name for step in checked for name in step.names}
    values = tuple(values)
    for value in values:
        if not isinstance(value, str):
            raise TypeError(
                f"viz.stepper: {kind} are names of values the steps make (strings such as "
                f"'out'), got {type(value).__name__}; each run makes fresh tensors, so the "
                "stepper cannot be given tensor objects"
            )
        if value not in made:
            known = ", ".join(sorted(made)) or "none"
            raise ValueError(
                f"viz.stepper: {kind} name {value!r}, which no step makes (steps make: {known})"
            )
    return values


def store(step: Checked, number: int, result: Any, namespace: dict[str, Any]) -> None:
    """Give a step's result the name(s) its code text assigns, in `namespace`."""
    if len(step.names) == 1:
        namespace[step.names[0]] = result
    elif step.names:
        values = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(values) != len(step.names):
            raise ValueError(
                f"step {number} ({step.code!r}) names {len(step.names)} values, but its action "
                f"returned {len(values)}; return a tuple of {len(step.names)}"
            )
        namespace.update(zip(step.names, values, strict=True))
