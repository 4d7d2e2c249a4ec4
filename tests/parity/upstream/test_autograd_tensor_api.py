"""The tensor API around autograd, from test_autograd.py: indexing and its gradients, gradients
given as expanded tensors, dtype conversions, numpy interop, integer outputs, printing,
Python scalars, which dtypes can require grad, and assigning .grad."""

from __future__ import annotations

import numpy as np
import pytest

from ..conftest import error_of, plain

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def check_index(lib, note, x, y, index):
    if y.grad is not None:
        with lib.no_grad():
            y.grad.zero_()
    note(f"{index!r} values", x[index])
    y[index].sum().backward()
    note(f"{index!r} grad", plain(y.grad))


def test_indexing(parity):
    def script(lib, note):
        x = lib.arange(1.0, 17).view(4, 4)
        y = lib.autograd.Variable(x, requires_grad=True)
        for index in (
            1,
            (1, 1),
            slice(1, None),
            slice(None, 2),
            (slice(None, 2), 2),
            (slice(1, 2), 2),
            (1, slice(2, None)),
            (slice(None, None), slice(2, None)),
            lib.tensor([0, 2]),
            (Ellipsis, slice(2, None)),
            ([0], [0]),
            ([1, 2, 3], [0]),
            ([1, 2], [2, 1]),
            ([[1, 2], [3, 0]], [[0, 1], [2, 3]]),
            (slice(None), [2, 3]),
            ([2, 3], slice(None)),
            [0],
            ([0],),
        ):
            check_index(lib, note, x, y, index)
        mask = (lib.arange(16).reshape(4, 4) % 3) == 1
        check_index(lib, note, x, y, mask)
        x = lib.arange(1.0, 49).view(4, 3, 4)
        y = lib.autograd.Variable(x, requires_grad=True)
        for index in (
            (slice(None), [0], [0]),
            ([0], [0], slice(None)),
            (slice(None), [0, 1, 2], [0]),
            (slice(None), [1, 2], [2, 1]),
            ([[1, 2], [3, 0]], [[0, 1], [2, 2]], slice(None)),
            (slice(None), slice(None), [2, 1]),
            ([0], Ellipsis),
            ([1, 2], [0, 1], Ellipsis),
            (Ellipsis, [1, 2], [0, 1]),
            (lib.tensor([0, 1]), Ellipsis),
        ):
            check_index(lib, note, x, y, index)

    parity(script)


def test_indexing_duplicates(parity):
    def script(lib, note):
        for shape, index in (
            ((4, 4), lib.tensor([1, 1, 3, 2, 1, 2])),
            ((4, 4), ([1, 1, 3, 2, 1, 2], [0])),
            ((4, 4), ([[1, 2], [0, 0]], [[0, 1], [1, 1]])),
            ((4, 4, 4), ([1, 1, 1], slice(None), slice(None))),
        ):
            n = 1
            for size in shape:
                n *= size
            y = lib.arange(1.0, n + 1).view(*shape).requires_grad_()
            y[index].sum().backward()
            note(f"{shape}", plain(y.grad))

    parity(script)


def test_diagonal_expanded_v(parity):
    def script(lib, note):
        v_expanded = lib.tensor(0.25).expand(4)
        a = lib.ones(4, 4, dtype=lib.double, requires_grad=True)
        (result,) = lib.autograd.grad(a.diagonal(), a, v_expanded)
        note("result", result)

    parity(script)


def test_select_expanded_v(parity):
    def script(lib, note):
        v_expanded = lib.arange(4.0).expand(4, 4)
        a = lib.ones(4, 4, 4, requires_grad=True)
        (result,) = lib.autograd.grad(a[0], a, v_expanded)
        note("result", result)

    parity(script)


def test_slice_expanded_v(parity):
    def script(lib, note):
        v_expanded = lib.arange(4.0).reshape(4, 1).expand(2, 4, 4)
        a = lib.ones(4, 4, 4, requires_grad=True)
        (result,) = lib.autograd.grad(a[1:3], a, v_expanded)
        note("result", result)

    parity(script)


def test_type_conversions(parity):
    def script(lib, note):
        x = lib.tensor([[1.5, -2.0], [3.25, 0.5]])
        note("float", x.float())
        note("int", x.int())
        for dtype in (lib.double, lib.float32, lib.int32, lib.uint8):
            y = lib.ones(2, 2, dtype=dtype)
            name = str(dtype).split(".")[-1]
            note(f"type({name})", x.type(dtype))
            note("type_as", x.type_as(y))
            note("type name", y.type().split(".")[-1])
            note("by name", x.type(y.type()).dtype == dtype)
            note("same dtype is the tensor itself", y.type(dtype) is y)
        for dtype in (lib.float32, lib.double):
            var = lib.ones(2, 2, dtype=dtype, requires_grad=True)
            other = lib.double if dtype == lib.float32 else lib.float32
            var.to(other).sum().backward()
            note(f"grad {str(dtype).split('.')[-1]}", plain(var.grad))

    parity(script)


def test_shape(parity):
    def script(lib, note):
        x = lib.ones(3, 4)
        note("shape", [len(x.shape), x.shape[0], x.shape[1]])

    parity(script)


