"""PyTorch's test/test_autograd.py, custom `autograd.Function` family: forward and backward,
ctx, setup_context, mark_dirty, mark_non_differentiable, needs_input_grad, once_differentiable,
views a Function returns, reentrant backward.

Each test is named after the upstream test it takes its facts from; the script is our own,
written once against `lib` (torch or minigrad) and run with both (tests/parity/conftest.py).

Upstream tests of this family left out here, and why:
- test_materialize_grads, test_dont_materialize_grads: need torch._C._functions.UndefinedGrad
  (private); set_materialize_grads is checked in test_custom_function_non_tensor_inputs_outputs.
- test_set_materialize_non_diff_grads: sets ctx._materialize_non_diff_grads (private).
- test_custom_function_vmap_defaults, every test_custom_function_forward_mode_*,
  test_custom_function_save_for_forward, the jvp half of
  test_custom_function_mark_dirty_not_differentiable: vmap and forward-mode AD.
- test_grad_fn_input_metadata: grad_fn._input_metadata (private) and nested tensors.
- test_gradient_edge_graph_ownership, test_grad_to_node*: torch.autograd.graph.GradientEdge.
- test_custom_autograd_repeated_grad_grad: needs prod(dim) (an op of the api family).
- test_custom_function_inplace_on_non_default_view: needs split_with_sizes (api family).
- test_autograd_multiple_views_python: needs select (api family).
- test_custom_function_preserve_torch_function_when_return_as_is: __torch_function__
  subclasses.
- test_custom_function_cycle, test_custom_function_saving_mutated_view_no_leak,
  test_custom_autograd_ac_early_stop, test_gc_in_destructor: the garbage collector and
  torch's C++ node lifetimes (checkpoint for the third).
- test_no_grad_copy, test_no_grad_copy_sparse: data_ptr identity of gradient buffers, sparse.
- test_autograd_simple_views_python's complex half, test_named_tensor_for_complex_views:
  complex dtypes, named tensors.
- test_anomaly_detect_nan, test_nested_anomaly_detect_nan, test_anomaly_mode_no_check_nan:
  anomaly mode (api family).
- test_deep_reentrant, test_reentrant_priority: the engine's worker threads and its stack
  overflow escape (torch runs deep reentrant backward on a thread pool).
- test_autograd_inplace_views_creation_meta: needs as_strided_ and the other in-place view ops
  (api family) on a Function's views.
- test_autograd_node_isinstance: torch.autograd.graph.Node is a virtual base class there (not
  in the nodes' mro); minigrad's nodes subclass it.
- test_autograd_simple_views_python's pure-view half: ctx._is_pure_view (private).
"""

from __future__ import annotations

import warnings

import pytest

from ..conftest import error_of, plain, warnings_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def graph_desc(fn):
    """The graph below `fn` by the Python class names of its nodes (upstream's helper)."""
    if fn is None:
        return "None"
    inner = ", ".join(graph_desc(next_fn) for next_fn, _ in fn.next_functions)
    return f"{type(fn).__name__}({inner})"


def _x_y(lib):
    x = lib.tensor([[0.5, -1.0], [2.0, 1.5]], requires_grad=True)
    y = lib.tensor([[1.0, 0.25], [-0.5, 3.0]], requires_grad=True)
    return x, y


def _function_test(lib, note, cls):
    """Upstream's _function_test: apply(x, 2, y), backward with create_graph from a gradient
    that requires grad; the gradients and the graph recorded for them."""
    x, y = _x_y(lib)
    result = cls.apply(x, 2, y)
    go = lib.ones((), requires_grad=True)
    result.sum().backward(go, create_graph=True)
    note("x.grad", x.grad)
    note("y.grad", y.grad)
    note("x.grad's graph", graph_desc(x.grad.grad_fn))
    note("y.grad's graph", graph_desc(y.grad.grad_fn))
    x.grad = None
    y.grad = None


