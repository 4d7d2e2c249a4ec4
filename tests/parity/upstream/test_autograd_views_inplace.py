"""detach / detach_ / .data, version counters, requires_grad rules, in-place changes and views,
from test_autograd.py: which in-place changes are allowed, what they do to the graph and to
the gradient, and torch's errors where they are not."""

from __future__ import annotations

import pytest

from ..conftest import error_of, plain, warnings_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def square(lib, n=4, requires_grad=True):
    """An n x n leaf with distinct values."""
    return (lib.arange(float(n * n)).reshape(n, n) / 7 - 1).requires_grad_(requires_grad)


def test_tensor_grad_warnings(parity):
    def script(lib, note):
        dummy = lib.empty(1).requires_grad_()
        note("leaf .grad", warnings_of(lambda: dummy.grad))
        non_leaf = dummy.clone()
        note("non-leaf .grad", warnings_of(lambda: non_leaf.grad))
        non_leaf.retain_grad()
        note("retained .grad", warnings_of(lambda: non_leaf.grad))

    parity(script)


def test_detach(parity):
    def script(lib, note):
        x = square(lib)
        y = (x + 2).detach()
        note("y", y)
        note("y * 4 + 2", y * 4 + 2)
        y = (x * 2).detach()
        (x + y).sum().backward()
        note("x.grad", plain(x.grad))
        x, y = square(lib), square(lib) * 0 + 1
        y = y.detach().requires_grad_()
        a = x * 2
        (y + a).sum().backward(retain_graph=True)
        a.detach_()
        note("a after detach_", a)
        (y + a).sum().backward()
        note("grads", [plain(x.grad), plain(y.grad)])
        view = x.narrow(0, 1, 2)
        note("detach_ of a view", error_of(view.detach_))

    parity(script)


def test_detach_base(parity):
    def script(lib, note):
        x = square(lib)
        view = x.narrow(0, 1, 2)
        x.detach_()
        note("x", x)
        note("view", view)
        note("view._base is x", view._base is x)

    parity(script)


def test_detach_then_inplace_raises_in_autograd(parity):
    def script(lib, note):
        x = lib.tensor(1.5, requires_grad=True)
        y = x**2
        z = x.detach()
        z.zero_()
        note("backward", error_of(y.backward))

    parity(script)


def test_version_counter(parity):
    def script(lib, note):
        x = lib.tensor([[1.0, 2.0]])
        before = x._version
        x.add_(1).add_(1)
        note("bumped", x._version > before)
        xz = x[:]
        note("view shares", x._version == xz._version)
        xz.add_(1)
        note("after view add_", [x._version, xz._version])
        before = x._version
        x.data = lib.ones(2, 3)
        note("data= keeps it", x._version == before)
        x.add_(1)
        note("still shared with the view", [x._version, xz._version])
        xz.add_(1)
        note("and back", [x._version, xz._version])

    parity(script)


def test_set_data_preserve_pyobj(parity):
    def script(lib, note):
        a, b = lib.ones(1, 2), lib.zeros(1, 2)
        before = id(b)
        b.data = a
        note("same object", id(b) == before)
        note("b", b)

    parity(script)


def test_set_data_self_requires_grad(parity):
    def script(lib, note):
        a = lib.tensor(1.0, requires_grad=True)
        a.data = lib.tensor(2.0)
        note("a", a)
        note("int data", error_of(lambda: setattr(a, "data", lib.tensor(3, dtype=lib.int64))))

    parity(script)


def test_inplace(parity):
    def script(lib, note):
        x = lib.ones(2, 2, requires_grad=True)
        y = (lib.ones(2, 2) * 4).requires_grad_()
        z = x * y
        q = z + y
        w = z * y
        z.add_(2)
        q.backward(lib.ones(2, 2), retain_graph=True)
        note("w after z changed", error_of(lambda: w.backward(lib.ones(2, 2))))
        z = x * y
        q = z * y
        r = z + y
        w = z.add_(y)
        w.backward(lib.ones(2, 2), retain_graph=True)
        r.backward(lib.ones(2, 2), retain_graph=True)
        note("q uses dirty z", error_of(lambda: q.backward(lib.ones(2, 2))))
        with lib.no_grad():
            x.grad.zero_()
        m = x / 2
        z = m + y / 8
        q = z * y
        r = z + y
        before = z._version
        w = z.exp_()
        note("exp_ bumped", z._version != before)
        r.backward(lib.ones(2, 2), retain_graph=True)
        note("x.grad", plain(x.grad))
        w.backward(lib.ones(2, 2), retain_graph=True)
        note("x.grad after exp_", plain(x.grad))
        note("q", error_of(lambda: q.backward(lib.ones(2, 2))))
        leaf = lib.ones(2, 2, requires_grad=True)
        x = leaf.clone()
        x.add_(10)
        note("x", x)
        (x + 2).backward(lib.ones(2, 2))
        note("leaf.grad", plain(leaf.grad))
        z = x * (x + 2)
        x.add_(2)
        note("z", error_of(lambda: z.backward(lib.ones(2, 2))))

    parity(script)


