"""How a check protects itself from the learner's code: `checked` wraps every check.

- The check runs in a worker thread and the caller waits at most `TIME_LIMIT` seconds, so an
  endless loop (or an endless iterable handed back) ends in a "Not yet" instead of a hung cell.
  Python cannot stop a thread from outside (signals only reach the main thread), so a timed-out
  answer may go on running in the background until the kernel is restarted; the message says so.
- Anything raised inside, `SystemExit` from `exit()` included, becomes a message; only
  `KeyboardInterrupt` (the learner pressing stop) is passed on. In a kernel, IPython's `exit()`
  does not raise but asks the kernel to stop: that request is cancelled.
- The scenario runs with grad mode enabled, whatever the notebook's mode is, and the caller's
  mode is restored afterwards (a learner's `set_grad_enabled(False)` leaks in neither direction).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import minigrad as mg

try:
    from IPython import get_ipython
except ImportError:  # not in a Jupyter kernel, nor with IPython installed
    get_ipython = None

from .feedback import collect, describe_error, get_language, not_yet, tr, valid_language

TIME_LIMIT = 10.0  # seconds one check may take, the learner's code included


def _cancel_exit_request() -> bool:
    """Undo IPython's exit(): in a kernel it does not raise, it asks the kernel to stop."""
    shell = get_ipython() if get_ipython is not None else None
    if shell is None or not getattr(shell, "exit_now", False):
        return False
    shell.exit_now = False
    payloads = getattr(getattr(shell, "payload_manager", None), "_payload", None)
    if isinstance(payloads, list):
        payloads[:] = [p for p in payloads if p.get("source") != "ask_exit"]
    return True


def _run(check: Callable[..., bool], args: tuple, kwargs: dict, interrupted: list) -> None:
    """The body of the worker thread: the check, with whatever it raises turned into feedback."""
    try:
        mg.set_grad_enabled(True)  # the scenarios need recording, whatever the caller did
        check(*args, **kwargs)
    except KeyboardInterrupt as stop:
        interrupted.append(stop)
    except SystemExit:
        not_yet(
            tr(
                "sandbox.exit",
                "your code called exit() (or sys.exit()), which would stop the kernel.",
            ),
            tr(
                "sandbox.exit-hint", "remove that call, run the cell again, then re-run this check."
            ),
        )
    except BaseException as error:  # noqa: BLE001 - report anything the code raises
        not_yet(
            tr("sandbox.raised", "running your code raised {error}", error=describe_error(error)),
            tr(
                "sandbox.raised-hint",
                "read the message, fix the cell above, run it again, then re-run this check.",
            ),
        )


def checked(check: Callable[..., bool]) -> Callable[..., None]:
    """`check`, run time-boxed in a worker thread with grad mode on; it prints its feedback and
    returns None, so a check cell shows only the feedback.

    The returned function also takes `lang="en"` or `lang="zh"`: the language of this call's
    feedback (default: the package's setting, see `set_language`).
    """

    @functools.wraps(check)
    def wrapper(*args: Any, lang: str | None = None, **kwargs: Any) -> None:
        language = valid_language(lang) if lang is not None else get_language()
        caller_mode = mg.is_grad_enabled()
        lines: list[str] = []
        interrupted: list[BaseException] = []

        def work() -> None:
            collect(lines, language)
            _run(check, args, kwargs, interrupted)

        worker = threading.Thread(target=work, name=f"course_checks.{check.__name__}")
        worker.daemon = True  # a runaway answer must not keep the kernel from shutting down
        worker.start()
        worker.join(TIME_LIMIT)
        finished = not worker.is_alive()
        mg.set_grad_enabled(caller_mode)
        exit_requested = _cancel_exit_request()
        for line in list(lines):
            print(line)
        # What follows is said in the caller's thread, in the call's language too.
        collect(None, language)
        try:
            if not finished:
                not_yet(
                    tr(
                        "sandbox.timeout",
                        "the check stopped waiting after {seconds:g} s; your code (or something "
                        "it returned, such as an endless generator) did not finish. It may go on "
                        "running in the background: restart the kernel if the notebook gets slow.",
                        seconds=TIME_LIMIT,
                    ),
                    tr("sandbox.timeout-hint", "look for a loop that never ends."),
                )
            if exit_requested and not any("exit()" in line for line in lines):
                not_yet(
                    tr(
                        "sandbox.exit-requested",
                        "your code called exit(), which would stop the kernel. Remove it.",
                    )
                )
        finally:
            collect(None, None)
        if interrupted:
            raise interrupted[0]

    return wrapper
