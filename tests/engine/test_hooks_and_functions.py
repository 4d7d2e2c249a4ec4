"""minigrad 3's gradient-surgery tools without torch: hooks, custom Functions, create_graph,
saved-tensor hooks and the rules around them (tests/parity compares the same with torch)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad.autograd import Function
from minigrad.autograd.function import once_differentiable


def leaf(values=(1.0, 2.0, 3.0), dtype=None):
    return minigrad.tensor(list(values), dtype=dtype, requires_grad=True)


# ---- tensor hooks ---------------------------------------------------------------------------


def test_a_leaf_hook_replaces_the_gradient_before_it_reaches_grad():
    x = leaf()
    x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [30.0, 30.0, 30.0]


def test_a_non_leaf_hook_changes_what_flows_on_and_none_keeps_it():
    x = leaf()
    b = x * 3
    seen = []
    b.register_hook(lambda g: seen.append(g.tolist()))  # returns None: gradient unchanged
    b.register_hook(lambda g: -g)  # a gradient reversal
    b.sum().backward()
    assert seen == [[1.0, 1.0, 1.0]]
    assert x.grad.tolist() == [-3.0, -3.0, -3.0]


def test_a_removed_hook_no_longer_runs():
    x = leaf()
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_hooks_on_tensors_without_grad_and_bad_return_values_are_refused():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't"):
        minigrad.ones(2).register_hook(lambda g: g)
    x = leaf()
    b = x * 2
    b.register_hook(lambda g: minigrad.ones(5))
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        b.sum().backward()


def test_retain_grad_sees_the_gradient_after_the_tensors_hooks():
    x = leaf()
    b = x * 3
    b.retain_grad()
    b.register_hook(lambda g: g * 2)
    b.sum().backward()
    assert b.retains_grad and b.grad.tolist() == [2.0, 2.0, 2.0]


def test_post_accumulate_hooks_run_after_grad_is_written_and_only_on_leaves():
    x = leaf()
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0, 2.0]]
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_node_hooks_see_and_may_replace_the_gradients_of_the_inputs():
    x = leaf()
    d = x * 2
    d.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] * 5, None))
    d.sum().backward()
    assert x.grad.tolist() == [10.0, 10.0, 10.0]


def test_backward_inputs_limits_the_leaves_that_get_a_grad():
    x, y = leaf(), leaf((4.0, 5.0, 6.0))
    (x * y).sum().backward(inputs=[y])
    assert x.grad is None and y.grad.tolist() == [1.0, 2.0, 3.0]


# ---- custom Functions -----------------------------------------------------------------------


class StraightThroughRound(Function):
    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad):
        return grad


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


def test_a_function_records_one_node_named_after_it():
    x = leaf((0.4, 1.6, 2.5))
    y = StraightThroughRound.apply(x)
    assert y.grad_fn.name() == "StraightThroughRoundBackward"
    y.sum().backward()
    assert y.tolist() == [0.0, 2.0, 2.0] and x.grad.tolist() == [1.0, 1.0, 1.0]


def test_saved_tensors_get_the_same_version_check_as_builtin_ops():
    x = leaf()
    b = x * 1
    y = Square.apply(b)
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_a_function_backward_returning_the_wrong_number_of_gradients_is_refused():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return (grad,)

    x = leaf()
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        TooFew.apply(x, x).sum().backward()


def test_once_differentiable_refuses_a_second_derivative():
    class Once(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = leaf(dtype=minigrad.float64)
    y = Once.apply(x)
    # the gradient reaching Once's backward requires grad (it is 2y): its result gets an Error
    # node, and differentiating through that raises
    (g,) = minigrad.autograd.grad((y * y).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "Error"
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        g.sum().backward()


# ---- create_graph -----------------------------------------------------------------------------


def test_second_derivative_of_a_cube():
    x = leaf((0.5, -1.5, 2.0), dtype=minigrad.float64)
    (g,) = minigrad.autograd.grad((x**3).sum(), x, create_graph=True)
    (gg,) = minigrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.array([0.5, -1.5, 2.0]) ** 2)
    np.testing.assert_allclose(gg.numpy(), 6 * np.array([0.5, -1.5, 2.0]))


def test_without_create_graph_the_gradient_has_no_history():
    x = leaf(dtype=minigrad.float64)
    (g,) = minigrad.autograd.grad((x**3).sum(), x)
    assert g.grad_fn is None and not g.requires_grad


def test_first_order_maml_differs_from_second_order_by_the_detach():
    def outer_gradient(detach_inner: bool) -> list[float]:
        x = minigrad.tensor([0.5, -1.5, 2.0], dtype=minigrad.float64)
        w = leaf((0.3, -0.2, 0.1), dtype=minigrad.float64)
        inner = ((w * x).sum() - 1) ** 2
        (gw,) = minigrad.autograd.grad(inner, w, create_graph=True)
        w2 = w - 0.1 * (gw.detach() if detach_inner else gw)
        (((w2 * x).sum() - 2) ** 2).backward()
        return w.grad.tolist()

    first, second = outer_gradient(True), outer_gradient(False)
    assert not np.allclose(first, second)
    np.testing.assert_allclose(first, [-0.895, 2.685, -3.58])  # torch 2.13's numbers


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.sigmoid(),
        lambda x: x.tanh() * x,
        lambda x: (x * x + 1).log(),
        lambda x: x.exp() / (x * x + 2),
        lambda x: minigrad.nn.functional.softmax(x.reshape(1, 3), dim=1) ** 2,
    ],
    ids=["sigmoid", "tanh", "log", "exp-div", "softmax"],
)
def test_gradgradcheck(op):
    x = leaf((0.3, -0.7, 1.1), dtype=minigrad.float64)
    assert minigrad.autograd.gradgradcheck(op, [x])


# ---- saved tensors ------------------------------------------------------------------------


def test_detach_in_place_of_a_saved_input_is_refused_at_backward():
    x = leaf()
    b = x * 2
    s = (b**2).sum()
    b.detach_()
    with pytest.raises(RuntimeError, match="Trying to use a saved tensor that has been detached"):
        s.backward()


def test_saved_tensors_hooks_pack_and_unpack():
    x = leaf()
    log = []
    with minigrad.autograd.graph.saved_tensors_hooks(
        lambda t: log.append("pack") or t.clone(), lambda t: log.append("unpack") or t
    ):
        y = (x * x).sum()
    y.backward()
    assert log == ["pack", "pack", "unpack", "unpack"]


def test_saved_attributes_name_what_a_node_kept():
    x = leaf()
    y = leaf((4.0, 5.0, 6.0))
    node = (x * y).grad_fn
    assert node._saved_self is x and node._saved_other is y
    out = x.sigmoid()
    assert out.grad_fn._saved_result.tolist() == out.tolist()


# ---- views under grad modes -------------------------------------------------------------------


def test_a_view_made_under_no_grad_keeps_requires_grad_and_refuses_in_place_changes():
    x = leaf()
    a = x * 2
    with minigrad.no_grad():
        v = a[1:]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        v.mul_(2)
    with minigrad.no_grad():
        v.mul_(2)  # both inside no_grad: allowed, and seen by the base
    assert a.tolist() == [2.0, 8.0, 12.0] and a._version == 1


def test_an_output_of_unbind_may_not_be_changed_in_place():
    m = minigrad.ones(2, 2, requires_grad=True) * 1
    first, second = m.unbind(0)
    with pytest.raises(RuntimeError, match="Output 1 of Unbind is a view"):
        second.mul_(2)