def test_no_unnecessary_save(parity):
    def script(lib, note):
        mu = lib.ones(1, requires_grad=True)
        x = lib.empty(1)
        loss = 0
        for i in range(3):
            x.detach_()
            x.copy_(mu + i)
            loss = loss + (x * lib.tensor([float(i)])).sum()
        loss.backward()
        note("mu.grad", plain(mu.grad))

    parity(script)


def test_index_backward_does_not_save_tensor(parity):
    def script(lib, note):
        a = lib.tensor([1.0, 0, 0])
        b = lib.zeros(3, requires_grad=True)
        tensor = b + 0
        tensor[a != 0] = tensor[a != 0]
        tensor.backward(lib.zeros_like(tensor))
        note("b.grad", plain(b.grad))

    parity(script)


def setitem_case(lib, note, size, index):
    x = lib.ones(*size, requires_grad=True)
    y = x + 2
    before = y._version
    y[index] = 2
    note("version bumped", y._version != before)
    y.backward(lib.ones(*size))
    note("x.grad", plain(x.grad))


def setitem_tensor_case(lib, note, size, index):
    x = lib.ones(*size, requires_grad=True)
    y = x + 2
    before = y._version
    value = lib.full(tuple(x[index].shape), 7.0).requires_grad_()
    y[index] = value
    note("version bumped", y._version != before)
    y.backward(lib.ones(*size))
    note("grads", [plain(x.grad), plain(value.grad)])


def test_setitem(parity):
    def script(lib, note):
        for size, index in (
            ((5, 5), 1),
            ((5,), 1),
            ((1,), 0),
            ((10,), [0, 4, 2]),
            ((5, 5), ([0, 4], [2, 2])),
            ((5, 5, 5), (slice(None), slice(None), [1, 3])),
            ((5, 5, 5), ([1, 3], slice(None), slice(None))),
            ((5, 5, 5), (slice(None), [2, 4], [1, 3])),
        ):
            setitem_case(lib, note, size, index)
        for size, index in (
            ((5, 5), 3),
            ((5, 5), ([0, 1], [1, 0])),
            ((5,), 3),
            ((5,), lib.tensor([3]).sum()),
            ((5, 5, 5), (slice(None), [1, 3], slice(None))),
            ((5, 5, 5), (lib.tensor([1, 3]), [2, 4], slice(None))),
        ):
            setitem_tensor_case(lib, note, size, index)
        x = lib.arange(4.0).requires_grad_()
        y = lib.zeros(2, 3, 4)
        y[1] = x
        y.backward(lib.ones(2, 3, 4))
        note("broadcast x.grad", plain(x.grad))

    parity(script)


def test_setitem_mask(parity):
    def script(lib, note):
        mask = (lib.arange(25).reshape(5, 5) % 3) == 0
        setitem_case(lib, note, (5, 5), mask)
        setitem_case(lib, note, (5,), mask[0])
        setitem_case(lib, note, (1,), mask[0, 0:1])
        setitem_tensor_case(lib, note, (5, 5), mask)
        setitem_tensor_case(lib, note, (5,), mask[0])

    parity(script)


def test_leaf_assignment(parity):
    def script(lib, note):
        x = lib.zeros(3, 3)
        y = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        x[0] = y
        x[1] = 2 * z
        note("x", x)
        x.sum().backward()
        note("grads", [plain(y.grad), plain(z.grad)])

    parity(script)


