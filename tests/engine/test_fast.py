"""The speed tricks of minigrad/_fast.py keep what a learner sees, and their caches stay small."""

from __future__ import annotations

import minigrad
from minigrad._fast import SHARED_TUPLES, SHARED_TUPLES_CAP


def test_shared_tuples_stay_bounded_for_thousands_of_shapes():
    # each shape gives a node a new tuple of input shapes: the cache keeps at most its cap
    for size in range(1, 3001):
        x = minigrad.ones(size, requires_grad=True)
        (x * 2.0).sum()
    assert len(SHARED_TUPLES) <= SHARED_TUPLES_CAP


def test_shared_tuples_give_one_copy_and_keep_the_values():
    a = minigrad.ones(2, 3, requires_grad=True)
    first, second = a * a, a * a
    assert first.grad_fn.input_shapes is second.grad_fn.input_shapes
    assert first.grad_fn.input_shapes == ((2, 3), (2, 3))


def test_add_in_place_without_recording_writes_into_the_memory():
    a = minigrad.tensor([1.0, 2.0])
    storage, version = a.data_ptr(), a._version
    a.add_(minigrad.tensor([1.0, 1.0]))
    assert a.tolist() == [2.0, 3.0] and a.data_ptr() == storage and a._version == version + 1
