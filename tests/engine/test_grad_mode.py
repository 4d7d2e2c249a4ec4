"""Grad mode per thread, decorators on generator functions, inference_mode, anomaly detection,
and what an interrupted backward leaves behind."""

from __future__ import annotations

import re
import threading
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.functions.unary import ExpBackward0


def leaf():
    return minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)


def test_grad_mode_belongs_to_a_thread():
    seen = {}
    inside = threading.Event()
    done = threading.Event()

    def other_thread():
        inside.wait(5)
        seen["other"] = minigrad.is_grad_enabled()  # main thread is inside no_grad now
        done.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with minigrad.no_grad():
        inside.set()
        done.wait(5)
        seen["main"] = minigrad.is_grad_enabled()
    thread.join(5)
    assert seen == {"other": True, "main": False}


def test_no_grad_on_a_generator_function_covers_each_step():
    x = leaf()

    @minigrad.no_grad()
    def doubled(n):
        for _ in range(n):
            assert not minigrad.is_grad_enabled()
            yield x * 2

    results = []
    for y in doubled(2):
        assert minigrad.is_grad_enabled()  # the caller's mode in between the steps
        results.append(y.requires_grad)
    assert results == [False, False]


def test_generator_return_value_and_close():
    @minigrad.no_grad()
    def gen():
        yield 1
        return "done"

    g = gen()
    assert next(g) == 1
    with pytest.raises(StopIteration) as stop:
        next(g)
    assert stop.value.value == "done"
    gen().close()


def test_set_grad_enabled_refuses_a_string():
    with pytest.raises(TypeError, match="must be bool, not str"):
        minigrad.set_grad_enabled("False")
    assert minigrad.is_grad_enabled()


def test_inference_mode_rules():
    x = leaf()
    with minigrad.inference_mode():
        assert minigrad.is_inference_mode_enabled() and not minigrad.is_grad_enabled()
        t = minigrad.ones(3)
        y = x * 2
    assert t.is_inference() and y.is_inference() and not y.requires_grad
    assert not minigrad.ones(1).is_inference()
    with pytest.raises(RuntimeError, match="^Inference tensors do not track version counter"):
        _ = t._version
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside"):
        t.add_(1)
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward"):
        x * t
    (x + t).sum().backward()  # nothing saved: allowed, as in torch
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    assert not t.clone().is_inference()

    @minigrad.inference_mode
    def bare(v):
        return v * 2

    assert bare(x).is_inference()


def test_enable_grad_inside_inference_mode_records_nothing():
    # torch: grad mode is on again, but inference mode still records no graph
    x = minigrad.ones(3, requires_grad=True)
    with minigrad.inference_mode(), minigrad.enable_grad():
        assert minigrad.is_grad_enabled()
        y = x * 2
    assert not y.requires_grad and y.is_inference()
    with minigrad.no_grad(), minigrad.inference_mode(False):
        assert minigrad.is_grad_enabled()  # inference_mode(False) turns grad mode on
        assert (x * 2).requires_grad
    assert minigrad.is_grad_enabled()


def test_anomaly_mode_shows_where_the_failing_node_was_made():
    x = leaf()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with minigrad.autograd.detect_anomaly():
            out = x.sigmoid()  # THE LINE THAT MADE IT
            out.detach().zero_()
            with pytest.raises(RuntimeError) as error:
                out.sum().backward()
    messages = [str(w.message) for w in caught]
    assert messages[0].startswith("Anomaly Detection has been enabled.")
    assert messages[1].startswith(
        "Error detected in SigmoidBackward0. Traceback of forward call that caused the error:"
    )
    assert "THE LINE THAT MADE IT" in messages[1] and "minigrad/" not in messages[1]
    assert str(error.value).endswith(
        "Hint: the backtrace further above shows the operation that failed to compute its "
        "gradient. The variable in question was changed in there or anywhere later. Good luck!"
    )
    assert not minigrad.is_anomaly_enabled()


def test_anomaly_mode_checks_for_nan():
    x = minigrad.tensor([-1.0], requires_grad=True)
    minigrad.autograd.set_detect_anomaly(True)
    try:
        y = x.sqrt()
        with pytest.warns(UserWarning, match="Error detected in SqrtBackward0"):
            with pytest.raises(RuntimeError, match="^Function 'SqrtBackward0' returned nan"):
                y.sum().backward()
    finally:
        minigrad.autograd.set_detect_anomaly(False)
    assert x.grad is None


class Interrupted(ExpBackward0):
    """An exp whose backward is interrupted, as by Ctrl-C in a notebook."""

    def backward(self, grad):
        raise KeyboardInterrupt


def test_an_interrupted_backward_writes_no_grad_and_keeps_the_graph():
    a, b = leaf(), leaf()
    loss = (a * 2).sum() + minigrad.Tensor._apply(Interrupted(), b).sum()
    with pytest.raises(KeyboardInterrupt):
        loss.backward()
    assert a.grad is None and b.grad is None  # computed for a, but not written
    mul = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    assert not any(saved.freed for saved in mul.saved.values())


def test_grad_fn_repr_is_torchs():
    node = (leaf() * 2).grad_fn
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(node))


def test_integer_cast_is_not_differentiable():
    x = leaf()
    y = x.long().float() * 3
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad"):
        y.sum().backward()


def test_saved_leaf_sees_data_assignment():
    x = leaf()
    b = x * x
    x.data = minigrad.full((3,), 5.0)
    b.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 10.0, 10.0])
