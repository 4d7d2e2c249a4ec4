"""The backward walk's bookkeeping: whose gradient array may be written to, what freeing keeps,
and the named entries of `saves`."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad.engine import is_owned
from minigrad.functions.arith import MulBackward0
from minigrad.graph import Save


def test_a_tensor_a_leaf_hook_returns_is_copied_into_grad():
    # torch: AccumulateGrad copies a gradient someone else still holds
    x = minigrad.ones(3, requires_grad=True)
    kept = minigrad.tensor([5.0, 5.0, 5.0])
    x.register_hook(lambda grad: kept)
    (x * 2).sum().backward()
    kept.add_(1)
    assert x.grad.tolist() == [5.0, 5.0, 5.0]


def test_a_tensor_an_accumulate_grad_prehook_returns_is_copied_into_grad():
    x = minigrad.ones(3, requires_grad=True)
    kept = minigrad.tensor([5.0, 5.0, 5.0])
    y = x * 2
    y.grad_fn.next_functions[0][0].register_prehook(lambda grads: (kept,))
    y.sum().backward()
    kept.add_(1)
    assert x.grad.tolist() == [5.0, 5.0, 5.0]


def test_a_gradient_a_hook_kept_is_not_changed_by_the_next_backward():
    # torch: a gradient someone else holds is never summed into in place
    x = minigrad.ones(3, requires_grad=True)
    seen = []
    x.register_hook(lambda grad: seen.append(grad))
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert seen[0].tolist() == [2.0, 2.0, 2.0] and x.grad.tolist() == [4.0, 4.0, 4.0]

    x = minigrad.ones(3, requires_grad=True)
    seen = []
    y = x * 2
    y.grad_fn.next_functions[0][0].register_prehook(lambda grads: seen.append(grads[0]))
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert seen[0].tolist() == [2.0, 2.0, 2.0] and x.grad.tolist() == [4.0, 4.0, 4.0]


def test_a_gradient_a_node_hook_kept_is_not_summed_into():
    x = minigrad.ones(3, requires_grad=True)
    seen = []
    y = x * 2
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(grad_inputs[0]))
    (y + x * 3).sum().backward()  # x's two gradients meet at its AccumulateGrad
    assert seen[0].tolist() == [2.0, 2.0, 2.0] and x.grad.tolist() == [5.0, 5.0, 5.0]


def test_the_gradient_a_user_gives_is_never_written_to_nor_kept():
    x = minigrad.ones(3, requires_grad=True)
    given = minigrad.ones(3)
    (x + x).backward(given)  # add passes `given` on unchanged, twice, to the same leaf
    assert given.tolist() == [1.0, 1.0, 1.0] and x.grad.tolist() == [2.0, 2.0, 2.0]
    x.grad = None
    (x + 0).backward(given)  # once: .grad gets its own copy
    given.add_(1)
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_the_ownership_rule():
    fresh = np.ones(3)
    assert is_owned(fresh, borrowed=None)
    assert not is_owned(fresh, borrowed=fresh)  # passed on unchanged: the giver's
    assert not is_owned(fresh[1:], borrowed=None)  # a view (also what a hook saw)
    frozen = np.ones(3)
    frozen.flags.writeable = False
    assert not is_owned(frozen, borrowed=None)
    assert not is_owned(minigrad.ones(3), borrowed=None)  # a tensor (create_graph)


def test_freeing_keeps_nothing_and_makes_no_counter_or_storage():
    x = minigrad.ones(3, requires_grad=True)
    y = x * x
    node = y.grad_fn
    y.sum().backward()
    for saved in node.saved.values():
        assert saved.freed and saved.owner is None and saved.array is None
        assert saved.version_counter is None and saved.storage is None
    assert x._counter is None and x._memory is None  # made only when something asks


def test_saves_entries_are_named():
    other, self_ = MulBackward0.saves
    assert other == Save("other", input=1, needed_for=0)
    assert (self_.name, self_.input, self_.needed_for) == ("self", 0, 1)
    assert Save("self", input=0).needed_for is None
