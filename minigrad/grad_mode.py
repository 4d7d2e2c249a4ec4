"""Grad mode: whether operations on tensors that require grad are recorded at all.

`with no_grad():` switches recording off for everything inside (how optimisers update
parameters without the update becoming part of the graph); `enable_grad()` switches it back on
inside; `set_grad_enabled(flag)` does either. Each also works as a decorator.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled"]


class _GradMode:
    enabled = True


def is_grad_enabled() -> bool:
    """True when operations on tensors that require grad are being recorded."""
    return _GradMode.enabled


F = TypeVar("F", bound=Callable[..., Any])


class _GradModeContext:
    """Shared body of `no_grad`, `enable_grad` and `set_grad_enabled`."""

    mode = True

    def __enter__(self) -> None:
        self._previous = _GradMode.enabled
        _GradMode.enabled = self.mode

    def __exit__(self, *exc_info: object) -> None:
        _GradMode.enabled = self._previous

    def __call__(self, function: F) -> F:
        """Use the context as a decorator: the whole function runs in this grad mode."""

        @functools.wraps(function)
        def run_in_mode(*args: Any, **kwargs: Any) -> Any:
            with type(self)():
                return function(*args, **kwargs)

        return run_in_mode  # type: ignore[return-value]


class no_grad(_GradModeContext):  # noqa: N801 - torch's name
    """Context manager and decorator: nothing computed inside is recorded in the graph."""

    mode = False


class enable_grad(_GradModeContext):  # noqa: N801 - torch's name
    """Context manager and decorator: record operations again, even inside `no_grad`."""

    mode = True


class set_grad_enabled(_GradModeContext):  # noqa: N801 - torch's name
    """Switch recording on or off: as a call it takes effect at once, as a `with` until exit."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._previous = _GradMode.enabled
        _GradMode.enabled = self.mode  # torch applies it immediately, not only in `with`

    def __enter__(self) -> None:
        _GradMode.enabled = self.mode

    def __call__(self, function: F) -> F:
        """Decorator form: the function runs with recording set to `mode`."""
        _GradMode.enabled = self._previous  # the decorator form must not leak the mode
        mode = self.mode

        @functools.wraps(function)
        def run_in_mode(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return function(*args, **kwargs)

        return run_in_mode  # type: ignore[return-value]
