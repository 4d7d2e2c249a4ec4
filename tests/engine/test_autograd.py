"""The graph and the engine: nodes, edges, saved tensors, backward, grad modes, grad(),
gradcheck."""

import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import (
    AccumulateGrad,
    GradcheckError,
    Node,
    SavedTensor,
    grad,
    gradcheck,
    run_backward,
)


def leaf(values=(1.0, 2.0, 3.0)):
    return minigrad.tensor(list(values), requires_grad=True)


# ---- the graph --------------------------------------------------------------------------------


def test_next_functions_reach_leaves_through_accumulate_grad():
    a = leaf()
    b = a * 2
    node, index = b.grad_fn.next_functions[0]
    assert isinstance(node, AccumulateGrad) and node.variable is a and index == 0
    assert node.name() == "AccumulateGrad"
    assert b.grad_fn.next_functions[1] == (None, 0)  # the constant 2 needs no gradient
    assert a._grad_accumulator() is node  # one AccumulateGrad per leaf while it is alive


def test_detached_input_leaves_a_none_slot():
    a = leaf()
    c = a.sigmoid().detach()
    d = a * c
    assert [n.name() if n else None for n, _ in d.grad_fn.next_functions] == [
        "AccumulateGrad",
        None,
    ]


def test_node_serials_and_saved_tensors_are_visible():
    a = leaf()
    b = a * a
    out = b.sigmoid()
    first, second = b.grad_fn.serial, out.grad_fn.serial
    assert first != second and (b.grad_fn.serial, out.grad_fn.serial) == (first, second)
    assert (b * 1).grad_fn.serial not in (first, second)  # a later node gets a new number
    assert set(b.grad_fn.saved) == {"self", "other"}
    saved = out.grad_fn.saved["result"]
    assert isinstance(saved, SavedTensor) and saved.is_output
    assert saved.storage is out._storage and saved.tensor_serial == out._serial
    assert (saved.saved_version, saved.current_version) == (0, 0)
    np.testing.assert_array_equal(saved.unpack(), out.detach().numpy())


def test_nothing_is_saved_when_not_recording():
    a = leaf()
    with minigrad.no_grad():
        b = a * a
    assert b.grad_fn is None
    c = minigrad.tensor([1.0]) * minigrad.tensor([2.0])
    assert c.grad_fn is None


# ---- backward -------------------------------------------------------------------------------


def test_gradients_accumulate_over_backward_calls():
    a = leaf()
    (a * 3).sum().backward()
    grad_object = a.grad
    (a * a).sum().backward()
    assert a.grad.tolist() == [5.0, 7.0, 9.0]
    assert a.grad is grad_object  # added into, not replaced


def test_a_leaf_used_twice_gets_both_contributions():
    a = leaf()
    (a * a + a).sum().backward()
    assert a.grad.tolist() == [3.0, 5.0, 7.0]


def test_second_backward_without_retain_graph_fails():
    a = leaf()
    y = (a * a).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()
    assert all(s.freed and s.array is None for s in y.grad_fn.next_functions[0][0].saved.values())


def test_retain_graph_keeps_saved_tensors():
    a = leaf()
    y = a.sigmoid().sum()
    y.backward(retain_graph=True)
    first = a.grad.tolist()
    y.backward()
    assert a.grad.tolist() == pytest.approx([2 * g for g in first])


def test_non_scalar_backward_needs_a_gradient():
    a = leaf()
    y = a * 2
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar"):
        y.backward()
    y.backward(minigrad.tensor([1.0, 0.5, 0.25]))
    assert a.grad.tolist() == [2.0, 1.0, 0.5]
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape"):
        (a * 2).backward(minigrad.tensor([1.0]))


def test_backward_on_an_integer_tensor_is_a_clear_error():
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad"):
        minigrad.tensor([1, 2]).sum().backward()


def test_backward_from_a_leaf():
    a = leaf()
    a.backward(minigrad.ones(3))
    assert a.grad.tolist() == [1.0, 1.0, 1.0]


