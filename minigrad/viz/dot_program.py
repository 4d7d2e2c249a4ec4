"""Running Graphviz's `dot`: bounded in time, and with one clear error when it cannot run.

Without this, a learner whose PATH has no `dot` sees `FileNotFoundError: ... 'dot'` from deep
inside `subprocess` when a picture is displayed, and a broken `dot` gives a CalledProcessError
that hides what dot printed. Here both become one error whose last line says what to do.
"""

from __future__ import annotations

import subprocess

import graphviz

from . import wasm_render

__all__ = [
    "INSTALL_HINT",
    "REINSTALL_HINT",
    "GraphRenderTimeoutError",
    "GraphvizFailedError",
    "GraphvizNotFoundError",
    "run_dot",
]

COMMANDS = (
    "`apt-get install graphviz` (Debian, Ubuntu), `conda install -c conda-forge graphviz` "
    "(conda), `brew install graphviz` (macOS), or see https://graphviz.org/download/"
)
INSTALL_HINT = f"Install Graphviz (and restart the kernel if `dot` is still not found): {COMMANDS}"
REINSTALL_HINT = f"A broken Graphviz install is the usual cause; install it again: {COMMANDS}"
TEXT_HINT = "viz.summary(...) shows the same graph as text and works without Graphviz."


class GraphvizNotFoundError(graphviz.ExecutableNotFound):
    """Graphviz's `dot` is not on PATH: no picture can be drawn (the text summary still can)."""

    def __init__(self, program: str) -> None:
        RuntimeError.__init__(
            self,
            f"Graphviz's `{program}` program is not on PATH, so this graph cannot be drawn.\n"
            f"{TEXT_HINT}\n{INSTALL_HINT}",
        )


class GraphvizFailedError(RuntimeError):
    """`dot` ran but failed; the message carries what it printed on stderr."""

    def __init__(self, program: str, returncode: int, stderr: str) -> None:
        said = stderr.strip() or "(nothing on stderr)"
        super().__init__(
            f"Graphviz's `{program}` failed (exit status {returncode}) while drawing this "
            f"graph. It said:\n{said}\n{TEXT_HINT}\n{REINSTALL_HINT}"
        )
        self.returncode = returncode
        self.stderr = stderr


class GraphRenderTimeoutError(RuntimeError):
    """Graphviz's `dot` took longer than `Graph.render_timeout` seconds to lay the graph out."""


def run_dot(
    source: str, args: list[str], timeout: float, nodes: int, program: str = "dot"
) -> bytes:
    """Run `program *args` on `source`; its stdout, or one of the errors above."""
    if wasm_render.available():  # Python in a browser: no program runs, Graphviz comes as wasm
        return wasm_render.render(source, args, program)
    try:
        finished = subprocess.run(
            [program, *args],
            input=source.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
        )
    except FileNotFoundError:
        raise GraphvizNotFoundError(program) from None
    except PermissionError:  # a `dot` on PATH that is not executable
        raise GraphvizNotFoundError(program) from None
    except subprocess.TimeoutExpired:
        raise GraphRenderTimeoutError(
            f"Graphviz needed more than {timeout:g} s to lay out this graph of {nodes} nodes. "
            "Draw a smaller part of it (fewer roots or names), or set graph.render_timeout "
            "(viz.Graph.render_timeout for every picture) to a larger number of seconds and "
            "display it again."
        ) from None
    if finished.returncode != 0:
        raise GraphvizFailedError(
            program, finished.returncode, finished.stderr.decode("utf-8", "replace")
        )
    return finished.stdout
