"""Parity: the same small scripts run with torch and with minigrad must agree.

Each script is written once against the common API (`lib` is `torch` or `minigrad`) and notes
values, flags (requires_grad, is_leaf, grad_fn name, next_functions names with their None slots,
_version), `_base` identity, shared memory, warnings, and errors (type and first sentence).
Between them the scripts cover every row of docs/cheatsheet.md, the behaviour notebooks 01-06
teach, and the grad_fn names the course uses.

Known, deliberate differences are left out, each with a comment where it would be compared:
- the text after the first sentence of error messages (torch's hints mention its C++ internals).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pytest

from .conftest import error_of, next_names, node_name, plain, warnings_of

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.parity


def shares(x: Any, y: Any) -> bool:
    """True when two tensors look at the same memory."""
    return bool(np.shares_memory(x.detach().numpy(), y.detach().numpy()))


# ---- the cheat sheet, row by row -------------------------------------------------------------


def detach_shares_memory_and_version(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    note("c", c)
    note("same object", c is out)
    note("shares memory", shares(c, out))
    c.zero_()
    note("out version after c.zero_()", out._version)
    note("out sees the zeros", out)
    note("backward error", error_of(lambda: out.sum().backward()))


def data_has_fresh_version_counter(lib, note):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.data
    note("d", d)
    note("shares memory", shares(d, x))
    d.mul_(2)
    note("x", x)
    note("x version", x._version)
    note("d version", d._version)


def data_zero_gives_silently_wrong_grad(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.data.zero_()
    out.sum().backward()
    note("a.grad", plain(a.grad))


def data_mul_on_saved_input(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * a
    a.data.mul_(2)
    b.sum().backward()
    note("a.grad", plain(a.grad))
    note("a version", a._version)


def data_setter(lib, note):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    same = x
    x.data = lib.tensor([[5.0, 6.0], [7.0, 8.0]])
    note("same object", same is x)
    note("x", x)
    note("int data error", error_of(lambda: setattr(x, "data", lib.tensor([1, 2]))))
    y = lib.tensor([1.0, 2.0])
    y.data = lib.tensor([1, 2])  # allowed when y does not require grad
    note("y", y)


def backward_on_detached(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.sigmoid().detach()
    note("error", error_of(lambda: c.sum().backward()))
    note("a.grad", a.grad is None)


def detached_becomes_new_leaf(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    c.requires_grad_(True)
    note("c", c)
    (c * c).sum().backward()
    note("c.grad", plain(c.grad))
    note("a.grad is None", a.grad is None)


def detach_inplace_on_leaf_object(lib, note):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    x = a * 3
    returned = x.detach_()
    note("same object", returned is x)
    note("x", x)


def detach_inplace_keeps_earlier_edges(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = 2 * a
    c = b.sum()
    b.detach_()
    note("b", b)
    c.backward()
    note("a.grad", plain(a.grad))


def detach_inplace_on_used_leaf(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (a * 2).sum()
    a.detach_()
    note("a", a)
    note("backward error", error_of(y.backward))
    note("a.grad is None", a.grad is None)


def detach_inplace_on_view(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    note("error", error_of(lambda: (a * 2)[1:].detach_()))
    note("leaf view error", error_of(lambda: a[1:].detach_()))


def views_share_memory_and_version(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = a * 1
    v = b[1:]
    w = b.view(2, 2)
    note("v", v)
    note("w", w)
    note("v._base is b", v._base is b)
    note("w._base is b", w._base is b)
    note("b._base", b._base is None)
    note("shares", shares(v, b))
    vv = v[1:]
    note("view of a view has the root base", vv._base is b)
    v.mul_(10)
    note("b version", b._version)
    note("b", b)  # CopySlices, with torch's edges
    note("b values", plain(b))
    note("v after", v)
    b.sum().backward()
    note("a.grad", plain(a.grad))


def numpy_refuses_requires_grad(lib, note):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    note("error", error_of(x.numpy))
    array = x.detach().numpy()
    array[0] = 100.0
    note("x changed", x)
    note("non-leaf", error_of((x * 2).numpy))


def inplace_on_leaf(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    note("add_", error_of(lambda: a.add_(1)))
    note("+=", error_of(lambda: a.__iadd__(1)))
    note("view of leaf", error_of(lambda: a[1:].mul_(2)))
    note("version unchanged", a._version)
    with lib.no_grad():
        a.add_(1)
    note("a", a)
    note("version after no_grad add_", a._version)


def inplace_under_no_grad_on_saved_leaf(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * a
    with lib.no_grad():
        a.mul_(2)
    note("error", error_of(lambda: b.sum().backward()))


def requires_grad_false_on_non_leaf(lib, note):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    note("error", error_of(lambda: b.requires_grad_(False)))
    note("true is fine", error_of(lambda: b.requires_grad_(True)))
    note("leaf", a.requires_grad_(False))


def second_backward(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (a * a).sum()
    y.backward()
    note("error", error_of(y.backward))
    y2 = (a.sigmoid() * 3).sum()
    y2.backward(retain_graph=True)
    y2.backward()
    note("accumulated", plain(a.grad))
    # nodes that saved nothing can be walked again (torch checks saved tensors only)
    z = (a + 1).sum()
    z.backward()
    note("no saved tensors", error_of(z.backward))


def non_scalar_backward(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a * 2
    note("error", error_of(y.backward))
    y.backward(lib.tensor([1.0, 0.5, 0.25]))
    note("a.grad", plain(a.grad))
    z = a * 2
    note("shape mismatch", error_of(lambda: z.backward(lib.tensor([1.0, 2.0]))))


def integer_requires_grad(lib, note):
    note("tensor()", error_of(lambda: lib.tensor([1, 2, 3], requires_grad=True)))
    note("requires_grad_", error_of(lambda: lib.tensor([1, 2, 3]).requires_grad_()))
    note("bool", error_of(lambda: lib.tensor([True]).requires_grad_()))
    note("backward", error_of(lambda: lib.tensor([1, 2]).sum().backward()))


def non_leaf_grad_warns(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    c = a * 3
    c.retain_grad()
    (b + c).sum().backward()
    note("warning", warnings_of(lambda: b.grad))
    note("b.grad", warnings_of(lambda: b.grad is None))
    note("retained, no warning", warnings_of(lambda: c.grad))
    note("c.grad", plain(c.grad))
    note("leaf, no warning", warnings_of(lambda: a.grad))


def retain_grad_follows_inplace_changes(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    b.retain_grad()
    c = b * 5  # uses b before the change
    b.add_(1)
    (b * 3 + c).sum().backward()
    note("b.grad", plain(b.grad))
    note("a.grad", plain(a.grad))


def gradients_accumulate(lib, note):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    (a * 3).sum().backward()
    (a * a).sum().backward()
    note("a.grad", plain(a.grad))
    grad_before = a.grad
    (a * 1).sum().backward()
    note("same grad object", grad_before is a.grad)
    note("a.grad", plain(a.grad))


def clone_and_detach_clone(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    note("clone", c)
    note("clone shares", shares(c, a))
    d = a.detach().clone()
    note("detach clone", d)
    note("detach clone shares", shares(d, a))
    e = a.clone().detach()
    note("clone detach", e)
    (c * c).sum().backward()
    note("a.grad", plain(a.grad))


def no_grad_results(lib, note):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.no_grad():
        b = a * 2
        note("grad enabled inside", lib.is_grad_enabled())
        with lib.enable_grad():
            c = a * 2
    note("b", b)
    note("c", c)
    note("grad enabled after", lib.is_grad_enabled())


def grad_mode_forms(lib, note):
    a = lib.tensor([1.0], requires_grad=True)

    @lib.no_grad()
    def decorated(x):
        return x * 2

    note("decorator", decorated(a))
    note("mode after decorator", lib.is_grad_enabled())
    lib.set_grad_enabled(False)
    note("set_grad_enabled(False) call", lib.is_grad_enabled())
    note("op while off", a * 2)
    lib.set_grad_enabled(True)
    with lib.set_grad_enabled(False):
        note("in with", lib.is_grad_enabled())
    note("after with", lib.is_grad_enabled())

    @lib.set_grad_enabled(False)
    def decorated_off(x):
        return x * 2

    note("set_grad_enabled decorator does not leak", lib.is_grad_enabled())
    note("set_grad_enabled decorated", decorated_off(a))

    @lib.enable_grad()
    def decorated_on(x):
        return x * 2

    with lib.no_grad():
        note("enable_grad decorator inside no_grad", decorated_on(a))


def printing(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    for label, t in [
        ("sigmoid", out),
        ("leaf", a),
        ("sum", out.sum()),
        ("scalar", lib.tensor(6.0, requires_grad=True).sum()),
        ("int", lib.tensor([1, 2, 3])),
        ("2-d", lib.tensor([[1.0, 2.5], [3.0, 4.0]]) * 1),
        ("float64", lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)),
    ]:
        note(label, repr(t).replace("torch.", "minigrad."))


# ---- grad_fn names and next_functions ------------------------------------------------------


def grad_fn_names(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    k = lib.tensor([2.0, 3.0, 4.0])
    m = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    cases = {
        "add": a + k,
        "add number": a + 1,
        "radd": 1 + a,
        "sub": a - k,
        "rsub number": 1 - a,
        "rsub tensor": k - a,
        "mul": a * k,
        "rmul": 2 * a,
        "div": a / k,
        "rdiv number": 2 / a,
        "rdiv tensor": k / a,
        "neg": -a,
        "pow number": a**2,
        "pow tensor": a**k,
        "rpow number": 2**a,
        "sum": a.sum(),
        "sum dim": m.sum(0),
        "sum keepdim": m.sum(1, keepdim=True),
        "mean": a.mean(),
        "mean dim": m.mean(1),
        "max": a.max(),
        "max dim": m.max(1).values,
        "exp": a.exp(),
        "log": a.log(),
        "tanh": a.tanh(),
        "sigmoid": a.sigmoid(),
        "relu": a.relu(),
        "sqrt": a.sqrt(),
        "abs": a.abs(),
        "clamp": a.clamp(0, 2),
        "clamp min": a.clamp(min=2),
        "round": a.round(),
        "slice": a[1:],
        "select": a[0],
        "select 2d": m[:, 1],
        "select both": m[0, 1],
        "none index": a[None],
        "index list": a[[0, 2]],
        "index bool": a[a > 1],
        "view": a.view(3, 1),
        "reshape": a.reshape(1, 3),
        "reshape copy": m.t().reshape(6),
        "flatten": m.flatten(),
        "clone": a.clone(),
        "t": m.t(),
        "T": m.T,
        "transpose": m.transpose(0, 1),
        "permute": m.permute(1, 0),
        "unsqueeze": a.unsqueeze(0),
        "squeeze": a.unsqueeze(0).squeeze(),
        "squeeze dim": a.unsqueeze(0).squeeze(0),
        "expand": a.expand(2, 3),
        "mm": m @ m.t(),
        "mv": m @ a,
        "vm": a @ m.t(),
        "dot": a @ k,
        "double": a.double(),
        "cat": lib.cat([a, k]),
        "stack": lib.stack([a, k]),
        "matmul with constant": k @ m.t(),
    }
    for label, result in cases.items():
        note(label, result)
        if result.grad_fn is not None:
            for index, (node, _) in enumerate(result.grad_fn.next_functions):
                note(f"{label} next {index}", node_name(node))


def next_functions_none_slot(lib, note):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    c = a.sigmoid().detach()
    d = a * c
    note("d", d)
    e = c * a
    note("e", e)
    f = (a * c).sum()
    note("chain", [node_name(f.grad_fn), next_names(f.grad_fn)])
    note("accumulate variable", d.grad_fn.next_functions[0][0].variable is a)
    accumulators = d.grad_fn.next_functions[0][0], e.grad_fn.next_functions[1][0]
    note("one AccumulateGrad per leaf", accumulators[0] is accumulators[1])


def inplace_grad_fn_names(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    k = lib.tensor([1.0, 1.0, 1.0])

    def fresh():
        return a * 1

    for label, change in [
        ("add_", lambda t: t.add_(k)),
        ("add_ alpha", lambda t: t.add_(k, alpha=2)),
        ("sub_", lambda t: t.sub_(1)),
        ("mul_", lambda t: t.mul_(k)),
        ("div_", lambda t: t.div_(2)),
        ("zero_", lambda t: t.zero_()),
        ("fill_", lambda t: t.fill_(2)),
        ("clamp_", lambda t: t.clamp_(0, 2)),
        ("copy_", lambda t: t.copy_(a)),
        ("iadd", lambda t: t.__iadd__(1)),
        ("isub", lambda t: t.__isub__(a)),
        ("imul", lambda t: t.__imul__(a)),
        ("idiv", lambda t: t.__itruediv__(2)),
    ]:
        t = fresh()
        change(t)
        note(label, t)
        t.sum().backward()
        note(f"{label} a.grad", plain(a.grad))
        a.grad = None


def inplace_through_view(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    view = b[1:]
    view.mul_(2)
    note("base", b)  # CopySlices, with torch's edges
    note("base", b.detach())
    note("view values", view.detach())
    note("view version", view._version)
    b.sum().backward()
    note("a.grad", plain(a.grad))

    c = a * 1
    c[0] = 10.0
    note("setitem grad_fn", node_name(c.grad_fn))
    note("setitem values", c.detach())
    k = lib.tensor([7.0, 8.0], requires_grad=True)
    c[1:] = k
    (c * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    note("k.grad", plain(k.grad))
    d = a * 1
    d[[0, 2]] = k
    note("index_put", d)
    e = a * 1
    e[lib.tensor([True, False, True])] = 0.0
    note("mask put", e)


def base_changed_then_view_used(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    view = b[:2]
    b.mul_(3)
    note("view sees change", view.detach())
    note("view version", view._version)
    # torch regenerates the view's grad_fn lazily (AsStridedBackward0 over the new base)
    (view * view).sum().backward()
    note("a.grad", plain(a.grad))


def saved_output_modified_through_view(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.exp()
    out[0:1].detach().zero_()
    note("error", error_of(lambda: out.sum().backward()))
    b = a.tanh()
    b.detach()[1:].mul_(2)
    note("tanh error", error_of(lambda: b.sum().backward()))
    # a saved view is named "output 0 of AsStrided" (e.g. a weight's transpose in a product)
    w = lib.ones(3, 2, requires_grad=True)
    x = lib.ones(4, 2, requires_grad=True)
    y = (x @ w.t()).sum()
    with lib.no_grad():
        w.mul_(2)  # an optimizer step between forward and backward
    note("saved view error", error_of(y.backward))


# ---- other errors and broadcasting --------------------------------------------------------


def shape_errors(lib, note):
    m = lib.ones(2, 3)
    note("mm", error_of(lambda: m @ lib.ones(2, 3)))
    note("mv", error_of(lambda: m @ lib.ones(2)))
    note("dot", error_of(lambda: lib.ones(3) @ lib.ones(2)))
    note("broadcast", error_of(lambda: lib.ones(2, 3) + lib.ones(4)))
    note("view", error_of(lambda: m.t().view(6)))
    note("view size", error_of(lambda: m.view(4)))
    note("dtype mix mm", error_of(lambda: m @ lib.ones(3, 2, dtype=lib.float64)))
    note("index", error_of(lambda: lib.ones(3)[5]))
    note("dim", error_of(lambda: m.sum(2)))
    note("item", error_of(lambda: m.item()))
    note("bool", error_of(lambda: bool(m)))
    note("mean int", error_of(lambda: lib.tensor([1, 2]).mean()))
    note("clamp none", error_of(lambda: m.clamp()))
    note("inplace broadcast", error_of(lambda: lib.ones(3).add_(lib.ones(2, 3))))
    note("inplace float into int", error_of(lambda: lib.tensor([1, 2]).mul_(1.5)))
    note("matmul 0-d", error_of(lambda: lib.tensor(2.0) @ lib.ones(2)))


OPERATORS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "pow": operator.pow,
}


def broadcasting_grads(lib, note):
    shapes = [((2, 3), (3,)), ((2, 1), (1, 3)), ((3,), (2, 3)), ((), (2, 2)), ((4, 1, 3), (2, 1))]
    for left, right in shapes:
        for op in OPERATORS:
            x = (lib.arange(1, 1 + int(np.prod(left)), dtype=lib.float32) / 4).reshape(left)
            y = (lib.arange(1, 1 + int(np.prod(right)), dtype=lib.float32) / 3).reshape(right)
            x.requires_grad_()
            y.requires_grad_()
            out = OPERATORS[op](x, y)
            (out * out).sum().backward()
            note(f"{op} {left} {right}", [out, plain(x.grad), plain(y.grad)])


def integer_dtype_rules(lib, note):
    i = lib.tensor([1, 2, 3])
    f = lib.tensor([1.0, 2.0, 3.0])
    d = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    i32 = lib.tensor([1, 2, 3], dtype=lib.int32)
    b = lib.tensor([True, False, True])
    cases = {
        "int": i,
        "int + int": i + i,
        "int * 2": i * 2,
        "int * 1.5": i * 1.5,
        "int / int": i / i,
        "int / 2": i / 2,
        "int + float": i + f,
        "int + double": i + d,
        "float + double": f + d,
        "float * 2.5": f * 2.5,
        "double * 2.5": d * 2.5,
        "int32 + int32": i32 + i32,
        "int32 + int64": i32 + i,
        "int32 * 2": i32 * 2,
        "bool + bool": b + b,
        "bool + 1": b + 1,
        "bool * int": b * i,
        "int sum": i.sum(),
        "int32 sum": i32.sum(),
        "bool sum": b.sum(),
        "int ** 2": i**2,
        "int ** 0.5": i**0.5,
        "2 ** int": 2**i,
        "int exp": i.exp(),
        "int sigmoid": i.sigmoid(),
        "int neg": -i,
        "int max": i.max(),
        "int abs": i.abs(),
        "int comparison": i > 1,
        "arange int": lib.arange(3),
        "arange float": lib.arange(0.0, 1.0, 0.5),
        "zeros": lib.zeros(2),
        "int.float()": i.float(),
        "float.long()": lib.tensor([1.7, -1.7]).long(),
        "argmax": f.argmax(),
    }
    for label, value in cases.items():
        note(label, value)


def grad_function(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
    y = (a * b).sum()
    ga, gb = lib.autograd.grad(y, [a, b])
    note("grads", [plain(ga), plain(gb)])
    note(".grad untouched", a.grad is None)
    z = (a * 2).sum()
    note("unused", error_of(lambda: lib.autograd.grad(z, [a, b])))
    z2 = (a * 2).sum()
    note("allow_unused", lib.autograd.grad(z2, [a, b], allow_unused=True)[1] is None)
    w = a * a
    note("non-scalar with grad_outputs", plain(lib.autograd.grad(w, a, lib.ones(3))[0]))
    h = a.sigmoid()
    mid = h * 2
    note("non-leaf input", plain(lib.autograd.grad(mid.sum(), h)[0]))


def gradcheck_passes(lib, note):
    x = lib.tensor([[0.3, -0.2], [0.5, 1.1]], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([0.7, 1.3], dtype=lib.float64, requires_grad=True)
    note("gradcheck", lib.autograd.gradcheck(lambda p, q: (p * q).sigmoid() @ q, (x, y)))


def chain_of_views_and_version(lib, note):
    a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = a * 1
    r = b[0]
    c = r.unsqueeze(0).t()
    note("c._base is b", c._base is b)
    note("c", c)
    c.add_(1)
    note("b", b)  # CopySlices, with torch's edges
    note("b values", plain(b))
    note("c after", c)
    note("versions", [b._version, r._version, c._version])
    out = b.exp()
    out.sum().backward()
    note("a.grad", plain(a.grad))


def detach_version_shared_across_aliases(lib, note):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    c = b.detach()
    d = c.detach()
    e = b.data
    d.add_(1)
    note("versions after d.add_", [b._version, c._version, d._version, e._version])
    e.add_(1)
    note("versions after e.add_", [b._version, c._version, d._version, e._version])
    note("b", b)


def practical_patterns(lib, note):
    """Notebooks 07 and 08: the everyday uses of detach / no_grad, in plain tensors."""
    w = lib.tensor([0.5, -0.3], requires_grad=True)
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    # straight-through estimator: forward rounds, backward passes the gradient through
    h = x @ w
    q = h + (h.round() - h).detach()
    note("straight-through", q)
    q.sum().backward()
    note("w.grad through round", plain(w.grad))
    w.grad = None
    # loss accumulation: item() keeps no graph, += on a tensor keeps every graph
    total_item, total_tensor = 0.0, 0.0
    for row in x:
        loss = ((row * w).sum() - 1) ** 2
        total_item += loss.item()
        total_tensor = total_tensor + loss
    note("item total", total_item)
    note("tensor total", total_tensor)
    # truncated backprop through time: hidden.detach() cuts the history
    hidden = lib.zeros(2)
    for step in range(3):
        hidden = (hidden * 0.5 + w * (step + 1)).tanh()
        if step == 1:
            hidden = hidden.detach()
    note("hidden", hidden)
    hidden.sum().backward()
    note("w.grad after truncation", plain(w.grad))
    # EMA / target network update under no_grad
    target = lib.tensor([0.0, 0.0])
    with lib.no_grad():
        target.mul_(0.9).add_(w * 0.1)
    note("target", target)
    # freezing: requires_grad_(False) on a leaf, and a frozen input leaves a None slot
    frozen = lib.tensor([1.0, 1.0], requires_grad=True).requires_grad_(False)
    y = (frozen * w).sum()
    note("frozen slot", next_names(y.grad_fn.next_functions[0][0]))
    note("plot idiom", plain(lib.tensor(w.detach().cpu().numpy())))


def dims_indices_and_special_values(lib, note):
    """Negative dims, mixed indices, and the nan/inf results torch gives without warnings."""
    x = lib.tensor([[1.0, -2.0, 0.0], [3.0, 0.5, -1.0]], requires_grad=True)
    cases = {
        "sum dims": x.sum(dim=(0, 1)),
        "sum -1 keep": x.sum(-1, keepdim=True),
        "unsqueeze -1": x.unsqueeze(-1),
        "squeeze non1": x.squeeze(0),
        "expand -1": x[None].expand(2, -1, -1),
        "mixed index": x[None, ..., 1:],
        "mask": x[x > 0],
        "cat -1": lib.cat([x, x], dim=-1),
        "stack -1": lib.stack([x, x], dim=-1),
        "max -1": x.max(dim=-1).values,
        "clamp max": x.clamp(max=0.7),
        "pow 0": x**0,
        "sqrt neg": x.sqrt(),
        "log zero": x.log(),
        "div zero": x / lib.tensor([0.0, 1.0, 0.0]),
        "rdiv zero": 1 / x,
        "pow half": x**0.5,
        "int index": x[1, 2],
        "neg index": x[-1],
        "step slice": x[:, ::2],
        "t of 1d": x[0].t(),
        "abs": x.abs(),
        "relu": x.relu(),
    }
    for label, out in cases.items():
        note(label, out)
        backward = (out * 1).sum().backward
        note(label + " warnings", warnings_of(lambda step=backward: step(retain_graph=True)))
        note(label + " grad", plain(x.grad))
        x.grad = None


SCRIPTS = [
    dims_indices_and_special_values,
    practical_patterns,
    detach_shares_memory_and_version,
    data_has_fresh_version_counter,
    data_zero_gives_silently_wrong_grad,
    data_mul_on_saved_input,
    data_setter,
    backward_on_detached,
    detached_becomes_new_leaf,
    detach_inplace_on_leaf_object,
    detach_inplace_keeps_earlier_edges,
    detach_inplace_on_used_leaf,
    detach_inplace_on_view,
    views_share_memory_and_version,
    numpy_refuses_requires_grad,
    inplace_on_leaf,
    inplace_under_no_grad_on_saved_leaf,
    requires_grad_false_on_non_leaf,
    second_backward,
    non_scalar_backward,
    integer_requires_grad,
    non_leaf_grad_warns,
    retain_grad_follows_inplace_changes,
    gradients_accumulate,
    clone_and_detach_clone,
    no_grad_results,
    grad_mode_forms,
    printing,
    grad_fn_names,
    next_functions_none_slot,
    inplace_grad_fn_names,
    inplace_through_view,
    base_changed_then_view_used,
    saved_output_modified_through_view,
    shape_errors,
    broadcasting_grads,
    integer_dtype_rules,
    grad_function,
    gradcheck_passes,
    chain_of_views_and_version,
    detach_version_shared_across_aliases,
]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.__name__)
def test_same_as_torch(script, parity):
    parity(script)