def test_numpy_requires_grad(parity):
    def script(lib, note):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        note("numpy()", error_of(x.numpy))
        note("np.asarray", error_of(lambda: np.asarray(x)))
        note("np.exp", error_of(lambda: np.exp(x)))
        with lib.no_grad():
            note("under no_grad", x.numpy())
        y = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        note("no grad: numpy()", y.numpy())
        note("np.asarray", np.asarray(y))
        note("np.exp gives a tensor", np.exp(y))
        note("np.greater gives uint8", np.greater(y, 2.0))

    parity(script)


def test_pow_zero_tensor_gradient(parity):
    def script(lib, note):
        for size, exponent in (((10,), lib.zeros(10)), ((3, 3), lib.zeros(3, 3)), ((10,), 0)):
            inp = lib.zeros(*size, requires_grad=True)
            inp.pow(exponent).sum().backward()
            note(f"{size}", plain(inp.grad))

    parity(script)


def test_power_function(parity):
    def script(lib, note):
        a = lib.tensor([0.0, 0.0, 0.0])
        b = lib.tensor([-1.0, 0.0, 1.0], requires_grad=True)
        lib.sum(a**b).backward()
        note("tensor base", plain(b.grad))
        b = lib.tensor([-1.0, 0.0, 1.0], requires_grad=True)
        lib.sum(0**b).backward()
        note("number base", plain(b.grad))
        note("inf", lib.inf)

    parity(script)


def test_integer_outputs(parity):
    def script(lib, note):
        inp = lib.tensor([0.5, -1.0, 2.0, 0.25], requires_grad=True)
        for name in ("argmax", "argmin"):
            out = getattr(inp, name)()
            note(name, [out.dtype.is_floating_point, out.requires_grad])
        values, indices = inp.max(0)
        note("max indices", indices)
        note("max values", values)

    parity(script)


def test_autograd_print_tensor(parity):
    def script(lib, note):
        a = lib.ones(1, requires_grad=True)
        note("leaf", repr(a).replace("torch", "lib").replace("minigrad", "lib"))
        note("clone", repr(a.clone()))
        with lib.no_grad():
            b = a[:]
            b *= 2
        note("view modified in no_grad", repr(b))

    parity(script)


def test_min_max_median_backprops_to_all_values(parity):
    def script(lib, note):  # (median and nanmedian are not in minigrad)
        for name in ("min", "max"):
            x = lib.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], requires_grad=True)
            getattr(lib, name)(x).backward()
            note(name, plain(x.grad))

    parity(script)


def test_pyscalar_conversions(parity):
    def script(lib, note):
        long = lib.zeros(1, 1, 1, dtype=lib.long)
        long[0] = -12345
        note("int", int(long))
        f = lib.zeros(1, 1, dtype=lib.double)
        f[0] = -12345.1
        note("float", float(f))
        for value in (float("nan"), float("inf"), -float("inf")):
            f[0] = value
            note(f"float({value})", str(float(f)))
            note(f"int({value})", error_of(lambda: int(f[0])))
        long[0] = 1234567890123456789
        note("long to float", float(long))
        for tensor, value in ((long, 0), (long, -2), (f, 0.0), (f, 1e-300)):
            tensor[0] = value
            note(f"bool {value}", bool(tensor))

    parity(script)


def test_set_requires_grad_only_for_floats(parity):
    def script(lib, note):
        for dtype in (lib.float32, lib.double, lib.int8, lib.int16, lib.int32, lib.int64):
            name = str(dtype).split(".")[-1]
            a = lib.ones(1, dtype=dtype)
            a.requires_grad = False
            a.requires_grad_(False)

            def attribute(dtype=dtype):
                lib.ones(1, dtype=dtype).requires_grad = True

            note(
                f"{name} requires_grad_",
                error_of(lambda dtype=dtype: lib.ones(1, dtype=dtype).requires_grad_()),
            )
            note(f"{name} attribute", error_of(attribute))
            note(
                f"{name} factory",
                error_of(lambda dtype=dtype: lib.ones(1, dtype=dtype, requires_grad=True)),
            )

    parity(script)


def test_grad_assignment(parity):
    def script(lib, note):
        x = lib.ones(3, 3)
        note("a number", error_of(lambda: setattr(x, "grad", 0)))
        note("wrong shape", error_of(lambda: setattr(x, "grad", lib.ones(2, 2)))[0])
        note("wrong dtype", error_of(lambda: setattr(x, "grad", lib.ones(3, 3, dtype=lib.long)))[0])
        note("itself", error_of(lambda: setattr(x, "grad", x))[0])
        x.grad = lib.zeros(3, 3)
        note("fine", plain(x.grad))

    parity(script)


def test_requires_grad_factory(parity):
    def script(lib, note):
        x = lib.ones(2, 3, dtype=lib.double)
        for fn in (lib.ones_like, lib.randn_like):
            for requires_grad in (True, False):
                out = fn(x, dtype=lib.double, device="cpu", requires_grad=requires_grad)
                note(f"{requires_grad}", [out.requires_grad, out.dtype == lib.double])
        note("device", str(x.device))

    parity(script)
