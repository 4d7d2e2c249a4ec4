"""backward() and autograd.grad(), from test_autograd.py: their arguments (grad_tensors,
inputs, retain_graph, create_graph, allow_unused, materialize_grads), several roots, the
backward-twice error and when it does not apply, and the errors for bad calls."""

from __future__ import annotations

import pytest

from ..conftest import error_of, plain

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def pair(lib):
    """Two 2x2 leaves with fixed values."""
    x = lib.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    y = lib.tensor([[2.0, 1.0], [-1.0, 0.25]], requires_grad=True)
    return x, y


def test_unused_grad_requires_grad_with_materialize(parity):
    def script(lib, note):
        x = lib.ones(10, requires_grad=True)
        y = lib.ones(10, requires_grad=True)
        z = (x**2).sum()
        g = lib.autograd.grad(z, (x, y), allow_unused=True, materialize_grads=True)
        note("grads", list(g))

    parity(script)


def test_accumulate_grad(parity):
    def script(lib, note):
        for create_graph in (False, True):
            x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
            y = x + 2
            y.backward(lib.ones(2, 2), retain_graph=True)
            first = x.grad
            y.backward(lib.ones(2, 2), create_graph=create_graph)
            note(f"{create_graph}: first grad object now", plain(first))
            note(f"{create_graph}: same object", first is x.grad)
            note(f"{create_graph}: x.grad", plain(x.grad))

    parity(script)


def test_accumulate_grad_tensor_reference(parity):
    def script(lib, note):  # (the dense half of the upstream test; sparse is out of scope)
        for create_graph in (False, True):
            params = lib.tensor([1.5, 1.5]).requires_grad_()
            params.grad = lib.tensor([1.5, 1.5])
            saved = params.grad
            params.backward(lib.tensor([1.5, 1.5]), create_graph=create_graph)
            note(f"{create_graph}: same object", saved is params.grad)
            note(f"{create_graph}: grad", plain(params.grad))

    parity(script)


def test_accumulate_grad_with_zero_numel_grad(parity):
    def script(lib, note):
        a = lib.zeros(4, 0, requires_grad=True)
        b = lib.ones(4, 1, requires_grad=True)
        c = a + b
        note("c", c)
        c.sum().backward()
        note("a.grad", plain(a.grad))
        note("b.grad", plain(b.grad))

    parity(script)


def test_grad(parity):
    def script(lib, note):
        x, y = pair(lib)
        z = x**2 + y * x + y**2
        z.backward(lib.ones(2, 2), create_graph=True)
        note("x.grad", plain(x.grad))
        note("y.grad", plain(y.grad))
        grad_sum = 2 * x.grad + y.grad
        (x_hv,) = lib.autograd.grad(
            outputs=[grad_sum], grad_outputs=[lib.ones(2, 2)], inputs=[x], create_graph=True
        )
        note("x_hv", plain(x_hv))
        note("x.grad unchanged", plain(x.grad))
        wrong = lib.ones(2)
        note(
            "shape mismatch",
            error_of(
                lambda: lib.autograd.grad(
                    outputs=[grad_sum], grad_outputs=[wrong], inputs=[x], create_graph=True
                )
            ),
        )

    parity(script)


def test_grad_materialize_grads(parity):
    def script(lib, note):
        x = lib.tensor(0.5, requires_grad=True)
        a = lib.tensor(1.0, requires_grad=True)
        y = x * a
        dydx = lib.autograd.grad(y, x, create_graph=True)
        note("dydx", list(dydx))
        none = lib.autograd.grad(dydx, x, create_graph=True, allow_unused=True)
        note("allow_unused", list(none))
        zero = lib.autograd.grad(
            dydx, x, create_graph=True, allow_unused=True, materialize_grads=True
        )
        note("materialized", list(zero))
        note("third", list(lib.autograd.grad(zero, x, materialize_grads=True)))
        note(
            "allow_unused=False",
            error_of(lambda: lib.autograd.grad(y, x, allow_unused=False, materialize_grads=True)),
        )

    parity(script)


def test_sharded_grad(parity):
    def script(lib, note):
        leaves = [lib.full((2, 2), float(i) / 4, requires_grad=True) for i in range(6)]
        intermediates = [leaf * i + leaf * leaf for i, leaf in enumerate(leaves)]
        loss = sum(v * i for i, v in enumerate(intermediates)).sum()
        d_intermediates = []
        for start in range(0, len(intermediates), 2):
            d_intermediates += lib.autograd.grad(loss, intermediates[start : start + 2])
        lib.autograd.backward(intermediates, d_intermediates)
        note("leaf grads", [plain(leaf.grad) for leaf in leaves])

    parity(script)


def test_backward_badcalls(parity):
    def script(lib, note):
        x = lib.ones(1)
        note("backward", error_of(lambda: x.backward()))

    parity(script)


def test_grad_badcalls(parity):
    def script(lib, note):
        x = lib.ones(1)
        y = x**2
        note("grad(x, y)", error_of(lambda: lib.autograd.grad(x, y)))
        note("grad(y, x)", error_of(lambda: lib.autograd.grad(y, x)))
        x = lib.ones(1, requires_grad=True)
        note("fine", list(lib.autograd.grad(x**2, x)))

    parity(script)


