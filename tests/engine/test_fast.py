"""The speed tricks of minigrad/_fast.py keep what a learner sees, and their caches stay small."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad
from minigrad._fast import SHARED_TUPLES, SHARED_TUPLES_CAP, quietly


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


def test_quietly_switches_off_the_inf_and_nan_warnings_only():
    values = np.array([-1.0, 0.0, 1000.0], dtype=np.float32)
    settings = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would fail here
        quietly(np.exp, values, out=values)
        ratios = quietly(np.divide, np.array([1.0, 0.0]), np.array([0.0, 0.0]))
    assert values[0] == np.exp(np.float32(-1.0)) and values[1] == 1.0 and np.isinf(values[2])
    assert np.isinf(ratios[0]) and np.isnan(ratios[1])
    assert np.geterr() == settings  # numpy's settings are back as they were
    with np.errstate(under="raise"), pytest.raises(FloatingPointError):  # the user's own rule
        quietly(np.exp, np.array([-1000.0]))
    with pytest.raises(TypeError):  # an error inside leaves the settings as they were
        quietly(np.exp, "text")
    assert np.geterr() == settings


def test_sigmoid_of_extreme_values_warns_nothing():
    x = minigrad.tensor([-1000.0, 0.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.sigmoid().tolist() == [0.0, 0.5, 1.0]
    zero_d = minigrad.tensor(-1000.0, requires_grad=True).sigmoid()
    assert zero_d.item() == 0.0 and zero_d.shape == ()
