"""Shared helpers for parity tests: run one script with torch and with minigrad, compare.

A script is a function `script(lib, note)` written once against the common API. It calls
`note(label, value)` for everything worth comparing; `value` may be a tensor (compared by its
values and autograd flags), a number, a string, a bool or a list/tuple of those. Errors are
recorded with `note_error`, which keeps the exception type and the message's first sentence.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minigrad

try:
    import torch
except ImportError:
    torch = None

# Every test module here imports torch at its top. Without torch none of them is collected;
# test_torch_installed.py then reports one skipped test that says so and how to run them.
# (A module-level importorskip here made the whole folder vanish from the counts silently.)
collect_ignore = [
    str(path)
    for path in Path(__file__).parent.glob("test_*.py")
    if torch is None and path.name != "test_torch_installed.py"
]

Script = Callable[[Any, Callable[[str, Any], None]], None]


def node_name(node: Any) -> str | None:
    """A grad_fn's name without torch's C++ namespace (torch::autograd::CopySlices)."""
    if node is None:
        return None
    return node.name().removeprefix("torch::autograd::")


def next_names(node: Any) -> list[str | None]:
    """The names in `node.next_functions`, with None for the empty `(None, 0)` slots."""
    return [node_name(next_node) for next_node, _ in node.next_functions]


def graph_nodes(value: Any) -> list[tuple[str | None, list[str | None]]]:
    """Every node reachable from `value.grad_fn`, depth first, each once: its name and the names
    in its `next_functions`, as printing the nodes shows them."""
    seen: set[int] = set()
    found = []

    def visit(node: Any) -> None:
        if node is None or id(node) in seen:
            return
        seen.add(id(node))
        found.append((node_name(node), next_names(node)))
        for next_node, _ in node.next_functions:
            visit(next_node)

    visit(value.grad_fn)
    return found


def first_sentence(message: str) -> str:
    """The message up to the first '. ', with torch's module name replaced by minigrad's."""
    message = message.replace("torch.", "minigrad.")
    return message.split(". ")[0]


def is_tensor(value: Any) -> bool:
    """True for a torch or a minigrad tensor."""
    return isinstance(value, (torch.Tensor, minigrad.Tensor))


def describe(value: Any) -> Any:
    """Turn an observed value into plain data that can be compared across the two libraries."""
    if is_tensor(value):
        facts: dict[str, Any] = {
            "values": value.detach().numpy().copy(),
            "dtype": str(value.dtype).split(".")[-1],
            "shape": list(value.shape),
            "requires_grad": value.requires_grad,
            "is_leaf": value.is_leaf,
            "grad_fn": node_name(value.grad_fn),
            "_version": value._version,
        }
        if value.grad_fn is not None:
            facts["next_functions"] = next_names(value.grad_fn)
        return facts
    if isinstance(value, (list, tuple)):
        return [describe(item) for item in value]
    return value


def error_of(action: Callable[[], Any]) -> tuple[str, str] | None:
    """Run `action`; return (exception type name, first sentence), or None if it succeeded."""
    try:
        action()
    except Exception as error:  # noqa: BLE001 - any exception is an observation here
        return type(error).__name__, first_sentence(str(error))
    return None


def warnings_of(action: Callable[[], Any]) -> list[tuple[str, str]]:
    """Run `action` and return the warnings it raised as (category, first sentence)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [(w.category.__name__, first_sentence(str(w.message))) for w in caught]


def assert_same(expected: Any, actual: Any, where: str) -> None:
    """Compare torch's observation (expected) with minigrad's, arrays to float tolerance."""
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), where
        assert expected.shape == actual.shape, f"{where}: shape {expected.shape} != {actual.shape}"
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6, err_msg=where)
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), where
        assert expected.keys() == actual.keys(), f"{where}: {expected.keys()} != {actual.keys()}"
        for key in expected:
            assert_same(expected[key], actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), (
            f"{where}: {expected!r} != {actual!r}"
        )
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            assert_same(e, a, f"{where}[{index}]")
    elif isinstance(expected, float):
        assert actual == pytest.approx(expected, rel=1e-5, abs=1e-6), where
    else:
        assert expected == actual, f"{where}: torch {expected!r} != minigrad {actual!r}"


def observe(script: Script, lib: Any) -> list[tuple[str, Any]]:
    """Run `script` with `lib` and collect what it noted."""
    notes: list[tuple[str, Any]] = []
    script(lib, lambda label, value: notes.append((label, describe(value))))
    return notes


def check_parity(script: Script) -> None:
    """Run `script` with torch and with minigrad; every note must agree."""
    expected = observe(script, torch)
    actual = observe(script, minigrad)
    assert [label for label, _ in actual] == [label for label, _ in expected]
    for (label, e), (_, a) in zip(expected, actual, strict=True):
        assert_same(e, a, label)


@pytest.fixture
def parity() -> Callable[[Script], None]:
    """The checker: `parity(script)` runs the script against both libraries and compares."""
    return check_parity


def plain(value: Any) -> np.ndarray | None:
    """Just the values of a tensor (or None), e.g. for `.grad`.

    A gradient's own `_version` is an implementation detail (torch sums the contributions into
    the buffer in place, so `a.grad._version` is often 1), so gradients are compared by value.
    """
    return None if value is None else value.detach().numpy().copy()
