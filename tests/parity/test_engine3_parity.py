"""minigrad 3 against torch 2.13: hooks, custom Functions, create_graph, saved tensors, views
under grad modes, and the names minigrad 3 added (engine3_cases.py), row by row."""

from __future__ import annotations

import pytest

import minigrad

from .edge_harness import classify, observe
from .engine3_cases import ENGINE3_CASES, ENGINE3_KNOWN_DIFFERENCES
from .engine3_defs import functions

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def test_table_is_big_enough_and_named_once():
    names = [name for name, _ in ENGINE3_CASES]
    assert len(names) >= 300
    assert len(names) == len(set(names))


@pytest.mark.parametrize(("name", "code"), ENGINE3_CASES, ids=[name for name, _ in ENGINE3_CASES])
def test_engine3_case_behaves_as_torch(name, code):
    if name in ENGINE3_KNOWN_DIFFERENCES:
        pytest.skip(ENGINE3_KNOWN_DIFFERENCES[name])
    expected = observe(torch, code, functions(torch))
    actual = observe(minigrad, code, functions(minigrad))
    kind = classify(expected, actual)
    assert kind == "match", f"{kind}: torch {expected!r}\nminigrad {actual!r}"
