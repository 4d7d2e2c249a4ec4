"""Memory: backward frees what the graph saved, training does not grow memory, and a graph is
freed by reference counting alone (no reference cycles for Python's cycle collector)."""

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import minigrad

BIG = 1_000_000  # float64 elements: 8 MB, far above everything else a test allocates


@pytest.fixture
def no_cycle_collector():
    """Run a test with the cycle collector off, so only reference counting frees objects.

    With collection off, every object the test creates stays in the youngest generation, so
    `gc.collect(0)` at the end looks at exactly those (and is quick, unlike a full collection
    in a process that imported torch).
    """
    gc.collect(0)
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_backward_releases_saved_arrays(no_cycle_collector):
    a = minigrad.ones(BIG, dtype=minigrad.float64, requires_grad=True)
    b = a * 2  # an intermediate: after `del b` only the graph keeps its array
    saved_array = weakref.ref(b._array)
    loss = (b * b).sum()
    del b
    node = loss.grad_fn.next_functions[0][0]  # MulBackward0 of b * b
    assert saved_array() is not None and node.saved["self"].array is not None
    loss.backward()
    assert all(saved.array is None and saved.freed for saved in node.saved.values())
    assert saved_array() is None  # the 8 MB array itself is gone


def test_backward_returns_memory_to_the_allocator():
    a = minigrad.ones(BIG, dtype=minigrad.float64, requires_grad=True)
    tracemalloc.start()
    try:
        loss = ((a * 2) * (a * 3)).sum()  # the product saves both 8 MB intermediates
        before = tracemalloc.get_traced_memory()[0]
        loss.backward()
        a.grad = None  # the gradient itself is 8 MB of new, wanted memory
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert before - after > 1.5 * 8 * BIG  # both saved arrays were handed back


def test_retain_graph_keeps_saved_arrays():
    a = minigrad.ones(10, requires_grad=True)
    loss = (a.exp() * 2).sum()
    loss.backward(retain_graph=True)
    exp_node = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    assert exp_node.saved["result"].array is not None


def train(steps):
    """A one-layer logistic regression trained with SGD on fixed data, in plain tensors."""
    minigrad.manual_seed(0)
    x = minigrad.randn(32, 4)
    y = (x.sum(1, keepdim=True) > 0).float()
    w = minigrad.zeros(4, 1, requires_grad=True)
    b = minigrad.zeros(1, requires_grad=True)
    losses = []
    for step in range(steps):
        loss = ((x @ w + b).sigmoid() - y).pow(2).mean()
        loss.backward()
        with minigrad.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
        w.grad = None
        b.grad = None
        losses.append(loss.item())
        yield step, losses


def test_training_does_not_grow_memory():
    tracemalloc.start()
    try:
        for step, losses in train(1000):  # noqa: B007 - losses is read after the loop
            if step == 100:
                after_warmup = tracemalloc.get_traced_memory()[0]
        at_end = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert losses[-1] < losses[0] / 2  # it did learn
    # only the list of 900 more Python floats may grow (about 32 bytes each)
    assert at_end - after_warmup < 64 * 1024


def test_graph_is_freed_by_reference_counting(no_cycle_collector):
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    view = b[1:]
    view.mul_(3)  # CopySlices and AsStridedBackward0 too
    out = (b.sigmoid() * a).exp().sum()
    out.retain_grad()
    nodes = [weakref.ref(out.grad_fn), weakref.ref(b.grad_fn), weakref.ref(view.grad_fn)]
    output = weakref.ref(out)
    out.backward()
    del out, b, view
    assert output() is None
    assert all(node() is None for node in nodes)
    assert gc.collect(0) == 0  # nothing was left for the cycle collector


def test_unused_graph_is_freed_without_backward(no_cycle_collector):
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    out = a.tanh().relu().sum()
    node = weakref.ref(out.grad_fn)
    del out
    assert node() is None
    assert gc.collect(0) == 0


def test_accumulate_grad_is_held_by_the_graph_not_by_the_leaf():
    a = minigrad.tensor([1.0], requires_grad=True)
    out = a * 2
    accumulator = weakref.ref(out.grad_fn.next_functions[0][0])
    assert a._grad_accumulator() is accumulator()
    del out
    assert accumulator() is None


def test_detach_and_data_do_not_copy():
    x = minigrad.zeros(BIG, dtype=minigrad.float64)
    tracemalloc.start()
    try:
        aliases = [x.detach(), x.data, x[1:], x.view(1000, 1000)]
        grown = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024
    assert all(np.shares_memory(alias.numpy(), x.numpy()) for alias in aliases)