class PassOn(Node):
    """A node that hands the gradient on unchanged (to build a long chain cheaply)."""

    def backward(self, grad):
        return (grad,)


def test_hundred_thousand_node_chain_is_walked_iteratively():
    # the chain is built from nodes directly: 100,000 real ops would take seconds on their own
    a = minigrad.tensor(1.0, requires_grad=True)
    node = a._grad_accumulator()
    for _ in range(100_000):
        parent = PassOn()
        parent.next_nodes, parent.input_shapes = (node,), ((),)
        node = parent
    run_backward([((node, 0), np.ones(()))], retain_graph=False, create_graph=False)
    assert a.grad.item() == 1.0
    del node, parent  # freeing the chain must not recurse either


def test_deep_chain_of_tensor_ops():
    a = minigrad.tensor(2.0, requires_grad=True)
    x = a
    for _ in range(3_000):  # far deeper than Python's recursion limit
        x = x * 1.0
    x.backward()
    assert a.grad.item() == 1.0


def test_diamond_graph_waits_for_all_contributions():
    a = leaf()
    b = a * 2
    c = b.exp() + b * 3  # b feeds two paths
    c.sum().backward()
    expected = 2 * np.exp(2 * np.array([1.0, 2.0, 3.0])) + 6
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-6)


# ---- .grad on non-leaves -----------------------------------------------------------------------


def test_non_leaf_grad_is_none_with_a_warning():
    a = leaf()
    b = a * 2
    b.sum().backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert b.grad is None


def test_retain_grad_fills_non_leaf_grad_without_warning():
    a = leaf()
    b = a * 2
    b.retain_grad()
    (b * b).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert b.grad.tolist() == [4.0, 8.0, 12.0]
        assert a.grad is not None
    a.retain_grad()  # a no-op on a leaf
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad"):
        minigrad.zeros(1).retain_grad()


def test_grad_setter_checks_shape():
    a = leaf()
    a.grad = minigrad.zeros(3)
    a.grad = None
    with pytest.raises(RuntimeError, match="attempting to assign a gradient of size"):
        a.grad = minigrad.zeros(2)


# ---- grad mode --------------------------------------------------------------------------------


def test_no_grad_context_and_enable_grad_inside():
    a = leaf()
    with minigrad.no_grad():
        assert not minigrad.is_grad_enabled()
        b = a * 2
        with minigrad.enable_grad():
            c = a * 2
    assert minigrad.is_grad_enabled()
    assert not b.requires_grad and b.grad_fn is None and b.is_leaf
    assert c.grad_fn.name() == "MulBackward0"


def test_no_grad_restores_mode_after_an_exception():
    with pytest.raises(ValueError), minigrad.no_grad():
        raise ValueError
    assert minigrad.is_grad_enabled()


def test_grad_mode_decorators():
    a = leaf()

    @minigrad.no_grad()
    def off(x):
        return x * 2

    @minigrad.enable_grad()
    def on(x):
        return x * 2

    @minigrad.set_grad_enabled(False)
    def off_too(x):
        return x * 2

    assert minigrad.is_grad_enabled()  # making the decorators changed nothing
    assert off(a).grad_fn is None and off_too(a).grad_fn is None
    with minigrad.no_grad():
        assert on(a).grad_fn is not None
    assert off.__name__ == "off"


def test_set_grad_enabled_as_a_call_and_as_a_context():
    minigrad.set_grad_enabled(False)
    try:
        assert not minigrad.is_grad_enabled()
        assert (leaf() * 2).grad_fn is None
    finally:
        minigrad.set_grad_enabled(True)
    assert minigrad.is_grad_enabled()
    with minigrad.set_grad_enabled(False):
        assert not minigrad.is_grad_enabled()
    assert minigrad.is_grad_enabled()
    with minigrad.no_grad(), minigrad.set_grad_enabled(True):
        assert minigrad.is_grad_enabled()


# ---- grad() -------------------------------------------------------------------------------------