def test_grad_empty_inputs(parity):
    def script(lib, note):
        x = lib.tensor([1.0], requires_grad=True)
        call = lambda: lib.autograd.grad(2 * x, [], grad_outputs=lib.tensor([1.0]))  # noqa: E731
        note("empty inputs", error_of(call))

    parity(script)


def test_grad_fn_badcalls(parity):
    def script(lib, note):
        x = lib.ones(1, requires_grad=True)
        y = x**2
        note("too many", error_of(lambda: y.grad_fn(x.detach(), x.detach()))[0])
        note("too few", error_of(lambda: y.grad_fn())[0])
        note("right", plain(y.grad_fn(lib.tensor([3.0]))))

    parity(script)


def test_grad_unreachable(parity):
    def script(lib, note):
        x = lib.ones(1, requires_grad=True)
        y = lib.ones(1, requires_grad=True)
        z = x * 2  # noqa: F841 - gives x and y their accumulators
        w = y * 2  # noqa: F841
        note("unused y", list(lib.autograd.grad(x * 2, [x, y], allow_unused=True)))
        fresh = lib.ones(1, requires_grad=True)
        note("unused fresh", list(lib.autograd.grad(x * 2, [x, fresh], allow_unused=True)))
        note("not allowed", error_of(lambda: lib.autograd.grad(x * 2, [x, y])))

    parity(script)


def test_backward(parity):
    def script(lib, note):
        v = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        x, y = pair(lib)
        y = (y.detach().abs() + 0.1).requires_grad_(True)
        z = lib.tensor([[0.5, -1.0], [2.0, 1.5]], requires_grad=True)
        grad_output = lib.tensor([[1.0, -1.0], [0.5, 2.0]])
        v.backward(grad_output)
        note("v.grad", plain(v.grad))
        a = x + (y * z) + 4 * z**2 * x / y
        a.backward(grad_output)
        note("grads", [plain(x.grad), plain(y.grad), plain(z.grad)])

    parity(script)


def test_multi_backward(parity):
    def script(lib, note):
        x, y = pair(lib)
        q = lib.tensor([[1.0, 0.0], [2.0, -3.0]], requires_grad=True)
        a = lib.tensor([[4.0, 1.0], [1.0, 2.0]], requires_grad=True)
        b = lib.tensor([[0.5, 0.5], [3.0, 1.0]], requires_grad=True)
        q2 = q * 2
        z = x + y + q2
        c = a * b + q2
        grad_z = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        grad_c = lib.tensor([[-1.0, 0.5], [2.0, 1.0]])
        lib.autograd.backward([z, c], [grad_z, grad_c])
        note("grads", [plain(t.grad) for t in (x, y, q, a, b)])

    parity(script)


def test_multi_backward_no_grad(parity):
    def script(lib, note):
        x = lib.ones(2, 2, requires_grad=True)
        y = lib.ones(2, 2)
        z = x + y
        q = y * 2
        call = lambda: lib.autograd.backward([z, q], [lib.ones(2, 2), lib.ones(2, 2)])  # noqa: E731
        note("error", error_of(call))

    parity(script)


def test_backward_with_inputs(parity):
    def script(lib, note):
        x, y = pair(lib)

        def fn():
            return x**2 + y * x + y**2

        def reset():
            with lib.no_grad():
                x.grad.zero_()
                y.grad.zero_()

        lib.autograd.backward(fn(), lib.ones(2, 2), inputs=[x, y])
        note("both", [plain(x.grad), plain(y.grad)])
        for label, inputs in (("[x]", [x]), ("[y]", [y]), ("y", y)):
            reset()
            lib.autograd.backward(fn(), lib.ones(2, 2), inputs=inputs)
            note(label, [plain(x.grad), plain(y.grad)])
        note("empty", error_of(lambda: lib.autograd.backward(fn(), lib.ones(2, 2), inputs=[])))

    parity(script)


def test_backward_with_scalar_input(parity):
    def script(lib, note):
        x = lib.tensor(1.5, dtype=lib.double, requires_grad=True)
        (x**2).backward(inputs=x)
        note("x.grad", plain(x.grad))

    parity(script)


def test_backward_with_nonleaf_inputs(parity):
    def script(lib, note):
        x, y = pair(lib)
        z = lib.ones(2, 2, requires_grad=True)
        x_nonleaf = x * 1
        out = x_nonleaf**2 + y * x_nonleaf + y**2
        out.backward(lib.ones(2, 2), create_graph=True, inputs=[x, y, x_nonleaf])
        note("grads", [plain(x.grad), plain(y.grad), plain(x_nonleaf.grad)])
        out.backward(lib.ones(2, 2), create_graph=True, inputs=[z])
        note("z.grad", plain(z.grad))

    parity(script)