def test_increment_version(parity):
    def script(lib, note):
        a = lib.ones(5, requires_grad=True)
        v = a._version
        lib.autograd.graph.increment_version(a)
        note("float", a._version - v)
        a = lib.zeros(5, dtype=lib.int32)
        v = a._version
        lib.autograd.graph.increment_version(a)
        note("int", a._version - v)
        with lib.inference_mode():
            a = lib.ones(5, requires_grad=True)
            lib.autograd.graph.increment_version(a)
        lib.autograd.graph.increment_version(a)
        note("inference tensor: no error", True)
        b = lib.ones(2, requires_grad=True)
        c = b * b
        lib.autograd.graph.increment_version(b)
        note("saved copy now stale", error_of(lambda: c.sum().backward()))

    parity(script)


def test_requires_grad(parity):
    def script(lib, note):
        x, y = lib.ones(2, 2), lib.ones(2, 2)
        z = lib.ones(2, 2, requires_grad=True)
        a = x + y
        note("a", a)
        b = a + z
        note("b", b)
        b.backward(lib.ones(2, 2))
        note("z.grad", plain(z.grad))

    parity(script)


def test_requires_grad_(parity):
    def script(lib, note):
        x = lib.ones(2, 2)
        y = lib.ones(2, 2, requires_grad=True)
        note("returns self", [x.requires_grad_() is x, y.requires_grad_() is y])
        note("flags", [x.requires_grad, y.requires_grad])
        z = x * y
        note("non-leaf False", error_of(lambda: z.requires_grad_(False)))
        note("non-leaf True", [z.requires_grad_() is z, z.requires_grad_(True) is z])
        note("off", [x.requires_grad_(False).requires_grad, y.requires_grad_(False).requires_grad])

    parity(script)


def test_requires_grad_inplace(parity):
    def script(lib, note):
        a = lib.ones(2, 2)
        b = lib.ones(2, 2, requires_grad=True)
        a += b
        note("leaf a", a)
        a = lib.ones(2, 2) + 0
        a += b
        note("non-leaf a", a)

    parity(script)


def test_no_requires_grad_inplace(parity):
    def script(lib, note):
        a = lib.ones(2, 3)
        a.add_(5)
        a.requires_grad = True
        a.sum().backward()
        note("a.grad", plain(a.grad))
        a = lib.ones(2, 3)
        b = a[:]
        b.add_(5)
        a.requires_grad = True
        a.sum().backward()
        note("a.grad after view", plain(a.grad))
        a = lib.ones(2, 3)
        b = a[:]
        a.requires_grad = True
        note("a.add_", error_of(lambda: a.add_(5)))
        note("b.add_", error_of(lambda: b.add_(5)))

    parity(script)


def test_attribute_deletion(parity):
    def script(lib, note):
        x = lib.ones(2, 2, requires_grad=True)
        x.sum().backward()
        del x.grad
        note("grad", x.grad)

        def delete(name):
            return lambda: delattr(x, name)

        note("del data", error_of(delete("data"))[0])
        note("data = None", error_of(lambda: setattr(x, "data", None))[0])
        note("del requires_grad", error_of(delete("requires_grad"))[0])

    parity(script)


def test_autograd_views_codegen(parity):
    def script(lib, note):
        for grad_mode, requires_grad in ((1, 0), (1, 1), (0, 1), (0, 0)):
            grad_mode, requires_grad = bool(grad_mode), bool(requires_grad)
            inp = lib.tensor([1.0, 2.0], requires_grad=requires_grad).clone()
            with lib.set_grad_enabled(grad_mode):
                out = inp.view_as(inp)
            note(f"{grad_mode} {requires_grad} view_as", out._is_view())
            note("add_", error_of(lambda out=out: out.add_(1)))
            inp = lib.tensor([1.0, 2.0], requires_grad=requires_grad).clone()
            with lib.set_grad_enabled(grad_mode):
                outs = inp.unbind()
            note("unbind views", [o._is_view() for o in outs])
            note("add_ 0", error_of(lambda outs=outs: outs[0].add_(1)))
            note("add_ 1", error_of(lambda outs=outs: outs[1].add_(1)))

    parity(script)