def test_grad_returns_gradients_without_touching_dot_grad():
    a, b = leaf(), leaf((4.0, 5.0, 6.0))
    ga, gb = grad((a * b).sum(), [a, b])
    assert ga.tolist() == [4.0, 5.0, 6.0] and gb.tolist() == [1.0, 2.0, 3.0]
    assert a.grad is None and b.grad is None


def test_grad_of_a_non_leaf_and_with_grad_outputs():
    a = leaf()
    h = a.sigmoid()
    (gh,) = grad((h * 3).sum(), h)
    assert gh.tolist() == [3.0, 3.0, 3.0]
    (ga,) = grad(a * a, a, minigrad.ones(3))
    assert ga.tolist() == [2.0, 4.0, 6.0]


def test_grad_unused_inputs():
    a, b = leaf(), leaf()
    with pytest.raises(RuntimeError, match="^The differentiated Tensor at index 1 appears"):
        grad((a * 2).sum(), [a, b])
    assert grad((a * 2).sum(), [a, b], allow_unused=True)[1] is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad((a * 2).sum(), [minigrad.zeros(3)])


def test_module_level_backward():
    a = leaf()
    minigrad.autograd.backward([(a * 2).sum(), (a * 3).sum()])
    assert a.grad.tolist() == [5.0, 5.0, 5.0]


# ---- gradcheck --------------------------------------------------------------------------------


def test_gradcheck_accepts_correct_gradients():
    x = minigrad.tensor([[0.3, -0.2], [0.5, 1.1]], dtype=minigrad.float64, requires_grad=True)
    y = minigrad.tensor([0.7, 1.3], dtype=minigrad.float64, requires_grad=True)
    assert gradcheck(lambda p, q: (p * q).sigmoid() @ q, (x, y))


def test_gradcheck_catches_a_wrong_backward():
    class WrongExp(minigrad.functions.unary.ExpBackward0):
        def backward(self, grad):
            return (grad * 2 * self.unpack("result"),)

    x = minigrad.tensor([0.1, 0.2], dtype=minigrad.float64, requires_grad=True)

    def wrong(t):
        return minigrad.Tensor._apply(WrongExp(), t)

    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(wrong, x)
    assert gradcheck(wrong, x, raise_exception=False) is False
    with pytest.raises(ValueError):
        gradcheck(wrong, minigrad.zeros(2))


# ---- gradient buffers: no copy when only the engine holds an array, never an alias ----------


def test_two_leaves_fed_the_same_array_get_separate_grads():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()  # AddBackward0 hands one array to both inputs
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    (a * 3).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [4.0, 4.0])
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])


def test_a_second_backward_adds_into_the_same_grad_array():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = minigrad.tensor([4.0, 5.0, 6.0], requires_grad=True)
    (a * b).sum().backward()
    a_grad = a.grad.numpy()
    (a * b).sum().backward()  # the second pass adds into the same .grad array, in place
    assert a.grad.numpy() is a_grad
    np.testing.assert_array_equal(a.grad.numpy(), [8.0, 10.0, 12.0])


def test_the_users_gradient_is_never_stolen_or_written():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    start = minigrad.tensor([1.0, 1.0])
    a.clone().backward(start)  # CloneBackward0 passes the gradient through unchanged
    a.clone().backward(start)
    assert not np.shares_memory(a.grad.numpy(), start.numpy())
    np.testing.assert_array_equal(start.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0])


def test_a_broadcast_gradient_is_copied_into_grad():
    a = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a.sum().backward()  # SumBackward0 gives a read-only broadcast view
    a.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0, 2.0])
    assert a.grad.numpy().flags.writeable


def test_grad_results_are_not_written_by_the_rest_of_the_pass():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    h = a * 2
    y = h * h + h  # h's gradient is captured, and also flows on to a
    (grad_h,) = minigrad.autograd.grad(y.sum(), [h], retain_graph=True)
    np.testing.assert_array_equal(grad_h.numpy(), [5.0, 9.0])
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [10.0, 18.0])