def test_dependent_backward(parity):
    def script(lib, note):
        x = lib.tensor([1.0, -0.5, 2.0], requires_grad=True)
        y = x**2
        z = y**3
        lib.autograd.backward([y, z], [lib.tensor([1.0, 2.0, 3.0]), lib.tensor([0.5, 1.0, -1.0])])
        note("x.grad", plain(x.grad))

    parity(script)


def test_duplicate_backward_root(parity):
    def script(lib, note):
        a, b = pair(lib)
        x = a * b
        grad_output = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        lib.autograd.backward([x, x], [grad_output, grad_output])
        note("grads", [plain(a.grad), plain(b.grad)])

    parity(script)


def test_backward_no_grad(parity):
    def script(lib, note):
        a = lib.ones(2, 2, requires_grad=True)
        b = a + 2
        note("None grad", error_of(lambda: lib.autograd.backward([b], [None])))

    parity(script)


def index_copy_graph(lib):
    b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=lib.double)
    c = lib.zeros(3, dtype=lib.double)
    c[[1, 2]] = b[[1, 1]]
    return b, c


def test_backward_twice_with_saved_values(parity):
    def script(lib, note):
        b, c = index_copy_graph(lib)
        c.backward(lib.tensor([1.0, 1.0, 1.0], dtype=lib.double))
        note("b.grad", plain(b.grad))
        note("again", error_of(lambda: c.backward(lib.tensor([1.0, 1.0, 1.0], dtype=lib.double))))
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        for label, make in (
            ("index", lambda t: t[[0, 2]]),
            ("mul", lambda t: t * t),
            ("exp", lambda t: t.exp()),
            ("sin", lambda t: t.sin()),
            ("prod", lambda t: t.prod()),
            ("div", lambda t: 1 / t),
        ):
            out = make(x).sum()
            out.backward()
            note(f"{label} twice", error_of(out.backward))

    parity(script)


def test_backward_twice_retained_graph_with_saved_values(parity):
    def script(lib, note):
        b, c = index_copy_graph(lib)
        c.backward(lib.tensor([1.0, 1.0, 1.0], dtype=lib.double), retain_graph=True)
        c.backward(lib.tensor([1.0, 1.0, 1.0], dtype=lib.double))
        note("b.grad", plain(b.grad))

    parity(script)


def test_backward_twice_without_saved_values(parity):
    def script(lib, note):
        b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=lib.double)
        c = b + 1
        c.backward(lib.tensor([1.0, 1.0, 1.0], dtype=lib.double))
        c.backward(lib.tensor([1.0, 1.0, 1.0], dtype=lib.double))
        note("b.grad", plain(b.grad))

    parity(script)


def test_backward_twice_retained_graph_without_saved_values(parity):
    def script(lib, note):
        b, c = index_copy_graph(lib)
        c.backward(lib.tensor([1.0, 1.0, 1.0], dtype=lib.double), retain_graph=True)
        c.backward(lib.tensor([1.0, 1.0, 1.0], dtype=lib.double))
        note("b.grad", plain(b.grad))

    parity(script)


def test_next_functions(parity):
    def script(lib, note):
        x, y = pair(lib)
        a = x + y
        nexts = a.grad_fn.next_functions
        note("count", len(nexts))
        note("kinds", [type(node).__name__ for node, _ in nexts])
        note("numbers", [number for _, number in nexts])
        b = a + 5
        note("b's first is a's node", b.grad_fn.next_functions[0][0] is a.grad_fn)
        note("b's second", b.grad_fn.next_functions[1][0])

    parity(script)


def test_backward_copy(parity):
    def script(lib, note):
        x = lib.ones(2, 2, requires_grad=True)
        y = lib.ones(2, 2, requires_grad=True)
        a, b, c = x + 2, y + 2, x + 2
        add2 = (a + b) + c
        for _ in range(4):
            a, b, c = a * 2, b * 2, c * 2
        out = add2 + (a + b + c)
        out.backward(lib.ones(2, 2))
        note("grads", [plain(x.grad), plain(y.grad)])

    parity(script)


def test_isolated_node(parity):
    def script(lib, note):
        x, y = pair(lib)
        a = x + y
        b = lib.max(a, 1, True)[1].repeat(1, 2).double()
        o = (b + a).sum()
        o.backward()
        note("b", b)
        note("grads", [plain(x.grad), plain(y.grad)])

    parity(script)


def test_unused_output(parity):
    def script(lib, note):
        x = lib.arange(20.0).reshape(10, 2).requires_grad_()
        outputs = x.chunk(5)
        o = outputs[2] * 4 + 2
        o.sum().backward()
        note("x.grad", plain(x.grad))
        with lib.no_grad():
            x.grad.zero_()
        outputs = x.chunk(5)
        outputs[0].backward(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
        note("x.grad again", plain(x.grad))

    parity(script)


def test_variable_traverse(parity):
    def script(lib, note):
        def make():
            inp = lib.arange(10.0).requires_grad_()
            tmp = inp.view(10, 1)
            cycle = [tmp]
            cycle.append(cycle)
            return inp, tmp.view(10)

        inp, out = make()
        out.backward(lib.arange(10.0))
        note("inp.grad", plain(inp.grad))

    parity(script)
