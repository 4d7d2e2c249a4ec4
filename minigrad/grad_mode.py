"""Grad mode: whether operations on tensors that require grad are recorded at all.

`with no_grad():` switches recording off for everything inside (how optimisers update
parameters without the update becoming part of the graph); `enable_grad()` switches it back on
inside; `set_grad_enabled(flag)` does either. `inference_mode()` is a stricter `no_grad`: what
it makes can never join a graph later. Each works as a decorator too, also on a generator
function (the mode then covers every step of the iteration).

As in torch, grad mode belongs to a thread: `no_grad` in one thread does not switch recording
off in another. Anomaly mode (`set_detect_anomaly`) is one switch for the whole process.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from .watch import seen, watchers

__all__ = [
    "detect_anomaly",
    "enable_grad",
    "inference_mode",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
]


class _ThreadState(threading.local):
    """The modes of one thread; a new thread starts with recording on, as in torch."""

    grad_mode = True  # what is_grad_enabled() says
    inference = False  # inside inference_mode()
    enabled = True  # operations are recorded: grad mode on and not in inference mode


_state = _ThreadState()


class _Anomaly:
    """Anomaly detection: one process-wide switch, as in torch."""

    enabled = False
    check_nan = True


def is_grad_enabled() -> bool:
    """True in grad mode: operations on tensors that require grad are recorded (unless inside
    inference_mode, which records nothing even under enable_grad, as in torch)."""
    return _state.grad_mode


def _set_grad_mode(mode: bool) -> None:
    if watchers:  # viz.trace(): where a no_grad region starts (see watch.py)
        seen("_set_grad_enabled", (), mode)
    _state.grad_mode = mode
    _state.enabled = mode and not _state.inference


def is_inference_mode_enabled() -> bool:
    """True inside `inference_mode()`."""
    return _state.inference


def is_anomaly_enabled() -> bool:
    """True while anomaly detection records where each node was made."""
    return _Anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """True while anomaly detection also checks backward results for nan."""
    return _Anomaly.check_nan


F = TypeVar("F", bound=Callable[..., Any])


def _check_bool(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"{what}(): argument 'enabled' (position 1) must be bool, not {type(value).__name__}"
        )
    return value


class _ModeContext:
    """Shared body of the mode switches: a context manager, and a decorator for functions and
    generator functions. Subclasses say what `_switch()` sets and return what to restore."""

    def _switch(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _restore(self, previous: tuple[Any, ...]) -> None:
        raise NotImplementedError

    def _fresh(self) -> _ModeContext:
        """A new context of the same kind and settings (one per call of a decorated function)."""
        return self

    def __enter__(self) -> None:
        self._previous = self._switch()

    def __exit__(self, *exc_info: object) -> None:
        self._restore(self._previous)

    def __call__(self, function: F) -> F:
        """Use the context as a decorator: the whole function runs in this mode."""
        if inspect.isclass(function):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = function
            function = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731 - as torch
        if inspect.isgeneratorfunction(function):
            return self._wrap_generator(function)  # type: ignore[return-value]

        @functools.wraps(function)
        def run_in_mode(*args: Any, **kwargs: Any) -> Any:
            with self._fresh():
                return function(*args, **kwargs)

        return run_in_mode  # type: ignore[return-value]

    def _wrap_generator(self, function: Callable[..., Generator]) -> Callable[..., Generator]:
        """Each step of the generator runs in the mode; the caller's mode is back in between.

        What the caller sends or throws in is passed on inside the mode too, so a coroutine's
        exception handler also runs in it."""

        @functools.wraps(function)
        def generate_in_mode(*args: Any, **kwargs: Any) -> Generator:
            generator = function(*args, **kwargs)
            try:
                with self._fresh():
                    value = generator.send(None)
                while True:
                    try:
                        received = yield value
                    except GeneratorExit:
                        with self._fresh():
                            generator.close()
                        raise
                    except BaseException as thrown:  # noqa: BLE001 - passed on to the generator
                        with self._fresh():
                            value = generator.throw(thrown)
                    else:
                        with self._fresh():
                            value = generator.send(received)
            except StopIteration as stop:
                return stop.value

        return generate_in_mode


class _NoParamModeContext(_ModeContext):
    """A mode switch that also decorates without parentheses: `@no_grad`, `no_grad(f)`."""

    def __new__(cls, function: Any = None) -> Any:
        if function is None:
            return super().__new__(cls)
        return cls()(function)


class _GradModeContext(_ModeContext):
    mode = True

    def _fresh(self) -> _ModeContext:
        return type(self)()

    def _switch(self) -> tuple[Any, ...]:
        previous = (_state.grad_mode,)
        _set_grad_mode(self.mode)
        return previous

    def _restore(self, previous: tuple[Any, ...]) -> None:
        _set_grad_mode(previous[0])


class no_grad(_GradModeContext, _NoParamModeContext):  # noqa: N801 - torch's name
    """Context manager and decorator (`@no_grad()`, `@no_grad`, `no_grad(f)`): nothing
    computed inside is recorded in the graph."""

    mode = False


class enable_grad(_GradModeContext, _NoParamModeContext):  # noqa: N801 - torch's name
    """Context manager and decorator (also without parentheses): record operations again,
    even inside `no_grad`."""

    mode = True


class set_grad_enabled(_GradModeContext):  # noqa: N801 - torch's name
    """Switch recording on or off: as a call it takes effect at once, as a `with` until exit."""

    def __init__(self, mode: bool) -> None:
        self.mode = _check_bool(mode, "set_grad_enabled")
        self._previous = self._switch()  # torch applies it immediately, not only in `with`

    def _fresh(self) -> _ModeContext:
        context = _GradModeContext()  # a plain switch to the same mode, for each decorated call
        context.mode = self.mode
        return context

    def __enter__(self) -> None:
        _set_grad_mode(self.mode)  # already switched by __init__; keep its _previous

    def __call__(self, function: F) -> F:
        """Decorator form: the function runs with recording set to `mode`."""
        self._restore(self._previous)  # the decorator form must not leak the mode
        return super().__call__(function)


class inference_mode(_ModeContext):  # noqa: N801 - torch's name
    """Like `no_grad`, stricter: tensors made inside are *inference tensors*.

    An inference tensor has no version counter and can never be saved for backward later, so
    torch can skip that bookkeeping; `t.is_inference()` tells them apart.
    """

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # `@inference_mode` without parentheses, as torch allows

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def _fresh(self) -> _ModeContext:
        return inference_mode(self.mode)

    def _switch(self) -> tuple[Any, ...]:
        previous = (_state.grad_mode, _state.inference)
        _state.inference = self.mode
        _set_grad_mode(not self.mode)  # inference_mode(False) turns grad mode on, as torch
        return previous

    def _restore(self, previous: tuple[Any, ...]) -> None:
        _state.inference = previous[1]
        _set_grad_mode(previous[0])


class set_detect_anomaly(_ModeContext):  # noqa: N801 - torch's name
    """Switch anomaly detection on or off: at once as a call, until exit as a `with`.

    While it is on, every recorded node keeps the traceback of the line that made it, and when
    its backward fails, a warning shows that traceback before the error: the line to look at.
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.mode = _check_bool(mode, "set_anomaly_enabled")
        self.check_nan = check_nan
        self._previous = self._switch()

    def _switch(self) -> tuple[Any, ...]:
        previous = (_Anomaly.enabled, _Anomaly.check_nan)
        _Anomaly.enabled, _Anomaly.check_nan = self.mode, self.check_nan
        return previous

    def _restore(self, previous: tuple[Any, ...]) -> None:
        _Anomaly.enabled, _Anomaly.check_nan = previous

    def __enter__(self) -> None:
        _Anomaly.enabled, _Anomaly.check_nan = self.mode, self.check_nan


class detect_anomaly(_ModeContext):  # noqa: N801 - torch's name
    """Context manager and decorator: anomaly detection on inside (with torch's warning)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def _switch(self) -> tuple[Any, ...]:
        previous = (_Anomaly.enabled, _Anomaly.check_nan)
        _Anomaly.enabled, _Anomaly.check_nan = True, self.check_nan
        return previous

    def _restore(self, previous: tuple[Any, ...]) -> None:
        _Anomaly.enabled, _Anomaly.check_nan = previous
