"""Grad modes and anomaly mode, from test_autograd.py: no_grad / enable_grad / set_grad_enabled
as context managers, as decorators with and without parentheses, around generators and
coroutines; anomaly detection's nan check and its warnings."""

from __future__ import annotations

import pytest

from ..conftest import error_of, plain, warnings_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def test_grad_mode_class_decoration(parity):
    def script(lib, note):
        def decorate_class():
            @lib.no_grad()
            class Decorated:
                def __init__(self) -> None:
                    note("grad in __init__", lib.is_grad_enabled())

                def method(self):
                    note("grad in method", lib.is_grad_enabled())

            Decorated().method()

        note("class decoration warns", warnings_of(decorate_class))

        def decorate_functions():
            @lib.no_grad()
            def function():
                note("grad in function", lib.is_grad_enabled())

            class Methods:
                @lib.no_grad()
                def method(self):
                    note("grad in decorated method", lib.is_grad_enabled())

            function()
            Methods().method()

        note("function decoration warns", warnings_of(decorate_functions))

    parity(script)


def test_no_grad(parity):
    def script(lib, note):
        x = lib.ones(5, 5, requires_grad=True)
        y = lib.ones(5, 5) * 4
        with lib.no_grad():
            w = x + y

        def adder(a, b):
            return a + b

        for label, decorated in (("called", lib.no_grad()(adder)), ("bare", lib.no_grad(adder))):
            z = decorated(x, y)
            note(f"{label}: z", z)
            note(f"{label}: z.backward", error_of(lambda z=z: z.backward(lib.ones(5, 5))))
        note("w", w)
        note("w.backward", error_of(lambda: w.backward(lib.ones(5, 5))))
        with lib.no_grad():
            inner = lib.no_grad(adder)(x, y)
            note("grad inside nested", lib.is_grad_enabled())
        note("inner", inner)

    parity(script)


def test_enable_grad_decorator_no_paren(parity):
    def script(lib, note):
        x = lib.ones(1, requires_grad=True)

        @lib.enable_grad
        def doubler(t):
            return t * 2

        with lib.no_grad():
            z = doubler(x)
        note("z", z)

        @lib.no_grad
        def halver(t):
            return t / 2

        note("halved", halver(x))

    parity(script)


def test_set_grad_generator_functions(parity):
    def script(lib, note):
        @lib.no_grad()
        def gen_no_grad():
            for i in range(3):
                note(f"no_grad generator step {i}", lib.is_grad_enabled())
                yield i

        with lib.enable_grad():
            for _ in gen_no_grad():
                note("caller", lib.is_grad_enabled())

        @lib.enable_grad()
        def gen_enable_grad():
            for i in range(3):
                note(f"enable_grad generator step {i}", lib.is_grad_enabled())
                yield i

        with lib.no_grad():
            for _ in gen_enable_grad():
                note("caller", lib.is_grad_enabled())

    parity(script)


def test_set_grad_generator_functions_recursive(parity):
    def script(lib, note):
        @lib.enable_grad()
        def enable_rec(depth):
            note("enable", lib.is_grad_enabled())
            if depth > 0:
                no_rec(depth - 1)
                note("enable after", lib.is_grad_enabled())

        @lib.no_grad()
        def no_rec(depth):
            note("no", lib.is_grad_enabled())
            if depth > 0:
                enable_rec(depth - 1)
                note("no after", lib.is_grad_enabled())

        def enable_ctx(depth):
            with lib.enable_grad():
                note("enable ctx", lib.is_grad_enabled())
                if depth > 0:
                    no_ctx(depth - 1)

        def no_ctx(depth):
            with lib.no_grad():
                note("no ctx", lib.is_grad_enabled())
                if depth > 0:
                    enable_ctx(depth - 1)

        for outer in (lib.enable_grad, lib.no_grad):
            with outer():
                enable_rec(4)
                note("outer after decorators", lib.is_grad_enabled())
                enable_ctx(4)
                note("outer after contexts", lib.is_grad_enabled())

    parity(script)


def test_set_grad_coroutines(parity):
    def script(lib, note):
        @lib.no_grad()
        def coro_no_grad(n=3):
            for i in range(n):
                note("inside no_grad coroutine", lib.is_grad_enabled())
                received = yield i
                note("received", received)

        @lib.enable_grad()
        def coro_enable_grad(n=3):
            for i in range(n):
                note("inside enable_grad coroutine", lib.is_grad_enabled())
                received = yield i
                note("received", received)

        for outer, coro in ((lib.enable_grad, coro_no_grad), (lib.no_grad, coro_enable_grad)):
            with outer():
                generator, value = coro(), None
                try:
                    while True:
                        value = generator.send(value)
                        note("outside", lib.is_grad_enabled())
                except StopIteration:
                    pass

    parity(script)


def test_set_grad_coroutines_benign_exceptions(parity):
    class Recoverable(Exception):
        pass

    def script(lib, note):
        def make(mode):
            @mode()
            def coro(n=4):
                raised = False
                for i in range(n):
                    try:
                        note("inside", lib.is_grad_enabled())
                        yield -i if raised else i
                    except Recoverable:
                        note("in handler", lib.is_grad_enabled())
                        raised = True

            return coro

        for outer, mode in ((lib.enable_grad, lib.no_grad), (lib.no_grad, lib.enable_grad)):
            with outer():
                generator = make(mode)()
                note("first", next(generator))
                try:
                    while True:
                        note("after throw", generator.throw(Recoverable))
                except StopIteration:
                    pass

    parity(script)