def test_function(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, tensor1, pyscalar, tensor2):
                ctx.pyscalar = pyscalar
                ctx.save_for_backward(tensor1, tensor2)
                return tensor1 + pyscalar * tensor2 + tensor1 * tensor2

            @staticmethod
            def backward(ctx, grad_output):
                var1, var2 = ctx.saved_tensors
                note("backward gets tensors", isinstance(grad_output, lib.Tensor))
                return (
                    grad_output + grad_output * var2,
                    None,
                    grad_output * ctx.pyscalar + grad_output * var1,
                )

        _function_test(lib, note, MyFunction)

    parity(script)


def test_once_differentiable(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, tensor1, pyscalar, tensor2):
                ctx.pyscalar = pyscalar
                ctx.save_for_backward(tensor1, tensor2)
                return tensor1 + pyscalar * tensor2 + tensor1 * tensor2

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, grad_output):
                note("grad mode in backward", lib.is_grad_enabled())
                t1, t2 = ctx.saved_tensors
                return (
                    grad_output + grad_output * t2,
                    None,
                    grad_output * ctx.pyscalar + grad_output * t1,
                )

        _function_test(lib, note, MyFunction)
        x, y = _x_y(lib)
        (gx,) = lib.autograd.grad(MyFunction.apply(x, 2, y).sum(), x, create_graph=True)
        note("differentiating twice", error_of(lambda: gx.sum().backward()))

    parity(script)


def test_function_returns_input(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        for shape in [(1,), ()]:
            v = lib.ones(shape, requires_grad=True)
            out = MyFunction.apply(v)
            note("output is the input object", out is v)
            note("output", out)
            out.backward()
            note("v.grad", plain(v.grad))
            with lib.no_grad():
                v.grad.zero_()
            MyFunction.apply(v.clone()).backward()
            note("v.grad through a clone", plain(v.grad))

    parity(script)


def test_function_returns_undefined_tensor(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return None

        x = lib.ones(1, requires_grad=True)
        MyFunction.apply(x).backward()
        note("x.grad", x.grad is None)
        MyFunction.apply(x**2).backward()
        note("x.grad through x ** 2", x.grad is None)
        MyFunction.apply(x).sum().backward()
        note("x.grad through sum", x.grad is None)
        note("grad", lib.autograd.grad(MyFunction.apply(x), x, allow_unused=True)[0] is None)

    parity(script)


def test_legacy_function_deprecation_exception(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            def forward(self, x):
                return x

            def backward(self, grad_output):
                return grad_output

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            instance = MyFunction()
        note("error", error_of(lambda: instance(lib.ones(3, 4))))

    parity(script)


def test_custom_function_exception(parity):
    def script(lib, note):
        class SimulateBackwardError(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.clone()

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, grad):
                raise Exception("Simulate error on backward pass")  # noqa: TRY002

        t1 = lib.ones(3, 3, requires_grad=True)
        t2 = lib.ones(3, 3, requires_grad=True)
        t3 = SimulateBackwardError.apply((t1 + t2) * (t1 + t2))
        note("error", error_of(lambda: t3.sum().backward()))

    parity(script)


def test_custom_function_non_tensor_inputs_outputs(parity):
    def script(lib, note):
        seen = []

        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t1, t2, scale, t3):
                t4 = t1 + t2 * t3
                t5 = t1 * t2 + t3
                t4 *= scale
                t5 *= scale
                ctx.scale = scale
                ctx.save_for_backward(t1, t2, t3)
                return scale, t4, None, True, t5, "bar", t1

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, *grads):
                if not seen:  # (gradcheck calls backward again, a number of times of its own)
                    seen.append(len(grads))
                    note("number of gradients", len(grads))
                    note("gradients of the non-tensor outputs", [grads[i] for i in (0, 2, 3, 5)])
                scale = ctx.scale
                var1, var2, var3 = ctx.saved_tensors
                return (
                    grads[1] * scale + grads[4] * var2 * scale + grads[6],
                    grads[1] * var3 * scale + grads[4] * var1 * scale,
                    None,
                    grads[1] * var2 * scale + grads[4] * scale,
                )

        t1 = lib.tensor([0.1, 0.7, 0.3], dtype=lib.float64, requires_grad=True)
        t2 = lib.tensor([0.9, 0.2, 0.5], dtype=lib.float64, requires_grad=True)
        t3 = lib.tensor([0.4, 0.8, 0.6], dtype=lib.float64)
        res = MyFunction.apply(t1, t2, 7, t3)
        note("non-tensor outputs", [res[i] for i in (0, 2, 3, 5)])
        note("tensor outputs", [res[1], res[4], res[6]])
        lib.autograd.backward([res[1].sum(), res[4].sum(), res[6].sum()])
        note("grads", [plain(t1.grad), plain(t2.grad), t3.grad is None])

        def foo(t1, t2, t3):
            res = MyFunction.apply(t1, t2, 7, t3)
            return res[1], res[4], res[6]

        note("gradcheck", lib.autograd.gradcheck(foo, (t1, t2, t3)))

    parity(script)


def test_custom_function_no_tensors(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t1, t2, scale, t3):
                t4 = (t1 + t2 * t3) * scale
                t5 = (t1 * t2 + t3) * scale
                return scale, t4, None, True, t5, "bar", t1

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, *args):
                return (args[0], args[1], None, args[2])

        note("outputs", list(MyFunction.apply(0.25, 0.5, 3, 0.75)))

    parity(script)


