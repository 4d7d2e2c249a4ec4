"""gradcheck and gradgradcheck, from test_autograd.py: what they accept, what they report (the
exception type and the start of the message: the rest prints the Jacobians), with fast_mode
on and off, and the small ops whose tests upstream are written as gradchecks."""

# ruff: noqa: B023 - every lambda here is called at once, inside its loop step

from __future__ import annotations

import pytest

from ..conftest import error_of, warnings_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def outcome(action, length=48):
    """What `action` did: its result, or the exception type and the start of its message."""
    try:
        return action()
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        return type(error).__name__, str(error).replace("torch.", "minigrad.")[:length]


def doubles(lib, *shape, start=0.5):
    """A float64 leaf of `shape` with distinct values."""
    n = 1
    for size in shape:
        n *= size
    return (lib.arange(float(n), dtype=lib.double).reshape(shape) / 5 + start).requires_grad_()


def adds_to_grad(lib):
    """A function whose backward is off by 1e-2 (a hook adds it to every gradient)."""

    def fn(x):
        y = x.clone()
        y.register_hook(lambda g: g + 1e-2)
        return y

    return fn


def test_unrelated_inputs(parity):
    def script(lib, note):
        x, y = doubles(lib, 10), doubles(lib, 10, start=1.0)
        note("gradcheck", lib.autograd.gradcheck(lambda a, b: a * a, (x, y)))
        note("gradgradcheck", lib.autograd.gradgradcheck(lambda a, b: a * a, (x, y)))

    parity(script)


def test_gradcheck_single_input(parity):
    def script(lib, note):
        for fast_mode in (True, False):
            x = doubles(lib, 10)
            note(f"{fast_mode}", lib.autograd.gradcheck(lambda t: t.mul(5), x, fast_mode=fast_mode))
            note(
                f"{fast_mode} gradgrad",
                lib.autograd.gradgradcheck(lambda t: t.mul(5), x, fast_mode=fast_mode),
            )

    parity(script)


def test_gradcheck_nondeterministic(parity):
    def script(lib, note):
        class NonDet(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, jitter=0.0):
                ctx.jitter = jitter
                return x

            @staticmethod
            def backward(ctx, grad):
                sign = (-1) ** next(calls)  # each backward a little different from the last
                return NonDet.apply(grad, ctx.jitter) * (1 + sign * ctx.jitter), None

        def counter():
            n = 0
            while True:
                n += 1
                yield n

        calls = counter()
        check, checkgrad = lib.autograd.gradcheck, lib.autograd.gradgradcheck
        for fast_mode in (True, False):
            x = doubles(lib, 3, 3)
            note("exact", check(lambda t: NonDet.apply(t, 0.0), x, fast_mode=fast_mode))
            note(
                "jitter",
                outcome(lambda: check(lambda t: NonDet.apply(t, 1e-6), x, fast_mode=fast_mode)),
            )
            note(
                "gradgrad jitter",
                outcome(
                    lambda: checkgrad(lambda t: NonDet.apply(t, 1e-12), x, fast_mode=fast_mode)
                ),
            )
            note(
                "tolerated",
                check(lambda t: NonDet.apply(t, 1e-6), x, nondet_tol=1e-3, fast_mode=fast_mode),
            )

    parity(script)


def test_gradcheck_validates_inputs(parity):
    def script(lib, note):  # (the dense checks; the sparse ones are out of scope)
        for fast_mode in (True, False):
            x = lib.ones(10)
            note(
                "none requires grad",
                outcome(lambda: lib.autograd.gradcheck(lambda t: t, (x,), fast_mode=fast_mode)),
            )
            x = lib.ones(1, dtype=lib.float32, requires_grad=True)
            note(
                "float32 warns",
                warnings_of(lambda: lib.autograd.gradcheck(lambda t: t, (x,), atol=1e-1)),
            )
            x = lib.ones(1, dtype=lib.float64, requires_grad=True).expand((2, 2))
            note(
                "stride 0",
                outcome(
                    lambda: lib.autograd.gradcheck(
                        lambda t: t, (x,), raise_exception=False, fast_mode=fast_mode
                    )
                ),
            )

    parity(script)


def test_gradcheck_check_no_differentiable_outputs(parity):
    def script(lib, note):
        for fast_mode in (True, False):
            x = lib.ones(1, dtype=lib.double, requires_grad=True)

            def rebuild(t):
                return lib.tensor([t.item()], dtype=lib.double)

            note("raises", outcome(lambda: lib.autograd.gradcheck(rebuild, x)))
            note(
                "returns",
                lib.autograd.gradcheck(rebuild, x, raise_exception=False, fast_mode=fast_mode),
            )
            note("no outputs", lib.autograd.gradcheck(lambda t: (), (x,), fast_mode=fast_mode))

    parity(script)