def test_set_grad_coroutines_critical_exceptions(parity):
    class Unrecoverable(Exception):
        pass

    class Secondary(Exception):
        pass

    def script(lib, note):
        def make(mode):
            @mode()
            def coro(n=4):
                for i in range(n):
                    try:
                        yield i
                    except Unrecoverable:
                        note("in handler", lib.is_grad_enabled())
                        raise Secondary from None

            return coro

        for outer, mode in ((lib.enable_grad, lib.no_grad), (lib.no_grad, lib.enable_grad)):
            with outer():
                generator = make(mode)()
                next(generator)
                note("throw", error_of(lambda g=generator: g.throw(Unrecoverable)))
                note("outside", lib.is_grad_enabled())

    parity(script)


def test_set_grad_coroutines_exit(parity):
    def script(lib, note):
        def make(mode):
            @mode()
            def coro():
                for i in range(10):
                    try:
                        yield i
                    except GeneratorExit:
                        note("at exit", lib.is_grad_enabled())
                        raise

            return coro

        for outer, mode in ((lib.enable_grad, lib.no_grad), (lib.no_grad, lib.enable_grad)):
            with outer():
                generator = make(mode)()
                for _ in range(3):
                    next(generator)
                generator.close()
                note("after close", lib.is_grad_enabled())

    parity(script)


def test_set_grad_enabled(parity):
    def script(lib, note):
        x = lib.tensor([1.0], requires_grad=True)
        with lib.set_grad_enabled(False):
            note("off", x * 2)
        with lib.set_grad_enabled(True):
            note("on", x * 2)
        with lib.set_grad_enabled(False):
            lib.set_grad_enabled(True)
            note("switched on inside", x * 2)
        note("after", lib.is_grad_enabled())
        note("not a bool", error_of(lambda: lib.set_grad_enabled("yes")))

    parity(script)


def test_set_grad_enabled_wraps(parity):
    def script(lib, note):
        for as_decorator in (True, False):
            with lib.enable_grad():
                if as_decorator:

                    @lib.set_grad_enabled(False)
                    def inner(t):
                        return t * 3

                else:

                    def plain_inner(t):
                        return t * 3

                    switch = lib.set_grad_enabled(False)
                    note("switched at once", lib.is_grad_enabled())
                    inner = switch(plain_inner)
                note("after decorating", lib.is_grad_enabled())
                x = lib.zeros(1, requires_grad=True)
                note("result", inner(x))

    parity(script)


def test_no_grad_assignment(parity):
    def script(lib, note):
        x = lib.arange(10.0).reshape(2, 5).requires_grad_()
        y = lib.tensor([9.0, 8.0, 7.0, 6.0, 5.0])
        with lib.no_grad():
            x[0] = y
        note("x", x)

    parity(script)


def test_no_grad_modifies_version(parity):
    def script(lib, note):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
        z = (x * y).sum()
        with lib.no_grad():
            x *= 2
        note("x version", x._version)
        note("backward", error_of(lambda: z.backward()))

    parity(script)


def _nan_function(lib, fail_first):
    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, grad):
            g = grad.clone().expand(4).clone()
            g[0] = float("nan")
            return (g, None) if fail_first else (None, g)

    return MyFunc


def test_anomaly_detect_nan(parity):
    def script(lib, note):
        inp = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        out = _nan_function(lib, True).apply(inp, inp)
        out.backward()
        note("without anomaly mode", plain(inp.grad))

        for fail_first in (True, False):
            inp = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
            out = _nan_function(lib, fail_first).apply(inp, inp)
            with lib.autograd.detect_anomaly():
                note(f"nan error {fail_first}", error_of(lambda o=out: o.backward()))

    parity(script)


def test_nested_anomaly_detect_nan(parity):
    def script(lib, note):
        class Inner(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 2.0 + b

            @staticmethod
            def backward(ctx, grad):
                first = grad.clone()
                first[0] = float("nan")
                return first, grad.clone()

        class Outer(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 1.0

            @staticmethod
            def backward(ctx, grad):
                (a,) = ctx.saved_tensors
                return Inner.apply(grad * a, grad + a)

        inp = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        out = Outer.apply(inp).sum()
        (ginp,) = lib.autograd.grad(out, (inp,), create_graph=True)
        with lib.autograd.detect_anomaly():
            note("nested nan", error_of(lambda: ginp.sum().backward()))

    parity(script)


def test_anomaly_grad_warnings(parity):
    def script(lib, note):
        def run():
            with lib.autograd.detect_anomaly():
                a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
                d1 = a + 1
                d2 = d1**2
                d1 += 1
                note("error", error_of(lambda: lib.autograd.grad(d2.sum(), a)))

        caught = warnings_of(run)
        note("first warning", caught[0])
        note("second warning names the node", "PowBackward0" in caught[1][1])

    parity(script)


def test_anomaly_mode_no_check_nan(parity):
    def script(lib, note):
        class MyFunc(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a.clone()

            @staticmethod
            def backward(ctx, grad):
                return lib.full((2, 2), float("nan"))

        def run():
            with lib.autograd.detect_anomaly(check_nan=False):
                inp = lib.ones(2, 2, requires_grad=True)
                out = MyFunc.apply(inp).sum()
                out.backward(retain_graph=True)
                note("no check", plain(inp.grad))
                with lib.autograd.detect_anomaly(check_nan=True):
                    note("check", error_of(lambda: out.backward(retain_graph=True)))
                out.backward()

        warnings_of(run)

    parity(script)