def test_autograd_inplace_views_creation_meta(parity):
    def script(lib, note):
        inplace_views = {
            "transpose_": lambda v: v.transpose_(0, 0),
            "t_": lambda v: v.t_(),
            "squeeze_": lambda v: v.squeeze_(0),
            "unsqueeze_": lambda v: v.unsqueeze_(0),
        }
        for name, fn in inplace_views.items():
            for kind in ("normal", "multi_view"):
                for view_mode in (True, False):
                    for iview_mode in (True, False):
                        base = lib.ones(2, 3, requires_grad=True).clone()
                        with lib.set_grad_enabled(view_mode):
                            inp = base.unbind()[0] if kind == "multi_view" else base.view_as(base)
                        label = f"{name} {kind} {view_mode} {iview_mode}"
                        with lib.set_grad_enabled(iview_mode):
                            first = error_of(lambda fn=fn, inp=inp: fn(inp))
                        note(label, first)
                        if first is None:
                            note(label + " add_", error_of(lambda inp=inp: inp.add_(1)))

    parity(script)


def test_autograd_inplace_view_of_view(parity):
    def script(lib, note):
        for mode in ("no_grad", "inference_mode"):
            x = lib.zeros(2)
            with getattr(lib, mode)():
                y = x.view(2)
            y.requires_grad_(True)
            z = y.view(2)

            def divide(z=z):
                z /= 2

            note(mode, error_of(divide))

    parity(script)


def test_out_variant_raises_when_inputs_require_grad(parity):
    def script(lib, note):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = lib.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
        x = lib.zeros_like(a)
        note("inputs require grad", error_of(lambda: lib.mul(a, b, out=x)))
        with lib.no_grad():
            lib.mul(a, b, out=x)
        note("x", x)
        x = lib.zeros(2, 2, requires_grad=True)
        note("out requires grad", error_of(lambda: lib.mul(a.detach(), b.detach(), out=x)))
        y = lib.zeros(2, 2)
        note("returns out", lib.mul(a.detach(), b.detach(), out=y) is y)
        note("sin out", lib.sin(a.detach(), out=y))

    parity(script)


def test_inplace_on_view_saved_output(parity):
    def script(lib, note):
        root = square(lib, 3)
        copy = root.clone()
        view = copy.view(9)
        lib.nn.functional.relu(view, inplace=True)
        copy.sum().backward()
        note("root.grad", plain(root.grad))

    parity(script)


def test_inplace_on_view_leaf_errors(parity):
    def script(lib, note):
        x = lib.zeros(1, requires_grad=True)
        y = x.view_as(x)
        note("add_", error_of(lambda: y.add_(1)))

    parity(script)


def test_inplace_on_view_weak_grad_fn(parity):
    def script(lib, note):
        a = (lib.arange(10.0) - 4).requires_grad_()
        b = a.narrow(0, 0, 2).clone().view(-1)
        b.relu_()
        c = b.clone()
        del b
        s = c.sum()
        s.backward()
        note("s", s)
        note("a.grad", plain(a.grad))
        a = lib.ones(10, requires_grad=True).narrow(0, 0, 10)
        note("relu_ of a leaf's view", error_of(a.relu_))

    parity(script)


def test_inplace_on_view_backprop_base(parity):
    def script(lib, note):
        root = square(lib, 2)
        x = root.clone()
        x.narrow(0, 0, 1).mul_(2)
        x.sum().backward()
        note("root.grad", plain(root.grad))

    parity(script)


def test_inplace_on_view_backprop_view_of_view(parity):
    def script(lib, note):
        root = square(lib, 2)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v2 = x.narrow(0, 0, 1)
        v1.mul_(2)
        v2.sum().backward()
        note("root.grad", plain(root.grad))

    parity(script)


def test_inplace_on_view_of_view(parity):
    def script(lib, note):
        root = square(lib, 2)
        x = root.clone()
        x.narrow(0, 0, 1).narrow(1, 1, 1).mul_(2)
        x.sum().backward()
        note("root.grad", plain(root.grad))
        note("x", plain(x))  # (CopySlices' edges differ on purpose: see tests/parity/README.md)

    parity(script)


def test_inplace_on_view_then_no_grad(parity):
    def script(lib, note):
        a = lib.ones(3, 1, dtype=lib.double, requires_grad=True)
        b = a * 2
        c = b.view_as(b)
        c[0][0] = 3
        with lib.no_grad():
            note("grad_fn under no_grad", c.grad_fn.name())
        c.sum().backward()
        note("a.grad", plain(a.grad))

    parity(script)