def test_gradcheck_backward_mul_by_grad_output(parity):
    def script(lib, note):  # (the dense case; the sparse ones are out of scope)
        for fast_mode in (True, False):
            x = lib.ones(1, dtype=lib.double, requires_grad=True)
            fn = adds_to_grad(lib)
            note(
                "raises",
                outcome(lambda: lib.autograd.gradcheck(fn, (x,), atol=1e-1, fast_mode=fast_mode)),
            )
            note(
                "returns",
                lib.autograd.gradcheck(
                    fn, (x,), atol=1e-1, raise_exception=False, fast_mode=fast_mode
                ),
            )

    parity(script)


def test_gradcheck_jacobian_mismatch(parity):
    def script(lib, note):  # (the real cases; complex ones are out of scope)
        for fast_mode in (True, False):
            x = lib.ones(2, 2, requires_grad=True)
            fn = adds_to_grad(lib)
            note("raises", outcome(lambda: lib.autograd.gradcheck(fn, (x,), fast_mode=fast_mode)))
            note(
                "returns",
                lib.autograd.gradcheck(fn, (x,), raise_exception=False, fast_mode=fast_mode),
            )

    parity(script)


def test_gradcheck_output_shape_or_dtype_depend_on_values(parity):
    def script(lib, note):
        for fast_mode in (True, False):
            a = lib.ones(1, dtype=lib.double, requires_grad=True)

            def grows(t):
                return lib.cat([t, t]) if bool((t >= 1).all()) else t

            def narrows(t):
                return t.to(lib.float32) if bool((t >= 1).all()) else t

            for label, fn in (("shape", grows), ("dtype", narrows)):
                call = lambda fn=fn: lib.autograd.gradcheck(fn, (a,), fast_mode=fast_mode)  # noqa: E731
                note(label, outcome(call, length=80))

    parity(script)


def test_gradcheck_custom_error(parity):
    def script(lib, note):
        for fast_mode in (True, False):
            x = lib.ones(2, 2, requires_grad=True)
            fn = adds_to_grad(lib)
            try:
                lib.autograd.gradcheck(fn, (x,), fast_mode=fast_mode)
            except RuntimeError as error:  # (GradcheckError is a RuntimeError)
                note("raised", type(error).__name__)
            note(
                "returns",
                lib.autograd.gradcheck(fn, (x,), raise_exception=False, fast_mode=fast_mode),
            )

            def broken(t):
                raise RuntimeError("Not a GradcheckError!")

            note(
                "other errors pass through",
                error_of(
                    lambda: lib.autograd.gradcheck(
                        broken, (x,), fast_mode=fast_mode, raise_exception=False
                    )
                ),
            )

    parity(script)


def test_select_sum(parity):
    def script(lib, note):
        x = doubles(lib, 10)
        note("gradcheck", lib.autograd.gradcheck(lambda t: t.select(0, 1).sum(), [x]))
        note("gradgradcheck", lib.autograd.gradgradcheck(lambda t: t.select(0, 1).sum(), [x]))

    parity(script)


def test_mv_grad_stride_0(parity):
    def script(lib, note):
        mat = lib.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=lib.double)
        vec = lib.tensor([0.5], dtype=lib.double, requires_grad=True)

        def fn(v):
            return (mat @ v.expand(2)).sum()

        note("gradcheck", lib.autograd.gradcheck(fn, (vec,)))
        note("gradgradcheck", lib.autograd.gradgradcheck(fn, (vec,)))

    parity(script)


def test_where_functional(parity):
    def script(lib, note):
        x, y = doubles(lib, 3, 3), doubles(lib, 3, 3, start=-1.0)
        cond = (lib.arange(9).reshape(3, 3) % 2) == 0

        def where(c, a, b):
            return lib.where(c, a, b)

        note("gradcheck", lib.autograd.gradcheck(where, [cond, x, y]))
        note("gradgradcheck", lib.autograd.gradgradcheck(where, [cond, x, y], [lib.ones(3, 3)]))
        x, y = doubles(lib, 3, 1, 3), doubles(lib, 3, 3, 1)
        note("broadcast", lib.autograd.gradcheck(where, [cond, x, y]))
        note(
            "broadcast gradgrad",
            lib.autograd.gradgradcheck(where, [cond, x, y], [lib.ones(3, 3, 3)]),
        )

    parity(script)


def test_where_scalar(parity):
    def script(lib, note):
        x = doubles(lib, 3, 3)
        cond = (lib.arange(9).reshape(3, 3) % 3) == 0
        first = lambda c, t: lib.where(c, 4.0, t)  # noqa: E731
        second = lambda c, t: lib.where(c, t, 4.0)  # noqa: E731
        for label, fn in (("scalar first", first), ("scalar second", second)):
            note(label, lib.autograd.gradcheck(fn, (cond, x)))
            note(label + " gradgrad", lib.autograd.gradgradcheck(fn, (cond, x)))

    parity(script)