def test_invalid_gradients(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad_output):
                return lib.ones(10, dtype=lib.float32)

        inp = lib.ones(5, 5, dtype=lib.float32, requires_grad=True)
        note("error", error_of(lambda: MyFunction.apply(inp).sum().backward()))

    parity(script)


def test_custom_function_setup_context_simple(parity):
    def script(lib, note):
        class MySquare(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x**2

            @staticmethod
            def setup_context(ctx, inputs, output):
                (x,) = inputs
                ctx.save_for_backward(x)

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 2 * x

        x = lib.tensor(1.5, requires_grad=True)
        y = MySquare.apply(x)
        note("y", y)
        note("grad", lib.autograd.grad(y, x))

    parity(script)


def test_custom_function_setup_context_multi_output(parity):
    def script(lib, note):
        class MySquare(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x**2, x.item() * 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                _, two_x = output
                ctx.two_x = two_x

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, grad, _):
                return grad * ctx.two_x

        x = lib.tensor(1.5, requires_grad=True)
        y, two_x = MySquare.apply(x)
        note("outputs", [y, two_x])
        note("grad", lib.autograd.grad(y, x))

    parity(script)


def test_custom_function_setup_context_multi_input(parity):
    def script(lib, note):
        class MyReshape(lib.autograd.Function):
            @staticmethod
            def forward(x, shape, scale_forward, scale_backward):
                return x.reshape(shape) * scale_forward

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, shape, scale_forward, scale_backward = inputs
                ctx.scale_backward = scale_backward
                ctx.x_shape = x.shape

            @staticmethod
            def backward(ctx, grad):
                return grad.reshape(ctx.x_shape) * ctx.scale_backward, None, None, None

        x = lib.arange(24.0).requires_grad_()
        y = MyReshape.apply(x, (3, 8), 7, 11).sum()
        note("y", y)
        note("grad", lib.autograd.grad(y, x))

    parity(script)


def test_setup_context_when_forward_has_default_args(parity):
    def script(lib, note):
        class PowFunction(lib.autograd.Function):
            @staticmethod
            def forward(x, y=3):
                return lib.pow(x, y)

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, y = inputs
                ctx.save_for_backward(x)
                ctx.y = y

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * ctx.y * lib.pow(x, ctx.y - 1), None

        class PowFunctionWithClassmethod(lib.autograd.Function):
            @classmethod
            def forward(cls, x, y=3):
                return lib.pow(x, y)

            @classmethod
            def setup_context(cls, ctx, inputs, output):
                x, y = inputs
                ctx.save_for_backward(x)
                ctx.y = y

            @classmethod
            def backward(cls, ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * ctx.y * lib.pow(x, ctx.y - 1), None

        x = lib.tensor(2.0, requires_grad=True)
        for function in (PowFunction, PowFunctionWithClassmethod):
            y = function.apply(x)
            note("y", y)
            note("grad", lib.autograd.grad(y, x))

    parity(script)


def test_grad_unreachable_discovery(parity):
    def script(lib, note):
        class MyFunc(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, x):
                note("this backward ran", True)
                return x

        x = MyFunc.apply(lib.ones(1, requires_grad=True) * 2)
        y = lib.ones(1, requires_grad=True)
        note("grad to an unrelated leaf", lib.autograd.grad(x, (y,), allow_unused=True)[0])
        x = MyFunc.apply(lib.ones(1, requires_grad=True) * 2)
        z = lib.ones(1, requires_grad=True)
        gy, gz = lib.autograd.grad(x + z, (y, z), allow_unused=True)
        note("grads", [gy, plain(gz)])
        x = MyFunc.apply(lib.ones(1, requires_grad=True) * 2)
        lib.autograd.backward(x, inputs=(y,))
        note("y.grad", y.grad)

    parity(script)


def test_save_output_nr(parity):
    def script(lib, note):
        x = lib.arange(10.0).requires_grad_()

        class MultiOutputFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:5], x[5:]

            @staticmethod
            def backward(ctx, *grad):
                return lib.cat(grad)

        a, b = MultiOutputFn.apply(x)
        note("b.output_nr", b.output_nr)

        class TestFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, b):
                ctx.save_for_backward(b)
                return b * 2

            @staticmethod
            def backward(ctx, grad_b):
                (b,) = ctx.saved_tensors
                note("saved b's output_nr", b.output_nr)

        TestFn.apply(b).sum().backward()

    parity(script)