def test_inplace_on_view_gradcheck(parity):
    def script(lib, note):
        a = square(lib).double().detach().requires_grad_()
        b = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.double, requires_grad=True)

        def func(root, b):
            x = root.clone()
            x.narrow(1, 2, 2).narrow(0, 1, 2).mul_(b)
            x.narrow(1, 0, 2).narrow(0, 1, 2).mul_(b)
            return x

        note("gradcheck", lib.autograd.gradcheck(func, [a, b]))
        go = lib.ones(4, 4, dtype=lib.double, requires_grad=True)
        note("gradgradcheck", lib.autograd.gradgradcheck(func, (a, b), (go,)))

    parity(script)


def test_inplace_on_view_multiple_outputs(parity):
    def script(lib, note):
        root = lib.arange(9.0, dtype=lib.double).reshape(3, 3).requires_grad_()
        x = root.clone()
        v1 = x.unbind()
        note("mul_", error_of(lambda: v1[0].mul_(2)))

    parity(script)


def test_inplace_on_view_of_multiple_output_view(parity):
    def script(lib, note):
        a = lib.arange(10.0, dtype=lib.double).requires_grad_().clone()
        c = a.unbind(0)[0].view_as(a.unbind(0)[0])
        note("mul_", error_of(lambda: c.mul_(2)))

    parity(script)


def test_inplace_multiple_output_view_of_view(parity):
    def script(lib, note):
        a = lib.arange(10.0, dtype=lib.double).requires_grad_().clone()
        c = a.view_as(a).unbind(0)
        note("mul_", error_of(lambda: c[0].mul_(2)))

    parity(script)


def test_inplace_on_view_makes_base_require_grad(parity):
    def script(lib, note):
        a = square(lib, requires_grad=False).double()
        b = lib.arange(8.0, dtype=lib.double).reshape(4, 2).requires_grad_()

        def func(root, b):
            x = root.clone()
            flags.append(x.requires_grad)
            x.narrow(1, 2, 2).mul_(b)
            flags.append(x.requires_grad)
            return x

        flags = []
        func(a, b)
        note("before and after", flags)

        note("gradcheck", lib.autograd.gradcheck(func, [a, b]))
        go = lib.ones(4, 4, dtype=lib.double)
        note("gradgradcheck", lib.autograd.gradgradcheck(func, (a, b), (go,)))

    parity(script)


def test_inplace_on_view_backprop_view(parity):
    def script(lib, note):
        a = lib.tensor([2.0, 5.0])
        b = lib.tensor([3.0], requires_grad=True)
        res = a.narrow(0, 1, 1).mul_(b)
        res.sum().backward()
        note("grads", [plain(b.grad), a.grad])
        note("res", res)

    parity(script)


def test_inplace_on_view_modify_base(parity):
    def script(lib, note):
        r = lib.ones(1, dtype=lib.double, requires_grad=True)

        def fn(r):
            x = lib.ones(5, dtype=lib.double)
            v = x.select(0, 1)
            flags.append([v.requires_grad, v.grad_fn is None])
            x.add_(r)
            flags.append(v.requires_grad)
            return v

        flags = []
        fn(r)
        note("v before and after", flags)

        note("gradcheck", lib.autograd.gradcheck(fn, [r]))
        note("gradgradcheck", lib.autograd.gradgradcheck(fn, [r]))

    parity(script)


def test_inplace_on_view_non_contig(parity):
    def script(lib, note):
        root = lib.ones(2, 3, 2).select(2, 1).t().requires_grad_(True)
        x = root.clone()
        x.narrow(0, 0, 1).narrow(1, 1, 1).mul_(2)
        x.sum().backward()
        note("root.grad", plain(root.grad))

    parity(script)


def test_inplace_on_view_multi_output_safe(parity):
    def script(lib, note):
        for name, f in (
            ("split", lambda t: t.split(1)),
            ("split_with_sizes", lambda t: t.split_with_sizes((1, 1, 1))),
            ("chunk", lambda t: t.chunk(3)),
        ):
            a = square(lib, 3)
            s1, s2, s3 = f(a + a)
            note(name, error_of(lambda s1=s1, s2=s2: s1.mul_(s2)))

    parity(script)