def test_no_grad_python_function(parity):
    def script(lib, note):
        class MyOp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x + 1

            @staticmethod
            def backward(ctx, dy):
                return dy

        x = lib.ones(5, 5, requires_grad=True)
        with lib.no_grad():
            y = MyOp.apply(x)
        note("y", y)

    parity(script)


def test_no_grad_input(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output

        x = lib.ones(5, requires_grad=True)
        with lib.no_grad():
            y = MyFunction.apply(x)
        note("x requires grad", x.requires_grad)
        note("y.grad_fn", y.grad_fn is None)

    parity(script)


def test_saved_variables_deprecated(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, tensor1, tensor2):
                ctx.save_for_backward(tensor1, tensor2)
                return tensor1 + tensor2

            @staticmethod
            def backward(ctx, grad_output):
                var1, var2 = ctx.saved_variables
                return (grad_output, grad_output)

        x = lib.ones(3, 3, requires_grad=True)
        y = lib.ones(3, 3, requires_grad=True)
        caught = warnings_of(lambda: MyFunction.apply(x, y).sum().backward())
        note("deprecation warned", any("saved_variables" in text for _, text in caught))

    parity(script)


def test_mark_non_differentiable(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                output = inp > 0
                ctx.mark_non_differentiable(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                return (grad_output * 0).to(lib.float64)

        x = lib.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
        mask = MyFunction.apply(x)
        note("mask", mask)
        y = x.masked_fill(mask, 0)
        y.sum().backward()
        note("x.grad", plain(x.grad))

    parity(script)


def test_mark_non_differentiable_mixed(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                a = inp + 1
                b = inp + 2
                ctx.mark_non_differentiable(a)
                return a, b

            @staticmethod
            def backward(ctx, grad_a, grad_b):
                note("grad_a", plain(grad_a))
                note("grad_b", plain(grad_b))
                return grad_b

        x = lib.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
        a, b = MyFunction.apply(x)
        note("outputs", [a, b])
        b.sum().backward()
        note("x.grad", plain(x.grad))

    parity(script)


def test_mark_non_differentiable_none(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                output = inp.clone()
                ctx.mark_non_differentiable(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                return None

        x = lib.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
        r = MyFunction.apply(x * x)
        (r * x).sum().backward()
        note("x.grad", plain(x.grad))

    parity(script)


def test_return_duplicate(parity):
    def script(lib, note):
        class DoubleDuplicate(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                output = x * 2
                return output, output

            @staticmethod
            def backward(ctx, grad1, grad2):
                return grad1 * 2 + grad2 * 2

        def fn(x):
            a, b = DoubleDuplicate.apply(x)
            return a + b

        x = lib.tensor([[0.5, 1.5], [-1.0, 2.0]], dtype=lib.float64, requires_grad=True)
        # once, outside gradcheck: how often gradcheck calls fn is its own business
        a, b = DoubleDuplicate.apply(x)
        note("the same object twice", a is b)
        note("gradcheck", lib.autograd.gradcheck(fn, [x]))
        note("gradgradcheck", lib.autograd.gradgradcheck(fn, [x]))

    parity(script)


def test_return_duplicate_inplace(parity):
    def script(lib, note):
        class DoubleInplace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x, x

            @staticmethod
            def backward(ctx, grad1, grad2):
                return grad1 * 2 + grad2 * 2

        def inplace_fn(x):
            a, b = DoubleInplace.apply(x.clone())
            return a + b

        x = lib.tensor([[0.5, 1.5], [-1.0, 2.0]], dtype=lib.float64, requires_grad=True)
        # once, outside gradcheck: how often gradcheck calls the function is its own business
        a, b = DoubleInplace.apply(x.clone())
        note("the same object twice", a is b)
        note("gradcheck", lib.autograd.gradcheck(inplace_fn, [x]))
        note("gradgradcheck", lib.autograd.gradgradcheck(inplace_fn, [x]))
        note("on a leaf", error_of(lambda: DoubleInplace.apply(x)))
        note("on a view", error_of(lambda: DoubleInplace.apply(x.clone()[0])))

    parity(script)


def test_naughty_autograd_function_attribute_access(parity):
    def script(lib, note):
        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad_x):
                return grad_x

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f = Id()
        note("instantiating warns", [w.category.__name__ for w in caught])
        note("still an instance", isinstance(f, Id))
        x = lib.zeros(1, requires_grad=True)
        note("calling it", error_of(lambda: f(x)))
        t = Id.apply(x)
        note("name", t.grad_fn.name())
        note("class name", type(t.grad_fn).__name__)

    parity(script)


def test_naughty_autograd_function_stashing_ctx(parity):
    def script(lib, note):
        saved_ctx = []

        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, grad_x):
                saved_ctx.append(ctx)
                return ctx.saved_tensors

        p = lib.zeros(1, requires_grad=True)
        loss = Id.apply(p)
        loss.backward(retain_graph=True)
        del loss
        note("error", error_of(lambda: saved_ctx[0].saved_tensors))

    parity(script)


def test_custom_autograd_no_early_free(parity):
    def script(lib, note):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x**2
                ctx.save_for_backward(x, y)
                return y

            @staticmethod
            def backward(ctx, grad_output):
                x, _ = ctx.saved_tensors
                return grad_output * 2 * x

        class Double2(Double):
            @staticmethod
            def backward(ctx, grad_output):
                x, y = ctx.saved_tensors
                return grad_output * 2 * y / x

        x = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        for function in (Double, Double2):
            note("gradcheck", lib.autograd.gradcheck(function.apply, x))
            note("gradgradcheck", lib.autograd.gradgradcheck(function.apply, x))
            y = function.apply(x)
            note("with create_graph", lib.autograd.grad(y, x, create_graph=True))
            note("again without", lib.autograd.grad(y, x))

    parity(script)


def test_return_leaf_inplace(parity):
    def script(lib, note):
        class Inplace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.mark_dirty(a)
                return a.add_(b), b + 2

            @staticmethod
            def backward(ctx, grad_a, grad_b):
                return grad_a, grad_a + grad_b

        x = lib.ones(2, 2)
        y = lib.ones(2, 2, requires_grad=True)
        q, p = Inplace.apply(x, y)
        note("q is x", q is x)
        note("q", q)
        note("grad_fn class", type(q.grad_fn).__name__)
        q.sum().backward()
        note("y.grad", plain(y.grad))

    parity(script)


def test_save_none_for_backward(parity):
    def script(lib, note):
        class MyFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                ctx.save_for_backward(None, inp, None)
                return inp * inp

            @staticmethod
            def backward(ctx, grad_output):
                n1, inp, n2 = ctx.saved_tensors
                note("the Nones", [n1, n2])
                return 2 * inp * grad_output

        x = lib.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
        MyFn.apply(x).sum().backward()
        note("x.grad", plain(x.grad))

    parity(script)


def test_too_many_grads(parity):
    def script(lib, note):
        class MyFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output, None, None

        x = lib.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
        MyFn.apply(x).sum().backward()
        note("x.grad", plain(x.grad))

    parity(script)


def test_dep_nograd(parity):
    def script(lib, note):
        class F1(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                out = lib.ones(inp.size())
                ctx.mark_non_differentiable(out)
                return inp, out

            @staticmethod
            def backward(ctx, grad_output, ignored):
                return grad_output

        class F2(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp, ignored):
                return inp

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output, None

        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a, b = F1.apply(x)
        b = b + 1
        note("flags", [a.requires_grad, b.requires_grad])
        c = F2.apply(a, b)
        c.backward(lib.ones(c.size()))
        note("x.grad", plain(x.grad))

    parity(script)


def test_simple_reentrant(parity):
    def script(lib, note):
        y_data = lib.tensor([[1.0, 2.0], [3.0, 4.0]])

        class Reenter(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                with lib.enable_grad():
                    ctx.x = x.detach().requires_grad_(True)
                    ctx.y = y_data.clone().requires_grad_(True)
                    ctx.output_var = ctx.x * ctx.y
                return ctx.output_var.detach()

            @staticmethod
            def backward(ctx, grad_output):
                with lib.enable_grad():
                    ctx.output_var.sum().backward()
                return ctx.x.grad * grad_output

        x = lib.tensor([[0.5, 0.5], [1.0, 1.0]], requires_grad=True)
        Reenter.apply(x).sum().backward()
        note("x.grad", plain(x.grad))

    parity(script)


def test_reentrant_child_error(parity):
    def script(lib, note):
        class SimulateBackwardError(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.clone()

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, grad):
                raise Exception("Simulate error on backward pass")  # noqa: TRY002

        a = lib.ones(3, 3, requires_grad=True)
        c = a * a
        b = lib.ones(3, 3, requires_grad=True)
        reentrant_root = SimulateBackwardError.apply(b * b).sum()

        class ReentrantFunc(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.clone()

            @staticmethod
            def backward(ctx, grad):
                reentrant_root.backward()
                return grad

        d = ReentrantFunc.apply(c)
        note("error", error_of(lambda: d.sum().backward()))

    parity(script)


def test_grad_mode_restored_reentrant(parity):
    def script(lib, note):
        class MyFunction(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.clone()

            @staticmethod
            def backward(ctx, go):
                original = lib.is_grad_enabled()
                with lib.enable_grad():
                    foo = lib.ones(go.size(), requires_grad=True)
                    (grad,) = lib.autograd.grad(foo**3, foo, grad_outputs=go)
                note("grad mode restored", lib.is_grad_enabled() == original)
                return grad

        inp = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        MyFunction.apply(inp).sum().backward()
        MyFunction.apply(inp).sum().backward(create_graph=True)
        note("inp.grad", plain(inp.grad))
        inp.grad = None

    parity(script)


def test_custom_function_error(parity):
    def script(lib, note):
        class BadFw(lib.autograd.Function):
            @staticmethod
            def backward(ctx, foo):
                return foo

        class BadBw(lib.autograd.Function):
            @staticmethod
            def forward(ctx, foo):
                return foo.clone()

        inp = lib.ones(1, requires_grad=True)
        note("no forward", error_of(lambda: BadFw.apply(inp)))
        note("no backward", error_of(lambda: BadBw.apply(inp).sum().backward()))

    parity(script)


def test_custom_function_local_inplace(parity):
    def script(lib, note):
        class MyFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp, inplace):
                view = inp.clone()[:3]
                if inplace:
                    view += 2
                return view

            @staticmethod
            def backward(ctx, grad):
                return grad, None

        base = lib.arange(10.0).requires_grad_()
        for inplace in (False, True):
            foo = MyFn.apply(base, inplace)
            note("grad_fn class", type(foo.grad_fn).__name__)
            note("foo", foo)

    parity(script)


def test_autograd_print_tensor(parity):
    def script(lib, note):
        a = lib.ones(1, requires_grad=True)
        note("a", repr(a))
        note("clone", repr(a.clone()))

        class Func(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, x):
                return x

        note("Func's output", repr(Func.apply(a)))

    parity(script)


# ---- views a Function returns, and changes in place ---------------------------------------------


def _view_of_input(lib):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp.view_as(inp)

        @staticmethod
        def backward(ctx, grad):
            return grad

    return MyFn


def test_inplace_not_requires_grad(parity):
    def script(lib, note):
        my_fn = _view_of_input(lib)
        a = lib.ones(1, 2)
        b = lib.ones(1, requires_grad=True)
        view_a = my_fn.apply(a)

        def add_in_place():
            nonlocal view_a
            view_a += b

        note("+= on a Function's view", error_of(add_in_place))
        view_a = my_fn.apply(lib.ones(1, 2))
        note("copy_ into a Function's view", error_of(lambda: view_a.copy_(b)))
        view_a = lib.ones(1, 2).unbind()[0]
        note("copy_ into one of unbind's views", error_of(lambda: view_a.copy_(b)))

    parity(script)


def test_custom_function_return_view_in_nograd(parity):
    def script(lib, note):
        class Alias(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:]

            @staticmethod
            def backward(ctx, gx):
                return gx

        inp = lib.tensor([0.5, 1.5], requires_grad=True)
        with lib.no_grad():
            output = Alias.apply(inp)
        note("output", output)
        note("zero_ on it", error_of(lambda: output.zero_()))

    parity(script)


def test_autograd_python_custom_function_inplace(parity):
    def script(lib, note):
        calls = [0]

        class MyAdder(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                a.add_(b)
                ctx.mark_dirty(a)
                return a

            @staticmethod
            def backward(ctx, grad):
                calls[0] += 1
                return grad, grad

        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        c = MyAdder.apply(a.clone(), b)
        note("c", c)
        c.sum().backward()
        c = MyAdder.apply(a.clone(), b)
        c += 2
        c.sum().backward()
        c = MyAdder.apply(a.clone().view_as(a), b)
        note("on a view", c)
        c.sum().backward()
        note("backward calls", calls[0])

        class MyAdderBad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                c = 3 * a
                c.add_(b)
                ctx.mark_dirty(c)
                return c

            @staticmethod
            def backward(ctx, grad):
                grad = 3 * grad
                return grad, grad

        note("dirty output that is no input", warnings_of(lambda: MyAdderBad.apply(a.clone(), b)))

        class MyBadAdder(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                a.add_(b)
                ctx.mark_dirty(a)
                return a, a + b

            @staticmethod
            def backward(ctx, ga, gab):
                calls[0] += 1
                return ga + gab, ga + gab

        calls[0] = 0
        c, d = MyBadAdder.apply(a.clone(), b)
        (c * d).sum().backward()
        c, d = MyBadAdder.apply(a.clone(), b)
        c += 2
        (c * d).sum().backward()
        note("backward calls with two outputs", calls[0])
        note(
            "two outputs, input a view",
            error_of(lambda: MyBadAdder.apply(a.clone().view_as(a), b)),
        )

        class MyOutPlaceAdder(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                a.add_(b)
                ctx.mark_dirty(a)
                return a.clone(), a + b

            @staticmethod
            def backward(ctx, ga, gab):
                return ga + gab, ga + 2 * gab

        note("dirty input not returned", error_of(lambda: MyOutPlaceAdder.apply(a.clone(), b)))
        note("b.grad", plain(b.grad))

    parity(script)


def test_custom_function_mark_dirty_not_differentiable(parity):
    def script(lib, note):
        class InplaceMul(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                result = x.mul_(2)
                ctx.mark_dirty(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                pass

        for requires_grad in (True, False):
            z = lib.tensor(1.0, requires_grad=requires_grad)
            x = z.clone()
            y = InplaceMul.apply(x)
            note("returned as is", x is y)
            note("x", x)

    parity(script)


def test_custom_function_mark_output_view_of_intermediate(parity):
    def script(lib, note):
        class Func(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                out = inp.clone().view_as(inp)
                ctx.mark_dirty(out)
                return out

            @staticmethod
            def backward(ctx, grad):
                pass

        a = lib.tensor([1.0], requires_grad=True)
        note("error", error_of(lambda: Func.apply(a.clone())))

    parity(script)


def test_custom_function_inplace_on_view_of_leaf(parity):
    def script(lib, note):
        class Func(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                inp.add_(1)
                ctx.mark_dirty(inp)
                return inp

            @staticmethod
            def backward(ctx, grad):
                pass

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        note("error", error_of(lambda: Func.apply(a.view_as(a))))

    parity(script)


def test_autograd_simple_views_python(parity):
    def script(lib, note):
        class IdOneOutput(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, make_view):
                return a[:2] if make_view else a.clone()

            @staticmethod
            def backward(ctx, ga):
                return ga, None

        class IdTwoOutput(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, make_view):
                a = a[:2] if make_view else a.clone()
                return a, a + b

            @staticmethod
            def backward(ctx, ga, gab):
                return ga + gab, gab, None

        for make_view in (True, False):
            for inplace in (True, False):
                a = lib.ones(2, dtype=lib.float64, requires_grad=True)
                b = lib.ones(2, dtype=lib.float64, requires_grad=True)

                def one(a=a, make_view=make_view, inplace=inplace):
                    tmp = IdOneOutput.apply(a.clone(), make_view)
                    if inplace:
                        tmp += 3
                    else:
                        tmp = tmp + 3
                    return tmp.sum()

                def two(a=a, b=b, make_view=make_view, inplace=inplace):
                    tmp1, tmp2 = IdTwoOutput.apply(a.clone(), b.clone(), make_view)
                    if inplace:
                        tmp1 += 3
                        tmp2 += 3
                    else:
                        tmp1 = tmp1 + 3
                        tmp2 = tmp2 + 3
                    return (tmp1 * tmp2).sum()

                label = f"view={make_view} inplace={inplace}"
                note(f"one output, {label}", error_of(lambda one=one: one().backward()))
                note(f"two outputs, {label}", error_of(lambda two=two: two().backward()))
                note(f"grads, {label}", [plain(a.grad), plain(b.grad)])

    parity(script)


def test_inplace_on_view_python(parity):
    """A Function that marks its input dirty and adds into it, applied to views of views of a
    clone: gradcheck and gradgradcheck pass, and the result's node is CopySlices."""

    def script(lib, note):
        class PyAdd(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.mark_dirty(x)
                x.add_(y)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad, grad

        def func(root, b):
            x = root.clone()
            PyAdd.apply(x.narrow(1, 2, 2).narrow(0, 1, 2), b)
            PyAdd.apply(x.narrow(1, 0, 2).narrow(0, 1, 2), b)
            return x

        lib.manual_seed(0)
        a = lib.randn(4, 4, dtype=lib.float64, requires_grad=True)
        b = lib.randn(2, 2, dtype=lib.float64, requires_grad=True)
        go = lib.randn(4, 4, dtype=lib.float64, requires_grad=True)
        note("gradcheck", lib.autograd.gradcheck(func, [a, b], raise_exception=True))
        note("gradgradcheck", lib.autograd.gradgradcheck(func, (a, b), (go,)))
        out = func(a, b)
        note("node", type(out.grad_fn).__name__)
        out.backward(go.detach())
        note("grads", [plain(a.grad), plain(b.grad)])

    parity(script)


def test_inplace_on_view_undefined_grad_output(parity):
    """A dirty-marking Function on a view returns None for an input that requires grad: that
    input gets no gradient, the view's base gets the other one."""

    def script(lib, note):
        class InplaceFunc(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, other):
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def backward(ctx, grad):
                return grad * 2, None

        a = lib.tensor([1.0], requires_grad=True)
        view = a.clone()[:]
        b = lib.tensor(1.0, requires_grad=True)
        out = InplaceFunc.apply(view, b)
        note("out is the view", out is view)
        out.backward()
        note("b.grad", b.grad)
        note("a.grad", plain(a.grad))

    parity(script)
